// SPDX-License-Identifier: BSD-3-Clause
// The gpu and iterations reports: gpu_trace() and iterations_trace()
// analysed in one process as 1 to 3 shares with exact figures, and the built
// tool under mpirun -np 1, 2, 3 with exact CSV, byte-identical reports, the
// iteration range, candidates without a key region, and bad options.
#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_fixtures.hpp"
#include "otf2_fixture.hpp"
#include "test_support.hpp"
#include "trace/gpu_analysis.hpp"
#include "trace/iterations.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_summary.hpp"
#include "trace/wait_state_analysis.hpp"
#include "trace/wait_state_report.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;
using namespace strata::analysis::trace;

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The lines of `text` that start with `prefix`.
std::string lines_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) == 0) out += line + "\n";
    }
    return out;
}

const std::string gpu_header =
    "scope,rank,device,stream,devices,streams,kernels,busy_s,accumulated_s,span_s,idle_s,utilisation,"
    "concurrency,copy_htod_s,copy_dtoh_s,copy_dtod_s,copy_htoh_s,copy_ptop_s,memset_s,copy_other_s,copies,"
    "gaps,gap_s,compute_busy_s,comm_s,launches_joined,launch_latency_mean_s,launch_latency_max_s,"
    "starts_before_launch\n";

// gpu_trace(), worked out by hand (otf2_fixture.hpp): the union of device 0
// of rank 0 counts the overlap of its two streams once (50 ms, not 70).
// Launch latencies (kernel start - launch Enter, ms): gemms 10 - 2 = 8 and
// 40 - 3 = 37, reduce_kernel 20 - 4 = 16, saxpy 10 - 6 = 4 and 30 - 7 = 23,
// sgemm on rank 1 10 - 2 = 8 (its clock 3 ms ahead, corrected); no NCCL kernel.
const std::string gpu_csv =
    gpu_header +
    "device,0,0,,1,2,3,0.05,0.07,0.06,0.01,0.833333333,1.16666667,0.005,0.005,0,0,0,0,0,2,0,0,"
    "0.05,0,3,0.0203333333,0.037,0\n"
    "device,0,1,,1,1,2,0.02,0.02,0.04,0.02,0.5,0.5,0,0,0,0,0,0.005,0,1,0,0,0.02,0,2,0.0135,0.023,0\n"
    "device,1,0,,1,1,1,0.05,0.05,0.052,0.002,0.961538462,0.961538462,0,0,0.002,0,0,0,0,1,0,0,"
    "0.05,0,1,0.008,0.008,0\n"
    "stream,0,0,CUDA[0:0],1,1,2,0.04,0.04,0.055,0.015,0.727272727,0.727272727,0.005,0,0,0,0,0,0,1,0,0,"
    "0.04,0,2,0.0225,0.037,0\n"
    "stream,0,0,CUDA[0:1],1,1,1,0.03,0.03,0.045,0.015,0.666666667,0.666666667,0,0.005,0,0,0,0,0,1,0,0,"
    "0.03,0,1,0.016,0.016,0\n"
    "stream,0,1,CUDA[1:2],1,1,2,0.02,0.02,0.04,0.02,0.5,0.5,0,0,0,0,0,0.005,0,1,0,0,0.02,0,2,0.0135,0.023,0\n"
    "stream,1,0,CUDA[0:0],1,1,1,0.05,0.05,0.052,0.002,0.961538462,0.961538462,0,0,0.002,0,0,0,0,1,0,0,"
    "0.05,0,1,0.008,0.008,0\n"
    "rank,0,,,2,3,5,0.07,0.09,0.1,0.03,0.7,0.9,0.005,0.005,0,0,0,0.005,0,3,0,0,0.07,0,5,0.0176,0.037,0\n"
    "rank,1,,,1,1,1,0.05,0.05,0.052,0.002,0.961538462,0.961538462,0,0,0.002,0,0,0,0,1,0,0,"
    "0.05,0,1,0.008,0.008,0\n";

const std::string gpu_kernels_header =
    "kernel,callpath,tensor_core,count,total_s,mean_s,min_s,max_s,launch_latency_mean_s,launch_latency_max_s,"
    "communication\n";

const std::string gpu_kernels_csv =
    gpu_kernels_header +
    "volta_sgemm_128x64_nn,main/forward/cudaLaunchKernel,0,1,0.05,0.05,0.05,0.05,0.008,0.008,0\n"
    "volta_h884gemm_64x64_ldg8_nn,main/forward/cudaLaunchKernel,1,2,0.04,0.02,0.02,0.02,0.0225,0.037,0\n"
    "reduce_kernel,main/forward/cudaLaunchKernel,0,1,0.03,0.03,0.03,0.03,0.016,0.016,0\n"
    "saxpy,main/cudaLaunchKernel,0,2,0.02,0.01,0.01,0.01,0.0135,0.023,0\n";

// gpu_launch_trace(), by hand (otf2_fixture.hpp; us): rank 0's device busy 290 of 495, compute busy
// 250 (the NCCL kernel 410..510 left out), comm 100; latencies stream 0: 5, 20, 60, 30 (sum 115),
// stream 1: 30, 10, 2 (sum 42); rank 1: one kernel starting 10 before its launch, one 100 after,
// one without a launch (busy 210 of span 990..1410).
const std::string gpu_launch_csv =
    gpu_header +
    "device,0,0,,1,2,6,0.00029,0.00036,0.000495,0.000205,0.585858586,0.727272727,0,3.8e-05,0,0,0,0,0,1,0,0,"
    "0.00025,0.0001,7,2.24285714e-05,6e-05,0\n"
    "device,1,0,,1,1,3,0.00021,0.00021,0.00042,0.00021,0.5,0.5,0,0,0,0,0,0,0,0,0,0,"
    "0.00021,0,1,0.0001,0.0001,1\n"
    "stream,0,0,CUDA[0:0],1,1,4,0.00024,0.00024,0.000445,0.000205,0.539325843,0.539325843,0,0,0,0,0,0,0,0,"
    "0,0,0.00024,0,4,2.875e-05,6e-05,0\n"
    "stream,0,0,CUDA[0:1],1,1,2,0.00012,0.00012,0.00027,0.00015,0.444444444,0.444444444,0,3.8e-05,0,0,0,0,0,"
    "1,0,0,2e-05,0.0001,3,1.4e-05,3e-05,0\n"
    "stream,1,0,CUDA[0:0],1,1,3,0.00021,0.00021,0.00042,0.00021,0.5,0.5,0,0,0,0,0,0,0,0,0,0,"
    "0.00021,0,1,0.0001,0.0001,1\n"
    "rank,0,,,1,2,6,0.00029,0.00036,0.000495,0.000205,0.585858586,0.727272727,0,3.8e-05,0,0,0,0,0,1,0,0,"
    "0.00025,0.0001,7,2.24285714e-05,6e-05,0\n"
    "rank,1,,,1,1,3,0.00021,0.00021,0.00042,0.00021,0.5,0.5,0,0,0,0,0,0,0,0,0,0,"
    "0.00021,0,1,0.0001,0.0001,1\n";

// The graph's layer_norm kernels: latencies 20 and 60 us from the one launch; step_kernel: only the
// one after its launch has a latency, orphan_kernel none; the NCCL kernel is communication, never a
// Tensor Core kernel.
const std::string gpu_launch_kernels_csv =
    gpu_kernels_header +
    "step_kernel,main/cudaLaunchKernel,0,2,0.0002,0.0001,0.0001,0.0001,0.0001,0.0001,0\n"
    "h1688gemm_kernel,main/cudaLaunchKernel,1,1,0.0001,0.0001,0.0001,0.0001,5e-06,5e-06,0\n"
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL,main/cudaLaunchKernel,0,1,0.0001,0.0001,0.0001,0.0001,"
    "1e-05,1e-05,1\n"
    "volta_sgemm_128x64_nn,main/cudaLaunchKernel,0,1,0.0001,0.0001,0.0001,0.0001,3e-05,3e-05,0\n"
    "layer_norm,main/cudaGraphLaunch,0,2,4e-05,2e-05,2e-05,2e-05,4e-05,6e-05,0\n"
    "softmax,main/cudaGraphLaunch,0,1,2e-05,2e-05,2e-05,2e-05,3e-05,3e-05,0\n"
    "orphan_kernel,(launch not recorded),0,1,1e-05,1e-05,1e-05,1e-05,,,0\n";

const std::string iterations_csv_expected =
    "iteration,begin_s,end_s,duration_s,slowest_rank,min_rank_s,max_rank_s,spread_s,flag,aggregated,stable,"
    "gpu_busy_mean_s,gpu_busy_max_s,gpu_imbalance,least_busy_gpu,rank_0_s,rank_1_s\n"
    "0,0,0.03,0.03,0,0.03,0.03,0,warm-up,1,0,0.004,0.004,1,GPU 0 of rank 0,0.03,0.03\n"
    "1,0.03,0.04,0.01,0,0.01,0.01,0,,1,1,0.004,0.004,1,GPU 0 of rank 0,0.01,0.01\n"
    "2,0.04,0.05,0.01,0,0.01,0.01,0,,1,1,0.004,0.004,1,GPU 0 of rank 0,0.01,0.01\n"
    "3,0.05,0.06,0.01,0,0.01,0.01,0,,1,1,0.004,0.004,1,GPU 0 of rank 0,0.01,0.01\n"
    "4,0.06,0.07,0.01,0,0.01,0.01,0,,1,1,0.004,0.004,1,GPU 0 of rank 0,0.01,0.01\n"
    "5,0.07,0.08,0.01,0,0.01,0.01,0,,1,1,0.004,0.004,1,GPU 0 of rank 0,0.01,0.01\n"
    "6,0.08,0.085,0.005,0,0.005,0.005,0,outlier,1,0,0,0,,GPU 0 of rank 0,0.005,0.005\n";

/// strata-analyze with `args` (see run_analyze).
constexpr auto analyze = &run_analyze;

class GpuIterationsTest : public ::testing::Test {
protected:
    std::string anchor() const { return dir_.file("traces.otf2"); }
    TempDir dir_;
};

TEST(TensorCoreTest, RecognisedByNameAsDLProfDoes) {
    const auto& patterns = default_tensor_core_patterns();
    EXPECT_TRUE(uses_tensor_cores("volta_h884gemm_64x64_ldg8_nn", patterns));
    EXPECT_TRUE(uses_tensor_cores("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", patterns));
    EXPECT_TRUE(uses_tensor_cores("cutlass_tensorop_s1688gemm_64x64_32x6_nn_align4", patterns));
    EXPECT_TRUE(uses_tensor_cores("sm90_xmma_WGMMA_kernel", patterns));  // case-insensitive
    EXPECT_FALSE(uses_tensor_cores("volta_sgemm_128x64_nn", patterns));
    // Names seen on an H100 (cuBLAS 13): the bf16 GEMM is nvjet, the fp32 ones run on FMA units.
    EXPECT_TRUE(uses_tensor_cores("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", patterns));
    EXPECT_FALSE(uses_tensor_cores(
        "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_"
        "kernel__5x_cublas",
        patterns));
    EXPECT_FALSE(uses_tensor_cores("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>", patterns));
    EXPECT_FALSE(uses_tensor_cores("reduce_kernel", patterns));
    EXPECT_TRUE(uses_tensor_cores("my_mma_kernel", {"my_mma"}));
}

TEST(CommunicationKernelTest, NcclKernelsByTheirNamePrefix) {
    EXPECT_TRUE(is_communication_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"));
    EXPECT_TRUE(is_communication_kernel("ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned)"));
    EXPECT_TRUE(is_communication_kernel("void ncclKernel_Broadcast_RING_LL<float>(ncclDevComm*)"));
    EXPECT_FALSE(is_communication_kernel("volta_sgemm_128x64_nn"));
    EXPECT_FALSE(is_communication_kernel("my_nccl_reduce"));
    EXPECT_FALSE(is_communication_kernel("nc"));
}

TEST(LaunchLatencyTest, AnOperationBeforeItsLaunchIsCountedNotNegative) {
    LaunchLatency l;
    l.add(100, 90);  // starts 10 before its launch's Enter
    EXPECT_EQ(l.joined, 0u);
    EXPECT_EQ(l.early, 1u);
    l.add(100, 105);
    l.add(200, 260);
    EXPECT_EQ(l.joined, 2u);
    EXPECT_EQ(l.sum, 65);
    EXPECT_EQ(l.max, 60);
    LaunchLatency other;
    other.add(0, 7);
    other.add(5, 1);
    other.add(l);
    EXPECT_EQ(other.joined, 3u);
    EXPECT_EQ(other.early, 2u);
    EXPECT_EQ(other.sum, 72);
    EXPECT_EQ(other.max, 60);
}

TEST(CopyKindTest, DirectionFromTheRegionName) {
    EXPECT_EQ(copy_kind_of("cudaMemcpy HtoD"), CopyKind::htod);
    EXPECT_EQ(copy_kind_of("cudaMemcpyAsync DtoH"), CopyKind::dtoh);
    EXPECT_EQ(copy_kind_of("cudaMemcpy DtoD"), CopyKind::dtod);
    EXPECT_EQ(copy_kind_of("cudaMemcpyPeer PtoP"), CopyKind::ptop);
    EXPECT_EQ(copy_kind_of("cudaMemset"), CopyKind::memset);
    EXPECT_EQ(copy_kind_of("cudaMemcpy"), CopyKind::other);
}

TEST_F(GpuIterationsTest, DefinitionsHaveStreamsDevicesAndTheCorrelationAttribute) {
    gpu_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    std::size_t streams = 0;
    for (const TraceLocation& l : d.locations) {
        if (l.type != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) {
            EXPECT_EQ(l.device, -1);
            continue;
        }
        ++streams;
        EXPECT_GE(l.rank, 0);
        EXPECT_EQ(l.device, l.name == "CUDA[1:2]" ? 1 : 0) << l.name;
    }
    EXPECT_EQ(streams, 4u);
    EXPECT_NE(d.correlation_attribute, UINT32_MAX);
}

TEST_F(GpuIterationsTest, GpuTimesExactForOneToThreeShares) {
    gpu_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        const auto files = gpu_files(r.gpu);
        ASSERT_EQ(files.size(), 4u);
        EXPECT_EQ(files[0].second, gpu_csv) << "K = " << k;
        EXPECT_EQ(files[2].second, gpu_kernels_csv) << "K = " << k;
        EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
    }
}

/// gpu.json's busy_share list of 200 bins: "0" but in the bins given.
std::string shares(const std::vector<std::pair<std::size_t, std::string>>& bins) {
    std::vector<std::string> all(200, "0");
    for (const auto& [bin, value] : bins) all[bin] = value;
    std::string t;
    for (std::size_t b = 0; b < all.size(); ++b) t += (b > 0 ? ", " : "") + all[b];
    return "[" + t + "]";
}

/// `value` in bins `from` to `to` (inclusive).
std::vector<std::pair<std::size_t, std::string>> run_of(std::size_t from, std::size_t to, const char* value) {
    std::vector<std::pair<std::size_t, std::string>> out;
    for (std::size_t b = from; b <= to; ++b) out.emplace_back(b, value);
    return out;
}

TEST_F(GpuIterationsTest, ActivityPerBinExactForOneToThreeShares) {
    // gpu_trace(): T0 = 0, T1 = 70 ms (main on both ranks), 200 bins of 0.35 ms. A union from
    // 10 ms covers 0.15 of bin 28's 0.35 ms (9.8..10.15); one ending at 60 ms 0.15 of bin 171
    // (59.85..60.2). saxpy 10..20 ends 0.05 into bin 57 (19.95..), 30..40 starts 0.1 before the
    // end of bin 85 (29.75..30.1) and ends 0.1 into bin 114 (39.9..). Copies are no activity.
    gpu_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    auto unions_10_to_60 = run_of(29, 170, "1");
    unions_10_to_60.insert(unions_10_to_60.end(), {{28, "0.428571429"}, {171, "0.428571429"}});
    auto saxpy = run_of(29, 56, "1");
    const auto second = run_of(86, 113, "1");
    saxpy.insert(saxpy.end(), second.begin(), second.end());
    saxpy.insert(saxpy.end(),
                 {{28, "0.428571429"}, {57, "0.142857143"}, {85, "0.285714286"}, {114, "0.285714286"}});
    const std::string expected =
        "  \"activity\": {\"bins\": 200, \"bin_s\": 0.00035, \"begin_s\": 0, \"end_s\": 0.07, \"gpus\": [\n"
        "    {\"rank\": 0, \"device\": 0, \"busy_s\": 0.05, \"busy_share\": " +
        shares(unions_10_to_60) +
        "},\n"
        "    {\"rank\": 0, \"device\": 1, \"busy_s\": 0.02, \"busy_share\": " +
        shares(saxpy) +
        "},\n"
        "    {\"rank\": 1, \"device\": 0, \"busy_s\": 0.05, \"busy_share\": " +
        shares(unions_10_to_60) + "}\n  ]},\n";
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        ASSERT_EQ(r.gpu.activity.size(), 3u) << "K = " << k;
        EXPECT_EQ(r.gpu.activity_axis.bins, 200u);
        EXPECT_EQ(r.gpu.activity[0].busy[28], 150000);  // ns
        EXPECT_EQ(r.gpu.activity[0].busy[29], 350000);
        const std::string json = gpu_files(r.gpu)[1].second;
        EXPECT_NE(json.find(expected), std::string::npos) << "K = " << k << "\n" << json;
    }
}

TEST(GpuActivityAxisTest, FewerBinsThanTicksAndNoneWithoutASpan) {
    EXPECT_EQ(make_activity_axis(10, 110, 0).bins, 100u);  // a bin per tick at most
    EXPECT_EQ(make_activity_axis(0, 1000, 0).bins, 200u);
    EXPECT_EQ(make_activity_axis(0, 1000, 0).edge(1), 5);
    EXPECT_EQ(make_activity_axis(5, 5, 0).bins, 0u);
    // Edges up to a tick: 1003 ticks in 200 bins end exactly at the end.
    const ActivityAxis odd = make_activity_axis(0, 1003, 0);
    EXPECT_EQ(odd.edge(200), 1003);
    EXPECT_EQ(odd.edge(100), 501);
}

TEST_F(GpuIterationsTest, LaunchLatencyAndNcclKernelsExactForOneToThreeShares) {
    gpu_launch_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
        const auto files = gpu_files(r.gpu);
        EXPECT_EQ(files[0].second, gpu_launch_csv) << "K = " << k;
        EXPECT_EQ(files[2].second, gpu_launch_kernels_csv) << "K = " << k;
        const std::string& gpu_json = files[1].second;
        EXPECT_NE(gpu_json.find("\"compute_busy_s\": 0.00025, \"comm_s\": 0.0001, \"launches_joined\": 7, "
                                "\"launch_latency_mean_s\": 2.24285714e-05, \"launch_latency_max_s\": 6e-05, "
                                "\"starts_before_launch\": 0}"),
                  std::string::npos)
            << gpu_json;
        EXPECT_NE(gpu_json.find("\"comm\": \"|union of the intervals of NCCL kernels"), std::string::npos);
        const std::string& kernels_json = files[3].second;
        EXPECT_NE(kernels_json.find("{\"kernel\": \"h1688gemm_kernel\", \"callpath\": "
                                    "\"main/cudaLaunchKernel\", \"tensor_core\": true, \"count\": 1, "
                                    "\"total_s\": 0.0001, \"mean_s\": 0.0001, \"min_s\": 0.0001, \"max_s\": "
                                    "0.0001, \"launch_latency_mean_s\": 5e-06, \"launch_latency_max_s\": "
                                    "5e-06, \"communication\": false}"),
                  std::string::npos)
            << kernels_json;
        EXPECT_NE(kernels_json.find("\"kernel\": \"orphan_kernel\", \"callpath\": \"(launch not recorded)\", "
                                    "\"tensor_core\": false, \"count\": 1, \"total_s\": 1e-05, \"mean_s\": "
                                    "1e-05, \"min_s\": 1e-05, \"max_s\": 1e-05, \"launch_latency_mean_s\": "
                                    "null, \"launch_latency_max_s\": null, \"communication\": false}"),
                  std::string::npos)
            << kernels_json;
        EXPECT_NE(kernels_json.find("\"kernel\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\", \"callpath\": "
                                    "\"main/cudaLaunchKernel\", \"tensor_core\": false"),
                  std::string::npos);
        // 8 latencies on the two GPUs: 157 + 100 us; step_kernel has the largest mean.
        const std::string text = gpu_text(r.gpu);
        EXPECT_NE(text.find("  GPU communication (NCCL kernels): 0.0001 s; computation (the other kernels): "
                            "0.00046 s (each the union of its kernel intervals, summed over the GPUs)\n"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("  Tensor Core kernels (by name, DLProf's method): 0.0001 s of 0.00047 s kernel "
                            "time (NCCL communication kernels, 0.0001 s, left out)\n"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("  Launch latency (operation start - its launch's Enter, 8 operations): mean "
                            "3.2125e-05 s, max 0.0001 s; largest mean: step_kernel launched from "
                            "main/cudaLaunchKernel (0.0001 s)\n"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("  Operations starting before their launch: 1 (the host's and the GPU's clocks "
                            "disagree; no latency counted for them)\n"),
                  std::string::npos)
            << text;
        const std::string summary = gpu_summary_csv(r.gpu);
        EXPECT_NE(summary.find("gpu,comm_share,0.109289617,fraction,"), std::string::npos) << summary;
        EXPECT_NE(summary.find("gpu,launch_latency_mean,3.2125e-05,s,"), std::string::npos) << summary;
        EXPECT_NE(summary.find("gpu,launch_latency_max,0.0001,s,"), std::string::npos) << summary;
        EXPECT_NE(summary.find("gpu,starts_before_launch,1,count,"), std::string::npos) << summary;
    }
}

TEST_F(GpuIterationsTest, NcclKernelsAreNeverTensorCoreKernels) {
    gpu_launch_trace().write(dir_.path());
    TraceAnalysisOptions options;
    options.tensor_core_patterns = {"h1688", "allreduce"};  // the NCCL kernel's name matches one
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2, {}, options);
    const std::string kernels = gpu_files(r.gpu)[2].second;
    EXPECT_NE(kernels.find("\nncclDevKernel_AllReduce_Sum_bf16_RING_LL,main/cudaLaunchKernel,0,1,"),
              std::string::npos)
        << kernels;
    EXPECT_NE(kernels.find("\nh1688gemm_kernel,main/cudaLaunchKernel,1,1,"), std::string::npos) << kernels;
    EXPECT_NE(gpu_text(r.gpu).find("Tensor Core kernels (by name, DLProf's method): 0.0001 s of 0.00047 s"),
              std::string::npos)
        << gpu_text(r.gpu);
}

TEST_F(GpuIterationsTest, GapsAreIdleStretchesLongerThanTheThreshold) {
    gpu_trace().write(dir_.path());
    TraceAnalysisOptions options;
    options.gpu_gap_threshold_s = 0.009;
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2, {}, options);
    const std::string csv = gpu_files(r.gpu)[0].second;
    // GPU 1 of rank 0: idle 20..30 and 40..50 ms; stream 0 of GPU 0: 30..40 (5..10 is shorter); stream
    // 1: 50..65.
    EXPECT_NE(
        csv.find("device,0,0,,1,2,3,0.05,0.07,0.06,0.01,0.833333333,1.16666667,0.005,0.005,0,0,0,0,0,2,0,0,"),
        std::string::npos)
        << csv;
    EXPECT_NE(csv.find("device,0,1,,1,1,2,0.02,0.02,0.04,0.02,0.5,0.5,0,0,0,0,0,0.005,0,1,2,0.02,"),
              std::string::npos);
    EXPECT_NE(
        csv.find("stream,0,0,CUDA[0:0],1,1,2,0.04,0.04,0.055,0.015,0.727272727,0.727272727,0.005,0,0,0,0,0,0,"
                 "1,1,0.01,"),
        std::string::npos);
    EXPECT_NE(
        csv.find("stream,0,0,CUDA[0:1],1,1,1,0.03,0.03,0.045,0.015,0.666666667,0.666666667,0,0.005,0,0,0,0,0,"
                 "1,1,0.015,"),
        std::string::npos);
    EXPECT_NE(csv.find("rank,0,,,2,3,5,0.07,0.09,0.1,0.03,0.7,0.9,0.005,0.005,0,0,0,0.005,0,3,2,0.02,"),
              std::string::npos);
}

TEST_F(GpuIterationsTest, GpuFindingsNameTheIdleGpuAndTheBusyOne) {
    gpu_trace().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    const std::vector<Finding> findings = gpu_findings(r.gpu, 0.2);
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].kind, "gpu_idle");
    EXPECT_EQ(
        findings[0].message.rfind("GPU 1 of rank 0 idle 50.0% of the time (0.02 s of 0.04 s) while GPU 0 "
                                  "of rank 0 is busy 83.3%",
                                  0),
        0u)
        << findings[0].message;
    EXPECT_EQ(findings[1].kind, "gpu_imbalance");
    EXPECT_NE(findings[1].message.find("least busy GPU 1 of rank 0 (0.02 s)"), std::string::npos)
        << findings[1].message;
    EXPECT_DOUBLE_EQ(findings[1].value, 0.04 / 0.05);  // mean of 50, 20, 50 ms over max 50 ms
}

TEST_F(GpuIterationsTest, IterationsWithWarmUpExactForOneToThreeShares) {
    iterations_trace(false).write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    TraceAnalysisOptions options;
    options.iterations.key_region = "step";
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k, {}, options);
        EXPECT_EQ(iterations_csv(r.iterations), iterations_csv_expected) << "K = " << k;
        EXPECT_EQ(r.iterations.plan.instances, 6u);
        EXPECT_EQ(r.iterations.stable_first, 1);
        EXPECT_EQ(r.iterations.stable_last, 5);
        const std::string json = iterations_json(r.iterations);
        EXPECT_NE(json.find("\"mean_s\": 0.0121428571"), std::string::npos) << json;
        EXPECT_NE(json.find("\"stable_range\": {\"start\": 1, \"stop\": 5}"), std::string::npos) << json;
        EXPECT_EQ(lines_starting(waitstates_csv(r), "wait_at_barrier"),
                  "wait_at_barrier,main/step/MPI_Barrier,1,0,0.016,6\n");
    }
}

TEST_F(GpuIterationsTest, IterationRangeRestrictsWaitStatesAndGpuTime) {
    iterations_trace(false).write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    TraceAnalysisOptions options;
    options.iterations.key_region = "step";
    const TraceReport all = analyze_trace_in_process(d, 2, {}, options);
    EXPECT_EQ(lines_starting(gpu_files(all.gpu)[0].second, "device"),
              "device,0,0,,1,1,6,0.024,0.024,0.074,0.05,0.324324324,0.324324324,0,0,0,0,0,0,0,0,0,0,0.024,0,"
              "6,0.0005,0.0005,0\n");
    options.iterations.start = 1;
    options.iterations.stop = 3;
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k, {}, options);
        EXPECT_TRUE(r.iterations.plan.problem.empty()) << r.iterations.plan.problem;
        EXPECT_EQ(lines_starting(waitstates_csv(r), "wait_at_barrier"),
                  "wait_at_barrier,main/step/MPI_Barrier,1,0,0.006,3\n")
            << "K = " << k;
        EXPECT_EQ(lines_starting(gpu_files(r.gpu)[0].second, "device"),
                  "device,0,0,,1,1,3,0.012,0.012,0.024,0.012,0.5,0.5,0,0,0,0,0,0,0,0,0,0,0.012,0,3,0.0005,"
                  "0.0005,0\n");
        EXPECT_EQ(lines_starting(gpu_files(r.gpu)[2].second, "stencil"),
                  "stencil,main/step/cudaLaunchKernel,0,3,0.012,0.004,0.004,0.004,0.0005,0.0005,0\n");
        // The activity axis is the window (30..60 ms in bins of 0.15 ms): each kernel starts 1 ms into
        // its step, 0.05 ms before the end of bin 6 of the step's 66.67 bins.
        const std::string json = gpu_files(r.gpu)[1].second;
        EXPECT_NE(
            json.find("\"activity\": {\"bins\": 200, \"bin_s\": 0.00015, \"begin_s\": 0.03, "
                      "\"end_s\": 0.06, \"gpus\": [\n    {\"rank\": 0, \"device\": 0, \"busy_s\": 0.012, "
                      "\"busy_share\": [0, 0, 0, 0, 0, 0, 0.333333333, 1, 1, "),
            std::string::npos)
            << json;
        // Mean and deviation over the aggregated iterations only.
        EXPECT_DOUBLE_EQ(r.iterations.mean_s, 0.01);
        EXPECT_NE(iterations_csv(r.iterations).find("\n0,0,0.03,0.03,0,0.03,0.03,0,warm-up,0,0,0.004,"),
                  std::string::npos);
    }
}

TEST_F(GpuIterationsTest, KeyRegionOnOtherThreadsDoesNotAddIterations) {
    TraceBuilder b = iterations_trace(false);
    for (std::uint64_t i = 0; i < 3; ++i) {  // a worker thread of rank 0 also enters "step" (region 1)
        b.thread_enter(0, 1, (31 + 10 * i) * 1000000, 1);
        b.thread_leave(0, 1, (32 + 10 * i) * 1000000, 1);
    }
    b.write(dir_.path());
    TraceAnalysisOptions options;
    options.iterations.key_region = "step";
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2, {}, options);
    EXPECT_EQ(r.iterations.plan.instances, 6u);
    EXPECT_FALSE(r.iterations.plan.counts_differ);
    EXPECT_EQ(iterations_csv(r.iterations), iterations_csv_expected);
}

TEST_F(GpuIterationsTest, DifferentCountsAreAlignedToTheSmallestAndSaidSo) {
    TraceBuilder b = iterations_trace(false);
    b.enter(1, 81 * 1000000, 1);  // a seventh "step" on rank 1 only
    b.leave(1, 83 * 1000000, 1);
    b.write(dir_.path());
    TraceAnalysisOptions options;
    options.iterations.key_region = "step";
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2, {}, options);
    EXPECT_TRUE(r.iterations.plan.counts_differ);
    EXPECT_EQ(r.iterations.plan.instances, 6u);
    EXPECT_EQ(iterations_csv(r.iterations), iterations_csv_expected);
    EXPECT_NE(iterations_text(r.iterations).find("The ranks call it 6 to 7 times: aligned by index up to 6"),
              std::string::npos)
        << iterations_text(r.iterations);
}

TEST_F(GpuIterationsTest, PhaseFlagChoosesTheKeyRegion) {
    iterations_trace(true).write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 3);
    EXPECT_EQ(r.iterations.plan.key.name, "step");
    EXPECT_EQ(r.iterations.plan.key.how, "phase flag");
    EXPECT_EQ(iterations_csv(r.iterations), iterations_csv_expected);
}

TEST_F(GpuIterationsTest, WithoutKeyRegionTheCandidatesAreListed) {
    iterations_trace(false).write(dir_.path());
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), k);
        EXPECT_EQ(r.iterations.plan.instances, 0u);
        EXPECT_EQ(r.iterations.rows.size(), 1u);  // the whole run is one iteration
        ASSERT_EQ(r.iterations.plan.candidates.size(), 2u);
        EXPECT_EQ(r.iterations.plan.candidates[0].name, "step");  // 6 calls on every rank
        EXPECT_EQ(r.iterations.plan.candidates[0].min_calls, 6u);
        EXPECT_EQ(r.iterations.plan.candidates[0].ranks, 2u);
        EXPECT_EQ(r.iterations.plan.candidates[1].name,
                  "halo");  // 12 calls; CUDA API calls are no candidates
        const std::string text = iterations_text(r.iterations);
        EXPECT_NE(text.find("0 iterations found"), std::string::npos) << text;
        // Gaps of 30, then 10 ms: they vary 57.1 % (population standard deviation over the mean).
        EXPECT_NE(text.find("step (6 calls per rank on 2 ranks, spacing varies 57.1%)"), std::string::npos) << text;
    }
}

// Set-up called twice at the start comes after the step, whose calls are spread over the run,
// although it is called less often (as GROMACS's parallel regions of its set-up did).
TEST_F(GpuIterationsTest, CandidatesSpreadOverTheRunComeFirst) {
    constexpr std::uint64_t ms = 1000000;  // ns, as the fixture's timer
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        setup = b.region("setup", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        step = b.region("step", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        finish = b.region("finish", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    for (std::uint32_t r = 0; r < 2; ++r) {
        b.enter(r, 0, main);
        for (std::uint64_t i = 0; i < 2; ++i) {
            b.enter(r, (1 + 2 * i) * ms, setup);
            b.leave(r, (2 + 2 * i) * ms, setup);
        }
        for (std::uint64_t i = 0; i < 5; ++i) {
            b.enter(r, (10 + 20 * i) * ms, step);
            b.leave(r, (25 + 20 * i) * ms, step);
        }
        for (std::uint64_t i = 0; i < 3; ++i) {
            b.enter(r, (100 + i) * ms, finish);
            b.leave(r, (100 + i) * ms + ms / 2, finish);
        }
        b.leave(r, 110 * ms, main);
    }
    b.write(dir_.path());
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), k);
        ASSERT_EQ(r.iterations.plan.candidates.size(), 3u) << "K = " << k;
        EXPECT_EQ(r.iterations.plan.candidates[0].name, "step");
        EXPECT_TRUE(r.iterations.plan.candidates[0].spans_run);
        // Both evenly spaced: the one called more often first.
        EXPECT_EQ(r.iterations.plan.candidates[1].name, "finish");
        EXPECT_EQ(r.iterations.plan.candidates[2].name, "setup");
        EXPECT_FALSE(r.iterations.plan.candidates[1].spans_run);
        const std::string json = iterations_json(r.iterations);
        EXPECT_NE(json.find("{\"region\": \"step\", \"min_calls_per_rank\": 5, \"max_calls_per_rank\": 5, "
                            "\"ranks\": 2, \"first_enter_s\": 0.01, \"last_enter_s\": 0.09, \"spans_run\": true, "
                            "\"variation\": 0}"),
                  std::string::npos)
            << json;
    }
}

// A molecular dynamics run: the step every 10 ms, output every 10 steps (as regular, 4 calls),
// forces 3 times in each step's first 3 ms (in bursts).  The step comes first: the output
// region, as regular, is called less often; the forces recur irregularly.
TEST_F(GpuIterationsTest, TheMostRegularlyRecurringRegionComesFirst) {
    constexpr std::uint64_t ms = 1000000;
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        step = b.region("md_step", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        output = b.region("write_output", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        forces = b.region("forces", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    for (std::uint32_t r = 0; r < 2; ++r) {
        b.enter(r, 0, main);
        for (std::uint64_t i = 0; i < 40; ++i) {
            const std::uint64_t at = (1 + 10 * i) * ms;
            b.enter(r, at, step);
            for (std::uint64_t f = 0; f < 3; ++f) {
                b.enter(r, at + (f + 1) * ms / 2, forces);
                b.leave(r, at + (f + 1) * ms / 2 + ms / 4, forces);
            }
            if (i % 10 == 9) {
                b.enter(r, at + 8 * ms, output);
                b.leave(r, at + 9 * ms, output);
            }
            b.leave(r, at + 9 * ms + ms / 2, step);
        }
        b.leave(r, 410 * ms, main);
    }
    b.write(dir_.path());
    for (std::size_t k : {1, 2}) {
        const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), k);
        ASSERT_EQ(r.iterations.plan.candidates.size(), 3u) << "K = " << k;
        EXPECT_EQ(r.iterations.plan.candidates[0].name, "md_step");
        EXPECT_EQ(r.iterations.plan.candidates[0].variation, 0.0);
        EXPECT_EQ(r.iterations.plan.candidates[1].name, "write_output");
        EXPECT_EQ(r.iterations.plan.candidates[2].name, "forces");
        EXPECT_GT(r.iterations.plan.candidates[2].variation, 1.0);
    }
}

TEST_F(GpuIterationsTest, WithOnlyMpiCallsThereAreNoCandidatesAndTheTextSaysWhatToDo) {
    // As a program measured through strata-preload: MPI calls, nothing else.
    TraceBuilder trace(2);
    const std::uint32_t barrier = trace.mpi_region("MPI_Barrier");
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
        for (std::uint64_t step = 0; step < 4; ++step)
            trace.collective(rank, barrier, 1000000 * step + 100, 1000000 * step + 200, OTF2_COLLECTIVE_OP_BARRIER);
    }
    trace.write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    EXPECT_TRUE(r.iterations.plan.candidates.empty());
    const std::string text = iterations_text(r.iterations);
    EXPECT_NE(text.find("none: no region other than MPI calls"), std::string::npos) << text;
    EXPECT_NE(text.find("STRATA_PHASE_BEGIN"), std::string::npos) << text;
    EXPECT_NE(text.find("--key-region"), std::string::npos) << text;
    bool advised = false;
    for (const Finding& f : iteration_findings(r.iterations)) {
        if (f.kind != "no_iterations") continue;
        advised = true;
        EXPECT_NE(f.message.find("No region other than MPI and CUDA API calls is called twice or more"),
                  std::string::npos)
            << f.message;
    }
    EXPECT_TRUE(advised);
}

TEST_F(GpuIterationsTest, AnInstrumentedProgramIsNotToldToBuildWithTheWrapper) {
    // Built with the strata wrapper (a function of paradigm compiler), but no function recurs:
    // the advice names the user API and --key-region, not the wrapper it was built with.
    TraceBuilder trace(2);
    const std::uint32_t main = trace.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER);
    const std::uint32_t barrier = trace.mpi_region("MPI_Barrier");
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
        trace.enter(rank, 50, main);
        for (std::uint64_t step = 0; step < 4; ++step)
            trace.collective(rank, barrier, 1000000 * step + 100, 1000000 * step + 200, OTF2_COLLECTIVE_OP_BARRIER);
        trace.leave(rank, 5000000, main);
    }
    trace.write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    EXPECT_TRUE(r.iterations.plan.candidates.empty());
    EXPECT_TRUE(r.iterations.plan.instrumented);
    const std::string text = iterations_text(r.iterations);
    EXPECT_NE(text.find("none: no function or region other than MPI calls"), std::string::npos) << text;
    EXPECT_EQ(text.find("compiler wrapper"), std::string::npos) << text;
    for (const Finding& f : iteration_findings(r.iterations)) {
        if (f.kind != "no_iterations") continue;
        EXPECT_EQ(f.message.find("compiler wrapper"), std::string::npos) << f.message;
        EXPECT_NE(f.message.find("STRATA_PHASE_BEGIN"), std::string::npos) << f.message;
    }
}

TEST_F(GpuIterationsTest, UnknownKeyRegionAndRangeBeyondTheTraceAreProblems) {
    iterations_trace(false).write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    TraceAnalysisOptions options;
    options.iterations.key_region = "stpe";
    TraceReport r = analyze_trace_in_process(d, 2, {}, options);
    EXPECT_EQ(unknown_key_message(r.iterations),
              "--key-region 'stpe': no region of that name in the trace; candidates, the most regularly recurring "
              "first: step (6 calls per rank on 2 ranks, spacing varies 57.1%), halo (12 calls per rank on 2 "
              "ranks, spacing varies 135.7%)");
    options.iterations.key_region = "step";
    options.iterations.stop = 7;
    r = analyze_trace_in_process(d, 2, {}, options);
    EXPECT_EQ(r.iterations.plan.problem,
              "--iter-stop 7 is beyond the last iteration: the trace has 7 iterations, numbered 0 to 6");
}

// The built tool.


class GpuIterationsToolTest : public AnalyzeToolTest {};

TEST_F(GpuIterationsToolTest, GpuReportsExactAndIdenticalForK123) {
    gpu_trace().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp(fs::path(one) / "gpu.csv"), gpu_csv);
    EXPECT_EQ(slurp(fs::path(one) / "gpu_kernels.csv"), gpu_kernels_csv);
    const std::string json = slurp(fs::path(one) / "gpu.json");
    EXPECT_NE(json.find("\"least_busy\": {\"rank\": 0, \"device\": 1}"), std::string::npos) << json;
    EXPECT_NE(slurp(fs::path(one) / "gpu_kernels.json")
                  .find("{\"kernel\": \"volta_h884gemm_64x64_ldg8_nn\", \"callpath\": "
                        "\"main/forward/cudaLaunchKernel\", \"tensor_core\": true, \"count\": 2"),
              std::string::npos);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("3 GPUs on 2 ranks, 4 streams"), std::string::npos) << summary;
    EXPECT_NE(summary.find("GPU busy share 78.9% (busy 0.12 s of 0.152 s"), std::string::npos) << summary;
    EXPECT_NE(summary.find("GPU 1 of rank 0 idle 50.0% of the time"), std::string::npos) << summary;
    EXPECT_NE(summary.find("Tensor Core kernels (by name, DLProf's method): 0.04 s of 0.14 s kernel time\n"),
              std::string::npos)
        << summary;
    // 6 kernels joined to their launches: 8 + 37 + 16 + 4 + 23 + 8 = 96 ms.
    EXPECT_NE(summary.find("  Launch latency (operation start - its launch's Enter, 6 operations): mean "
                           "0.016 s, max 0.037 s; largest mean: volta_h884gemm_64x64_ldg8_nn launched from "
                           "main/forward/cudaLaunchKernel (0.0225 s)\n"),
              std::string::npos)
        << summary;
    EXPECT_EQ(summary.find("Operations starting before their launch"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("GPU communication"), std::string::npos) << summary;
    // trace.json: the streams after the rank's thread, kernels as slices, launches as flows.
    const std::string timeline = slurp(fs::path(one) / "trace.json");
    EXPECT_NE(timeline.find("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 3, \"args\": "
                            "{\"name\": \"CUDA[1:2]\"}}"),
              std::string::npos);
    EXPECT_NE(
        timeline.find("{\"ph\": \"X\", \"name\": \"saxpy\", \"cat\": \"cuda\", \"ts\": 10000.000, \"dur\": "
                      "10000.000, \"pid\": 0, \"tid\": 3}"),
        std::string::npos);
    std::size_t launches = 0;
    for (std::size_t at = timeline.find("\"name\": \"launch\""); at != std::string::npos;
         at = timeline.find("\"name\": \"launch\"", at + 1))
        ++launches;
    EXPECT_EQ(launches, 12u);  // 6 kernels, a start and an end each
    for (int k : {2, 3}) {
        const std::string other = analyze_into(k);
        for (const char* name :
             {"summary.txt", "gpu.csv", "gpu.json", "gpu_kernels.csv", "gpu_kernels.json", "iterations.csv",
              "iterations.json", "advice.csv", "advice.json", "trace.json"}) {
            EXPECT_EQ(slurp(fs::path(other) / name), slurp(fs::path(one) / name)) << name << ", K = " << k;
        }
    }
}

TEST_F(GpuIterationsToolTest, LaunchLatencyAndNcclReportsIdenticalForK12) {
    gpu_launch_trace().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp(fs::path(one) / "gpu.csv"), gpu_launch_csv);
    EXPECT_EQ(slurp(fs::path(one) / "gpu_kernels.csv"), gpu_launch_kernels_csv);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("mean 3.2125e-05 s, max 0.0001 s; largest mean: step_kernel"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("Operations starting before their launch: 1"), std::string::npos) << summary;
    const std::string two = analyze_into(2);
    for (const char* name : {"summary.txt", "gpu.csv", "gpu.json", "gpu_kernels.csv", "gpu_kernels.json"})
        EXPECT_EQ(slurp(fs::path(two) / name), slurp(fs::path(one) / name)) << name;
}

TEST_F(GpuIterationsToolTest, IterationsAndRangeIdenticalForK123) {
    iterations_trace(false).write(experiment());
    const std::string one = analyze_into(1, {"--key-region", "step"});
    EXPECT_EQ(slurp(fs::path(one) / "iterations.csv"), iterations_csv_expected);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("Stable range suggested: --iter-start 1 --iter-stop 5"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("Iterations 0 (warm-up, 0.03 s), 6 (0.005 s) differ from the median iteration"),
              std::string::npos)
        << summary;
    EXPECT_EQ(lines_starting(slurp(fs::path(one) / "waitstates.csv"), "wait_at_barrier"),
              "wait_at_barrier,main/step/MPI_Barrier,1,0,0.016,6\n");
    for (int k : {1, 2, 3}) {
        const std::string ranged =
            analyze_into(k, {"--key-region=step", "--iter-start", "1", "--iter-stop", "3"});
        EXPECT_EQ(lines_starting(slurp(fs::path(ranged) / "waitstates.csv"), "wait_at_barrier"),
                  "wait_at_barrier,main/step/MPI_Barrier,1,0,0.006,3\n")
            << "K = " << k;
        EXPECT_NE(slurp(fs::path(ranged) / "summary.txt").find("counted in iterations 1 to 3 only"),
                  std::string::npos);
        if (k == 1) continue;
        for (const char* name :
             {"summary.txt", "iterations.csv", "iterations.json", "waitstates.csv", "gpu.csv"}) {
            EXPECT_EQ(slurp(fs::path(ranged) / name), slurp(fs::path(dir_.file("out1")) / name))
                << name << ", K = " << k;
        }
    }
}

TEST_F(GpuIterationsToolTest, NoKeyRegionListsCandidatesInSummaryAndAdvice) {
    iterations_trace(false).write(experiment());
    const std::string out = analyze_into(2);
    const std::string summary = slurp(fs::path(out) / "summary.txt");
    EXPECT_NE(summary.find("0 iterations found"), std::string::npos) << summary;
    EXPECT_NE(summary.find("pass it with --key-region NAME"), std::string::npos) << summary;
    EXPECT_NE(slurp(fs::path(out) / "advice.csv").find("no_iterations"), std::string::npos);
    EXPECT_NE(
        slurp(fs::path(out) / "iterations.json").find("{\"region\": \"step\", \"min_calls_per_rank\": 6"),
        std::string::npos);
}

TEST_F(GpuIterationsToolTest, BadOptionsExitWithStatusTwoAndAMessage) {
    iterations_trace(false).write(experiment());
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--iter-start", "abc"}, "--iter-start needs an iteration number (0, 1, 2, ...), not 'abc'"},
        {{"--iter-stop", "-1"}, "--iter-stop needs an iteration number"},
        {{"--iter-start", "3", "--iter-stop", "1"}, "--iter-stop 1 is before --iter-start 3"},
        {{"--key-region", ""}, "--key-region needs a region name"},
        {{"--gpu-idle-threshold", "2"}, "--gpu-idle-threshold needs a fraction from 0 to 1"},
        {{"--tensor-core-patterns", "h884,,hmma"}, "--tensor-core-patterns needs a comma-separated list"},
        {{"--gpu-gap-threshold", "0"}, "--gpu-gap-threshold needs a duration in seconds above 0"},
        {{"--event-reader", "fast"}, "--event-reader needs 'direct' or 'otf2', not 'fast'"},
        {{"--timeline-ranks", "0-x"}, "--timeline-ranks needs ranks and ranges of ranks, comma-separated (e.g. "
                                      "0-3,8), not '0-x'"},
        {{"--timeline-ranks", "3-1"}, "--timeline-ranks needs ranks and ranges of ranks"},
        {{"--timeline-ranks", "1,,2"}, "--timeline-ranks needs ranks and ranges of ranks"},
        {{"--timeline-window", "2"}, "--timeline-window needs a time window A:B in seconds from the trace start, "
                                     "with 0 <= A < B (e.g. 2.5:2.6, the times of trace.json), not '2'"},
        {{"--timeline-window", "0.5:0.2"}, "--timeline-window needs a time window A:B"},
        {{"--timeline-window", "-1:2"}, "--timeline-window needs a time window A:B"},
        {{"--key-region", "stpe"},
         "--key-region 'stpe': no region of that name in the trace; candidates, the most regularly recurring "
         "first: step (6 calls per rank on 2 ranks, spacing varies 57.1%)"},
        {{"--key-region", "step", "--iter-start", "9"},
         "--iter-start 9 is beyond the last iteration: the trace has 7 iterations, numbered 0 to 6"},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
        const auto& [args, message] = cases[c];
        std::vector<std::string> all = {"--output", dir_.file("bad")};
        all.insert(all.end(), args.begin(), args.end());
        all.push_back(experiment());
        // The command line is checked alike on every rank; the last two are known only after reading.
        for (int k : c + 2 < cases.size() ? std::vector<int>{0} : std::vector<int>{1, 2}) {
            const RunResult r = analyze(k, all);
            EXPECT_EQ(r.status, 2) << args.front() << "\n" << r.err;
            EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        }
        // Nothing is left: not a report, nor the directory made for the timeline's parts.
        EXPECT_FALSE(fs::exists(dir_.file("bad"))) << args.front();
    }
}

TEST_F(GpuIterationsToolTest, IterationOptionsWithoutTraceSayTheProfileIsNotRestricted) {
    write_experiment(imbalanced_profile(), experiment());
    const RunResult r = analyze(0, {"--iter-start", "1", "--output", dir_.file("out"), experiment()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(
        r.err.find("--key-region, --iter-start and --iter-stop need a trace (traces.otf2); the reports from "
                   "profile.h5 cover the whole run"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(fs::path(dir_.file("out")) / "iterations.csv"));
}

TEST_F(GpuIterationsToolTest, DamagedGpuAndPhaseTraceNeverCrashes) {
    const std::string pristine = dir_.file("pristine");
    iterations_trace(true).write(pristine);
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(pristine)) {
        if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), pristine));
    }
    std::sort(files.begin(), files.end());
    ASSERT_EQ(files.size(), 8u);  // anchor, global defs, 3 x (.evt, .def): 2 threads and a stream
    std::uint64_t state = 7;
    for (const fs::path& file : files) {
        for (int variant = 0; variant < 3; ++variant) {
            fs::remove_all(experiment());
            fs::copy(pristine, experiment(), fs::copy_options::recursive);
            const fs::path target = fs::path(experiment()) / file;
            std::string bytes = slurp(target);
            if (variant == 0) bytes.resize(bytes.size() / 2);
            if (variant == 1) bytes.resize(bytes.size() > 7 ? 7 : 0);
            for (int flip = 0; variant == 2 && flip < 6 && !bytes.empty(); ++flip) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                bytes[(state >> 33) % bytes.size()] ^= static_cast<char>(1 + (state >> 13) % 255);
            }
            std::ofstream(target, std::ios::binary | std::ios::trunc) << bytes;
            const RunResult r =
                run_program(STRATA_ANALYZE_EXE, {"--force", "--output", dir_.file("out"), experiment()});
            EXPECT_TRUE(r.status == 0 || r.status == 1)
                << file << " variant " << variant << ": " << r.status << "\n"
                << r.err;
            if (r.status == 0) {
                EXPECT_TRUE(fs::exists(fs::path(dir_.file("out")) / "iterations.csv")) << file;
            }
        }
    }
}

}  // namespace
}  // namespace strata::analysis::test
