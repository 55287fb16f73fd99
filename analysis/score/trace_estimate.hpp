// SPDX-License-Identifier: BSD-3-Clause
// How large a trace of a run like the profiled one would be, as scorep-score
// estimates it: before tracing a long run, a user learns how much disk it
// takes and how much memory (STRATA_TOTAL_MEMORY) keeps Strata from flushing
// its buffers during the run.
//
// From the visits of every call path on every location:
//   - Strata's trace buffer (memory): per visit an enter and a leave record of
//     1 type byte, the time since the previous record and the region as
//     LEB128 varints (the time: the call path's mean inclusive time per visit
//     in timer ticks, as a bound for both); with counters a metric record
//     after each (3 bytes and 5 per counter); for an MPI point-to-point call
//     one message record of 12 bytes, for a collective two (begin 3, end 12),
//     for MPI_Wait* and MPI_Test* one completion or request-test record (5);
//   - the OTF2 files: 12 bytes per enter, leave and message event (record,
//     length, references, and the timestamp OTF2 writes before an event of a
//     new time), with counters a metric event of 4 + 9 per counter bytes
//     after each enter and leave.  Real MPI traces had 12.3 (HPCC) and 12.8
//     (LAMMPS) bytes per event.
// Figures are estimates: a wait or test of several requests may record more
// than one event; parameters, OpenMP thread events and definitions are not
// counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "profile/profile.hpp"

namespace strata::analysis {

struct TraceEstimate {
    std::uint64_t events = 0;      ///< OTF2 events of all locations
    double otf2_bytes = 0.0;       ///< the OTF2 event files of all locations
    double largest_location_otf2_bytes = 0.0;
    std::size_t largest_location = 0;  ///< index into profile.locations
    /// Strata's trace buffers of the rank whose locations need the most: what
    /// STRATA_TOTAL_MEMORY must hold (beside the profile) for no flush.
    double largest_rank_buffer_bytes = 0.0;
    std::uint32_t largest_rank = 0;
};

/// The estimate for `profile`; with `left_out` (per region, e.g. what a
/// filter leaves out), as if those regions were not recorded.
TraceEstimate estimate_trace(const Profile& profile, const std::vector<bool>* left_out = nullptr);

/// "4.2 GiB", "512 KiB", "17 bytes" (binary units, as STRATA_TOTAL_MEMORY
/// reads them; two significant digits, more for large values).
std::string format_bytes(double bytes);

}  // namespace strata::analysis
