// SPDX-License-Identifier: BSD-3-Clause
// Shared by the two kinds of hooks: the answer for functions that are never recorded, and the
// registration of a GCC plugin descriptor, which uses the resolver and lock of the
// -finstrument-functions hooks (cyg_profile_hooks.cpp).
#pragma once

#include <cstdint>

#include "plugin_function.h"
#include "strata/measurement/types.hpp"

namespace strata::compiler {

/// Cached for functions that are never recorded: the address map's value and the plugin
/// descriptors' STRATA_PLUGIN_FILTERED.  Region handles stay below 2^31.
constexpr RegionHandle kSkip = STRATA_PLUGIN_FILTERED;

/// Decides `function` once for the whole process (the first thread to get here; the others
/// wait on the resolver's lock and find the handle set): its region, or kSkip, stored in
/// function->handle.  `code` is an address in the function's code.  Returns kSkip without
/// storing it when called from inside the resolver (an instrumented operator new, say).
RegionHandle register_plugin_function(strata_plugin_function* function, std::uintptr_t code);

}  // namespace strata::compiler
