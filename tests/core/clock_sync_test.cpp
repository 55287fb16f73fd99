// SPDX-License-Identifier: BSD-3-Clause
// Clock synchronisation over a thread group whose ranks have shifted clocks.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>

#include "core/clock_sync.hpp"
#include "thread_group.hpp"

namespace strata::clock_sync {
namespace {

// Each "rank" (thread) sees the same steady clock shifted by a known amount.
thread_local std::int64_t t_shift = 0;
Ticks shifted_clock() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch()).count();
    return static_cast<Ticks>(ns + t_shift);
}

class ClockSyncRanks : public ::testing::TestWithParam<int> {};

TEST_P(ClockSyncRanks, OffsetsRecoverTheShiftsWithinTheRoundTrip) {
    const int size = GetParam();
    testing::ThreadWorld world(size);
    std::mutex mutex;
    std::vector<Point> points(size);
    world.run([&](events::ProcessGroup& group) {
        // Rank r's clock runs 1000000000 * r + 37 ticks ahead of the true time.
        t_shift = 1000000000000ll + 1000000000ll * group.rank() + 37 * group.rank();
        const Point p = measure(group, shifted_clock, 5);
        std::lock_guard<std::mutex> lock(mutex);
        points[group.rank()] = p;
    });
    EXPECT_EQ(points[0].offset, 0);
    for (int r = 1; r < size; ++r) {
        const std::int64_t expected = -(1000000000ll * r + 37 * r);
        // The measured offset is exact up to the round-trip asymmetry, bounded by the error estimate
        // (threads and mailboxes here: allow a generous floor).
        const double tolerance = std::max(points[r].deviation, 0.0) + 2e6;
        EXPECT_NEAR(static_cast<double>(points[r].offset), static_cast<double>(expected), tolerance) << "rank " << r;
        EXPECT_GT(points[r].deviation, 0.0) << "rank " << r;
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ClockSyncRanks, ::testing::Values(1, 2, 3, 5, 8));

}  // namespace
}  // namespace strata::clock_sync
