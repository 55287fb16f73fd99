// SPDX-License-Identifier: BSD-3-Clause
// GPU metrics over time (trace/gpu_metrics.hpp): gpu_metrics_trace() with
// known samples on two ranks (a missing power value, a rank's clock offset,
// members whose references are not the table's order) analysed in one
// process as 1 to 3 shares with exact CSV, JSON and summary lines; metric
// locations counted neither as threads nor as streams and leaving the other
// reports alone; the iteration window; and the built tool under mpirun
// -np 1 and 2 with byte-identical reports and the page's charts.
#include "trace/gpu_metrics.hpp"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analyze/report_files.hpp"
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

// gpu_metrics_trace() by hand (otf2_fixture.hpp): T0 = 5 ms; rank 1's samples at 15 and 25 ms
// true time (its clock is 3 ms ahead: 0.013 and 0.023 if the offsets were ignored).
const std::string samples_csv =
    "rank,device,time_s,utilization_pct,memory_utilization_pct,memory_used_bytes,power_w,sm_clock_mhz\n"
    "0,0,0.005,20,5,1073741824,100,1410\n"
    "0,0,0.015,80,30,2147483648,250,1980\n"
    "0,0,0.025,100,40,3221225472,,1980\n"
    "0,0,0.035,0,0,2147483648,50,1410\n"
    "1,1,0.01,60,10,536870912,300,1700\n"
    "1,1,0.02,40,20,536870912,200,1700\n";

// Means over the samples that have the value; the energy skips the sample without power
// (treated as 0 W it would be 2.75 J, not 4.75).
const std::string gpus_json =
    "  \"gpus\": [\n"
    "    {\"rank\": 0, \"device\": 0, \"samples\": 4, \"first_s\": 0.005, \"last_s\": 0.035, "
    "\"utilization_mean_pct\": 50, \"utilization_max_pct\": 100, \"memory_utilization_mean_pct\": 18.75, "
    "\"memory_used_max_bytes\": 3221225472, \"power_mean_w\": 133.333333, \"energy_j\": 4.75, "
    "\"sm_clock_min_mhz\": 1410, \"sm_clock_max_mhz\": 1980},\n"
    "    {\"rank\": 1, \"device\": 1, \"samples\": 2, \"first_s\": 0.01, \"last_s\": 0.02, "
    "\"utilization_mean_pct\": 50, \"utilization_max_pct\": 60, \"memory_utilization_mean_pct\": 15, "
    "\"memory_used_max_bytes\": 536870912, \"power_mean_w\": 250, \"energy_j\": 2.5, "
    "\"sm_clock_min_mhz\": 1700, \"sm_clock_max_mhz\": 1700}\n"
    "  ]\n}\n";

const std::string summary_lines =
    "  2 GPUs, 6 samples\n"
    "    GPU 0 of rank 0: 4 samples from 0.005 s to 0.035 s; utilisation mean 50.0%, max 100.0%; memory "
    "utilisation mean 18.8%; memory used peak 3221225472 bytes (3.0 GiB); power mean 133.333333 W, energy "
    "4.75 J; SM clock 1410 to 1980 MHz\n"
    "    GPU 1 of rank 1: 2 samples from 0.01 s to 0.02 s; utilisation mean 50.0%, max 60.0%; memory "
    "utilisation mean 15.0%; memory used peak 536870912 bytes (512 MiB); power mean 250 W, energy 2.5 J; SM "
    "clock 1700 to 1700 MHz\n";

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// The content of report `name` among `files` ("" when it is not there).
std::string file_named(const std::vector<std::pair<std::string, std::string>>& files,
                       const std::string& name) {
    for (const auto& [file, content] : files)
        if (file == name) return content;
    return "";
}

class GpuMetricsTest : public ::testing::Test {
protected:
    std::string anchor() const { return dir_.file("traces.otf2"); }
    TempDir dir_;
};

TEST_F(GpuMetricsTest, SamplesAndSummaryExactForOneToThreeShares) {
    gpu_metrics_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    std::vector<std::pair<std::string, std::string>> first;
    for (std::size_t k : {1, 2, 3}) {
        const TraceReport r = analyze_trace_in_process(d, k);
        EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
        EXPECT_EQ(r.gpu_metrics.locations, 2u);
        const auto files = gpu_metric_files(r.gpu_metrics);
        ASSERT_EQ(files.size(), 2u);
        EXPECT_EQ(files[0].first, "gpu_metrics.csv");
        EXPECT_EQ(files[0].second, samples_csv) << "K = " << k;
        EXPECT_EQ(files[1].first, "gpu_metrics.json");
        EXPECT_TRUE(contains(files[1].second, gpus_json)) << files[1].second;
        EXPECT_TRUE(contains(files[1].second,
                             "\"restricted_to_iterations\": null,\n  \"locations\": 2,\n  "
                             "\"samples\": 6,\n"))
            << files[1].second;
        EXPECT_TRUE(contains(gpu_metric_text(r.gpu_metrics), summary_lines))
            << gpu_metric_text(r.gpu_metrics);
        // The files the tool writes, and the summary's lines.
        const auto written = waitstate_files(r);
        EXPECT_EQ(file_named(written, "gpu_metrics.csv"), samples_csv);
        EXPECT_TRUE(contains(summarize(r, false).text, summary_lines));
        if (first.empty()) first = files;
        EXPECT_EQ(files, first) << "K = " << k;
    }
}

TEST_F(GpuMetricsTest, MetricLocationsAreNeitherThreadsNorStreams) {
    gpu_metrics_trace().write(dir_.path());
    const TraceDefinitions d = read_trace_definitions(anchor());
    ASSERT_EQ(d.locations.size(), 5u);  // 2 threads, a stream, 2 metric locations
    std::size_t metric_locations = 0;
    for (const TraceLocation& l : d.locations) {
        if (l.type != OTF2_LOCATION_TYPE_METRIC) continue;
        ++metric_locations;
        EXPECT_TRUE(is_gpu_metric_location(l)) << l.name;
        EXPECT_EQ(l.name, "GPU[" + std::to_string(l.rank) + "] metrics");
        EXPECT_EQ(gpu_metric_device(l), l.rank);  // GPU 0 on rank 0, GPU 1 on rank 1
    }
    EXPECT_EQ(metric_locations, 2u);
    const RankLayout layout = trace_rank_layout(d);
    EXPECT_EQ(layout.cpu_threads, 2u);
    EXPECT_EQ(layout.gpu_streams, 1u);
    EXPECT_EQ(layout.other_locations, 2u);
    ASSERT_EQ(layout.ranks.size(), 2u);
    EXPECT_EQ(layout.ranks[0].columns.size(), 1u);
    const std::string part = dir_.file("timeline");
    const TraceReport r = analyze_trace_in_process(d, 2, {part, 1000});
    EXPECT_EQ(r.locations, 5u);
    EXPECT_EQ(r.locations_read, 5u);
    EXPECT_EQ(r.gpu.stream_locations, 1u);
    // One device row, one stream row, one rank row: the metric location of rank 1 is no GPU of gpu.csv.
    ASSERT_EQ(r.gpu.rows.size(), 3u);
    EXPECT_EQ(r.gpu.rows[0].scope, "device");
    EXPECT_EQ(r.gpu.rows[0].times.busy, static_cast<Ticks>(20 * ms));
    EXPECT_EQ(r.gpu.rows[0].times.span, static_cast<Ticks>(20 * ms));
    EXPECT_TRUE(r.waits.rows.empty());  // no wait state
    // The timeline has the threads and the stream, no track for a metric location.
    ASSERT_TRUE(join_timeline({part, 1000}, 2, dir_.file("trace.json")));
    const std::string timeline = slurp(dir_.file("trace.json"));
    EXPECT_TRUE(contains(timeline, "\"args\": {\"name\": \"CUDA[0:0]\"}")) << timeline;
    EXPECT_FALSE(contains(timeline, "metrics")) << timeline;
}

TEST_F(GpuMetricsTest, IterationWindowKeepsItsSamplesOnly) {
    // Steps of 10 ms from 0 (key region "step"); samples at 5, 15, 25, 35 ms.
    TraceBuilder b(1);
    const std::uint32_t step = b.region("step", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t gpu = b.gpu_metrics(0, 0);
    for (std::uint64_t i = 0; i < 4; ++i) {
        b.enter(0, i * 10 * ms, step);
        b.leave(0, (i + 1) * 10 * ms, step);
        b.gpu_sample(0, gpu, (i * 10 + 5) * ms, {static_cast<std::int64_t>(10 * (i + 1)), -1, -1, -1, -1});
    }
    b.write(dir_.path());
    TraceAnalysisOptions options;
    options.iterations.key_region = "step";
    options.iterations.start = 1;
    options.iterations.stop = 2;
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 1, {}, options);
    const auto files = gpu_metric_files(r.gpu_metrics);
    EXPECT_EQ(
        files[0].second,
        "rank,device,time_s,utilization_pct,memory_utilization_pct,memory_used_bytes,power_w,sm_clock_mhz\n"
        "0,0,0.015,20,,,,\n"
        "0,0,0.025,30,,,,\n");
    EXPECT_TRUE(contains(files[1].second, "\"restricted_to_iterations\": {\"start\": 1, \"stop\": 2}"));
    // Only utilisation: the other figures are null, and the power line says it is not reported.
    EXPECT_TRUE(contains(
        files[1].second,
        "\"utilization_mean_pct\": 25, \"utilization_max_pct\": 30, \"memory_utilization_mean_pct\": "
        "null, \"memory_used_max_bytes\": null, \"power_mean_w\": null, \"energy_j\": null"))
        << files[1].second;
    EXPECT_TRUE(contains(gpu_metric_text(r.gpu_metrics), "restricted to iterations 1 to 2"));
    EXPECT_TRUE(contains(gpu_metric_text(r.gpu_metrics), "; power not reported\n"));
}

TEST_F(GpuMetricsTest, ADamagedMetricLocationKeepsItsFirstSamplesAndIsNamed) {
    gpu_metrics_trace().write(dir_.path());
    // Rank 1's metric location is its stream number 0: id 1 << 32 | 0x10000.
    const fs::path events =
        fs::path(dir_.path()) / "traces" / (std::to_string((1ull << 32) | 0x10000) + ".evt");
    ASSERT_TRUE(fs::exists(events));
    fs::resize_file(events, fs::file_size(events) - 20);
    for (std::size_t k : {1, 2}) {
        const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), k);
        ASSERT_EQ(r.skipped.size(), 1u);
        EXPECT_TRUE(contains(r.skipped[0],
                             "rank 1, GPU[1] metrics (location 4295032832): its event file (.evt) "
                             "cannot be read to the end"))
            << r.skipped[0];
        EXPECT_EQ(r.locations_read, 4u);
        const std::string csv = gpu_metric_files(r.gpu_metrics)[0].second;
        EXPECT_TRUE(contains(csv, "0,0,0.035,0,0,2147483648,50,1410\n1,1,0.01,60,")) << csv;
    }
}

TEST_F(GpuMetricsTest, NoMetricLocationsNoFiles) {
    gpu_trace().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 2);
    EXPECT_EQ(r.gpu_metrics.locations, 0u);
    for (const auto& file : waitstate_files(r))
        EXPECT_NE(file.first.rfind("gpu_metrics", 0), 0u) << file.first;
    EXPECT_FALSE(contains(summarize(r, false).text, "GPU metrics"));
}

TEST_F(GpuMetricsTest, EveryReportFileIsListedAndNotOverwritten) {
    // Streams and metric locations: every report of the trace, checked before anything is written.
    gpu_metrics_trace().write(dir_.path());
    const TraceReport r = analyze_trace_in_process(read_trace_definitions(anchor()), 1);
    const std::vector<std::string>& names = report_file_names();
    for (const auto& file : waitstate_files(r))
        EXPECT_NE(std::find(names.begin(), names.end(), file.first), names.end()) << file.first;
    const std::string out = dir_.file("out");
    fs::create_directories(out);
    std::ofstream(fs::path(out) / "gpu_metrics.csv") << "an earlier run's\n";
    EXPECT_THROW(check_output_directory(out, false), ReportError);
    EXPECT_NO_THROW(check_output_directory(out, true));
}

// The built tool.

class GpuMetricsToolTest : public AnalyzeToolTest {};

TEST_F(GpuMetricsToolTest, ReportsAndChartsIdenticalForK12) {
    gpu_metrics_trace().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp((fs::path(one) / "gpu_metrics.csv").string()), samples_csv);
    EXPECT_TRUE(contains(slurp((fs::path(one) / "gpu_metrics.json").string()), gpus_json));
    const std::string summary = slurp((fs::path(one) / "summary.txt").string());
    EXPECT_TRUE(contains(summary, summary_lines)) << summary;
    EXPECT_TRUE(contains(summary, "5 of 5 locations read completely")) << summary;
    const std::string page_path = (fs::path(one) / "report.html").string();
    const RunResult check = run_program(STRATA_PYTHON, {STRATA_CHECK_HTML, page_path});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    const std::string page = slurp(page_path);
    EXPECT_TRUE(contains(page, "<a href=\"#gpu-metrics\">GPU metrics</a>"));
    EXPECT_TRUE(contains(page, "<h2 id=\"gpu-metrics\">GPU metrics over time</h2>"));
    EXPECT_TRUE(contains(page, "<h3>GPU 0 of rank 0</h3><svg class=\"chart\" role=\"img\""));
    EXPECT_TRUE(
        contains(page, "<title>GPU 0 of rank 0: utilisation, memory used and power over time</title>"));
    // One time axis for both: 0 to the last sample (35 ms), on both charts.
    std::size_t axes = 0;
    for (std::size_t at = page.find(">35.0 ms</text>"); at != std::string::npos;
         at = page.find(">35.0 ms</text>", at + 1))
        ++axes;
    EXPECT_EQ(axes, 2u) << page;
    // Rank 1's GPU at 0.01 s: x = 150 + 0.01 / 0.035 * 720; utilisation 60% of the 44 px strip.
    EXPECT_TRUE(contains(page, "<polyline class=\"m-util\" points=\"355.7,21.6 561.4,30.4\"/>")) << page;
    EXPECT_TRUE(contains(page,
                         "<p class=\"note\">4 samples from 5.00 ms to 35.0 ms; utilisation mean 50.0%, max "
                         "100.0%; memory utilisation mean 18.8%; memory used peak 3.0 GiB; power mean 133 W, "
                         "energy 4.75 J; SM clock 1410 to 1980 MHz.</p>"))
        << page;
    EXPECT_TRUE(contains(page, "<th scope=\"col\" class=\"num\">power_mean_w (W)</th>")) << page;
    const std::string two = analyze_into(2);
    for (const char* name : {"gpu_metrics.csv", "gpu_metrics.json", "summary.txt", "gpu.csv", "report.html"})
        EXPECT_EQ(slurp((fs::path(two) / name).string()), slurp((fs::path(one) / name).string())) << name;
}

}  // namespace
}  // namespace strata::analysis::test
