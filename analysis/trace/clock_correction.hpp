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
///
/// A location's events come in time order, a few ticks apart: correct()
/// keeps the segment of the last time and the interpolation's quotient and
/// remainder, and carries them to the next time (a multiplication and a
/// comparison) instead of dividing anew for every event.  Any other time
/// (earlier, another segment, a long step) is computed from the points.
class ClockCorrection {
public:
    /// Records the offset `offset` measured at local time `time`.
    void add(std::uint64_t time, std::int64_t offset);

    /// `time` on rank 0's clock.  Inline for the usual cases: one offset
    /// throughout, or the next time of the same segment; the sum wraps
    /// modulo 2^64 as the general path's 128-bit sum does when it is narrowed.
    std::int64_t correct(std::uint64_t time) {
        if (constant_) return static_cast<std::int64_t>(time + static_cast<std::uint64_t>(offset_));
        Cursor& c = cursor_;
        if (time >= c.time && time < c.end && time - c.time <= c.max_step) {
            // delta * step < span: at most one carry into (or borrow from) the quotient.
            const std::uint64_t change = c.drift * (time - c.time);
            if (c.rising) {
                c.remainder += change;
                if (c.remainder >= c.span) {
                    c.remainder -= c.span;
                    ++c.quotient;
                }
            } else if (change <= c.remainder) {
                c.remainder -= change;
            } else {
                c.remainder += c.span - change;
                --c.quotient;
            }
            c.time = time;
            return static_cast<std::int64_t>(time + c.offset + c.quotient);
        }
        return restart(time);
    }

    /// Number of offsets recorded.
    std::size_t points() const { return points_.size(); }

private:
    /// Within the segment [t1, end) with offsets o1 and o2, at `time`:
    /// (o2 - o1)(time - t1) = quotient * span + remainder, 0 <= remainder < span.
    struct Cursor {
        std::uint64_t time = 1;  ///< time > end: no segment yet
        std::uint64_t end = 0;
        std::uint64_t span = 1;       ///< end - t1, at most INT64_MAX
        std::uint64_t drift = 0;      ///< |o2 - o1|
        std::uint64_t max_step = 0;   ///< the longest step with drift * step < span
        bool rising = true;           ///< o2 >= o1
        std::uint64_t offset = 0;     ///< o1 (two's complement)
        std::uint64_t quotient = 0;   ///< (two's complement)
        std::uint64_t remainder = 0;
    };

    /// correct() from the points; sets the cursor where `time` lies inside a segment.
    std::int64_t restart(std::uint64_t time);

    std::vector<std::pair<std::uint64_t, std::int64_t>> points_;  ///< sorted by time
    bool constant_ = true;     ///< no point, or every point has offset_
    std::int64_t offset_ = 0;  ///< the offset when constant_
    Cursor cursor_;
};

}  // namespace strata::analysis::trace
