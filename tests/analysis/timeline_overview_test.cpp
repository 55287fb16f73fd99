// SPDX-License-Identifier: BSD-3-Clause
// report.html's timeline (trace/timeline_overview.hpp) from the synthetic
// wait-state trace: each lane's time per class summed over the bins is the
// exclusive time of its regions, the detail window holds every instance and
// message, the options choose ranks and the window, a lane's detail stops at
// its cap and says where, and timeline.json is the same for 1 to 5 shares.
#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <cstdint>
#include <numeric>
#include <string>

#include "otf2_fixture.hpp"
#include "test_support.hpp"
#include "trace/timeline_overview.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/wait_state_analysis.hpp"

namespace strata::analysis::test {
namespace {

using namespace strata::analysis::trace;

constexpr std::int64_t ms = 1000000;  // the fixture's times are in ns

class TimelineOverviewTest : public ::testing::Test {
protected:
    void SetUp() override {
        wait_states_trace().write(dir_.path());
        defs_ = read_trace_definitions(dir_.file("traces.otf2"));
    }
    TraceReport analyze(std::size_t shares, const TimelineViewOptions& view = {}) {
        TraceAnalysisOptions options;
        options.timeline_view = view;
        return analyze_trace_in_process(defs_, shares, {dir_.file("trace.json.part"), 1000}, options);
    }
    /// A lane's time in class `c`, summed over the bins.
    static std::int64_t total(const TimelineReport::Lane& lane, LaneClass c) {
        std::int64_t sum = 0;
        for (std::size_t k = static_cast<std::size_t>(c); k < lane.ticks.size(); k += lane_class_count)
            sum += lane.ticks[k];
        return sum;
    }
    TempDir dir_;
    TraceDefinitions defs_;
};

TEST_F(TimelineOverviewTest, EachLanesClassesAreTheExclusiveTimesOfItsRegions) {
    const TraceReport r = analyze(1);
    const TimelineReport& t = r.timeline;
    ASSERT_TRUE(t.present);
    ASSERT_EQ(t.lanes.size(), 4u);
    EXPECT_EQ(t.lanes_left_out, 0u);
    // Rank 0: main 10..90 ms, MPI calls 0.1 + 0.01 + 4.5 + 0.05 (messages) + 0.1 + 3.2 + 3.1 + 4.05 (collectives).
    EXPECT_EQ(total(t.lanes[0], LaneClass::mpi), 15110000);
    EXPECT_EQ(total(t.lanes[0], LaneClass::computation), 80 * ms - 15110000);
    // Rank 1, on rank 0's clock: MPI_Recv 11..16.2 ms holds the lane: a bin inside it is all MPI.
    const std::size_t bin = static_cast<std::size_t>((13 * ms - t.origin) * static_cast<std::int64_t>(t.bins) / t.length);
    const std::int64_t width = t.length / static_cast<std::int64_t>(t.bins);
    EXPECT_NEAR(static_cast<double>(t.lanes[1].ticks[bin * lane_class_count + static_cast<std::size_t>(LaneClass::mpi)]),
                static_cast<double>(width), 1.0);
    // No bin holds more than its width, no class less than nothing.
    for (const TimelineReport::Lane& lane : t.lanes) {
        for (std::size_t b = 0; b < t.bins; ++b) {
            std::int64_t sum = 0;
            for (std::size_t c = 0; c < lane_class_count; ++c) {
                EXPECT_GE(lane.ticks[b * lane_class_count + c], 0) << "bin " << b;
                sum += lane.ticks[b * lane_class_count + c];
            }
            EXPECT_LE(sum, width + 1) << "bin " << b;
        }
    }
    // The whole run fits the window: every instance (33, as trace.json) and message (5).
    EXPECT_EQ(t.slices.size(), 33u);
    EXPECT_EQ(t.messages.size(), 5u);
    const std::string json = timeline_json(t, {});
    EXPECT_NE(json.find("\"chosen\": \"the whole run\""), std::string::npos) << json.substr(0, 2000);
}

TEST_F(TimelineOverviewTest, TheSameForEveryNumberOfShares) {
    std::string first;
    for (std::size_t k = 1; k <= 5; ++k) {
        const TraceReport r = analyze(k);
        const std::string json = timeline_json(r.timeline, r.iterations.plan.bounds);
        if (k == 1) first = json;
        EXPECT_EQ(json, first) << k << " shares";
    }
    EXPECT_NE(first.find("\"report\": \"timeline\""), std::string::npos);
}

TEST_F(TimelineOverviewTest, RanksWindowAndCapsAreChosenAndSaid) {
    TimelineViewOptions view;
    view.ranks = {1, 3};
    view.window_begin_s = 0.030;  // 30..40 ms from the trace start
    view.window_end_s = 0.040;
    const TraceReport chosen = analyze(2, view);
    ASSERT_EQ(chosen.timeline.lanes.size(), 2u);
    EXPECT_EQ(chosen.timeline.lanes[0].rank, 1);
    EXPECT_EQ(chosen.timeline.lanes[1].rank, 3);
    EXPECT_EQ(chosen.timeline.lanes_left_out, 2u);
    EXPECT_TRUE(chosen.timeline.window_chosen);
    const Ticks from = chosen.timeline.origin + 30 * ms, to = chosen.timeline.origin + 40 * ms;
    for (const TimelineReport::Slice& s : chosen.timeline.slices) {
        EXPECT_LT(s.enter, to);
        EXPECT_GT(s.exit, from);
    }
    EXPECT_FALSE(chosen.timeline.slices.empty());
    EXPECT_NE(timeline_json(chosen.timeline, {}).find("\"chosen\": \"--timeline-window\""), std::string::npos);

    // Two instances per lane over the whole run: the first two to end are kept, the end of the third is said.
    TimelineViewOptions few;
    few.window_slices = 8;
    few.window_begin_s = 0;
    few.window_end_s = 1;
    const TraceReport capped = analyze(3, few);
    EXPECT_EQ(capped.timeline.slices_per_lane, 2u);
    EXPECT_EQ(capped.timeline.slices.size(), 8u);
    for (const TimelineReport::Lane& lane : capped.timeline.lanes) {
        EXPECT_EQ(lane.slices, 2u);
        EXPECT_GT(lane.slices_left_out, 0u);
        EXPECT_NE(lane.detail_end, no_time);
    }
    // Without a window asked for, the run no longer fits: the window is the middle of the run.
    few.window_begin_s = few.window_end_s = -1;
    const TraceReport middle = analyze(2, few);
    EXPECT_NE(timeline_json(middle.timeline, {}).find("\"chosen\": \"the middle of the run\""), std::string::npos);
    EXPECT_GT(middle.timeline.window_begin, middle.timeline.origin);
    EXPECT_LT(middle.timeline.window_end, middle.timeline.origin + middle.timeline.length);
}

TEST_F(TimelineOverviewTest, ClassesFollowTheProfilesTimeClasses) {
    const auto region = [](const char* name, std::uint32_t role, std::uint32_t paradigm) {
        TraceRegion r;
        r.name = name;
        r.role = role;
        r.paradigm = paradigm;
        return r;
    };
    EXPECT_EQ(lane_class(region("MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI), false), LaneClass::mpi);
    EXPECT_EQ(lane_class(region("MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI), false),
              LaneClass::mpi_init_finalize);
    EXPECT_EQ(lane_class(region("MPI_File_write_at", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI), false),
              LaneClass::io);
    EXPECT_EQ(lane_class(region("!$omp barrier", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_OPENMP), false),
              LaneClass::openmp);
    EXPECT_EQ(lane_class(region("!$omp for", OTF2_REGION_ROLE_LOOP, OTF2_PARADIGM_OPENMP), false),
              LaneClass::computation);
    EXPECT_EQ(lane_class(region("cudaDeviceSynchronize", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA), false),
              LaneClass::gpu_wait);
    EXPECT_EQ(lane_class(region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA), false),
              LaneClass::cuda_api);
    EXPECT_EQ(lane_class(region("saxpy", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA), true), LaneClass::kernel);
    EXPECT_EQ(lane_class(region("cudaMemcpy HtoD", OTF2_REGION_ROLE_DATA_TRANSFER, OTF2_PARADIGM_CUDA), true),
              LaneClass::copy);
    EXPECT_EQ(lane_class(region("solve", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER), false),
              LaneClass::computation);
}

}  // namespace
}  // namespace strata::analysis::test
