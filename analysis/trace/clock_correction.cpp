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

/// ceil(a / b) for b > 0.
__int128 ceil_div(__int128 a, __int128 b) {
    return -floor_div(-a, b);
}

}  // namespace

void ClockCorrection::add(std::uint64_t time, std::int64_t offset) {
    const auto at = std::upper_bound(points_.begin(), points_.end(), std::make_pair(time, offset));
    points_.insert(at, {time, offset});
    restart(0);  // the cursor of the points so far
}

std::int64_t ClockCorrection::restart(std::uint64_t time) {
    Cursor& c = cursor_;
    if (points_.empty()) {
        c = Cursor{};
    } else if (time <= points_.front().first) {
        c = Cursor{0, points_.front().first, static_cast<std::uint64_t>(points_.front().second)};
    } else if (time >= points_.back().first) {
        c = Cursor{points_.back().first, UINT64_MAX - points_.back().first,
                   static_cast<std::uint64_t>(points_.back().second)};
    } else {
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
        const __int128 x = static_cast<__int128>(time) - t1;
        const __int128 q = floor_div(delta * x, span);  // time + o1 + q: the definition
        // The x of the segment with the same q: delta * x / span in [q, q + 1).
        // (Beyond 2^62 the products could overflow: then only this time.)
        __int128 low = 0, high = span - 1;
        constexpr __int128 limit = static_cast<__int128>(1) << 62;
        if (span >= limit || delta >= limit || delta <= -limit) {
            low = high = x;
        } else if (delta > 0) {
            low = ceil_div(q * span, delta);
            high = ceil_div((q + 1) * span, delta) - 1;
        } else if (delta < 0) {
            low = floor_div(-(q + 1) * span, -delta) + 1;
            high = floor_div(-q * span, -delta);
        }
        if (low < 0) low = 0;
        if (high > span - 1) high = span - 1;
        c = Cursor{static_cast<std::uint64_t>(t1 + low), static_cast<std::uint64_t>(high - low),
                   static_cast<std::uint64_t>(static_cast<__int128>(o1) + q)};
    }
    return static_cast<std::int64_t>(time + c.offset);
}

}  // namespace strata::analysis::trace
