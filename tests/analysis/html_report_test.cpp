// SPDX-License-Identifier: BSD-3-Clause
// report.html: the escaping and the writer, the JSON reader, the page made
// from hand-written reports (unknown reports as tables, iterations as a
// chart), and the built strata-analyze under mpirun -np 1 and 2 on the
// synthetic profile and trace experiments: a well-formed, self-contained
// page (checked by check_html.py with Python's html.parser), the advice and
// the fixtures' exact figures on it, a region named a<b>&"c" escaped, and
// byte-identical pages for K = 1 and 2.
#include <gtest/gtest.h>

#include <cmath>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyze/calltree_report.hpp"
#include "analyze_fixtures.hpp"
#include "otf2_fixture.hpp"
#include "profile/profile_reader.hpp"
#include "report/html_calltree.hpp"
#include "report/html_report.hpp"
#include "report/html_writer.hpp"
#include "report/json_value.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;
using report::escape;
using report::html_report;
using report::parse_json;

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// check_html.py on `page` (written to a file in `dir`): "ok" or its complaints.
std::string check_page(const TempDir& dir, const std::string& page) {
    const std::string file = dir.write("checked.html", page);
    const RunResult r = run_program(STRATA_PYTHON, {STRATA_CHECK_HTML, file});
    return r.status == 0 ? "ok" : "status " + std::to_string(r.status) + ": " + r.out + r.err;
}

RunResult analyze(int k, const std::vector<std::string>& args) {
    std::vector<std::string> command = {"-np", std::to_string(k), "--oversubscribe", STRATA_ANALYZE_EXE};
    command.insert(command.end(), args.begin(), args.end());
    return run_program(STRATA_MPIEXEC, command);
}

// ---- pieces ---------------------------------------------------------------------

TEST(HtmlWriter, EscapesEverythingThatIsMarkup) {
    EXPECT_EQ(escape("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
    EXPECT_EQ(escape("it's"), "it&#39;s");
    EXPECT_EQ(escape(std::string("x\x01y", 3)), "x\uFFFDy");
    EXPECT_EQ(escape("caf\u00e9 \u2192"), "caf\u00e9 \u2192");  // UTF-8 passes through
}

TEST(HtmlWriter, ChartLabelsAreShortAndNeverAlike) {
    // Two long C++ call paths that differ only at their start: shortened (templates and
    // parameters elided), their ends would read alike, so each gets its place in the chart.
    const std::string tail = "/Kernel<float, 3>::apply(Field<float, 3>&, Stencil const&)/MPI_Allreduce";
    const std::string svg = report::svg_bar_chart("t", {{"main/solve_a(int)" + tail, 2.0, "2 s", ""},
                                               {"main/solve_b(int)" + tail, 1.0, "1 s", ""},
                                               {"main/std::vector<int, std::allocator<int> >::size() const", 0.5,
                                                "0.5 s", ""}});
    EXPECT_NE(svg.find(">\u2026el&lt;\u2026&gt;::apply(\u2026)/MPI_Allreduce [1]</text>"), std::string::npos) << svg;
    EXPECT_NE(svg.find(">\u2026el&lt;\u2026&gt;::apply(\u2026)/MPI_Allreduce [2]</text>"), std::string::npos) << svg;
    EXPECT_NE(svg.find(">main/std::vector&lt;\u2026&gt;::size() const</text>"), std::string::npos) << svg;
    // The tooltips keep the full names.
    EXPECT_NE(svg.find("<title>main/solve_a(int)/Kernel&lt;float, 3&gt;::apply"), std::string::npos) << svg;
}

TEST(HtmlWriter, TagsMustBalance) {
    report::HtmlWriter html;
    html.open("section", {{"title", "a\"b"}});
    html.element("p", "1 < 2");
    EXPECT_THROW(html.close("div"), std::logic_error);
    html.close("section");
    EXPECT_EQ(html.finish(), "<section title=\"a&quot;b\"><p>1 &lt; 2</p></section>");
    report::HtmlWriter open;
    open.open("table");
    EXPECT_THROW(open.finish(), std::logic_error);
}

TEST(JsonValue, KeepsNumbersAsWrittenAndOrder) {
    const report::JsonValue v =
        parse_json(R"({"b": 1e-05, "a": [1, "x\"\u00e9", true, null], "c": {"d": -0.5}})");
    ASSERT_TRUE(v.is_object());
    EXPECT_EQ(v.members[0].first, "b");
    EXPECT_EQ(v.find("b")->display(), "1e-05");
    EXPECT_DOUBLE_EQ(v.find("b")->number(), 1e-05);
    EXPECT_EQ(v.find("a")->display(), "1 x\"\u00e9 true ");
    EXPECT_EQ(v.find({"c", "d"})->display(), "-0.5");
    EXPECT_EQ(report::to_json(v), R"({"b": 1e-05, "a": [1, "x\"é", true, null], "c": {"d": -0.5}})");
    for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "01x", "\"abc", "[1] 2", "nul"})
        EXPECT_THROW(parse_json(bad), report::JsonError) << bad;
    EXPECT_THROW(parse_json(std::string(1000, '[')), report::JsonError);  // depth limit, no stack overflow
}

TEST(HtmlWriter, TimesForPeopleHaveThreeSignificantFigures) {
    EXPECT_EQ(report::human_seconds(0.0685148987), "68.5 ms");
    EXPECT_EQ(report::human_seconds(1.04), "1.04 s");
    EXPECT_EQ(report::human_seconds(4.3e-6), "4.30 \u00B5s");
    EXPECT_EQ(report::human_seconds(12e-9), "12.0 ns");
    EXPECT_EQ(report::human_seconds(0.99996), "1.00 s");  // rounded first, then the unit
    EXPECT_EQ(report::human_seconds(999.6e-6), "1.00 ms");
    EXPECT_EQ(report::human_seconds(1234.5), "1230 s");
    EXPECT_EQ(report::human_seconds(0.0), "0 s");
    EXPECT_EQ(report::human_seconds(-0.25), "-250 ms");
    EXPECT_EQ(report::human_seconds(NAN), "");
}

TEST(JsonValue, ACapKeepsTheFirstItemsAndCountsThemAll) {
    const report::JsonValue v = parse_json(R"({"rows": [{"a": 1}, {"a": 2}, {"a": 3}], "x": [[1, 2, 3]]})", 2);
    const report::JsonValue* rows = v.find("rows");
    ASSERT_EQ(rows->items.size(), 2u);
    EXPECT_EQ(rows->total_items, 3u);
    EXPECT_EQ(rows->items[1].find("a")->display(), "2");
    EXPECT_EQ(v.find("x")->items[0].items.size(), 2u);
    // Items left out are still checked.
    EXPECT_THROW(parse_json(R"([1, 2, 3, {"a" 4}])", 1), report::JsonError);
}

TEST(CheckHtml, RejectsUnbalancedTagsAndExternalResources) {
    // The checker itself must fail on what it is there to catch.
    TempDir dir;
    std::string filler;
    for (int i = 0; i < 20; ++i) filler += "<p>x</p>";
    const std::string head = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>" + filler;
    EXPECT_EQ(check_page(dir, head + "</body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<div><span></div></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<table></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<script src=\"https://cdn.example/x.js\"></script></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<a href=\"//example.org/\">x</a></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<img src=\"http://example.org/x.png\"></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<link rel=\"stylesheet\" href=\"a.css\"></body></html>"), "ok");
    EXPECT_EQ(check_page(dir, head + "<a href=\"#advice\">x</a></body></html>"), "ok");
    // What a name that escaped its escaping would bring, and scripts that make code or markup of text.
    EXPECT_NE(check_page(dir, head + "<img src=\"#x\" onerror=\"alert(1)\"></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<script>eval(\"1\")</script></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<script>document.body.innerHTML = name;</script></body></html>"), "ok");
    EXPECT_NE(check_page(dir, head + "<script type=\"application/json\">{\"a\": </script></body></html>"),
              "ok");
    EXPECT_NE(check_page(dir, head + "<script type=\"module\">1</script></body></html>"), "ok");
    EXPECT_EQ(check_page(dir, head + "<script type=\"application/json\">{\"a\": \"\\u003c/b>\"}</script>"
                                     "<script>JSON.parse(\"1\")</script></body></html>"),
              "ok");
}

// ---- the page from hand-written reports ----------------------------------------

TEST(HtmlReport, UnknownReportsAppearAsTablesAndIterationsAsAChart) {
    TempDir dir;
    const std::vector<ReportFile> files = {
        {"summary.txt", "text <summary>\n"},
        {"advice.json", R"({"report": "advice", "findings": []})"},
        {"gpu.json",
         R"({"report": "gpu", "rows": [{"device": "GPU <0>", "busy_s": 1.25, "utilisation": 0.5},)"
         R"( {"device": "GPU 1", "busy_s": 0.5, "utilisation": 0.2}]})"},
        {"iterations.json",
         R"({"report": "iterations", "key_region": "step", "key_source": "--key-region", "iterations": 3,)"
         R"( "stable_range": {"start": 1, "stop": 2}, "rows": [{"iteration": 0, "duration_s": 0.3, "flag": "warm-up"},)"
         R"( {"iteration": 1, "duration_s": 0.1}, {"iteration": 2, "duration_s": 0.1}]})"},
        {"broken.json", "{\"rows\": ["},
        {"trace.json", "{\"traceEvents\": [{\"name\": \"not a report\"}]}"}};
    const std::string page = html_report(files);
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_EQ(page, html_report(files));
    EXPECT_TRUE(contains(page, "<caption>gpu.json: rows</caption>")) << page;
    // Times for people in the cells (every digit in the tooltip), their unit not in the header.
    EXPECT_TRUE(contains(page, "<th scope=\"col\" class=\"num\">busy_s</th>"));
    EXPECT_TRUE(contains(page, "<td>GPU &lt;0&gt;</td><td class=\"num\" title=\"1.25 s\">1.25 s</td><td "
                               "class=\"num\">0.5</td>"))
        << page;
    EXPECT_TRUE(contains(page, "<h2 id=\"iterations\">Iterations</h2>"));
    EXPECT_TRUE(contains(page, "<title>iteration 0: 300 ms (warm-up)</title>")) << page;
    EXPECT_TRUE(contains(page, "<dt>Key region</dt><dd>step (--key-region)</dd>"));
    EXPECT_TRUE(contains(page, "<dd>1 to 2 (--iter-start 1 --iter-stop 2)</dd>"));
    EXPECT_TRUE(contains(page, "broken.json: JSON at byte"));
    EXPECT_FALSE(contains(page, "not a report"));
    EXPECT_TRUE(contains(page, "text &lt;summary&gt;"));
    EXPECT_TRUE(contains(page, "No findings"));
}

// The warm-up goes beyond the scale (cut, marked, said), the stable range is
// shaded and offered as a command; the ranks' spread is a whisker per column.
TEST(HtmlReport, IterationsOnAScaleTheStableOnesStayReadableOn) {
    TempDir dir;
    const std::vector<ReportFile> files = {
        {"summary.json", R"({"report": "summary", "experiment": "run-7"})"},
        {"iterations.json",
         R"({"report": "iterations", "key_region": "step", "key_source": "phase flag", "iterations": 4,)"
         R"( "stable_range": {"start": 1, "stop": 3}, "rows": [)"
         R"({"iteration": 0, "duration_s": 3.0, "flag": "warm-up", "stable": false, "rank_times_s": [2.5, 3.0]},)"
         R"( {"iteration": 1, "duration_s": 0.1, "flag": null, "stable": true, "rank_times_s": [0.08, 0.1]},)"
         R"( {"iteration": 2, "duration_s": 0.11, "flag": null, "stable": true, "rank_times_s": [0.09, 0.11]},)"
         R"( {"iteration": 3, "duration_s": 0.1, "flag": null, "stable": true, "rank_times_s": [0.1, 0.1]}]})"}};
    const std::string page = html_report(files);
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_TRUE(contains(page, "class=\"bar warmup clipped\"")) << page;
    EXPECT_TRUE(contains(page, "<text class=\"scale\" x=\"64\" y=\"18\" text-anchor=\"end\">143 ms</text>"))
        << page;
    EXPECT_TRUE(contains(page, "1 iteration goes beyond it (up to 3.00 s), cut and marked")) << page;
    EXPECT_TRUE(contains(page, "<title>iteration 0: 3.00 s (warm-up); ranks 2.50 s to 3.00 s</title>")) << page;
    EXPECT_EQ(count(page, "class=\"stable-range\""), 1u) << page;
    EXPECT_EQ(count(page, "class=\"spread\""), 2u) << page;  // not the warm-up (above the scale), not iteration 3
    EXPECT_TRUE(contains(page, "<code id=\"iteration-command\">strata-analyze --iter-start 1 --iter-stop 3 run-7</code>"))
        << page;
    EXPECT_TRUE(contains(page, "data-copy=\"iteration-command\"")) << page;

    // 1000 iterations: runs of 3, a column each, no whiskers.
    std::string rows;
    for (int i = 0; i < 1000; ++i)
        rows += std::string(i ? ", " : "") + "{\"iteration\": " + std::to_string(i) +
                ", \"duration_s\": 0.01, \"stable\": true, \"rank_times_s\": [0.009, 0.01]}";
    const std::string many = html_report(
        {{"iterations.json", R"({"report": "iterations", "iterations": 1000, "rows": [)" + rows + "]}"}});
    EXPECT_EQ(check_page(dir, many), "ok");
    EXPECT_EQ(count(many, "<rect class=\"bar\""), 334u);
    EXPECT_EQ(count(many, "class=\"spread\""), 0u);
    EXPECT_TRUE(contains(many, "Each column is a run of 3 consecutive iterations")) << many;
    EXPECT_FALSE(contains(many, "iteration-command"));  // no stable range given
}

// Wait states by call path (a column per pattern) and by rank pair (who waited for whom).
TEST(HtmlReport, TimelineEmbedsItsDataForTheCanvasAndSaysWhatIsLeftOut) {
    TempDir dir;
    const std::string timeline =
        R"({"report": "timeline", "length_us": 4000000.000, "bins": 4,)"
        R"( "classes": ["computation", "mpi", "io", "openmp", "gpu_wait", "cuda_api", "measurement",)"
        R"( "mpi_init_finalize", "kernel", "copy"],)"
        R"( "lanes": [{"rank": 0, "track": 0, "name": "master thread", "gpu": false,)"
        R"( "shares": {"computation": [90,10,50,100], "mpi": [10,90,0,0]}, "detail_slices": 2,)"
        R"( "detail_left_out": 5, "detail_ends_us": 2000100.500},)"
        R"( {"rank": 1, "track": 0, "name": "master thread", "gpu": false,)"
        R"( "shares": {"computation": [100,100,100,100]}, "detail_slices": 1, "detail_left_out": 0,)"
        R"( "detail_ends_us": null}],)"
        R"( "lanes_left_out": 6,)"
        R"( "window": {"begin_us": 1996086.726, "end_us": 2004954.273, "chosen": "the middle of the run",)"
        R"( "slices_per_lane": 2},)"
        R"( "regions": ["main", "</script><img src=x onerror=alert(1)>"],)"
        R"( "slices": [[0,0,0,1000.000,3999000.000], [0,1,1,2000000.000,100.500], [1,0,0,1000.000,3999000.000]],)"
        R"( "messages": [[0,2000000.000,1,2000050.000]], "iterations_us": [1000000.000, 2000000.000]})";
    const std::string page = html_report(
        {{"timeline.json", timeline},
         {"iterations.json", R"({"report": "iterations", "stable_range": {"start": 1, "stop": 2}, "rows": []})"}});
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_TRUE(contains(page, "<a href=\"#timeline\">Timeline</a>")) << page;
    EXPECT_TRUE(contains(page, "Each lane is a rank&#39;s CPU thread or GPU stream: 2 lanes; 6 more are left out")) << page;
    // Bounds with six figures: a window of milliseconds in a run of seconds.
    EXPECT_TRUE(contains(page, "From 1.99609 s to 2.00495 s (8.87 ms, the middle of the run")) << page;
    EXPECT_TRUE(contains(page, "each region instance and message is drawn (3 instances, 1 message as lines)")) << page;
    EXPECT_TRUE(contains(page, "On 1 lane the window holds more than 2 instances")) << page;
    EXPECT_TRUE(contains(page, "(first: rank 0, master thread at 2.00 s)")) << page;
    EXPECT_TRUE(contains(page, "<canvas id=\"tl-canvas\" tabindex=\"0\" role=\"img\" aria-label=\"Timeline of 2 lanes\">"))
        << page;
    EXPECT_EQ(count(page, "data-tl="), 4u);
    // The stable range's iterations 1 and 2 run from the first key-region end to the end of the run.
    EXPECT_TRUE(contains(page, "Iterations 1 to 2, the first of the stable range the Iterations section suggests, "
                               "one by one: <code>strata-analyze --timeline-window 1:4 &lt;experiment&gt;</code>"))
        << page;
    // The data goes whole into the page, where no name can close its element.
    EXPECT_TRUE(contains(page, "<script type=\"application/json\" id=\"timeline-data\">")) << page;
    EXPECT_TRUE(contains(page, "\\u003c/script>\\u003cimg src=x onerror=alert(1)>")) << page;
    EXPECT_FALSE(contains(page, "<img")) << page;
    // Without lanes, the section says so; without timeline.json there is none.
    const std::string empty = html_report({{"timeline.json", R"({"report": "timeline", "lanes": [], "bins": 4})"}});
    EXPECT_TRUE(contains(empty, "No rank&#39;s thread or GPU stream was chosen for the timeline")) << empty;
    EXPECT_FALSE(contains(html_report({{"summary.json", R"({"report": "summary"})"}}), "id=\"timeline\""));
}

TEST(HtmlReport, WaitStatesByCallPathAndRankPair) {
    TempDir dir;
    const auto waits = [](const std::string& rows) {
        return std::vector<ReportFile>{
            {"waitstates.json", R"({"report": "waitstates", "summary": {"mpi_time_s": 1.0}, "rows": [)" + rows + "]}"}};
    };
    const std::string page = html_report(waits(
        R"({"metric": "late_sender", "callpath": "main/MPI_Recv", "rank": 1, "partner": 0, "time_s": 0.02, "instances": 2},)"
        R"( {"metric": "wait_at_barrier", "callpath": "main/MPI_Barrier", "rank": 1, "partner": 0, "time_s": 0.01, "instances": 1},)"
        R"( {"metric": "wait_at_barrier", "callpath": "main/MPI_Barrier", "rank": 2, "partner": 0, "time_s": 0.005, "instances": 1})"));
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_TRUE(contains(page, "<h3>Who waits for whom</h3>")) << page;
    EXPECT_TRUE(contains(page, "<title>rank 1 waited for rank 0: 30.0 ms (late_sender 20.0 ms, wait_at_barrier "
                               "10.0 ms)</title>"))
        << page;
    EXPECT_TRUE(contains(page, "<rect class=\"h7\"")) << page;  // the largest cell
    EXPECT_EQ(count(page, "waited for rank"), 2u);                 // two pairs, the other cells empty
    EXPECT_TRUE(contains(page, "<caption>Waiting by call path, summed over ranks (the 2 of 2 call paths with most)"))
        << page;
    EXPECT_TRUE(contains(page, "<td>main/MPI_Barrier</td><td class=\"num\"></td><td class=\"num\">15.0 ms</td>"))
        << page;

    // 50 ranks in a ring: the 48 most involved, said so.
    std::string ring;
    for (int r = 0; r < 50; ++r)
        ring += std::string(r ? ", " : "") + R"({"metric": "late_sender", "callpath": "main/MPI_Recv", "rank": )" +
                std::to_string(r) + R"(, "partner": )" + std::to_string((r + 1) % 50) + R"(, "time_s": )" +
                std::to_string(0.001 * (r + 1)) + "}";
    const std::string many = html_report(waits(ring));
    EXPECT_EQ(check_page(dir, many), "ok");
    EXPECT_TRUE(contains(many, "The 48 ranks most involved of 50; waitstates.csv has every pair.")) << many;
}

TEST(HtmlReport, GpuMetricsChartsAtMostSixteenOnOneTimeAxis) {
    // 18 GPUs on 9 ranks; the samples of rank 0's GPU 0 go to 4 s, the others' to 2 s;
    // GPU 1 of rank 0 reports no power.
    std::string csv =
        "rank,device,time_s,utilization_pct,memory_utilization_pct,memory_used_bytes,power_w,sm_clock_mhz\n";
    std::string gpus;
    for (int g = 0; g < 18; ++g) {
        const std::string rank = std::to_string(g / 2), device = std::to_string(g % 2);
        const bool power = g != 1;
        for (int t = 0; t <= (g == 0 ? 4 : 2); ++t)
            csv += rank + "," + device + "," + std::to_string(t) + "," + std::to_string(25 * (t % 3)) +
                   ",10," + std::to_string(1000000000LL * (t + 1)) + "," + (power ? "250.5" : "") + ",1410\n";
        gpus += std::string(g > 0 ? ", " : "") + "{\"rank\": " + rank + ", \"device\": " + device +
                ", \"samples\": 3, \"first_s\": 0, \"last_s\": 2, \"utilization_mean_pct\": 25, "
                "\"utilization_max_pct\": 50, \"memory_utilization_mean_pct\": 10, "
                "\"memory_used_max_bytes\": 3000000000, \"power_mean_w\": " + (power ? "250.5" : "null") +
                ", \"energy_j\": " +
                (power ? "1002" : "null") + ", \"sm_clock_min_mhz\": 1410, \"sm_clock_max_mhz\": 1410}";
    }
    const std::vector<ReportFile> files = {
        {"gpu_metrics.csv", csv},
        {"gpu_metrics.json",
         R"({"report": "gpu_metrics", "restricted_to_iterations": {"start": 1, "stop": 2}, )"
         R"("gpus": [)" + gpus + "]}"}};
    const std::string page = html_report(files);
    TempDir dir;
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_EQ(page, html_report(files));
    EXPECT_TRUE(contains(page, "<h2 id=\"gpu-metrics\">GPU metrics over time</h2>"));
    std::size_t charts = 0;
    for (std::size_t at = page.find("over time</title>"); at != std::string::npos;
         at = page.find("over time</title>", at + 1))
        ++charts;
    EXPECT_EQ(charts, 16u);
    EXPECT_TRUE(contains(page, "<h3>GPU 1 of rank 7</h3>"));
    EXPECT_FALSE(contains(page, "<h3>GPU 0 of rank 8</h3>"));
    EXPECT_TRUE(contains(page, "The first 16 of 18 GPUs (by rank and device) are drawn; the other 2 are left "
                               "out here. gpu_metrics.csv has the samples of all of them"))
        << page;
    EXPECT_TRUE(contains(page, "Only the samples in iterations 1 to 2 (--iter-start/--iter-stop)."));
    // One time axis (0 to 4 s) for all: rank 0's GPU 1 ends half way; no power strip for it.
    EXPECT_TRUE(contains(page, "<title>GPU 1 of rank 0: utilisation and memory used over time</title>"))
        << page;
    EXPECT_TRUE(contains(page, "<polyline class=\"m-util\" points=\"150.0,48.0 330.0,37.0 510.0,26.0\"/>"))
        << page;
    EXPECT_TRUE(contains(page, "text-anchor=\"end\">4.00 s</text>"));
    // Every chart on the largest GPU's scale; figures as the rest of the page writes them.
    EXPECT_TRUE(contains(page, ">0 to 4.7 GiB</text>"));
    EXPECT_TRUE(contains(page, ">0 to 251 W</text>"));
    EXPECT_TRUE(contains(page, "power mean 251 W, energy 1.00 kJ; SM clock 1410 to 1410 MHz."));
    EXPECT_TRUE(contains(page, "memory used peak 2.8 GiB; power not reported; SM clock"));
}

TEST(HtmlReport, GpuSectionCapsGpusShortensNamesAndEscapes) {
    // 18 GPUs on 9 ranks, each busy in the second of 4 bins; one templated kernel with markup in its name.
    std::string rows, gpus;
    for (int g = 0; g < 18; ++g) {
        const std::string rank = std::to_string(g / 2), device = std::to_string(g % 2);
        rows += std::string(g > 0 ? ", " : "") + "{\"scope\": \"device\", \"rank\": " + rank +
                ", \"device\": " + device +
                ", \"busy_s\": 0.5, \"idle_s\": 1.5, \"span_s\": 2, "
                "\"utilisation\": 0.25, \"copy_htod_s\": 0.125}";
        gpus += std::string(g > 0 ? ", " : "") + "{\"rank\": " + rank + ", \"device\": " + device +
                ", \"busy_s\": 0.5, \"busy_share\": [0, 1, 0, 0]}";
    }
    const std::string kernel =
        "void gemm<float, </script><img src=x onerror=alert(1)>>(" + std::string(200, 'x') + ")";
    const std::vector<ReportFile> files = {
        {"gpu.json",
         "{\"report\": \"gpu\", \"activity\": {\"bins\": 4, \"bin_s\": 0.5, \"begin_s\": 0, "
         "\"end_s\": 2, \"gpus\": [" +
             gpus + "]}, \"rows\": [" + rows + "]}"},
        {"gpu_kernels.json", "{\"report\": \"gpu_kernels\", \"rows\": [{\"kernel\": \"" + kernel +
                                 "\", \"callpath\": \"main\", \"tensor_core\": false, \"count\": 3, "
                                 "\"total_s\": 0.003, \"mean_s\": 0.001, \"communication\": true}]}"},
        {"op_kernels.json",
         R"x({"report": "op_kernels", "rows": [{"op": "(no op)", "kernel": "k", "total_s": 9},)x"
         R"( {"op": "forward", "kernel": "k", "count": 2, "total_s": 0.25, "tensor_core": true}]})"}};
    const std::string page = html_report(files);
    TempDir dir;
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    EXPECT_EQ(page, html_report(files));
    EXPECT_FALSE(contains(page, "<img"));
    std::size_t strips = 0;
    for (std::size_t at = page.find("class=\"g-activity\""); at != std::string::npos;
         at = page.find("class=\"g-activity\"", at + 1))
        ++strips;
    EXPECT_EQ(strips, 16u);
    EXPECT_TRUE(contains(page,
                         "The first 16 of 18 GPUs (by rank and device) are drawn; the other 2 are left out "
                         "here. gpu.json has the series of all of them."));
    EXPECT_TRUE(contains(page, "<title>GPU 1 of rank 7: busy 25.0% of 0 s to 2.00 s (500 ms)"));
    EXPECT_FALSE(contains(page, "<title>GPU 0 of rank 8: busy"));
    // Busy in bin 1 of 4: 180 px of 720 at full height.
    EXPECT_TRUE(
        contains(page, "d=\"M150,40 L330.0,40.0 L330.0,4.0 L510.0,4.0 L510.0,40.0 L870,40.0 L870,40 Z\""))
        << page;
    EXPECT_TRUE(contains(page, "<td class=\"num\">25.0%</td><td class=\"num\">125 ms</td>"));
    // The kernel's name shortened in its cell, whole (escaped) in the tooltip; NCCL marked.
    EXPECT_TRUE(contains(
        page, "<td title=\"void gemm&lt;float, &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&gt;(" +
                  std::string(200, 'x') + ")\">void gemm&lt;\u2026&gt;(\u2026)</td>"))
        << page;
    EXPECT_TRUE(contains(page, "<td>\u2014</td><td>NCCL</td>"));
    // Kernels per op: the op's row, not the kernels in no op.
    EXPECT_TRUE(contains(page,
                         "<tr><td title=\"forward\">forward</td><td title=\"k\">k</td><td class=\"num\">2"
                         "</td><td class=\"num\">250 ms</td><td>yes</td></tr>"))
        << page;
    const std::size_t section = page.find("<h2 id=\"gpu\">");
    EXPECT_FALSE(contains(page.substr(section, page.find("</section>", section) - section), "(no op)"));
}

TEST(HtmlReport, WaitStatesOfATraceWithoutMpiSayThereAreNone) {
    const auto section = [](const std::string& summary) {
        const std::string page =
            html_report({{"waitstates.json", R"({"report": "waitstates", "summary": )" + summary + R"(, "rows": []})"}});
        const std::size_t from = page.find("<h2 id=\"wait-states\">");
        return from == std::string::npos ? std::string() : page.substr(from, page.find("</section>", from) - from);
    };
    const std::string totals = R"("totals": {"late_sender": {"time_s": 0, "instances": 0}})";
    const auto counts = [](int sends_unmatched) {
        return R"("counts": {"messages_matched": 0, "sends_unmatched": )" + std::to_string(sends_unmatched) +
               R"(, "receives_unmatched": 0, "collectives_matched": 0, "collectives_incomplete": 0}, )";
    };
    const std::string none = section(R"({"mpi_time_s": 0, )" + counts(0) + totals + "}");
    EXPECT_TRUE(contains(none, "<p class=\"none\">The trace holds no MPI call: there are no wait states")) << none;
    EXPECT_FALSE(contains(none, "<table")) << none;
    // One unmatched send is MPI: the patterns' table stays, zeros and all.
    const std::string some =
        section(R"({"mpi_time_s": 0, )" + counts(1) + totals + "}");
    EXPECT_FALSE(contains(some, "no wait states")) << some;
    EXPECT_TRUE(contains(some, "<td>late_sender</td>")) << some;
    // Counts missing (an older file): the table, not a claim.
    EXPECT_TRUE(contains(section(R"({"mpi_time_s": 0, )" + totals + "}"), "<td>late_sender</td>"));
}

TEST(HtmlReport, GpuSectionWithoutGpuSaysWhy) {
    const auto gpu_section = [](const std::vector<ReportFile>& files) {
        const std::string page = html_report(files);
        const std::size_t from = page.find("<h2 id=\"gpu\">");
        return from == std::string::npos ? std::string()
                                         : page.substr(from, page.find("</section>", from) - from);
    };
    EXPECT_EQ(
        gpu_section(
            {{"summary.json", R"({"report": "summary", "trace": {"present": false}, "gpu_streams": 1})"}}),
        "<h2 id=\"gpu\">GPU</h2><p class=\"none\">The profile has 1 GPU stream, but the GPU times come from "
        "the trace, and this experiment has none: run again with STRATA_ENABLE_TRACING=1.</p>");
    EXPECT_TRUE(
        contains(gpu_section({{"summary.json", R"({"trace": {"present": false}, "gpu_streams": 0})"}}),
                 "No GPU recorded: GPU times come from the trace&#39;s GPU streams, and this experiment has "
                 "no trace. To record one"));
    EXPECT_TRUE(contains(gpu_section({{"gpu.json", R"({"report": "gpu", "restricted_to_iterations": )"
                                                   R"({"start": 2, "stop": 3}, "rows": []})"}}),
                         "The trace has GPU streams, but no kernel or copy in iterations 2 to 3."));
}

TEST(HtmlReport, PopTreeNodesWithRatingsAndWhatIsNotMeasured) {
    const std::string summary =
        R"({"report": "summary", "ranks": 4, "pop": {"useful_time_mean_s": 3, "load_balance": 0.666666667, )"
        R"("communication_efficiency": 0.9, "parallel_efficiency": null, )"
        R"("definitions": {"U_p": "U_p: useful <time>", )"
        R"("R": "R: run time", "means": "means over all 4 measured ranks", "load_balance": "LB = mean/max", )"
        R"("communication_efficiency": "CommE = max/R", "parallel_efficiency": "PE = LB x CommE"}}})";
    const std::string counters =
        R"({"report": "calltree", "metrics": [{"name": "papi:PAPI_TOT_INS_exclusive"}, )"
        R"({"name": "papi:PAPI_TOT_CYC_exclusive"}], "callpaths": []})";
    TempDir dir;
    const std::string page = html_report({{"summary.json", summary}, {"calltree.json", counters}});
    EXPECT_EQ(check_page(dir, page), "ok") << page;
    // Measured: value as a percentage, the rating as a word and as a band, the definition in the tooltip.
    EXPECT_TRUE(
        contains(page,
                 "<div class=\"pop-node fair\" title=\"LB = mean/max; value 0.666666667 "
                 "(summary.json)\"><span class=\"pop-name\">Load balance</span><span "
                 "class=\"pop-value\">66.7%</span><span class=\"rating\">fair</span><span "
                 "class=\"pop-band\" aria-hidden=\"true\"><span class=\"fair\" style=\"width: "
                 "66.7%\"></span></span><span class=\"pop-formula\">mean_p U_p / max_p U_p</span></div>"))
        << page;
    EXPECT_TRUE(contains(page,
                         "<div class=\"pop-node good\" title=\"CommE = max/R; value 0.9 (summary.json)\">"
                         "<span class=\"pop-name\">Communication efficiency</span><span "
                         "class=\"pop-value\">90.0%</span><span class=\"rating\">good</span>"));
    // A figure summary.json has as null, and those the analysis does not compute, say so and why.
    EXPECT_TRUE(contains(page,
                         "<span class=\"pop-name\">Parallel efficiency</span><span class=\"pop-value\">not "
                         "measured</span><span class=\"pop-formula\">LB \u00D7 CommE = mean_p U_p / R</span>"
                         "<span class=\"pop-why\">not computed: its denominator is 0"));
    for (const char* node : {"Global efficiency", "Serialisation efficiency", "Transfer efficiency",
                             "Computation scalability", "IPC scalability"})
        EXPECT_TRUE(contains(page, std::string("<span class=\"pop-name\">") + node +
                                       "</span><span class=\"pop-value\">not measured</span>"))
            << node;
    EXPECT_TRUE(contains(page, "strata-analyze does not compute R_ideal"));
    // The counters the profile has are named; without them, how to record them.
    EXPECT_TRUE(contains(page,
                         "this profile has the counters (papi:PAPI_TOT_INS_exclusive, "
                         "papi:PAPI_TOT_CYC_exclusive: their sums per call path are in the call tree below)"))
        << page;
    const std::string without = html_report({{"summary.json", summary}});
    EXPECT_TRUE(contains(without, "(STRATA_METRIC_PAPI=PAPI_TOT_INS,PAPI_TOT_CYC records them)"));
    EXPECT_TRUE(contains(without, "U_p: useful &lt;time&gt;; R: run time; means over all 4 measured ranks."));
    // Nested as POP draws it: parallel efficiency under global, load balance under parallel.
    EXPECT_LT(page.find(">Global efficiency<"), page.find(">Parallel efficiency<"));
    EXPECT_LT(page.find(">Parallel efficiency<"), page.find(">Load balance<"));
    EXPECT_LT(page.find(">Transfer efficiency<"), page.find(">Computation scalability<"));
    // Without a profile: the section says why it is empty.
    const std::string trace_only = html_report({{"advice.json", R"({"report": "advice", "findings": []})"}});
    EXPECT_TRUE(contains(
        trace_only, "No profile (profile.h5) was analysed: the POP efficiencies are computed from one."));
}

TEST(HtmlReport, ValuesForPeopleAndLinksAsEncodeUriComponent) {
    EXPECT_EQ(report::human_value(0.0685148987, "s"), "68.5 ms");
    EXPECT_EQ(report::human_value(1500, "ns"), "1.50 \u00B5s");
    EXPECT_EQ(report::human_value(4096, "bytes"), "4.00 KiB");
    EXPECT_EQ(report::human_value(1023, "bytes"), "1023 B");
    EXPECT_EQ(report::human_value(1048576, "bytes"), "1.00 MiB");
    EXPECT_EQ(report::human_value(1048575, "bytes"), "1020 KiB");  // three figures of 1023.999 KiB
    EXPECT_EQ(report::human_value(40, "count"), "40");
    EXPECT_EQ(report::human_value(2.5, "count"), "2.50");
    EXPECT_EQ(report::human_value(123456789, "count"), "123 M");
    EXPECT_EQ(report::human_value(999600, "count"), "1.00 M");
    EXPECT_EQ(report::human_value(12345, "J"), "12.3 k J");
    EXPECT_EQ(report::human_value(NAN, "s"), "");
    EXPECT_EQ(report::uri_component("main/a b<c>&'(x)~*!"), "main%2Fa%20b%3Cc%3E%26'(x)~*!");
    EXPECT_EQ(report::uri_component("caf\u00e9"), "caf%C3%A9");
}

// ---- the built tool on the synthetic experiments --------------------------------

class HtmlReportToolTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    std::string experiment() const { return dir_.file("experiment"); }
    /// The page of the experiment analysed with K ranks.
    std::string page(int k) {
        const std::string output = dir_.file("out" + std::to_string(k));
        const RunResult r = analyze(k, {"--force", "--output", output, experiment()});
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        EXPECT_TRUE(contains(r.out, "report.html")) << r.out;
        return slurp(fs::path(output) / "report.html");
    }
    TempDir dir_;
};

TEST_F(HtmlReportToolTest, ProfileAndTraceExactAndIdenticalForK1And2) {
    write_experiment(imbalanced_profile(), experiment());
    wait_states_trace().write(experiment());
    const std::string one = page(1);
    EXPECT_EQ(check_page(dir_, one), "ok");
    EXPECT_EQ(page(2), one);
    // Every finding's message, escaped, and the advice before the summary.
    const report::JsonValue advice = parse_json(slurp(fs::path(dir_.file("out1")) / "advice.json"));
    ASSERT_GE(advice.find("findings")->items.size(), 2u);
    for (const report::JsonValue& finding : advice.find("findings")->items)
        EXPECT_TRUE(contains(one, "<p>" + escape(finding.find("message")->text) + "</p>"))
            << finding.find("message")->text;
    EXPECT_LT(one.find("<h2 id=\"advice\">"), one.find("<h2 id=\"summary\">"));
    EXPECT_TRUE(contains(one, "2. Load imbalance: main/compute</h3>")) << one;  // after the MPI share
    // The fixture's figures (analyze_fixtures.hpp, otf2_fixture.hpp).
    EXPECT_TRUE(contains(one, "0.666666667 (66.7%)</td><td class=\"rating fair\">fair</td>")) << one;
    EXPECT_TRUE(contains(one, "0.9 (90.0%)</td><td class=\"rating good\">good</td>"));
    EXPECT_TRUE(contains(one, "0.6 (60.0%)</td><td class=\"rating fair\">fair</td>"));
    EXPECT_TRUE(contains(one, "<td>main/compute</td><td>computation</td><td class=\"num\">2.00 s</td><td "
                              "class=\"num\">2.50 s</td><td class=\"num\">4.00 s</td><td class=\"num\">3</td><td "
                              "class=\"num\">37.5%</td><td class=\"num\">1.50 s</td>"));
    EXPECT_TRUE(contains(one, "<title>rank 3: useful 4.50 s of 5.00 s</title>"));
    // Each rank's bar is stacked from its time classes, each part with its value.
    EXPECT_TRUE(contains(one, "<title>rank 3, mpi: 500 ms</title>")) << one;
    EXPECT_TRUE(contains(one, "<title>rank 0, computation: 2.50 s</title>")) << one;
    EXPECT_TRUE(contains(one, "<td>late_sender</td><td class=\"num\">13.0 ms</td><td class=\"num\">3</td>"));
    EXPECT_TRUE(contains(one, "<dt>MPI time (all ranks)</dt><dd>63.8 ms</dd>"));
    // The POP tree after the advice, before the summary, with the fixture's figures.
    EXPECT_LT(one.find("<h2 id=\"advice\">"), one.find("<h2 id=\"overview\">"));
    EXPECT_LT(one.find("<h2 id=\"overview\">"), one.find("<h2 id=\"summary\">"));
    EXPECT_TRUE(contains(one,
                         "<span class=\"pop-name\">Parallel efficiency</span><span class=\"pop-value\">60.0%"
                         "</span><span class=\"rating\">fair</span>"))
        << one;
    EXPECT_TRUE(contains(one,
                         "<span class=\"pop-name\">Load balance</span><span class=\"pop-value\">66.7%"
                         "</span><span class=\"rating\">fair</span>"));
    EXPECT_TRUE(contains(one,
                         "<span class=\"pop-name\">Communication efficiency</span><span "
                         "class=\"pop-value\">90.0%</span><span class=\"rating\">good</span>"));
    // The heatmap: compute on rank 3 is the row's largest (4 s), rank 0's half of it.
    EXPECT_TRUE(contains(one,
                         "<title>compute, rank 3: 4.00 s (4 s; 100.0% of the region&#39;s busiest "
                         "rank)</title>"))
        << one;
    EXPECT_TRUE(contains(one,
                         "<title>compute, rank 0: 2.00 s (2 s; 50.0% of the region&#39;s busiest "
                         "rank)</title>"));
}

TEST_F(HtmlReportToolTest, TraceOnlyExperiment) {
    wait_states_trace().write(experiment());
    const std::string one = page(1);
    EXPECT_EQ(check_page(dir_, one), "ok");
    EXPECT_EQ(page(2), one);
    EXPECT_FALSE(contains(one, "id=\"summary\""));
    EXPECT_TRUE(contains(one, "<td>early_reduce</td><td class=\"num\">5.00 ms</td><td class=\"num\">1</td>"));
    EXPECT_TRUE(contains(one, "the profile reports (load balance, POP efficiencies) were not made"));
    // A CPU-only trace: the GPU section stays and says why it is empty.
    EXPECT_TRUE(contains(one,
                         "<h2 id=\"gpu\">GPU</h2><p class=\"none\">No GPU recorded: this experiment has no "
                         "GPU streams. To record one, build with `strata nvcc`"))
        << one;
}

TEST_F(HtmlReportToolTest, GpuSectionFromTheTraceIdenticalForK1And2) {
    gpu_trace().write(experiment());  // otf2_fixture.hpp: 3 GPUs on 2 ranks, 4 streams
    const std::string one = page(1);
    EXPECT_EQ(check_page(dir_, one), "ok");
    EXPECT_EQ(page(2), one);
    EXPECT_TRUE(contains(one, "<li><a href=\"#gpu\">GPU</a></li>"));
    // Busy and idle over each GPU's and stream's span (gpu.csv's figures).
    EXPECT_TRUE(contains(one, "<g><title>GPU 1 of rank 0, busy: 20.0 ms</title><rect class=\"g-busy\""));
    EXPECT_TRUE(contains(one, "<text x=\"666.0\" y=\"17\">83.3% busy (50.0 ms of 60.0 ms)</text>")) << one;
    EXPECT_TRUE(contains(one, "<g><title>rank 1 CUDA[0:0], idle: 2.00 ms</title>"));
    // Copies per direction beside it: GPU 0 of rank 0 copies 5 ms HtoD and 5 ms DtoH.
    EXPECT_TRUE(contains(one,
                         "<tr><td>GPU 0 of rank 0</td><td class=\"num\">3</td><td class=\"num\">50.0 ms</td>"
                         "<td class=\"num\">10.0 ms</td><td class=\"num\">83.3%</td><td class=\"num\">5.00 "
                         "ms</td><td class=\"num\">5.00 ms</td><td class=\"num\">0 s</td>"))
        << one;
    // Activity: busy 10..60 ms of 0..70 ms, in bins 28 (0.43) to 171 (0.43) of 200 at 3.6 px each.
    EXPECT_TRUE(contains(one,
                         "<title>GPU 0 of rank 0: busy 71.4% of 0 s to 70.0 ms (50.0 ms), peak 100.0% in "
                         "a bin</title>"));
    EXPECT_TRUE(contains(one,
                         "<path class=\"g-activity\" d=\"M150,40 L250.8,40.0 L250.8,24.6 L254.4,24.6 "
                         "L254.4,4.0 L765.6,4.0 L765.6,24.6 L769.2,24.6 L769.2,40.0 L870,40.0 L870,40 Z\"/>"))
        << one;
    std::size_t strips = 0;
    for (std::size_t at = one.find("class=\"g-activity\""); at != std::string::npos;
         at = one.find("class=\"g-activity\"", at + 1))
        ++strips;
    EXPECT_EQ(strips, 3u);
    // Top kernels: the Tensor Core gemm with its count, total, mean and launching call path.
    EXPECT_TRUE(contains(one,
                         "<tr><td title=\"volta_h884gemm_64x64_ldg8_nn\">volta_h884gemm_64x64_ldg8_nn</td>"
                         "<td class=\"num\">2</td><td class=\"num\">40.0 ms</td><td class=\"num\">20.0 "
                         "ms</td><td>yes</td><td></td><td class=\"num\">22.5 ms</td><td title=\"main/"
                         "forward/cudaLaunchKernel\">main/forward/cudaLaunchKernel</td></tr>"))
        << one;
    // No NVTX range in this trace: no kernels-per-op table (all would be "(no op)").
    EXPECT_FALSE(contains(one, "Kernels per op"));
}

TEST_F(HtmlReportToolTest, RegionNamesAreEscaped) {
    // imbalanced_profile() with the computing region renamed.
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto odd = b.region("a<b>&\"c\"", paradigm::user, role::code);
    const auto allreduce = b.region("MPI_Allreduce", paradigm::mpi, role::coll_all2all);
    for (std::uint32_t r = 0; r < 4; ++r) b.location(r, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_odd = b.callpath(static_cast<std::int64_t>(cp_main), odd);
    const auto cp_allreduce = b.callpath(static_cast<std::int64_t>(cp_main), allreduce);
    for (std::size_t r = 0; r < 4; ++r) {
        b.set(cp_main, r, 1, 0.5);
        b.set(cp_odd, r, 10, r == 3 ? 4.0 : 2.0);
        b.set(cp_allreduce, r, 10, r == 3 ? 0.5 : 2.5);
    }
    write_experiment(b.build(), experiment());
    const std::string one = page(1);
    EXPECT_EQ(check_page(dir_, one), "ok");
    EXPECT_FALSE(contains(one, "a<b>"));
    // The heading shortens what looks like template arguments (display_name); the facts and tables keep it whole.
    EXPECT_TRUE(contains(one, "2. Load imbalance: main/a&lt;\u2026&gt;&amp;&quot;c&quot;</h3>")) << one;
    EXPECT_TRUE(contains(one, "<dd>main/a&lt;b&gt;&amp;&quot;c&quot;</dd>")) << one;
    EXPECT_TRUE(contains(one, "<td>main/a&lt;b&gt;&amp;&quot;c&quot;</td><td>computation</td>"));
    EXPECT_EQ(page(2), one);
}

TEST_F(HtmlReportToolTest, CallTreeAndHeatmapExactEscapedAndIdenticalForK1And2) {
    write_experiment(calltree_profile(), experiment());
    const std::string one = page(1);
    EXPECT_EQ(check_page(dir_, one), "ok");
    EXPECT_EQ(page(2), one);
    const std::string tree = slurp(fs::path(dir_.file("out1")) / "calltree.json");
    EXPECT_EQ(slurp(fs::path(dir_.file("out2")) / "calltree.json"), tree);
    // The tool writes what calltree_json() makes of the whole profile (its figures:
    // calltree_report_test.cpp).
    EXPECT_EQ(tree, calltree_json(read_profile((fs::path(experiment()) / "profile.h5").string())));

    // The region named like markup stays text: in the table, the deep link, the heatmap and the data.
    EXPECT_FALSE(contains(one, "<img"));
    const std::string odd = escape(odd_region_name);
    const std::string link = "#callpath=main%2Fsolve%2F%3C%2Fscript%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E";
    const std::string row =
        "<tr data-id=\"2\"><td class=\"ct-name\" style=\"padding-left: 2.5rem\"><a href=\"" + link +
        "\" title=\"main/solve/" + odd + " (user)\">" + odd + "</a></td>" +
        "<td class=\"num\" title=\"2 s\">2.00 s</td><td class=\"num\" title=\"2 s\">2.00 s</td>" +
        "<td class=\"num\" title=\"8 count\">8</td><td class=\"num\" title=\"0 bytes\">0 B</td>" +
        "<td class=\"num\" title=\"40 count\">40</td><td class=\"num\" title=\"40 count\">40</td></tr>";
    EXPECT_TRUE(contains(one, row)) << one;
    // Every metric of the profile is a column of the tree.
    EXPECT_TRUE(contains(one,
                         "<th scope=\"col\" class=\"num\" title=\"bytes_sent (bytes): bytes_sent by the call "
                         "path itself\">bytes sent</th>"));
    EXPECT_TRUE(contains(one, ">papi:PAPI_TOT_INS_inclusive</th>"));
    EXPECT_TRUE(contains(one, "<td class=\"num\" title=\"5120 bytes\">5.00 KiB</td>")) << one;
    EXPECT_TRUE(contains(one, "<title>" + odd +
                                  ", rank 1: 1.50 s (1.5 s; 100.0% of the region&#39;s busiest "
                                  "rank)</title>"));
    EXPECT_TRUE(
        contains(one, "<rect class=\"h2\" x=\"250\" y=\"40\" width=\"28\" height=\"17\"><title>" + odd +
                          ", rank 0: 500 ms (0.5 s; 33.3% of the region&#39;s busiest rank)</title></rect>"))
        << one;
    // The embedded data is calltree.json itself, with every '<' as \u003c: no name can end the block.
    std::string embedded;
    for (char c : tree) embedded += c == '<' ? std::string("\\u003c") : std::string(1, c);
    EXPECT_TRUE(
        contains(one, "<script type=\"application/json\" id=\"calltree-data\">" + embedded + "</script>"));
    EXPECT_TRUE(contains(embedded, "\"label\": \"\\u003c/script>\\u003cimg src=x onerror=alert(1)>\""));
    std::size_t opened = 0, closed = 0;
    for (std::size_t at = one.find("<script"); at != std::string::npos; at = one.find("<script", at + 1))
        ++opened;
    for (std::size_t at = one.find("</script>"); at != std::string::npos; at = one.find("</script>", at + 1))
        ++closed;
    EXPECT_EQ(opened, 3u);  // the data, the call tree's script, the sorting script
    EXPECT_EQ(closed, 3u);
    // The IPC node names the counter the profile has, but no cycles counter: how to record both.
    EXPECT_TRUE(contains(one, "(STRATA_METRIC_PAPI=PAPI_TOT_INS,PAPI_TOT_CYC records them)"));
    EXPECT_TRUE(contains(one, "<a href=\"#calltree\">Call tree</a>"));
    EXPECT_TRUE(contains(one, "<a href=\"#heatmap\">Heatmap</a>"));
    // Not also as a table under "All reports": the page has it once.
    EXPECT_FALSE(contains(one, "<h3 id=\"report-calltree\">"));
}

}  // namespace
}  // namespace strata::analysis::test
