// SPDX-License-Identifier: BSD-3-Clause
// The one type of a time in ticks, on both sides of Strata: a reading of a
// process's timer in the runtime, a time on rank 0's clock in the analysis.
// Header-only: the analysis shares it without linking the runtime.
#pragma once

#include <cstdint>

namespace strata {

/// Ticks of a timer (TSC ticks or nanoseconds, as the trace's clock properties
/// say).  Signed: differences, offsets between clocks and corrected times may
/// be negative.  63 bits hold 292 years of nanoseconds, or 97 years of a
/// 3 GHz TSC since boot.  OTF2 writes times unsigned: the conversion to and
/// from OTF2_TimeStamp is at the file's edge.
using Ticks = std::int64_t;

}  // namespace strata
