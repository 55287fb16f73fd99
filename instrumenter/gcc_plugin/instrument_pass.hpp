// SPDX-License-Identifier: BSD-3-Clause
// The GIMPLE pass of Strata's GCC plugin: which functions it instruments and with what.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "filter/filter_rules.hpp"

// Forward declarations only: GCC's headers are included by the .cpp files.
namespace gcc {
class context;
}
class opt_pass;
struct ggc_root_tab;

namespace strata::gcc_plugin {

/// The wrapper's --instrument-filter file (none: every function GCC would instrument).  It is
/// applied exactly as the runtime applies STRATA_FILTERING_FILE: to the name the runtime gives
/// the region (the demangled symbol), the symbol for MANGLED rules, and the descriptor's file.
using CompileTimeFilter = std::optional<strata::filter::FilterFile>;

/// The trees the pass keeps between functions, for PLUGIN_REGISTER_GGC_ROOTS.
const ggc_root_tab* gc_roots();

/// The pass, run on each function before the "lower" pass (while the body is still a
/// GIMPLE_BIND with structured try/finally): it emits the function's descriptor and the
/// checked calls of strata_plugin_enter/exit.
opt_pass* make_instrument_pass(gcc::context* context, const CompileTimeFilter& filter);

}  // namespace strata::gcc_plugin
