// SPDX-License-Identifier: BSD-3-Clause
// Linear interpolation between clock offsets (see clock_correction.hpp).
#include "trace/clock_correction.hpp"

#include <algorithm>
#include <cstdint>

namespace strata::analysis::trace {

namespace {

/// floor(a / b) for b > 0.
__int128 floor_div(__int128 a, __int128 b) {
    __int128 q = a / b;
    if ((a % b != 0) && (a < 0)) --q;
    return q;
}

}  // namespace

void ClockCorrection::add(std::uint64_t time, std::int64_t offset) {
    const auto at = std::upper_bound(points_.begin(), points_.end(), std::make_pair(time, offset));
    points_.insert(at, {time, offset});
    if (points_.size() == 1) offset_ = offset;
    constant_ = constant_ && offset == offset_;
}

std::int64_t ClockCorrection::restart(std::uint64_t time) {
    cursor_ = Cursor{};
    const auto t = static_cast<__int128>(time);
    if (points_.empty()) return static_cast<std::int64_t>(t);
    if (time <= points_.front().first) return static_cast<std::int64_t>(t + points_.front().second);
    if (time >= points_.back().first) return static_cast<std::int64_t>(t + points_.back().second);
    // The segment [t1, t2) holding time: the last point at or before it
    // (with the usual two points, the only segment).
    const auto next = points_.size() == 2
                          ? points_.begin() + 1
                          : std::upper_bound(points_.begin(), points_.end(), time,
                                             [](std::uint64_t v, const auto& p) { return v < p.first; });
    const auto& [t1, o1] = *(next - 1);
    const auto& [t2, o2] = *next;
    const __int128 span = static_cast<__int128>(t2) - t1;  // > 0: t1 <= time < t2
    const __int128 delta = static_cast<__int128>(o2) - o1;
    const __int128 quotient = floor_div(delta * (t - t1), span);
    // The cursor needs the remainder and 2 * span in 64 bits (always so for
    // real traces); else every time of this segment comes here.
    const auto magnitude = static_cast<unsigned __int128>(delta < 0 ? -delta : delta);
    if (span <= INT64_MAX && magnitude <= UINT64_MAX) {
        Cursor& c = cursor_;
        c.time = time;
        c.end = t2;
        c.span = static_cast<std::uint64_t>(span);
        c.drift = static_cast<std::uint64_t>(magnitude);
        c.max_step = c.drift == 0 ? UINT64_MAX : (c.span - 1) / c.drift;
        c.rising = delta >= 0;
        c.offset = static_cast<std::uint64_t>(o1);
        c.quotient = static_cast<std::uint64_t>(quotient);
        c.remainder = static_cast<std::uint64_t>(delta * (t - t1) - quotient * span);
    }
    return static_cast<std::int64_t>(t + o1 + quotient);
}

}  // namespace strata::analysis::trace
