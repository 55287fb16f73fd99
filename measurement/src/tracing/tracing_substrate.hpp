// SPDX-License-Identifier: BSD-3-Clause
// The tracing substrate: compact per-location buffers, converted to OTF2.
#pragma once

#include <cstdint>

#include "core/substrate.hpp"

namespace strata::tracing {

const substrate::Callbacks& substrate_callbacks();

}  // namespace strata::tracing
