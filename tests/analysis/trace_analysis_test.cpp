// SPDX-License-Identifier: BSD-3-Clause
// The trace analysis in one process: clock correction, the definitions of a
// synthetic archive, and the wait states of wait_states_trace() analysed as
// 1 to 5 shares (the phases and exchanges of K analysis ranks), exactly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "otf2_fixture.hpp"
#include "test_support.hpp"
#include "trace/clock_correction.hpp"
#include "trace/timeline_writer.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/wait_state_analysis.hpp"
#include "trace/wait_state_report.hpp"

namespace strata::analysis::test {
namespace {

using namespace strata::analysis::trace;

const std::string expected_csv = wait_states_trace_csv();

TEST(ClockCorrectionTest, InterpolatesBetweenPointsAndExtrapolatesOutside) {
    ClockCorrection c;
    EXPECT_EQ(c.correct(123), 123);  // no offsets: unchanged
    c.add(2000, 1000);               // added out of order on purpose
    c.add(1000, 500);
    EXPECT_EQ(c.correct(1000), 1500);
    EXPECT_EQ(c.correct(1500), 1500 + 750);  // halfway: 500 + (1000 - 500) / 2
    EXPECT_EQ(c.correct(1001), 1001 + 500);  // 500.5 rounds down
    EXPECT_EQ(c.correct(2000), 3000);
    EXPECT_EQ(c.correct(10), 15);          // before the first point: 500 + (10 - 1000) / 2, as OTF2 does
    EXPECT_EQ(c.correct(5000), 7500);      // after the last: 500 + (5000 - 1000) / 2
    EXPECT_EQ(c.correct(0), 0);            // 500 - 1000 / 2
    EXPECT_EQ(c.correct(999), 999 + 499);  // 499.5 rounds down
    ClockCorrection same_time;             // two offsets at one time: no slope, the later holds
    same_time.add(1000, 500);
    same_time.add(1000, 700);
    EXPECT_EQ(same_time.correct(10), 710);
    EXPECT_EQ(same_time.correct(5000), 5700);
}

TEST(ClockCorrectionTest, NegativeDriftRoundsTowardMinusInfinity) {
    ClockCorrection c;
    c.add(0, 0);
    c.add(3, -1);
    EXPECT_EQ(c.correct(1), 0);  // 1 + floor(-1/3) = 0
    EXPECT_EQ(c.correct(2), 1);  // 2 + floor(-2/3) = 1
}

TEST(ClockCorrectionTest, ConstantOffsetsAndProductsBeyond64Bits) {
    ClockCorrection constant;
    constant.add(100, -7);
    constant.add(900, -7);
    EXPECT_EQ(constant.correct(500), 493);
    // (o2 - o1)(t - t1) = 2^40 * 2^61 does not fit in 64 bits: the 128-bit path, the same floor.
    ClockCorrection wide;
    wide.add(0, 0);
    wide.add(1ull << 62, 1ll << 40);
    EXPECT_EQ(wide.correct(1ull << 61), (1ll << 61) + (1ll << 39));
    EXPECT_EQ(wide.correct(3), 3);  // 2^40 * 3 / 2^62 rounds down to 0
    ClockCorrection falling;
    falling.add(0, 0);
    falling.add(1ull << 62, -(1ll << 40));
    EXPECT_EQ(falling.correct(3), 2);  // floor(-3 * 2^40 / 2^62) = -1
    EXPECT_EQ(falling.correct(1ull << 61), (1ll << 61) - (1ll << 39));
}

/// The definition, computed directly: t + o1 + floor((o2 - o1)(t - t1) / (t2 - t1)) within [t1, t2),
/// the first segment's line before it, the last one's after it.
std::int64_t corrected_by_definition(const std::vector<std::pair<std::uint64_t, std::int64_t>>& points,
                                     std::uint64_t t) {
    const auto wide = static_cast<__int128>(t);
    if (points.size() == 1) return static_cast<std::int64_t>(wide + points.front().second);
    std::size_t i = 0;
    while (i + 2 < points.size() && points[i + 1].first <= t) ++i;
    const auto [t1, o1] = points[i];
    const auto [t2, o2] = points[i + 1];
    const __int128 a = (static_cast<__int128>(o2) - o1) * (wide - t1), b = static_cast<__int128>(t2) - t1;
    const __int128 q = a / b - ((a % b != 0 && a < 0) ? 1 : 0);
    return static_cast<std::int64_t>(wide + o1 + q);
}

// Events come in time order, a few ticks apart, and correct() keeps the
// range of times that share the last one's offset: every result must equal
// the definition's, at the range's ends, segment borders, long steps and
// times that go back.
TEST(ClockCorrectionTest, TimesInOrderGiveTheDefinitionsResults) {
    const std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>> cases = {
        {{1000, 3000}, {1000000, 3007}},                  // slow rising drift
        {{1000, 3000}, {50000, 2000}},                    // falling: one tick less every 49
        {{0, -5}, {97, 400}, {200, 400}, {1000, -1000}},  // segments: rising, constant, falling
        {{1ull << 40, 1ll << 30}, {(1ull << 40) + 12345, -(1ll << 30)}},  // drift larger than the span
        {{500, -7}},                                                      // one offset
        {{100, -7}, {900, -7}},                                           // constant
    };
    std::mt19937_64 random(7);
    for (const auto& points : cases) {
        ClockCorrection c;
        for (const auto& [time, offset] : points) c.add(time, offset);
        // From well before the first point to well after the last: the extrapolated lines too.
        const std::uint64_t from = points.front().first > 3000 ? points.front().first - 3000 : 0;
        const std::uint64_t to = points.back().first + 3000;
        std::uint64_t t = from;
        for (int step = 0; step < 20000 && t < to; ++step) {
            ASSERT_EQ(c.correct(t), corrected_by_definition(points, t)) << "time " << t;
            switch (random() % 8) {
                case 0:  // a long step
                    t += random() % ((to - from) / 4 + 1);
                    break;
                case 1:  // back
                    t -= std::min<std::uint64_t>(t - from, random() % 40);
                    break;
                default:  // the usual: a few ticks on
                    t += random() % 7;
                    break;
            }
        }
        // Every time of a window, forwards and backwards: each end of every range.
        const std::uint64_t last = std::min(to, from + 100000);
        for (std::uint64_t u = from; u <= last; ++u)
            ASSERT_EQ(c.correct(u), corrected_by_definition(points, u)) << u;
        for (std::uint64_t u = last + 1; u-- > from;)
            ASSERT_EQ(c.correct(u), corrected_by_definition(points, u)) << u;
    }
}

std::string microseconds(__int128 ticks, std::uint64_t resolution) {
    std::string text;
    append_microseconds(text, ticks, resolution);
    return text;
}

TEST(TimelineTimesTest, MicrosecondsWithThreeDecimalsRoundedToNearest) {
    EXPECT_EQ(microseconds(16199999, 1000000000), "16199.999");  // a 1 GHz timer: whole ns
    EXPECT_EQ(microseconds(0, 1000000000), "0.000");
    EXPECT_EQ(microseconds(-250000, 1000000000), "-250.000");
    EXPECT_EQ(microseconds(-1, 1000000000), "-0.001");
    // 2 GHz: one tick is 0.0005 us, exactly half way: ties go to the even neighbour.
    EXPECT_EQ(microseconds(1, 2000000000), "0.000");
    EXPECT_EQ(microseconds(3, 2000000000), "0.002");
    EXPECT_EQ(microseconds(5, 2000000000), "0.002");
    EXPECT_EQ(microseconds(7, 2000000000), "0.004");
    // A day at 3 GHz, and the largest timestamp: no overflow.
    EXPECT_EQ(microseconds(259200000000000ll, 3000000000), "86400000000.000");
    EXPECT_EQ(microseconds(static_cast<__int128>(UINT64_MAX), 1000000000), "18446744073709551.615");
    // An odd TSC rate (no ties possible): nearest thousandth by the definition.
    const std::uint64_t tsc = 2899999001;
    std::mt19937_64 random(11);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t ticks = random() >> (random() % 40);
        const unsigned __int128 nearest = (static_cast<unsigned __int128>(ticks) * 2000000000u + tsc) /
                                          (2 * static_cast<unsigned __int128>(tsc));
        char expected[64];
        std::snprintf(expected, sizeof expected, "%llu.%03u", static_cast<unsigned long long>(nearest / 1000),
                      static_cast<unsigned>(nearest % 1000));
        ASSERT_EQ(microseconds(ticks, tsc), expected) << ticks;
    }
}

class TraceAnalysisTest : public ::testing::Test {
protected:
    void SetUp() override { wait_states_trace().write(dir_.path()); }
    std::string anchor() const { return dir_.file("traces.otf2"); }
    TempDir dir_;
};

TEST_F(TraceAnalysisTest, DefinitionsHaveRanksCommunicatorsAndResolution) {
    const TraceDefinitions d = read_trace_definitions(anchor());
    EXPECT_EQ(d.timer_resolution, 1000000000u);
    ASSERT_EQ(d.locations.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(d.locations[i].rank, static_cast<std::int64_t>(i));
    EXPECT_EQ(d.world_size, 4u);
    ASSERT_EQ(d.communicators.size(), 2u);
    EXPECT_EQ(d.world_rank(1, 0), 2);
    EXPECT_EQ(d.world_rank(1, 1), 3);
    EXPECT_EQ(d.world_rank(1, 2), -1);
    EXPECT_EQ(trace_rank_layout(d).ranks.size(), 4u);
}

TEST_F(TraceAnalysisTest, ExactWaitStatesForEveryNumberOfShares) {
    const TraceDefinitions d = read_trace_definitions(anchor());
    const TraceReport one = analyze_trace_in_process(d, 1);
    EXPECT_EQ(waitstates_csv(one), expected_csv);
    EXPECT_TRUE(one.skipped.empty());
    EXPECT_EQ(one.counts.messages_matched, 5u);
    EXPECT_EQ(one.counts.sends_unmatched + one.counts.receives_unmatched, 0u);
    EXPECT_EQ(one.counts.collectives_matched, 4u);
    EXPECT_EQ(one.counts.collectives_incomplete, 0u);
    EXPECT_EQ(one.counts.clock_violations, 0u);
    EXPECT_EQ(one.counts.collective_clock_violations, 0u);
    EXPECT_EQ(one.mpi_ticks, 63840000);  // see wait_states_trace(): 15.11 + 21.61 + 15.05 + 12.07 ms
    for (std::size_t k = 2; k <= 5; ++k) {
        const TraceReport other = analyze_trace_in_process(d, k);
        EXPECT_EQ(waitstates_csv(other), expected_csv) << k << " shares";
        EXPECT_EQ(waitstates_json(other), waitstates_json(one)) << k << " shares";
    }
}

TEST_F(TraceAnalysisTest, FindingsNameTheLateRanks) {
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    const std::vector<Finding> findings = wait_state_findings(r, 0.1);
    // 10 % of 63.84 ms: late senders (13), barrier (13), NxN (9), broadcast (9); not 3 or 5.
    ASSERT_EQ(findings.size(), 4u);
    EXPECT_EQ(findings[0].kind, "late_sender");
    EXPECT_EQ(findings[0].callpath, "main/MPI_Recv");
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{0, 2, 3}));
    EXPECT_NE(findings[0].message.find(
                  "Late senders are the largest wait state: 0.013 s of 0.06384 s MPI time (20.4%)"),
              std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[1].kind, "wait_at_barrier");
    EXPECT_EQ(findings[1].ranks, (std::vector<std::int64_t>{0}));
    EXPECT_EQ(findings[1].message.rfind(
                  "Waiting at barriers costs 0.013 s of 0.06384 s MPI time (20.4%), mostly in "
                  "call path main/MPI_Barrier (0.013 s)",
                  0),
              0u)
        << findings[1].message;
    EXPECT_NE(findings[1].message.find("because these arrive last: rank 0 (0.013 s)"), std::string::npos)
        << findings[1].message;
    EXPECT_EQ(findings[2].kind, "wait_at_nxn");
    EXPECT_EQ(findings[3].kind, "late_broadcast");
    EXPECT_EQ(findings[3].ranks, (std::vector<std::int64_t>{1}));
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST_F(TraceAnalysisTest, TimelineIsTheSameForEveryNumberOfShares) {
    const TraceDefinitions d = read_trace_definitions(anchor());
    std::string first;
    for (std::size_t k = 1; k <= 6; ++k) {  // 5 and 6: more shares than ranks
        const TimelineOptions timeline{dir_.file("trace.json.part"), 1000};
        const TraceReport r = analyze_trace_in_process(d, k, timeline);
        EXPECT_TRUE(r.timeline_cut.empty());
        const std::string path = dir_.file("trace" + std::to_string(k) + ".json");
        ASSERT_TRUE(join_timeline(timeline, k, path));
        EXPECT_FALSE(std::filesystem::exists(timeline_part(timeline, 0)));
        const std::string json = slurp(path);
        if (k == 1) first = json;
        EXPECT_EQ(json, first) << k << " shares";
    }
    EXPECT_EQ(first.rfind("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n{\"ph\": \"M\"", 0), 0u);
    EXPECT_EQ(count(first, "\"ph\": \"M\""), 16u);  // 4 ranks: process name and order, thread name and order
    EXPECT_EQ(count(first, "\"ph\": \"X\""), 33u);  // every region instance of wait_states_trace()
    EXPECT_EQ(count(first, "\"ph\": \"s\""), 5u);   // one flow per message
    EXPECT_EQ(count(first, "\"ph\": \"f\", \"bp\": \"e\""), 5u);
    // Rank 1's receive on rank 0's clock (its own runs 7 ms behind), in microseconds.
    EXPECT_NE(first.find("{\"ph\": \"X\", \"name\": \"MPI_Recv\", \"cat\": \"mpi\", \"ts\": 11000.000, "
                         "\"dur\": 5200.000, \"pid\": 1, \"tid\": 0}"),
              std::string::npos);
    // The late message: from rank 0 (at its MpiSend, 16 ms + 1 ns) to rank 1 (its MpiRecv).
    const MessageKey late{0, 0, 1, 1, 0};
    const std::string id = flow_id(late);
    EXPECT_EQ(count(first, id), 2u);
    EXPECT_NE(first.find("\"id\": \"" + id + "\", \"ts\": 16000.001, \"pid\": 0, \"tid\": 0}"),
              std::string::npos);
    EXPECT_NE(first.find("\"id\": \"" + id + "\", \"ts\": 16199.999, \"pid\": 1, \"tid\": 0}"),
              std::string::npos);
    EXPECT_EQ(first.substr(first.size() - 4), "\n]}\n");
}

TEST_F(TraceAnalysisTest, TimelineIsNotJoinedFromAMissingOrDamagedIndex) {
    const TraceDefinitions d = read_trace_definitions(anchor());
    const TimelineOptions timeline{dir_.file("trace.json.part"), 1000};
    for (const std::string damage : {"missing", "beyond the part", "not numbers"}) {
        analyze_trace_in_process(d, 2, timeline);
        const std::string index = timeline_part(timeline, 1) + ".units";
        ASSERT_TRUE(std::filesystem::exists(index));
        if (damage == "missing") {
            std::filesystem::remove(index);
        } else {
            std::ofstream(index, std::ios::trunc) << (damage == "not numbers" ? "1 0 x\n" : "1 0 99999999\n");
        }
        EXPECT_FALSE(join_timeline(timeline, 2, dir_.file("trace.json"))) << damage;
        EXPECT_FALSE(std::filesystem::exists(timeline_part(timeline, 0))) << damage;
        EXPECT_FALSE(std::filesystem::exists(index)) << damage;
    }
}

TEST_F(TraceAnalysisTest, TimelineCutIsSaid) {
    const TraceDefinitions d = read_trace_definitions(anchor());
    // 2 slices per location, and up to 9 region instances on one: the 90 ms of the run are cut
    // into 64 x 8 windows of 0.176 ms, and 1 in 8 is written, on every location alike.  What is
    // kept then is spread over the run (it was its first 30 ms before), and rank 0 still meets
    // the cap once.
    const TimelineOptions timeline{dir_.file("trace.json.part"), 8};
    const TraceReport r = analyze_trace_in_process(d, 2, timeline);
    ASSERT_TRUE(join_timeline(timeline, 2, dir_.file("trace.json")));
    const std::string json = slurp(dir_.file("trace.json"));
    EXPECT_EQ(count(json, "\"ph\": \"X\""), 5u);
    // Rank 0's MPI_Allreduce at 55 ms and MPI_Bcast at 62 ms (before, only slices ending by 30.5 ms).
    EXPECT_NE(json.find("\"name\": \"MPI_Allreduce\", \"cat\": \"mpi\", \"ts\": 55000.000"), std::string::npos) << json;
    EXPECT_NE(json.find("\"name\": \"MPI_Bcast\", \"cat\": \"mpi\", \"ts\": 62000.000"), std::string::npos) << json;
    ASSERT_EQ(r.timeline_cut.size(), 5u);
    EXPECT_EQ(r.timeline_cut[0],
              "rank 0, thread 0 (location 0): 1 slices ending at or after 0.09 s were left out of trace.json");
    EXPECT_EQ(r.timeline_cut[1],
              "rank 0, thread 0 (location 0): trace.json holds the slices that begin in 1 of every 8 time "
              "windows of 0.000175781 s, evenly over the run (--timeline-events); 6 slices in the others were "
              "left out");
    EXPECT_NE(waitstates_text(r).find("  Timeline cut: rank 0, thread 0 (location 0)"), std::string::npos);
}

TEST(TraceAnalysisOpenMpTest, ThreadsAndTheirEventsAreReadAndSkipped) {
    // wait_states_trace() with an OpenMP parallel region on rank 2 (4 threads,
    // as the OpenMP adapter will write it: fork/join, thread teams, a second
    // COMM_LOCATIONS group of paradigm OpenMP): the wait states are unchanged,
    // the threads are read, the rank's locations stay on one analysis rank.
    TempDir dir;
    TraceBuilder b = wait_states_trace();
    const std::uint32_t parallel =
        b.region("!$omp parallel", OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP);
    const std::uint32_t team = b.thread_team(2, 4);
    const std::uint64_t ms = 1000000;
    b.fork(2, 40 * ms, 4);
    for (std::uint32_t t = 0; t < 4; ++t) {
        b.team_begin(2, t, 40 * ms + 10, team);
        b.thread_enter(2, t, 40 * ms + 20, parallel);
        b.thread_leave(2, t, 42 * ms, parallel);
        b.team_end(2, t, 42 * ms + 10, team);
    }
    b.join(2, 42 * ms + 20);
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    EXPECT_EQ(d.locations.size(), 7u);
    EXPECT_EQ(d.world_size, 4u);  // the OpenMP COMM_LOCATIONS group does not number ranks
    EXPECT_EQ(trace_rank_layout(d).ranks[2].columns.size(), 4u);
    for (std::size_t k = 1; k <= 4; ++k) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_EQ(waitstates_csv(r), expected_csv) << k << " shares";
        EXPECT_EQ(r.locations_read, 7u);
        EXPECT_TRUE(r.skipped.empty());
    }
}

TEST(TraceAnalysisNonblockingTest, LateReceiverOfAnIsendIsChargedToItsWait) {
    // 2 ranks, times in ms.  Rank 0: MPI_Isend at 10 (tag 1) and 10.1 (tag 2),
    // MPI_Waitall 11..20 completing both.  Rank 1: MPI_Recv tag 1 at 15..20.1,
    // MPI_Recv tag 2 at 20.2..20.3.  The Waitall waits for the later of the two
    // receives that were posted before it ended: tag 1, 15 - 11 = 4 ms (tag
    // 2's receive was posted after the Waitall ended: no wait).  Rank 1 never
    // waits for a sender (both messages were posted before its receives).
    TempDir dir;
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t isend = b.mpi_region("MPI_Isend"), waitall = b.mpi_region("MPI_Waitall"),
                        recv = b.mpi_region("MPI_Recv");
    const std::uint64_t ms = 1000000, us = 1000;
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 5 * ms, main);
    for (std::uint32_t tag = 1; tag <= 2; ++tag) {
        const std::uint64_t at = 10 * ms + (tag - 1) * 100 * us;
        b.enter(0, at, isend);
        b.isend(0, at + 1, 1, tag, 100 + tag);
        b.leave(0, at + 10 * us, isend);
    }
    b.enter(0, 11 * ms, waitall);
    b.isend_complete(0, 20 * ms - 2, 101);
    b.isend_complete(0, 20 * ms - 1, 102);
    b.leave(0, 20 * ms, waitall);
    b.blocking_recv(1, recv, 15 * ms, 20 * ms + 100 * us, 0, 1);
    b.blocking_recv(1, recv, 20 * ms + 200 * us, 20 * ms + 300 * us, 0, 2);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 30 * ms, main);
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    for (std::size_t k = 1; k <= 2; ++k) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_EQ(waitstates_csv(r),
                  "metric,callpath,rank,partner,time_s,instances\n"
                  "late_receiver,main/MPI_Waitall,0,1,0.004,1\n")
            << k << " shares";
        EXPECT_EQ(r.counts.messages_matched, 2u);
    }
}

TEST(TraceAnalysisCombinedCallTest, ACallWaitsAtOneSite) {
    // 2 ranks, times in ms; a call waits once (Scalasca's rules for combined calls).
    // MPI_Sendrecv: rank 1 enters at 10, rank 0 (late) at 20, both leave at
    //   20.1.  Rank 1 waits 10 ms for rank 0's send (late sender); its own
    //   send also waited 10 ms for rank 0's receive, the same 10 ms: no late
    //   receiver in a combined call.  Rank 0 waits for nothing.
    // MPI_Waitall on rank 1 (31 .. 41.1) completing an Isend (tag 2) and an
    //   Irecv (tag 3): rank 0 sends tag 3 at 40 and receives tag 2 at 41: a late
    //   sender of 9 ms, so not also a late receiver of 10 ms.
    // MPI_Waitall on rank 1 (51 .. 60.1) completing an Isend (tag 4) and an
    //   Irecv (tag 5) whose message was sent at 45: no late sender, and the
    //   receive of tag 4 posted at 60 makes a late receiver of 9 ms.
    TempDir dir;
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t sendrecv = b.mpi_region("MPI_Sendrecv"), send = b.mpi_region("MPI_Send"),
                        recv = b.mpi_region("MPI_Recv"), isend = b.mpi_region("MPI_Isend"),
                        irecv = b.mpi_region("MPI_Irecv"), waitall = b.mpi_region("MPI_Waitall");
    const std::uint64_t ms = 1000000, us = 1000;
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 5 * ms, main);
    for (std::uint32_t r = 0; r < 2; ++r) {
        const std::uint64_t e = r == 0 ? 20 * ms : 10 * ms;
        b.enter(r, e, sendrecv);
        b.send(r, e + 1, 1 - r, 1);
        b.recv(r, 20 * ms + 50 * us, 1 - r, 1);
        b.leave(r, 20 * ms + 100 * us, sendrecv);
    }
    const auto nonblocking = [&](std::uint64_t at, std::uint32_t send_tag, std::uint32_t receive_tag) {
        b.enter(1, at, isend);
        b.isend(1, at + 1, 0, send_tag, send_tag);
        b.leave(1, at + 10 * us, isend);
        b.enter(1, at + 20 * us, irecv);
        b.irecv_request(1, at + 21 * us, receive_tag);
        b.leave(1, at + 30 * us, irecv);
    };
    nonblocking(30 * ms, 2, 3);
    b.enter(1, 31 * ms, waitall);
    b.irecv(1, 40 * ms + 50 * us, 0, 3, 3);
    b.isend_complete(1, 41 * ms + 50 * us, 2);
    b.leave(1, 41 * ms + 100 * us, waitall);
    b.blocking_send(0, send, 40 * ms, 40 * ms + 10 * us, 1, 3);
    b.blocking_recv(0, recv, 41 * ms, 41 * ms + 20 * us, 1, 2);
    b.blocking_send(0, send, 45 * ms, 45 * ms + 10 * us, 1, 5);
    nonblocking(50 * ms, 4, 5);
    b.enter(1, 51 * ms, waitall);
    b.irecv(1, 51 * ms + 10 * us, 0, 5, 5);
    b.isend_complete(1, 60 * ms + 50 * us, 4);
    b.leave(1, 60 * ms + 100 * us, waitall);
    b.blocking_recv(0, recv, 60 * ms, 60 * ms + 20 * us, 1, 4);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 70 * ms, main);
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    for (const bool direct : {true, false}) {  // EventFile and OTF2's reader
        TraceAnalysisOptions options;
        options.decode_directly = direct;
        for (std::size_t k = 1; k <= 2; ++k) {
            const TraceReport r = analyze_trace_in_process(d, k, {}, options);
            EXPECT_EQ(waitstates_csv(r),
                      "metric,callpath,rank,partner,time_s,instances\n"
                      "late_sender,main/MPI_Sendrecv,1,0,0.01,1\n"
                      "late_sender,main/MPI_Waitall,1,0,0.009,1\n"
                      "late_receiver,main/MPI_Waitall,1,0,0.009,1\n")
                << k << " shares, direct " << direct;
            EXPECT_EQ(r.counts.messages_matched, 6u);
        }
    }
}

TEST(TraceAnalysisCombinedCallTest, ASendrecvAtTheEdgeOfAHaloIsNoLateReceiver) {
    // A halo exchange's edge rank: its MPI_Sendrecv receives from MPI_PROC_NULL
    // (no receive event) and sends to rank 1, whose receive is posted 10 ms
    // later.  Before: a 10 ms late receiver at the MPI_Sendrecv; as Scalasca,
    // a combined call is never charged one.
    TempDir dir;
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t sendrecv = b.mpi_region("MPI_Sendrecv"), recv = b.mpi_region("MPI_Recv");
    const std::uint64_t ms = 1000000;
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 5 * ms, main);
    b.enter(0, 10 * ms, sendrecv);
    b.send(0, 10 * ms + 1, 1, 1);
    b.leave(0, 20 * ms + 100, sendrecv);
    b.blocking_recv(1, recv, 20 * ms, 20 * ms + 50, 0, 1);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 30 * ms, main);
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    const TraceReport r = analyze_trace_in_process(d, 1, {}, TraceAnalysisOptions{});
    EXPECT_EQ(waitstates_csv(r), "metric,callpath,rank,partner,time_s,instances\n");
    EXPECT_EQ(r.counts.messages_matched, 1u);
}

TEST(TraceAnalysisFileTest, AFifoAnchorIsRefusedAtOnce) {
    // OTF2's reader would wait for a writer that never comes.
    TempDir dir;
    const std::string anchor = dir.file("traces.otf2");
    ASSERT_EQ(mkfifo(anchor.c_str(), 0600), 0);
    try {
        read_trace_definitions(anchor);
        FAIL() << "no error";
    } catch (const TraceError& e) {
        EXPECT_EQ(std::string(e.what()),
                  anchor + ": not a regular file (a directory, a FIFO or a device), not an OTF2 anchor file");
    }
}

TEST(TraceShareAnalysisTest, UnitsGoOutLargestFirst) {
    // Ranks 0-3 write 10, 400, 10 and 200 Enter/Leave pairs: with one unit per
    // measured rank (K = 1: up to 16 units), rank 1's unit is handed out
    // first, then rank 3's, then the two of equal size in rank order.
    TempDir dir;
    TraceBuilder b(4);
    const std::uint32_t work = b.region("work", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t pairs[] = {10, 400, 10, 200};
    for (std::uint32_t r = 0; r < 4; ++r) {
        for (std::uint32_t i = 0; i < pairs[r]; ++i) {
            b.enter(r, 1000 + 10 * i, work);
            b.leave(r, 1005 + 10 * i, work);
        }
    }
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    const TraceShareAnalysis share(d, 0, 1);
    ASSERT_EQ(share.unit_count(), 4u);
    EXPECT_EQ(share.unit_order(), (std::vector<std::int64_t>{1, 3, 0, 2}));
}

TEST(TraceAnalysisMappingTest, LocalIdsAreMappedWhetherTheReplayOrOtf2AppliesTheTables) {
    // Ranks 1-3 write their regions and communicators under local ids
    // (reversed) with mapping tables.  The replay applies REGION and COMM
    // tables itself; with a table of another kind OTF2 applies them all.
    // Either way the wait states are those of the global ids.
    for (const auto ids : {TraceBuilder::LocalIds::reversed, TraceBuilder::LocalIds::with_attribute}) {
        TempDir dir;
        TraceBuilder b = wait_states_trace();
        b.local_ids(ids);
        b.write(dir.path());
        const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
        for (std::size_t k = 1; k <= 2; ++k) {
            const TraceReport r = analyze_trace_in_process(d, k);
            EXPECT_EQ(waitstates_csv(r), expected_csv) << k << " shares";
            EXPECT_EQ(r.counts.unresolved, 0u);
        }
    }
}

TEST(TraceAnalysisMessageOrderTest, OneChannelIsMatchedInPostingOrderWithoutCancelledSends) {
    // MPI matches the messages of one channel (0 -> 1, tag 4) in the order
    // their calls were posted.  Rank 1 posts an Irecv at 10 ms, then a
    // blocking Recv at 12 ms, and completes the Irecv last: its records come
    // in the other order, so numbering must sort them.  Rank 0's first Isend
    // is cancelled and takes no place.  Right: the Irecv gets the send at
    // 11 ms (no wait), the Recv the one at 18 ms (a late sender of 6 ms).
    TempDir dir;
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t send = b.mpi_region("MPI_Send"), recv = b.mpi_region("MPI_Recv"),
                        isend = b.mpi_region("MPI_Isend"), irecv = b.mpi_region("MPI_Irecv"),
                        wait = b.mpi_region("MPI_Wait"), cancel = b.mpi_region("MPI_Cancel");
    const std::uint64_t ms = 1000000, us = 1000;
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 1 * ms, main);
    b.enter(0, 5 * ms, isend);
    b.isend(0, 5 * ms + 1, 1, 4, 77);
    b.leave(0, 5 * ms + 10, isend);
    b.enter(0, 6 * ms, cancel);
    b.request_cancelled(0, 6 * ms + 1, 77);
    b.leave(0, 6 * ms + 10, cancel);
    b.blocking_send(0, send, 11 * ms, 11 * ms + 100 * us, 1, 4);
    b.blocking_send(0, send, 18 * ms, 18 * ms + 100 * us, 1, 4);
    b.enter(1, 10 * ms, irecv);
    b.irecv_request(1, 10 * ms + 1, 5);
    b.leave(1, 10 * ms + 10, irecv);
    b.blocking_recv(1, recv, 12 * ms, 20 * ms, 0, 4);
    b.enter(1, 21 * ms, wait);
    b.irecv(1, 30 * ms - 10, 0, 4, 5);
    b.leave(1, 30 * ms, wait);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 40 * ms, main);
    b.write(dir.path());
    const TraceDefinitions d = read_trace_definitions(dir.file("traces.otf2"));
    for (const bool direct : {true, false}) {  // EventFile and OTF2's reader
        TraceAnalysisOptions options;
        options.decode_directly = direct;
        for (std::size_t k = 1; k <= 3; ++k) {
            const TraceReport r = analyze_trace_in_process(d, k, {}, options);
            EXPECT_EQ(waitstates_csv(r),
                      "metric,callpath,rank,partner,time_s,instances\n"
                      "late_sender,main/MPI_Recv,1,0,0.006,1\n")
                << k << " shares, direct " << direct;
            EXPECT_EQ(r.counts.messages_matched, 2u) << k << " shares";
            EXPECT_EQ(r.counts.sends_unmatched, 0u) << k << " shares";
            EXPECT_EQ(r.counts.receives_unmatched, 0u) << k << " shares";
        }
    }
}

TEST(TraceAnalysisClockTest, WithoutTheOffsetsTheResultIsWrong) {
    // The fixture's local timestamps without their ClockOffset records: rank
    // 1's clock is 7 ms behind, so its receive seems to end before the send
    // began (a clock-condition violation) and the late sender reads 5.2 ms
    // instead of the 5 ms that correction gives (with the times as they are:
    // logical_clock_test.cpp makes them consistent).
    TempDir dir;
    TraceBuilder b = wait_states_trace();
    b.write_clock_offsets(false);
    b.write(dir.path());
    TraceAnalysisOptions as_written;
    as_written.logical_clock = false;
    const TraceReport r =
        analyze_trace_in_process(read_trace_definitions(dir.file("traces.otf2")), 1, {}, as_written);
    const std::string csv = waitstates_csv(r);
    EXPECT_NE(csv, expected_csv);
    EXPECT_NE(csv.find("late_sender,main/MPI_Recv,1,0,0.0052,1\n"), std::string::npos) << csv;
    EXPECT_GE(r.counts.clock_violations, 1u);
    // Local barrier enters 50, 37, 44, 51 and exits 50.1, 43.1, 48.1, 54.1 ms:
    // ranks 0-2 leave before rank 3 enters; Allreduce enters 55, 49, 56, 58,
    // exits 58.2, 51.2, 56.2, 62.2: ranks 1 and 2 leave before rank 3 enters;
    // Reduce enters 71, 65, 68, 79, the root (rank 2) leaves at 73.1, before rank 3 enters.
    EXPECT_EQ(r.counts.collective_clock_violations, 6u);
}

/// Three ranks that reach MPI_Finalize at 10, 20 and 40 ms and leave it at
/// 41 ms; with `skip`, that rank never calls it (an aborted rank).
TraceDefinitions finalize_trace(const TempDir& dir, std::int64_t skip = -1) {
    constexpr std::uint64_t ms = 1000000;  // ns
    TraceBuilder b(3);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t finalize = b.mpi_region("MPI_Finalize");
    const std::uint64_t enter[] = {10, 20, 40};
    for (std::uint32_t r = 0; r < 3; ++r) {
        b.enter(r, 1 * ms, main);
        b.leave(r, (enter[r] - 1) * ms, main);
        if (static_cast<std::int64_t>(r) == skip) continue;
        b.enter(r, enter[r] * ms, finalize);
        b.leave(r, 41 * ms, finalize);
    }
    b.write(dir.path());
    return read_trace_definitions(dir.file("traces.otf2"));
}

TEST(TraceAnalysisFinalizeTest, RanksThatFinishEarlyWaitInMpiFinalizeForTheLast) {
    TempDir dir;
    const TraceDefinitions d = finalize_trace(dir);
    const TraceReport one = analyze_trace_in_process(d, 1);
    // min(40, 41) - 10 and - 20 ms on ranks 0 and 1, blamed on rank 2, which arrives last.
    EXPECT_EQ(waitstates_csv(one),
              "metric,callpath,rank,partner,time_s,instances\n"
              "wait_at_finalize,MPI_Finalize,0,2,0.03,1\n"
              "wait_at_finalize,MPI_Finalize,1,2,0.02,1\n");
    // MPI_Finalize is no collective of the counts, and not MPI time.
    EXPECT_EQ(one.counts.collectives_matched + one.counts.collectives_incomplete, 0u);
    EXPECT_EQ(one.mpi_ticks, 0);
    for (std::size_t k = 2; k <= 3; ++k)
        EXPECT_EQ(waitstates_json(analyze_trace_in_process(d, k)), waitstates_json(one)) << k << " shares";
    // Compared with the MPI time and the wait itself (here all of it).
    const std::vector<Finding> findings = wait_state_findings(one, 0.1);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "wait_at_finalize");
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{2}));
    EXPECT_EQ(findings[0].message.rfind(
                  "Waiting in MPI_Finalize dominates MPI time: 0.05 s of 0.05 s MPI time with "
                  "this wait (100.0%)",
                  0),
              0u)
        << findings[0].message;
}

TEST(TraceAnalysisFinalizeTest, NoWaitWhenARankNeverReachedMpiFinalize) {
    TempDir dir;
    const TraceReport r = analyze_trace_in_process(finalize_trace(dir, 1), 2);
    EXPECT_EQ(waitstates_csv(r), "metric,callpath,rank,partner,time_s,instances\n");
    EXPECT_EQ(r.waits.total_instances[static_cast<std::size_t>(WaitMetric::wait_at_finalize)], 0u);
}

}  // namespace
}  // namespace strata::analysis::test
