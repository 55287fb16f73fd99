// SPDX-License-Identifier: BSD-3-Clause
// The step trace (step_trace.hpp): a two-rank job with a planted iteration
// gap, NCCL kernels overlapping an MPI call, a hundred 3 us kernels per step
// and a slow HtoD copy, with exact figures for 1 to 3 shares in one process
// and from the built tool under mpirun -np 1, 2, 3 (byte-identical reports).
#include "trace/step_trace.hpp"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "otf2_fixture.hpp"
#include "test_support.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_summary.hpp"
#include "trace/wait_state_analysis.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;
using namespace strata::analysis::trace;

constexpr std::uint64_t us = 1000;  // the builder's times are ns

/// Two ranks, 3 steps (the phase "step") and the tail to 32 ms (times in us, true time):
///
///   rank 0, step k from s = 10000 k to s + 10000, GPU 0, no launches recorded (ops go by start):
///     volta_sgemm_128x64_nn s+100..s+2100, cudaMemcpyAsync HtoD s+2100..s+5100,
///     100 x elementwise_kernel of 3 us every 5 us from s+5100 (last ends s+5598),
///     ncclDevKernel_AllReduce s+5600..s+7600; MPI_Barrier 10100 k + 8600 .. 10100 k + 9200
///   rank 1, step k from s = 10100 k to s + 10100 (3 ms of host work first: the planted gap):
///     volta_sgemm s+3000..s+5000 (launched at s+2990), ncclDevKernel_AllReduce s+5000..s+9000
///     (launched at s+2995), MPI_Barrier s+8800..s+9200 (inside the NCCL kernel for 200),
///     bias_kernel s+10150..s+10250: launched at s+9300, so in step k although it starts in k+1
///
/// Iterations [0, 10100), [10100, 20200), [20200, 30300), [30300, 32000]: the tail is an
/// outlier, the stable range 0..2; rank 1 is the slowest in 0..2 (10100 > 10000), rank 0 in 3.
TraceBuilder step_trace_job() {
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        step = b.region("step", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                        OTF2_REGION_FLAG_PHASE),
                        barrier = b.mpi_region("MPI_Barrier"),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        gemm = b.kernel_region("volta_sgemm_128x64_nn"),
                        small = b.kernel_region("elementwise_kernel"),
                        nccl = b.kernel_region("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
                        bias = b.kernel_region("bias_kernel"), htod = b.copy_region("cudaMemcpyAsync HtoD");
    const std::uint32_t gpu0 = b.stream(0, 0), gpu1 = b.stream(1, 0);
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 0, main);
    for (std::uint64_t k = 0; k < 3; ++k) {
        const std::uint64_t s0 = 10000 * k, s1 = 10100 * k;
        b.enter(0, s0 * us, step);
        b.gpu_op(0, gpu0, (s0 + 100) * us, (s0 + 2100) * us, gemm);
        b.gpu_op(0, gpu0, (s0 + 2100) * us, (s0 + 5100) * us, htod);
        for (std::uint64_t j = 0; j < 100; ++j)
            b.gpu_op(0, gpu0, (s0 + 5100 + 5 * j) * us, (s0 + 5103 + 5 * j) * us, small);
        b.gpu_op(0, gpu0, (s0 + 5600) * us, (s0 + 7600) * us, nccl);
        b.collective(0, barrier, (s1 + 8600) * us, (s1 + 9200) * us, OTF2_COLLECTIVE_OP_BARRIER);
        b.leave(0, (s0 + 10000) * us, step);

        b.enter(1, s1 * us, step);
        const std::uint64_t c = 3 * k + 1;
        b.enter_launch(1, (s1 + 2990) * us, launch, c);
        b.leave(1, (s1 + 2992) * us, launch);
        b.enter_launch(1, (s1 + 2995) * us, launch, c + 1);
        b.leave(1, (s1 + 2997) * us, launch);
        b.gpu_op(1, gpu1, (s1 + 3000) * us, (s1 + 5000) * us, gemm, c);
        b.gpu_op(1, gpu1, (s1 + 5000) * us, (s1 + 9000) * us, nccl, c + 1);
        b.collective(1, barrier, (s1 + 8800) * us, (s1 + 9200) * us, OTF2_COLLECTIVE_OP_BARRIER);
        b.enter_launch(1, (s1 + 9300) * us, launch, c + 2);
        b.leave(1, (s1 + 9302) * us, launch);
        b.gpu_op(1, gpu1, (s1 + 10150) * us, (s1 + 10250) * us, bias, c + 2);
        b.leave(1, (s1 + 10100) * us, step);
    }
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 32000 * us, main);
    return b;
}

// By hand (us).  Rank 0 per step: span 100..7600 = 7500, busy 2000 + 3000 + 300 + 2000 = 7300,
// idle 7500 - 7300 = 200 (99 x 2 between the short kernels, 2 before the NCCL kernel), compute
// 2000 + 300, comm = NCCL 2000 + MPI 600 (apart); gap 100 from the start of iteration 0, then
// 10100 - 7600 = 2500.  Rank 1: span 3000..10250 = 7250, busy 2000 + 4000 + 100 = 6100, idle
// 9000..10150 = 1150, comm = |5000..9000 ∪ 8800..9200| = 4200 < NCCL 4000 + MPI 400; gap 3000,
// then 13100 - 10250 = 2850 (its bias_kernel goes with the step that launched it).
const std::string step_csv =
    "iteration,scope,rank,iteration_s,gap_s,gpu_span_s,busy_s,compute_s,nccl_s,mpi_s,comm_s,copy_s,"
    "host_copy_s,idle_s,kernels,short_kernels,short_kernel_s,copies,gap_share,compute_share,comm_share,"
    "idle_share,used\n"
    "0,rank,0,0.01,0.0001,0.0075,0.0073,0.0023,0.002,0.0006,0.0026,0.003,0.003,0.0002,102,100,0.0003,1,"
    "0.01,0.23,0.26,0.02,1\n"
    "0,rank,1,0.0101,0.003,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.297029703,0.207920792,0.415841584,0.113861386,1\n"
    "0,slowest,1,0.0101,0.003,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.297029703,0.207920792,0.415841584,0.113861386,1\n"
    "1,rank,0,0.01,0.0025,0.0075,0.0073,0.0023,0.002,0.0006,0.0026,0.003,0.003,0.0002,102,100,0.0003,1,"
    "0.25,0.23,0.26,0.02,1\n"
    "1,rank,1,0.0101,0.00285,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.282178218,0.207920792,0.415841584,0.113861386,1\n"
    "1,slowest,1,0.0101,0.00285,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.282178218,0.207920792,0.415841584,0.113861386,1\n"
    "2,rank,0,0.01,0.0025,0.0075,0.0073,0.0023,0.002,0.0006,0.0026,0.003,0.003,0.0002,102,100,0.0003,1,"
    "0.25,0.23,0.26,0.02,1\n"
    "2,rank,1,0.0101,0.00285,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.282178218,0.207920792,0.415841584,0.113861386,1\n"
    "2,slowest,1,0.0101,0.00285,0.00725,0.0061,0.0021,0.004,0.0004,0.0042,0,0,0.00115,3,0,0,0,"
    "0.282178218,0.207920792,0.415841584,0.113861386,1\n"
    "3,rank,0,0.002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "3,rank,1,0.0017,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "3,slowest,0,0.002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n";

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

const Finding* find_kind(const std::vector<Finding>& findings, const std::string& kind) {
    for (const Finding& f : findings)
        if (f.kind == kind) return &f;
    return nullptr;
}

class StepTraceTest : public ::testing::Test {
protected:
    std::string anchor() const { return dir_.file("traces.otf2"); }
    TempDir dir_;
};

TEST_F(StepTraceTest, ExactFiguresPerRankAndSlowestRankForOneToThreeShares) {
    step_trace_job().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    std::string first_json;
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
        const auto files = step_trace_files(r.steps);
        ASSERT_EQ(files.size(), 2u);
        EXPECT_EQ(files[0].first, "step_trace.csv");
        EXPECT_EQ(files[0].second, step_csv) << "K = " << k;
        if (k == 1) first_json = files[1].second;
        EXPECT_EQ(files[1].second, first_json) << "K = " << k;
    }
    // Means over the stable range 0..2, in the JSON and the summary.
    const std::string& json = first_json;
    EXPECT_NE(json.find("\"used\": {\"iterations\": \"the stable range\", \"start\": 0, \"stop\": 2}"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"slowest\": {\"iteration_s\": 0.0303, \"gap_s\": 0.0087, \"gpu_span_s\": 0.02175, "
                        "\"busy_s\": 0.0183, \"compute_s\": 0.0063, \"nccl_s\": 0.012, \"mpi_s\": 0.0012, "
                        "\"comm_s\": 0.0126, "),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("{\"rank\": 0, \"iteration_s\": 0.03, \"gap_s\": 0.0051, "), std::string::npos)
        << json;
    EXPECT_NE(json.find("\"comm_s\": \"|union of the NCCL kernels and those MPI calls|"), std::string::npos);
    EXPECT_NE(json.find("{\"iteration\": 3, \"scope\": \"slowest\", \"rank\": 0, \"iteration_s\": 0.002, "),
              std::string::npos)
        << json;
}

TEST_F(StepTraceTest, FindingsCarryTheirNumbers) {
    step_trace_job().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    const std::vector<Finding> findings = step_trace_findings(r.steps, StepTraceThresholds{});
    ASSERT_EQ(findings.size(), 4u);

    const Finding* gap = find_kind(findings, "step_gap");
    ASSERT_NE(gap, nullptr);
    EXPECT_EQ(gap->ranks, std::vector<std::int64_t>{1});  // rank 0: 5.1 of 30 ms, below 20 %
    EXPECT_DOUBLE_EQ(gap->value, 8700.0 / 30300.0);
    EXPECT_DOUBLE_EQ(*gap->time_s, 0.0087);
    EXPECT_NE(gap->message.find("on rank 1 the iteration gap"), std::string::npos) << gap->message;
    EXPECT_NE(gap->message.find("28.7% of the iteration time"), std::string::npos) << gap->message;

    const Finding* shorts = find_kind(findings, "short_kernels");
    ASSERT_NE(shorts, nullptr);
    EXPECT_DOUBLE_EQ(shorts->value, 300.0 / 315.0);
    EXPECT_DOUBLE_EQ(*shorts->time_s, 300 * launch_overhead_estimate_s);
    EXPECT_EQ(shorts->ranks, std::vector<std::int64_t>{0});
    EXPECT_NE(shorts->message.find("300 of 315 kernels (95.2%) ran shorter than"), std::string::npos)
        << shorts->message;
    EXPECT_NE(shorts->message.find("CUDA graph"), std::string::npos);

    const Finding* copies = find_kind(findings, "host_copies");
    ASSERT_NE(copies, nullptr);
    EXPECT_DOUBLE_EQ(copies->value, 9000.0 / 40200.0);  // HtoD 3 x 3 ms of 40.2 ms busy
    EXPECT_NE(copies->message.find("pinned"), std::string::npos);
    EXPECT_NE(copies->message.find("most on rank 0"), std::string::npos) << copies->message;

    const Finding* comm = find_kind(findings, "step_communication");
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(comm->ranks, std::vector<std::int64_t>{1});  // rank 0: 26 %
    EXPECT_DOUBLE_EQ(comm->value, 12600.0 / 30300.0);
    EXPECT_NE(comm->message.find("NCCL kernels 0.012 s, MPI 0.0012 s"), std::string::npos) << comm->message;

    // Thresholds move them: none with the limits set high.
    const StepTraceThresholds high{0.5, 10e-6, 0.99, 0.5, 0.5};
    EXPECT_TRUE(step_trace_findings(r.steps, high).empty());
}

TEST_F(StepTraceTest, NothingWithoutGpuStreams) {
    iterations_trace(true).write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 1);
    EXPECT_TRUE(r.steps.present);  // iterations_trace() has a stream
    TempDir other;
    wait_states_trace().write(other.path());
    const TraceReport none =
        analyze_trace_in_process(read_trace_definitions(other.file("traces.otf2")), 2);
    EXPECT_FALSE(none.steps.present);
    EXPECT_TRUE(step_trace_files(none.steps).empty());
    EXPECT_EQ(step_trace_text(none.steps), "");
    bool listed = false;
    for (const auto& file : waitstate_files(none)) listed = listed || file.first.rfind("step_trace", 0) == 0;
    EXPECT_FALSE(listed);
}

class StepTraceToolTest : public AnalyzeToolTest {};

TEST_F(StepTraceToolTest, ReportsExactAndIdenticalForK123) {
    step_trace_job().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp(fs::path(one) / "step_trace.csv"), step_csv);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("Step trace (MindSpore's breakdown of each iteration; over iterations 0 to 2, the "
                           "stable range; shares of the iteration time):\n"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("  Slowest rank of each iteration (mean iteration 0.0101 s): gap 28.7%, GPU "
                           "computation 20.8%, communication 41.6% (NCCL kernels 39.6%, MPI 4.0%), GPU idle "
                           "inside the step 11.4%, copies 0.0%\n"),
              std::string::npos)
        << summary;
    const std::string advice = slurp(fs::path(one) / "advice.csv");
    for (const char* row : {",step_gap,,,1,gap_share,0.287128713,0.2,0.0087,0.287128713,",
                            ",short_kernels,,,0,short_kernel_share,0.952380952,0.5,0.0015,0.0248756219,",
                            ",host_copies,,,0,host_copy_share_of_busy,0.223880597,0.2,0.009,0.149253731,",
                            ",step_communication,,,1,comm_share,0.415841584,0.3,0.0126,0.415841584,"})
        EXPECT_NE(advice.find(row), std::string::npos) << row << "\n" << advice;
    const std::string html = slurp(fs::path(one) / "report.html");
    EXPECT_NE(html.find("<h2 id=\"step-trace\">Step trace</h2>"), std::string::npos);
    // Thresholds from the command line.
    const std::string strict =
        analyze_into(4, {"--step-gap-threshold", "0.5", "--step-comm-threshold=0.5", "--copy-share-threshold",
                         "0.5", "--short-kernel-share", "0.99"});
    const std::string relaxed = slurp(fs::path(strict) / "advice.csv");
    for (const char* kind : {",step_gap,", ",short_kernels,", ",host_copies,", ",step_communication,"})
        EXPECT_EQ(relaxed.find(kind), std::string::npos) << kind << "\n" << relaxed;
    for (int k : {2, 3}) {
        const std::string other = analyze_into(k);
        for (const char* name : {"step_trace.csv", "step_trace.json", "summary.txt", "summary.csv",
                                 "advice.csv", "advice.json", "report.html"})
            EXPECT_EQ(slurp(fs::path(other) / name), slurp(fs::path(one) / name)) << name << ", K = " << k;
    }
}

}  // namespace
}  // namespace strata::analysis::test
