// SPDX-License-Identifier: BSD-3-Clause
// A location's timestamps on rank 0's clock, from its ClockOffset
// definitions (METRICS.md "Clock synchronisation"):
//
//   offsets (t1, o1) at init, (t2, o2) at finalize, sorted by local time
//   t between t1 and t2   ->  t + o1 + (o2 - o1)(t - t1)/(t2 - t1)
//   t before t1, after t2 ->  the same line, extrapolated (as OTF2's reader
//                             does: the start of MPI_Init and the end of
//                             MPI_Finalize lie outside the two points)
//   one offset             ->  t + o1;   none  ->  t
//
// With more than two points each pair of neighbours is one such segment;
// times before the first point follow the first, times after the last the
// last.  Integer arithmetic (128-bit intermediates, rounding toward minus
// infinity), so the same trace always gives the same corrected times (OTF2's
// reader rounds a double to the nearest: a corrected time may differ from it
// by a tick).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace strata::analysis::trace {

class LogicalShift;

/// floor(a / b) for b > 0.
inline __int128 floor_div(__int128 a, __int128 b) {
    __int128 q = a / b;
    if ((a % b != 0) && (a < 0)) --q;
    return q;
}

/// The piecewise linear map from a location's clock to rank 0's.
///
/// The offset added to a time changes only every so many ticks (by one at a
/// time where the offsets drift, never where they are constant).  correct()
/// keeps the range of times around the last one that share its offset, so
/// that the events of a location, which come in time order a few ticks apart,
/// are corrected with one comparison and one addition; a time outside the
/// range computes its own offset and range from the points.
class ClockCorrection {
public:
    /// Records the offset `offset` measured at local time `time`.
    void add(std::uint64_t time, std::int64_t offset);

    /// `time` on rank 0's clock (the sum wraps modulo 2^64, as the 128-bit
    /// arithmetic of the definition does when it is narrowed).
    std::int64_t correct(std::uint64_t time) {
        if (time - cursor_.first <= cursor_.extent) return static_cast<std::int64_t>(time + cursor_.offset);
        return restart(time);
    }

    /// correct() when `time` shares the last corrected time's offset (the
    /// usual case): no call.  False, and nothing done, otherwise.
    bool correct_nearby(std::uint64_t time, std::int64_t* corrected) const {
        if (time - cursor_.first > cursor_.extent) return false;
        *corrected = static_cast<std::int64_t>(time + cursor_.offset);
        return true;
    }

    /// Number of offsets recorded.
    std::size_t points() const { return points_.size(); }

    /// From now on also moves every corrected time t to t + shift(t) (the
    /// controlled logical clock, logical_clock.hpp); `shift` must outlive
    /// this, nullptr stops it.
    void follow(const LogicalShift* shift);

private:
    /// The times first .. first + extent all add `offset` (two's complement).
    struct Cursor {
        std::uint64_t first = 0;
        std::uint64_t extent = UINT64_MAX;
        std::uint64_t offset = 0;
    };

    /// correct() from the points, and the cursor set to the range of `time`.
    std::int64_t restart(std::uint64_t time);
    /// The cursor of `time` narrowed to the times that also share its logical move, which it adds.
    void add_logical_move(std::uint64_t time);

    std::vector<std::pair<std::uint64_t, std::int64_t>> points_;  ///< sorted by time
    Cursor cursor_;  ///< always valid: no points, every time unchanged
    Cursor base_;    ///< the offsets' own cursor, which cursor_ narrows where a logical move is followed
    const LogicalShift* logical_ = nullptr;
};

}  // namespace strata::analysis::trace
