// SPDX-License-Identifier: BSD-3-Clause
// Linear interpolation between clock offsets (see clock_correction.hpp).
#include "trace/clock_correction.hpp"

#include "trace/logical_clock.hpp"

#include <algorithm>
#include <cstdint>

namespace strata::analysis::trace {

namespace {

/// ceil(a / b) for b > 0.
__int128 ceil_div(__int128 a, __int128 b) {
    return -floor_div(-a, b);
}

}  // namespace

void ClockCorrection::add(std::uint64_t time, std::int64_t offset) {
    const auto at = std::upper_bound(points_.begin(), points_.end(), std::make_pair(time, offset));
    points_.insert(at, {time, offset});
    follow(logical_);  // the cursors of the points so far
}

std::int64_t ClockCorrection::restart(std::uint64_t time) {
    if (logical_ != nullptr && time - base_.first <= base_.extent) {
        // Only the logical move's range was left (it is narrow where the move fades).
        cursor_ = base_;
        add_logical_move(time);
        return static_cast<std::int64_t>(time + cursor_.offset);
    }
    Cursor& c = cursor_;
    if (points_.size() < 2) {
        c = points_.empty() ? Cursor{}
                            : Cursor{0, UINT64_MAX, static_cast<std::uint64_t>(points_.front().second)};
        base_ = c;
        if (logical_ != nullptr) add_logical_move(time);
        return static_cast<std::int64_t>(time + c.offset);
    }
    // The segment [t1, t2] whose line maps `time`: the one holding it; before
    // the first point the first, from the last point on the last (OTF2's
    // reader extrapolates the same way, so Vampir shows the same times).
    const std::size_t last = points_.size() - 2;
    std::size_t i = 0;
    if (time >= points_.back().first) {
        i = last;
    } else if (time >= points_.front().first) {
        // The last point at or before `time`.
        const auto after = std::upper_bound(points_.begin(), points_.end(), time,
                                            [](std::uint64_t v, const auto& p) { return v < p.first; });
        i = static_cast<std::size_t>(after - points_.begin()) - 1;
    }
    const auto& [t1, o1] = points_[i];
    const auto& [t2, o2] = points_[i + 1];
    // The x = time - t1 this segment serves: from time 0 on for the first,
    // to the largest time for the last, [0, t2 - t1) for the others.
    const __int128 span = static_cast<__int128>(t2) - t1;
    const __int128 x_min = i == 0 ? -static_cast<__int128>(t1) : 0;
    const __int128 x_max = i == last ? static_cast<__int128>(UINT64_MAX) - t1 : span - 1;
    const __int128 x = static_cast<__int128>(time) - t1;
    // Two offsets measured at the same time: no slope to follow, the later one holds.
    const __int128 delta = span == 0 ? 0 : static_cast<__int128>(o2) - o1;
    const __int128 base = span == 0 ? o2 : o1;
    const __int128 q = delta == 0 ? 0 : floor_div(delta * x, span);  // time + o1 + q: the definition
    // The x of the segment with the same q: delta * x / span in [q, q + 1).
    // (Beyond 2^62 the products could overflow: then only this time.)
    __int128 low = x_min, high = x_max;
    constexpr __int128 limit = static_cast<__int128>(1) << 62;
    if (delta != 0 && (span >= limit || delta >= limit || delta <= -limit)) {
        low = high = x;
    } else if (delta > 0) {
        low = ceil_div(q * span, delta);
        high = ceil_div((q + 1) * span, delta) - 1;
    } else if (delta < 0) {
        low = floor_div(-(q + 1) * span, -delta) + 1;
        high = floor_div(-q * span, -delta);
    }
    if (low < x_min) low = x_min;
    if (high > x_max) high = x_max;
    c = Cursor{static_cast<std::uint64_t>(t1 + low), static_cast<std::uint64_t>(high - low),
               static_cast<std::uint64_t>(base + q)};
    base_ = c;
    if (logical_ != nullptr) add_logical_move(time);
    return static_cast<std::int64_t>(time + c.offset);
}

void ClockCorrection::follow(const LogicalShift* shift) {
    logical_ = nullptr;
    restart(0);  // the offsets' own cursor first
    logical_ = shift != nullptr && !shift->empty() ? shift : nullptr;
    restart(0);
}

void ClockCorrection::add_logical_move(std::uint64_t time) {
    Cursor& c = cursor_;
    const auto corrected = static_cast<std::int64_t>(time + c.offset);
    std::int64_t first = 0, last = 0;
    const std::int64_t move = logical_->at(corrected, &first, &last);
    // The local times whose corrected time lies in [first, last], within the cursor's range.
    const __int128 offset = static_cast<__int128>(corrected) - static_cast<__int128>(time);
    __int128 low = std::max<__int128>(c.first, static_cast<__int128>(first) - offset);
    __int128 high = std::min<__int128>(static_cast<__int128>(c.first) + c.extent, static_cast<__int128>(last) - offset);
    if (low > time || high < time) low = high = time;  // (times that wrap around: this one only)
    c = Cursor{static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(high - low),
               c.offset + static_cast<std::uint64_t>(move)};
}

}  // namespace strata::analysis::trace
