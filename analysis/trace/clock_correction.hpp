// SPDX-License-Identifier: BSD-3-Clause
// A location's timestamps on rank 0's clock, from its ClockOffset
// definitions (METRICS.md "Clock synchronisation"):
//
//   offsets (t1, o1) at init, (t2, o2) at finalize, sorted by local time
//   t between t1 and t2   ->  t + o1 + (o2 - o1)(t - t1)/(t2 - t1)
//   t before t1 / after t2 ->  t + o1 / t + o2       (held constant outside)
//   one offset             ->  t + o1;   none  ->  t
//
// With more than two points each pair of neighbours is one such segment.
// Integer arithmetic (128-bit intermediates, rounding toward minus
// infinity), so the same trace always gives the same corrected times.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace strata::analysis::trace {

/// The piecewise linear map from a location's clock to rank 0's.
class ClockCorrection {
public:
    /// Records the offset `offset` measured at local time `time`.
    void add(std::uint64_t time, std::int64_t offset);

    /// `time` on rank 0's clock.  Inline for the usual case of one offset
    /// throughout (called for every event); the sum wraps modulo 2^64 as
    /// the general path's 128-bit sum does when it is narrowed.
    std::int64_t correct(std::uint64_t time) const {
        if (constant_) return static_cast<std::int64_t>(time + static_cast<std::uint64_t>(offset_));
        return interpolate(time);
    }

    /// Number of offsets recorded.
    std::size_t points() const { return points_.size(); }

private:
    std::int64_t interpolate(std::uint64_t time) const;

    std::vector<std::pair<std::uint64_t, std::int64_t>> points_;  ///< sorted by time
    bool constant_ = true;     ///< no point, or every point has offset_
    std::int64_t offset_ = 0;  ///< the offset when constant_
};

}  // namespace strata::analysis::trace
