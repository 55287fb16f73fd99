// SPDX-License-Identifier: BSD-3-Clause
// The tracing substrate: compact per-location buffers, converted to OTF2.
#pragma once

#include <cstdint>

#include "core/substrate.hpp"

namespace strata::tracing {

const substrate::Callbacks& substrate_callbacks();

/// Totals of the run so far (for tests and the end-of-run report).
struct TraceStats {
    std::uint64_t records = 0;       ///< records written to buffers
    std::uint64_t buffer_bytes = 0;  ///< bytes of those records
    std::uint64_t flushes = 0;       ///< buffer flushes during the run
    std::uint64_t lost = 0;          ///< records that could not be stored
};
TraceStats stats();

}  // namespace strata::tracing
