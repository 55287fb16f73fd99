// SPDX-License-Identifier: BSD-3-Clause
// The controlled logical clock (trace/logical_clock.hpp): the move function
// against its definition, the clock correction that follows it, and the
// trace analysis on traces whose clocks violate the clock condition, for
// 1 to 4 shares.
#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "otf2_fixture.hpp"
#include "test_support.hpp"
#include "trace/clock_correction.hpp"
#include "trace/logical_clock.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/wait_state_analysis.hpp"
#include "trace/wait_state_report.hpp"

namespace strata::analysis::test {
namespace {

using namespace strata::analysis::trace;

/// s(t) from its definition (logical_clock.hpp): the largest contribution of
/// any raise, each a ramp before it and a fade after it.
Ticks by_definition(const std::vector<LogicalShift::Jump>& jumps, Ticks t) {
    __int128 best = 0;
    for (const LogicalShift::Jump& j : jumps) {
        __int128 v = 0;
        if (t >= j.at) {
            v = floor_div(static_cast<__int128>(j.shift) * LogicalShift::kFade + j.at - t, LogicalShift::kFade);
        } else if (t >= j.from) {
            v = floor_div(static_cast<__int128>(j.shift) * (t - j.from), j.at - j.from);
        }
        best = std::max(best, v);
    }
    return static_cast<Ticks>(best);
}

TEST(LogicalShiftTest, ARaiseRampsUpFromItsFloorAndFadesOneTickInAHundred) {
    LogicalShift s;
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s.at(12345), 0);
    s.raise(1000, 50, 500);
    EXPECT_EQ(s.at(499), 0);
    EXPECT_EQ(s.at(500), 0);
    EXPECT_EQ(s.at(750), 25);  // halfway up the ramp
    EXPECT_EQ(s.at(999), 49);
    EXPECT_EQ(s.at(1000), 50);
    EXPECT_EQ(s.at(1001), 49);  // (rounded down)
    EXPECT_EQ(s.at(1100), 49);
    EXPECT_EQ(s.at(1101), 48);
    EXPECT_EQ(s.at(1000 + 49 * 100), 1);
    EXPECT_EQ(s.at(1000 + 49 * 100 + 1), 0);  // the rank's own times are back
    EXPECT_EQ(s.at(1000000), 0);
    // A ramp never starts before the previous raise.
    s.raise(1200, 100, 0);
    EXPECT_EQ(s.jumps().back().from, 1000);
    EXPECT_EQ(s.at(1100), 50);  // max(the fade 49, the new ramp 50)
    EXPECT_EQ(s.at(1200), 100);
    // A raise at an existing time only raises it.
    s.raise(1200, 70, 0);
    EXPECT_EQ(s.at(1200), 100);
    s.raise(1200, 130, 0);
    EXPECT_EQ(s.at(1200), 130);
    EXPECT_EQ(s.jumps().size(), 2u);
}

TEST(LogicalShiftTest, EveryTimeAgreesWithTheDefinitionAndTimesKeepTheirOrder) {
    std::mt19937_64 random(11);
    for (int trial = 0; trial < 40; ++trial) {
        LogicalShift s;
        // Raises in any order: later rounds raise earlier times too.
        for (int r = 0; r < 1 + static_cast<int>(random() % 6); ++r) {
            const Ticks at = 1000 + static_cast<Ticks>(random() % 20000);
            const Ticks floor = at - static_cast<Ticks>(random() % 3000);
            s.raise(at, 1 + static_cast<Ticks>(random() % 300), floor);
        }
        for (std::size_t k = 1; k < s.jumps().size(); ++k) {
            EXPECT_LT(s.jumps()[k - 1].at, s.jumps()[k].at);
            EXPECT_GE(s.jumps()[k].from, s.jumps()[k - 1].at);  // ramps never overlap
        }
        Ticks previous = INT64_MIN;
        for (Ticks t = -2000; t < 60000; ++t) {
            Ticks first = 0, last = 0;
            const Ticks v = s.at(t, &first, &last);
            ASSERT_EQ(v, by_definition(s.jumps(), t)) << "trial " << trial << " time " << t;
            ASSERT_LE(first, t);
            ASSERT_GE(last, t);
            // The range said to share the value does (its ends, where they are near).
            if (first > t - 1000) {
                ASSERT_EQ(s.at(first), v) << t;
            }
            if (last < t + 1000) {
                ASSERT_EQ(s.at(last), v) << t;
            }
            if (first > t - 1000 && last < t + 1000) {
                ASSERT_EQ(s.at(first + (last - first) / 2), v) << t;
            }
            // Moved times never change their order.
            ASSERT_GE(t + v, previous) << t;
            previous = t + v;
        }
    }
}

TEST(LogicalShiftTest, TheClockCorrectionAddsTheMoveToEveryCorrectedTime) {
    ClockCorrection plain, moved;
    for (ClockCorrection* c : {&plain, &moved}) {
        c->add(1000, 300);
        c->add(200000, 250);  // drifting: the offset changes every few thousand ticks
    }
    LogicalShift s;
    s.raise(20000, 400, 15000);
    s.raise(30000, 90, 29000);
    moved.follow(&s);
    std::mt19937_64 random(5);
    // In order (the cursor's fast path) and jumping around (its slow one).
    for (std::uint64_t t = 0; t < 120000; t += 1 + random() % 5) {
        std::int64_t nearby = 0;
        const std::int64_t base = plain.correct(t);
        if (moved.correct_nearby(t, &nearby)) {
            ASSERT_EQ(nearby, base + s.at(base)) << t;
        }
        ASSERT_EQ(moved.correct(t), base + s.at(base)) << t;
    }
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t t = random() % 150000;
        const std::int64_t base = plain.correct(t);
        ASSERT_EQ(moved.correct(t), base + s.at(base)) << t;
    }
    // Offsets added after the move was given: the same.
    ClockCorrection late;
    late.follow(&s);
    late.add(200000, 250);
    late.add(1000, 300);
    for (std::uint64_t t = 0; t < 60000; t += 1 + random() % 9) ASSERT_EQ(late.correct(t), moved.correct(t)) << t;
    moved.follow(nullptr);
    EXPECT_EQ(moved.correct(20000), plain.correct(20000));
}

constexpr std::uint64_t us = 1000;  // the fixture's times are in ns

/// Four ranks passing a message along a chain, with clocks so far apart that
/// rank 1's receive ends 80 us before rank 0's send began.  Moving rank 1
/// later moves its send to rank 2, which then violates rank 2's receive, and
/// so on: the fixpoint needs three rounds that raise and one that finds
/// nothing more.  Then all four meet in a barrier that rank 3 seems to leave
/// before rank 0 entered it.
TraceBuilder chain_trace() {
    TraceBuilder b(4);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        send = b.mpi_region("MPI_Send"), recv = b.mpi_region("MPI_Recv"),
                        barrier = b.mpi_region("MPI_Barrier");
    for (std::uint32_t r = 0; r < 4; ++r) b.enter(r, 100 * us, main);
    b.blocking_send(0, send, 1000 * us, 1010 * us, 1, 1);
    b.blocking_recv(1, recv, 890 * us, 920 * us, 0, 1);   // ends before the send began
    b.blocking_send(1, send, 930 * us, 940 * us, 2, 1);   // moves to about 1010 us
    b.blocking_recv(2, recv, 935 * us, 950 * us, 1, 1);   // fine until then
    b.blocking_send(2, send, 960 * us, 970 * us, 3, 1);
    b.blocking_recv(3, recv, 962 * us, 980 * us, 2, 1);
    const std::uint64_t barrier_enter[] = {3000, 1500, 1600, 1700}, barrier_exit[] = {3010, 3010, 3010, 2990};
    for (std::uint32_t r = 0; r < 4; ++r) {
        b.collective(r, barrier, barrier_enter[r] * us, barrier_exit[r] * us, OTF2_COLLECTIVE_OP_BARRIER);
        b.leave(r, 4000 * us, main);
    }
    return b;
}

TEST(LogicalClockTest, TheFixpointRemovesEveryViolationAndSaysHowFarItMoved) {
    TempDir dir;
    chain_trace().write(dir.path());
    const TraceDefinitions defs = read_trace_definitions(dir.file("traces.otf2"));
    TraceAnalysisOptions off;
    off.logical_clock = false;
    const TraceReport measured = analyze_trace_in_process(defs, 1, {}, off);
    EXPECT_EQ(measured.counts.clock_violations, 1u);
    EXPECT_EQ(measured.counts.collective_clock_violations, 1u);  // rank 3 leaves before rank 0 entered
    EXPECT_EQ(measured.counts.clock_rounds, 0u);
    EXPECT_NE(waitstates_text(measured).find("not corrected (--no-logical-clock)"), std::string::npos);

    std::string first_csv;
    for (std::size_t k = 1; k <= 4; ++k) {
        const TraceReport r = analyze_trace_in_process(defs, k);
        const TraceCounts& c = r.counts;
        // The trace as written, and what is left.
        EXPECT_EQ(c.clock_violations, 1u) << k;
        EXPECT_EQ(c.collective_clock_violations, 1u) << k;
        EXPECT_EQ(c.clock_violations_left, 0u) << k;
        EXPECT_EQ(c.collective_clock_violations_left, 0u) << k;
        // Round 1: rank 1's receive and rank 3's barrier; 2: rank 2; 3: rank 3; 4: nothing.
        EXPECT_EQ(c.clock_conditions_violated, 2u) << k;
        EXPECT_EQ(c.clock_rounds, 4u) << k;
        EXPECT_EQ(c.clock_ranks_moved, 3u) << k;
        // The largest move: rank 1's receive, 80 us.
        EXPECT_EQ(c.clock_largest_move, 80 * static_cast<std::int64_t>(us)) << k;
        EXPECT_GT(c.clock_times_moved, 0u) << k;
        EXPECT_LT(c.clock_times_moved, c.clock_times_checked) << k;
        EXPECT_EQ(c.messages_matched, 3u) << k;
        const std::string csv = waitstates_csv(r);
        if (k == 1) first_csv = csv;
        EXPECT_EQ(csv, first_csv) << k << " shares";
        const std::string text = waitstates_text(r);
        EXPECT_NE(text.find("Controlled logical clock: 2 violated clock conditions corrected in 4 rounds"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("violations left: 0 in messages, 0 in collectives"), std::string::npos) << text;
    }
    // Rank 1's receive: it ended 80 us too early, so its exit moves to the
    // send's begin (1000 us) and its enter along the ramp from the rank's first
    // time (100 us): 890 + 80 * 790 / 820 = 967.073 us.  It waited 32.927 us
    // for the late sender (without the clock: its whole call, 30 us, which ended
    // before the send began).
    EXPECT_NE(first_csv.find("late_sender,main/MPI_Recv,1,0,3.2927e-05,1\n"), std::string::npos) << first_csv;
    EXPECT_NE(waitstates_csv(measured).find("late_sender,main/MPI_Recv,1,0,3e-05,1\n"), std::string::npos)
        << waitstates_csv(measured);
}

TEST(LogicalClockTest, TheTimelineShowsTheMovedTimes) {
    TempDir dir;
    chain_trace().write(dir.path());
    const TraceDefinitions defs = read_trace_definitions(dir.file("traces.otf2"));
    std::string first;
    for (std::size_t k = 1; k <= 3; ++k) {
        const TimelineOptions timeline{dir.file("trace.json.part"), 1000};
        analyze_trace_in_process(defs, k, timeline);
        const std::string path = dir.file("trace" + std::to_string(k) + ".json");
        ASSERT_TRUE(join_timeline(timeline, k, path));
        const std::string json = slurp(path);
        if (k == 1) first = json;
        EXPECT_EQ(json, first) << k << " shares";
    }
    // Written once, by the read on the moved times: rank 1's receive from 967.073 to 1000 us.
    EXPECT_EQ(count(first, "\"name\": \"MPI_Recv\""), 3u);
    EXPECT_NE(first.find("{\"ph\": \"X\", \"name\": \"MPI_Recv\", \"cat\": \"mpi\", \"ts\": 967.073, "
                         "\"dur\": 32.927, \"pid\": 1, \"tid\": 0}"),
              std::string::npos)
        << first;
}

TEST(LogicalClockTest, ATraceWithoutViolationsIsNotTouched) {
    TempDir dir;
    wait_states_trace().write(dir.path());
    const TraceDefinitions defs = read_trace_definitions(dir.file("traces.otf2"));
    const TraceReport r = analyze_trace_in_process(defs, 2);
    EXPECT_EQ(r.counts.clock_rounds, 0u);
    EXPECT_EQ(r.counts.clock_ranks_moved, 0u);
    EXPECT_EQ(waitstates_csv(r), wait_states_trace_csv());
    EXPECT_EQ(waitstates_text(r).find("logical clock"), std::string::npos);
}

TEST(LogicalClockTest, TheWaitStateFixtureWithoutItsOffsetsIsMadeConsistent) {
    // Rank 1's clock 7 ms behind, rank 2's 2 ms, rank 3's 4 ms ahead, and no
    // ClockOffset records: a receive, two barrier members, two Allreduce
    // members and the Reduce's root violate the clock condition.
    TempDir dir;
    TraceBuilder b = wait_states_trace();
    b.write_clock_offsets(false);
    b.write(dir.path());
    const TraceDefinitions defs = read_trace_definitions(dir.file("traces.otf2"));
    std::string first;
    for (std::size_t k = 1; k <= 4; ++k) {
        const TraceReport r = analyze_trace_in_process(defs, k);
        EXPECT_GE(r.counts.clock_violations, 1u) << k;
        EXPECT_EQ(r.counts.collective_clock_violations, 6u) << k;
        EXPECT_EQ(r.counts.clock_violations_left, 0u) << k;
        EXPECT_EQ(r.counts.collective_clock_violations_left, 0u) << k;
        EXPECT_GT(r.counts.clock_rounds, 1u) << k;
        const std::string csv = waitstates_csv(r);
        if (k == 1) first = csv;
        EXPECT_EQ(csv, first) << k << " shares";
        // No wait is longer than its call, none negative.
        for (const WaitStateRow& row : r.waits.rows) EXPECT_GT(row.ticks, 0) << csv;
    }
}

}  // namespace
}  // namespace strata::analysis::test
