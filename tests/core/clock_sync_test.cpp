// SPDX-License-Identifier: BSD-3-Clause
// Clock synchronisation over a thread group whose ranks have shifted clocks.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <mutex>

#include "core/clock_sync.hpp"
#include "core/timer.hpp"
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
        const Point p = measure(group, shifted_clock, 100 + group.rank(), 5);  // every rank its own clock
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

/// measure() on `size` threads, rank r with clock shift shift(r) and domain domain(r).
template <typename Shift, typename Domain>
std::vector<Point> measure_all(int size, Shift shift, Domain domain) {
    testing::ThreadWorld world(size);
    std::mutex mutex;
    std::vector<Point> points(size);
    world.run([&](events::ProcessGroup& group) {
        t_shift = shift(group.rank());
        const Point p = measure(group, shifted_clock, domain(group.rank()), 5);
        std::lock_guard<std::mutex> lock(mutex);
        points[group.rank()] = p;
    });
    return points;
}

TEST(ClockSyncDomainTest, RanksSharingAClockAreNotCorrected) {
    // The clocks are shifted, but the ranks say they read one clock: nothing is
    // measured (a ping-pong would find the shifts), every offset is exactly 0.
    const auto points = measure_all(
        5, [](int r) { return 1000000000000ll + 1000000ll * r; }, [](int) { return 42u; });
    for (int r = 0; r < 5; ++r) {
        EXPECT_EQ(points[r].offset, 0) << "rank " << r;
        EXPECT_EQ(points[r].deviation, 0.0) << "rank " << r;
    }
}

TEST(ClockSyncDomainTest, OnlyEdgesBetweenClocksAreMeasured) {
    // Two hosts of 4 ranks: ranks 4-7 read a clock 1 s ahead of ranks 0-3's.
    // Ranks 1-3 share rank 0's clock (offset 0, no error); rank 4 is measured
    // against rank 0, and ranks 5-7 (tree parents 4, 4 and 6) share its offset and error.
    const auto points = measure_all(
        8, [](int r) { return 1000000000000ll + (r >= 4 ? 1000000000ll : 0); },
        [](int r) { return r >= 4 ? 7u : 3u; });
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(points[r].offset, 0) << "rank " << r;
        EXPECT_EQ(points[r].deviation, 0.0) << "rank " << r;
    }
    EXPECT_NEAR(static_cast<double>(points[4].offset), -1e9, points[4].deviation + 2e6);
    EXPECT_GT(points[4].deviation, 0.0);
    for (int r = 5; r < 8; ++r) {
        EXPECT_EQ(points[r].offset, points[4].offset) << "rank " << r;
        EXPECT_EQ(points[r].deviation, points[4].deviation) << "rank " << r;
    }
}

TEST(ClockSyncDomainTest, AnUnknownDomainIsSharedWithNobody) {
    // Domain 0 (the clock could not be identified) on both ranks: measured.
    const auto points = measure_all(
        2, [](int r) { return 1000000000000ll + 5000000ll * r; }, [](int) { return 0u; });
    EXPECT_NEAR(static_cast<double>(points[1].offset), -5e6, points[1].deviation + 2e6);
    EXPECT_GT(points[1].deviation, 0.0);
}

TEST(ClockDomainTest, TheBootIdAndTheClockNameTheDomain) {
    char pattern[] = "/tmp/strata-clock-domain-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string dir = pattern;
    const std::string boot = dir + "/boot_id", other = dir + "/other_boot_id", source = dir + "/clocksource",
                      missing = dir + "/missing";
    std::ofstream(boot) << "1c0e5a4e-94e1-4f1e-8a53-2b4a1f1f0d6c\n";
    std::ofstream(other) << "0f3a2c11-5d8e-4b8a-9e2f-7c1d3b5a9e40\n";
    std::ofstream(source) << "tsc\n";
    const std::uint64_t a = timer::clock_domain(boot.c_str(), source.c_str());
    EXPECT_NE(a, 0u);
    EXPECT_EQ(timer::clock_domain(boot.c_str(), source.c_str()), a);
    EXPECT_NE(timer::clock_domain(other.c_str(), source.c_str()), a);
    EXPECT_EQ(timer::clock_domain(missing.c_str(), source.c_str()), 0u);
    std::filesystem::remove_all(dir);
}

TEST(StepsTimerTest, EachThreadAdvancesOneMicrosecondPerReadingFromOneSecond) {
    ASSERT_EQ(timer::initialize(config::TimerKind::steps), "");
    EXPECT_STREQ(timer::name(), "steps");
    EXPECT_EQ(timer::resolution(), 1e9);
    EXPECT_EQ(timer::clock_domain(), 1u);  // one domain: no offsets measured
    const Ticks first = timer::now();
    EXPECT_EQ(timer::now(), first + 1000);
    // Another thread's readings depend only on that thread: it starts at 1 s.
    Ticks other[2] = {};
    std::thread([&] {
        other[0] = timer::now();
        other[1] = timer::now();
    }).join();
    EXPECT_EQ(other[0], 1000001000u);
    EXPECT_EQ(other[1], 1000002000u);
    EXPECT_EQ(timer::now(), first + 2000);
    timer::initialize(config::TimerKind::clock_gettime);
    EXPECT_STREQ(timer::name(), "clock_gettime");
}

}  // namespace
}  // namespace strata::clock_sync
