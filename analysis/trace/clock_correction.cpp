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

std::int64_t ClockCorrection::interpolate(std::uint64_t time) const {
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
    if (o1 == o2) return static_cast<std::int64_t>(t + o1);  // a constant offset: no drift to interpolate
    const __int128 span = static_cast<__int128>(t2) - t1;  // > 0: t1 <= time < t2
    const __int128 delta = static_cast<__int128>(o2) - o1;
    // 64-bit arithmetic when the product fits (the same floor, without the slow 128-bit division).
    std::int64_t product = 0;
    if (delta >= INT64_MIN && delta <= INT64_MAX && span <= INT64_MAX && time - t1 <= INT64_MAX &&
        !__builtin_mul_overflow(static_cast<std::int64_t>(delta), static_cast<std::int64_t>(time - t1), &product)) {
        const std::int64_t s = static_cast<std::int64_t>(span);
        std::int64_t q = product / s;
        if (product % s != 0 && product < 0) --q;
        return static_cast<std::int64_t>(t + o1 + q);
    }
    const __int128 drift = floor_div(delta * (t - t1), span);
    return static_cast<std::int64_t>(t + o1 + drift);
}

}  // namespace strata::analysis::trace
