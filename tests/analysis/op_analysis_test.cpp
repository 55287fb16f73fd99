// SPDX-License-Identifier: BSD-3-Clause
// DLProf's op and kernel reports (op_analysis.hpp): a synthetic trace with
// known ops and kernels analysed as 1 to 3 shares with exact figures, and the
// built tool under mpirun -np 1, 2, 3 with byte-identical reports.
#include "trace/op_analysis.hpp"

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

constexpr std::uint64_t ms = 1000000;  // ns

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Ops as NVTX ranges (paradigm USER, role CODE), times in ms, true time; rank 1's clock 3 ms ahead:
///
///   rank 0  matmul 1..3    launches volta_h884gemm (Tensor Cores) 10..30 and an HtoD copy 8..9
///           layer 4..9     launches bias_add 31..36
///             linear 6..8  (nested in layer) launches volta_sgemm 40..50: linear's, not layer's
///           main           launches relu_kernel 51..53: (no op)
///   rank 1  linear 1..3    launches volta_sgemm 10..40
///           matmul 4..6    launches volta_h884gemm 40..50
///           orphan_kernel 55..56, its launch not recorded: (no op)
///
/// "main" is a function (role FUNCTION), no op.
TraceBuilder op_trace() {
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        matmul = b.region("matmul", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER),
                        layer = b.region("layer", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER),
                        linear = b.region("linear", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        memcpy = b.region("cudaMemcpyAsync", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        gemm = b.kernel_region("volta_h884gemm_64x64_ldg8_nn"),
                        sgemm = b.kernel_region("volta_sgemm_128x64_nn"), bias = b.kernel_region("bias_add"),
                        relu = b.kernel_region("relu_kernel"), orphan = b.kernel_region("orphan_kernel"),
                        htod = b.copy_region("cudaMemcpyAsync HtoD");
    b.clock_offset(1, -static_cast<std::int64_t>(3 * ms));
    const std::uint32_t s0 = b.stream(0, 0), s1 = b.stream(1, 0);
    const auto host_call = [&](std::uint32_t rank, std::uint64_t t, std::uint32_t region, std::uint64_t id) {
        b.enter_launch(rank, t, region, id);
        b.leave(rank, t + 100000, region);
    };
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 0, main);
    b.enter(0, 1 * ms, matmul);
    host_call(0, 2 * ms, launch, 1);
    host_call(0, 2 * ms + 500000, memcpy, 5);
    b.leave(0, 3 * ms, matmul);
    b.enter(0, 4 * ms, layer);
    host_call(0, 5 * ms, launch, 2);
    b.enter(0, 6 * ms, linear);
    host_call(0, 7 * ms, launch, 3);
    b.leave(0, 8 * ms, linear);
    b.leave(0, 9 * ms, layer);
    host_call(0, 11 * ms, launch, 4);
    b.gpu_op(0, s0, 8 * ms, 9 * ms, htod, 5);
    b.gpu_op(0, s0, 10 * ms, 30 * ms, gemm, 1);
    b.gpu_op(0, s0, 31 * ms, 36 * ms, bias, 2);
    b.gpu_op(0, s0, 40 * ms, 50 * ms, sgemm, 3);
    b.gpu_op(0, s0, 51 * ms, 53 * ms, relu, 4);
    b.enter(1, 1 * ms, linear);
    host_call(1, 2 * ms, launch, 1);
    b.leave(1, 3 * ms, linear);
    b.enter(1, 4 * ms, matmul);
    host_call(1, 5 * ms, launch, 2);
    b.leave(1, 6 * ms, matmul);
    b.gpu_op(1, s1, 10 * ms, 40 * ms, sgemm, 1);
    b.gpu_op(1, s1, 40 * ms + 1, 50 * ms + 1, gemm, 2);
    b.gpu_op(1, s1, 55 * ms, 56 * ms, orphan, 99);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 70 * ms, main);
    return b;
}

// By hand: linear GPU 10 (rank 0) + 30 (rank 1) = 40 ms, no Tensor Core kernel, eligible by name;
// matmul 20 + 10 = 30 ms, all on Tensor Cores; layer only bias_add (its nested linear has the sgemm);
// (no op) relu 2 + orphan 1; the copy counts nowhere.  Mean over the 2 ranks.
const std::string ops_csv_expected =
    "op,tc_eligible,uses_tc,eligible_not_using,calls,cpu_s,gpu_s,kernels,distinct_kernels,tc_kernels,"
    "tc_gpu_s,tc_share,callpaths,gpu_rank_min_s,gpu_rank_mean_s,gpu_rank_max_s,gpu_max_rank,"
    "cpu_rank_min_s,cpu_rank_mean_s,cpu_rank_max_s,cpu_max_rank\n"
    "linear,1,0,1,2,0.004,0.04,2,1,0,0,0,2,0.01,0.02,0.03,1,0.002,0.002,0.002,0\n"
    "matmul,1,1,0,2,0.004,0.03,2,1,2,0.03,1,1,0.01,0.015,0.02,0,0.002,0.002,0.002,0\n"
    "layer,0,0,0,1,0.005,0.005,1,1,0,0,0,1,0,0.0025,0.005,0,0,0.0025,0.005,0\n"
    "(no op),0,0,0,0,0,0.003,2,2,0,0,0,0,0.001,0.0015,0.002,0,0,0,0,0\n";

const std::string op_kernels_csv_expected =
    "op,kernel,callpath,tensor_core,communication,count,total_s,mean_s,min_s,max_s\n"
    "linear,volta_sgemm_128x64_nn,main/linear/cudaLaunchKernel,0,0,1,0.03,0.03,0.03,0.03\n"
    "matmul,volta_h884gemm_64x64_ldg8_nn,main/matmul/cudaLaunchKernel,1,0,2,0.03,0.015,0.01,0.02\n"
    "linear,volta_sgemm_128x64_nn,main/layer/linear/cudaLaunchKernel,0,0,1,0.01,0.01,0.01,0.01\n"
    "layer,bias_add,main/layer/cudaLaunchKernel,0,0,1,0.005,0.005,0.005,0.005\n"
    "(no op),relu_kernel,main/cudaLaunchKernel,0,0,1,0.002,0.002,0.002,0.002\n"
    "(no op),orphan_kernel,(launch not recorded),0,0,1,0.001,0.001,0.001,0.001\n";

class OpAnalysisTest : public ::testing::Test {
protected:
    std::string anchor() const { return dir_.file("traces.otf2"); }
    TempDir dir_;
};

TEST(TcEligibleTest, AWordOfTheOpNameBeginsWithAPattern) {
    const auto& patterns = default_tc_eligible_patterns();
    for (const char* op :
         {"matmul", "aten::mm", "aten::addmm", "aten::baddbmm", "nn.Linear", "Conv2D", "aten::_convolution",
          "BatchMatMulV2", "forward/linear_1", "einsum [ops]", "scaled_dot_product_attention"})
        EXPECT_TRUE(tc_eligible(op, patterns)) << op;
    for (const char* op : {"comm_step", "layer", "relu", "summary", "sgemm_like", "optimizer.step", ""})
        EXPECT_FALSE(tc_eligible(op, patterns)) << op;
    EXPECT_TRUE(tc_eligible("my_fancy_op", {"fancy"}));
    EXPECT_FALSE(tc_eligible("matmul", {"fancy"}));
}

TEST(OpRegionTest, NvtxRangesAndUserRegionsOnly) {
    EXPECT_TRUE(is_op_region(TraceRegion{"matmul", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER, 0}));
    EXPECT_FALSE(is_op_region(TraceRegion{"main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, 0}));
    EXPECT_FALSE(is_op_region(TraceRegion{"heat", OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_USER, 0}));
    EXPECT_FALSE(is_op_region(TraceRegion{"!$omp scope", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP, 0}));
}

TEST_F(OpAnalysisTest, OpsAndKernelsExactAndIdenticalForOneToThreeShares) {
    op_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    std::vector<std::pair<std::string, std::string>> first;
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
        const auto files = op_files(r.ops);
        ASSERT_EQ(files.size(), 4u);
        EXPECT_EQ(files[0].first, "ops.csv");
        EXPECT_EQ(files[0].second, ops_csv_expected) << "K = " << k;
        EXPECT_EQ(files[2].first, "op_kernels.csv");
        EXPECT_EQ(files[2].second, op_kernels_csv_expected) << "K = " << k;
        if (first.empty()) first = files;
        for (std::size_t i = 0; i < files.size(); ++i)
            EXPECT_EQ(files[i].second, first[i].second) << files[i].first << ", K = " << k;
    }
}

TEST_F(OpAnalysisTest, PyTorchEmitNvtxRangesAreOneOpPerOperator) {
    // emit_nvtx names every call apart; the operator is the op, as DLProf counts it.
    TraceBuilder b(1);
    const std::uint32_t first = b.region("aten::mm, seq = 21, op_id = 2", OTF2_REGION_ROLE_CODE,
                                         OTF2_PARADIGM_USER),
                        second = b.region("aten::mm, seq = 22, op_id = 7, sizes = [[256, 512], [512, 10]]",
                                          OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        gemm = b.kernel_region("sm90_xmma_gemm_bf16bf16_bf16f32");
    const std::uint32_t s0 = b.stream(0, 0);
    b.enter(0, 1 * ms, first);
    b.enter_launch(0, 2 * ms, launch, 1);
    b.leave(0, 3 * ms, launch);
    b.leave(0, 4 * ms, first);
    b.enter(0, 5 * ms, second);
    b.enter_launch(0, 6 * ms, launch, 2);
    b.leave(0, 7 * ms, launch);
    b.leave(0, 8 * ms, second);
    b.gpu_op(0, s0, 10 * ms, 12 * ms, gemm, 1);
    b.gpu_op(0, s0, 12 * ms, 15 * ms, gemm, 2);
    b.write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 1);
    const auto files = op_files(r.ops);
    ASSERT_FALSE(files.empty());
    const std::string& csv = files[0].second;
    // Eligible, on Tensor Cores, 2 calls.
    EXPECT_NE(csv.find("\naten::mm,1,1,0,2,"), std::string::npos) << csv;
    EXPECT_EQ(csv.find("seq ="), std::string::npos) << csv;
}

TEST_F(OpAnalysisTest, JsonHasDefinitionsTotalsCallPathsAndKernelNames) {
    op_trace().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    const std::string json = op_files(r.ops)[1].second;
    EXPECT_NE(json.find("\"op\": \"a region of paradigm USER and role CODE"), std::string::npos) << json;
    EXPECT_NE(
        json.find("\"eligible_not_using\": \"eligible, with kernels, none of them a Tensor Core kernel"),
        std::string::npos);
    EXPECT_NE(json.find("\"totals\": {\"all_ops\": {\"ops\": 3, \"gpu_s\": 0.075, \"cpu_s\": 0.013}, "
                        "\"ops_using_tc\": {\"ops\": 1, \"gpu_s\": 0.03, \"cpu_s\": 0.004}, "
                        "\"eligible_not_using\": {\"ops\": 1, \"gpu_s\": 0.04, \"cpu_s\": 0.004}, "
                        "\"other_ops\": {\"ops\": 1, \"gpu_s\": 0.005, \"cpu_s\": 0.005}, "
                        "\"no_op\": {\"kernels\": 2, \"gpu_s\": 0.003}, \"kernel_s\": 0.078, "
                        "\"tc_kernel_s\": 0.03}"),
              std::string::npos)
        << json;
    EXPECT_NE(
        json.find("{\"op\": \"linear\", \"tc_eligible\": true, \"uses_tc\": false, \"eligible_not_using\": "
                  "true, \"calls\": 2, \"cpu_s\": 0.004, \"gpu_s\": 0.04, \"kernels\": 2"),
        std::string::npos)
        << json;
    EXPECT_NE(json.find("\"gpu_rank_max_s\": 0.03, \"gpu_max_rank\": 1"), std::string::npos) << json;
    EXPECT_NE(
        json.find("\"tc_kernel_names\": [], \"other_kernel_names\": [\"volta_sgemm_128x64_nn\"], "
                  "\"callpaths\": [{\"callpath\": \"main/layer/linear\", \"calls\": 1, \"cpu_s\": 0.002, "
                  "\"gpu_s\": 0.01, \"kernels\": 1}, {\"callpath\": \"main/linear\", \"calls\": 1, "
                  "\"cpu_s\": 0.002, \"gpu_s\": 0.03, \"kernels\": 1}]}"),
        std::string::npos)
        << json;
    EXPECT_NE(
        json.find("\"tc_kernel_names\": [\"volta_h884gemm_64x64_ldg8_nn\"], \"other_kernel_names\": []"),
        std::string::npos);
}

TEST_F(OpAnalysisTest, EligibleOpsWithoutTensorCoresAreAFindingAndInTheSummary) {
    op_trace().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 3);
    const std::vector<Finding> findings = op_findings(r.ops);
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    EXPECT_EQ(f.kind, "tc_eligible_not_used");
    EXPECT_EQ(f.region, "linear");
    EXPECT_EQ(f.ranks, std::vector<std::int64_t>{1});
    EXPECT_DOUBLE_EQ(f.value, 40.0 / 78.0);
    ASSERT_TRUE(f.stake.has_value());
    EXPECT_DOUBLE_EQ(*f.stake, 40.0 / 78.0);
    EXPECT_NE(
        f.message.find("An op eligible for Tensor Cores uses none: linear (GPU 0.04 s in 2 kernels, most "
                       "on rank 1); 0.04 s, 51.3% of the kernel time. Run it in fp16 or bf16"),
        std::string::npos)
        << f.message;
    EXPECT_NE(f.message.find("multiples of 8"), std::string::npos);
    bool in_trace_findings = false;
    for (const Finding& g : trace_findings(r, TraceAdvice{}))
        in_trace_findings = in_trace_findings || g.kind == "tc_eligible_not_used";
    EXPECT_TRUE(in_trace_findings);
    const std::string text = op_text(r.ops);
    EXPECT_NE(
        text.find("  3 ops; kernels in ops 0.075 s of 0.078 s kernel time; kernels in no op: 2 kernels, "
                  "0.003 s\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("  Ops using Tensor Cores: 1 (GPU 0.03 s); eligible but using none: 1 (GPU 0.04 s): "
                        "linear\n"),
              std::string::npos)
        << text;
    EXPECT_NE(
        text.find("    linear: GPU 0.04 s in 2 kernels, Tensor Cores 0.0%, 2 calls, CPU 0.004 s; rank 1 "
                  "most (0.03 s, mean 0.02 s) [eligible, using no Tensor Cores]\n"),
        std::string::npos)
        << text;
}

TEST_F(OpAnalysisTest, EligiblePatternsAreConfigurable) {
    op_trace().write(dir_.path());
    TraceAnalysisOptions options;
    options.tc_eligible_patterns = {"layer"};
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2, {}, options);
    const std::string csv = op_files(r.ops)[0].second;
    EXPECT_NE(csv.find("\nlinear,0,0,0,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nmatmul,0,1,0,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nlayer,1,0,1,"), std::string::npos) << csv;
    ASSERT_EQ(op_findings(r.ops).size(), 1u);
    EXPECT_EQ(op_findings(r.ops)[0].region, "layer");
}

TEST_F(OpAnalysisTest, NoGpuStreamsNoOpReports) {
    TraceBuilder b(1);
    const std::uint32_t range = b.region("matmul", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
    b.enter(0, 0, range);
    b.leave(0, ms, range);
    b.write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 1);
    for (const auto& file : waitstate_files(r)) EXPECT_NE(file.first.rfind("op", 0), 0u) << file.first;
    EXPECT_TRUE(trace_findings(r, TraceAdvice{}).empty() ||
                trace_findings(r, TraceAdvice{}).front().kind != "tc_eligible_not_used");
}

// The built tool.

class OpAnalysisToolTest : public AnalyzeToolTest {};

TEST_F(OpAnalysisToolTest, OpReportsWrittenAndIdenticalForK123) {
    op_trace().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp(fs::path(one) / "ops.csv"), ops_csv_expected);
    EXPECT_EQ(slurp(fs::path(one) / "op_kernels.csv"), op_kernels_csv_expected);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("Ops (DLProf;"), std::string::npos) << summary;
    EXPECT_NE(summary.find("An op eligible for Tensor Cores uses none: linear"), std::string::npos)
        << summary;
    EXPECT_NE(slurp(fs::path(one) / "advice.csv").find("tc_eligible_not_used"), std::string::npos);
    const std::string html = slurp(fs::path(one) / "report.html");
    EXPECT_NE(html.find("<h2 id=\"ops\">Ops (DLProf)</h2>"), std::string::npos);
    EXPECT_NE(html.find("<td>linear</td><td class=\"num\">40.0 ms</td><td class=\"num\">2</td><td "
                        "class=\"num\">0.0%</td><td>yes, using none</td>"),
              std::string::npos);
    const RunResult check =
        run_program(STRATA_PYTHON, {STRATA_CHECK_HTML, (fs::path(one) / "report.html").string()});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    for (int k : {2, 3}) {
        const std::string other = analyze_into(k);
        for (const char* name : {"summary.txt", "ops.csv", "ops.json", "op_kernels.csv", "op_kernels.json",
                                 "advice.csv", "advice.json", "report.html"})
            EXPECT_EQ(slurp(fs::path(other) / name), slurp(fs::path(one) / name)) << name << ", K = " << k;
    }
    const std::string patterns = analyze_into(2, {"--tc-eligible-patterns", "layer,bias"});
    EXPECT_NE(slurp(fs::path(patterns) / "ops.csv").find("\nlayer,1,0,1,"), std::string::npos);
    const RunResult bad = run_analyze(1, {"--tc-eligible-patterns", "mm,,conv", experiment()});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--tc-eligible-patterns needs a comma-separated list"), std::string::npos)
        << bad.err;
}

}  // namespace
}  // namespace strata::analysis::test
