// SPDX-License-Identifier: BSD-3-Clause
// report.html (see html_report.hpp): the page frame, its style and script,
// the header and the order of the sections.
#include "report/html_report.hpp"

#include <initializer_list>
#include <optional>
#include <string_view>

#include "report/html_calltree.hpp"
#include "report/html_gpu.hpp"
#include "report/html_iterations.hpp"
#include "report/html_gpu_metrics.hpp"
#include "report/html_ops.hpp"
#include "report/html_overview.hpp"
#include "report/html_sections.hpp"
#include "report/html_step_trace.hpp"
#include "report/html_timeline.hpp"
#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {
namespace {

// Colours come with text (labels, legends, "good"/"fair"/"poor"), never alone.
constexpr const char* style = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 72rem; padding: 0 1rem 3rem; color: #1a1a1a; background: #fff; line-height: 1.45; }
header { border-bottom: 3px solid #2b5797; margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin: 1rem 0 0.3rem; overflow-wrap: anywhere; }
h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin: 1rem 0 0.3rem; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.15rem 1rem;
           margin: 0.5rem 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.6rem 0 1.2rem; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; white-space: nowrap; }
th, td { border: 1px solid #c8c8c8; padding: 0.2rem 0.5rem; vertical-align: top; }
th { background: #eef1f6; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.sortable th { cursor: pointer; }
th[aria-sort=ascending]::after { content: " \25B2"; }
th[aria-sort=descending]::after { content: " \25BC"; }
.finding { border: 1px solid #d9a441; border-left: 6px solid #d9a441; background: #fffaf0; padding: 0.4rem 0.9rem;
           margin: 0.8rem 0; }
.finding p { margin: 0.3rem 0; }
.none { border-left: 6px solid #3a7d44; background: #f3faf4; padding: 0.4rem 0.9rem; }
.good { background: #cdebd3; }
.fair { background: #fbe7b5; }
.poor { background: #f6c6c1; }
.rating { font-weight: 600; }
p.glance { font-size: 1.05rem; margin: 0.4rem 0; }
.note { color: #444; font-size: 0.9rem; }
.scroll { overflow-x: auto; }
svg.chart { max-width: 100%; height: auto; font-size: 13px; }
svg.chart text { fill: #1a1a1a; }
svg.chart text.inbar { fill: #fff; font-weight: 600; }
svg .bar { fill: #2b5797; }
svg .track { fill: #d5dbe6; }
svg .span { fill: #7f9ccf; }
svg .mean { fill: #c0392b; }
svg .axis { fill: #888; }
svg .c-computation { fill: #2b7a3d; }
svg .c-mpi { fill: #b8472a; }
svg .c-io { fill: #2f8f9d; }
svg .c-openmp { fill: #7a4fa0; }
svg .c-gpu_wait { fill: #d4a017; }
svg .c-cuda_api { fill: #76b900; }
svg .c-measurement { fill: #6b6b6b; }
svg .c-other { fill: #a0a0a0; }
svg .plot { fill: #f4f6fa; stroke: #c8c8c8; stroke-width: 0.5; }
svg text.scale { fill: #555; font-size: 11px; }
svg .m-util { fill: none; stroke: #2b5797; stroke-width: 1.5; }
svg .m-memory { fill: none; stroke: #2f8f9d; stroke-width: 1.5; }
svg .m-power { fill: none; stroke: #b8472a; stroke-width: 1.5; }
svg .g-busy { fill: #2b7a3d; }
svg .g-idle { fill: #e3e7ee; stroke: #9aa5b8; stroke-width: 0.5; }
svg .g-activity { fill: #76b900; stroke: #4d7a00; stroke-width: 0.5; }
.tl-controls { margin: 0.4rem 0; display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; }
.tl-key { display: inline-block; margin-right: 0.9rem; font-size: 0.85rem; }
.tl-key i { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.25rem; vertical-align: -0.1rem; }
.tl-box { position: relative; margin: 0.4rem 0; }
#tl-canvas { display: block; width: 100%; cursor: grab; border: 1px solid #c8c8c8; }
#tl-canvas:focus { outline: 2px solid #2b5797; }
#tl-tip { position: absolute; pointer-events: none; background: #fff; border: 1px solid #999; padding: 0.2rem 0.4rem;
          font-size: 0.8rem; white-space: pre-line; max-width: 26rem; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.2); }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
ul.pop-tree, ul.pop-tree ul { list-style: none; margin: 0; padding-left: 1.4rem; }
ul.pop-tree { padding-left: 0; }
ul.pop-tree li { margin: 0.3rem 0; }
ul.pop-tree ul li { border-left: 1px solid #b5bfcf; padding-left: 0.6rem; }
.pop-node { display: inline-flex; flex-wrap: wrap; align-items: baseline; gap: 0.2rem 0.6rem; max-width: 100%;
            box-sizing: border-box; overflow-wrap: anywhere;
            border: 1px solid #c8c8c8; border-radius: 4px; padding: 0.25rem 0.6rem; background: #fff; }
.pop-node.good { border-left: 8px solid #3a7d44; }
.pop-node.fair { border-left: 8px solid #d9a441; }
.pop-node.poor { border-left: 8px solid #c0392b; }
.pop-node.unmeasured { border-left: 8px dashed #9a9a9a; color: #444; }
.pop-name { font-weight: 600; }
.pop-value { font-variant-numeric: tabular-nums; }
.pop-band { display: inline-block; width: 8rem; height: 0.7rem; background: #eceff4;
            border: 1px solid #c8c8c8; }
.pop-band span { display: block; height: 100%; }
.pop-band .good { background: #3a7d44; }
.pop-band .fair { background: #d9a441; }
.pop-band .poor { background: #c0392b; }
.pop-formula, .pop-why { font-size: 0.85rem; color: #444; }
.pop-why { flex-basis: 100%; }
.ct-layout { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem;
             align-items: start; }
@media (max-width: 60rem) { .ct-layout { grid-template-columns: minmax(0, 1fr); } }
.ct-tree { max-height: 40rem; overflow: auto; }
table.ct { margin-top: 0; }
table.ct td.ct-name { white-space: nowrap; }
table.ct tr.ct-selected td { background: #dde7f7; }
.ct-toggle { font: inherit; border: none; background: none; cursor: pointer; width: 1.4rem; padding: 0; }
.ct-leaf { display: inline-block; width: 1.4rem; }
.ct-detail { position: sticky; top: 0; min-width: 0; }
.ct-detail h3, .ct-detail p, .ct-detail dd, .ct-detail caption { overflow-wrap: anywhere;
                                                                  white-space: normal; }
.ct-detail select { max-width: 100%; }
svg.ct-chart { width: 100%; }
svg .ct-bar { fill: #7f9ccf; cursor: pointer; }
svg .ct-bar.ct-high { fill: #2b5797; }
svg .ct-bar.ct-low { fill: #c5d3ea; }
svg .ct-bar.ct-chosen { fill: #c0392b; }
svg .ct-mean { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.heat rect { stroke: #fff; stroke-width: 0.5; }
svg .bar.warmup { fill: #9a9a9a; }
svg .bar.outlier { fill: #d9822b; }
svg .stable-range { fill: #e3f1e5; }
svg .spread { fill: #1a1a1a; }
svg text.over { fill: #c0392b; font-size: 10px; }
button.copy { font: inherit; font-size: 0.85rem; padding: 0.1rem 0.5rem; cursor: pointer; }
svg .hz { fill: #fff; stroke: #d0d0d0; }
svg .h0 { fill: #eef3fb; } svg .h1 { fill: #d6e2f3; } svg .h2 { fill: #b9cde9; } svg .h3 { fill: #93b1dc; }
svg .h4 { fill: #6d94cf; } svg .h5 { fill: #4a78bf; } svg .h6 { fill: #2f5ea5; } svg .h7 { fill: #1b3f78; }
input.filter { margin: 0.4rem 0 0; padding: 0.15rem 0.3rem; font: inherit; font-size: 0.9rem; width: 16rem;
               max-width: 100%; }
@media print {
  body { max-width: none; font-size: 10pt; }
  nav, button, input.filter, .tl-controls, #tl-tip { display: none; }
  .ct-tree { max-height: none; overflow: visible; } .ct-layout { display: block; }
  .scroll { overflow: visible; }
  section, table, figure, svg, canvas { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
)";

// Sorting and filtering tables, the buttons that copy a command, the folded
// parts opened for printing; the page is complete without it.
constexpr const char* script = R"(
(function () {
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (button) {
    button.addEventListener("click", function () {
      var code = document.getElementById(button.getAttribute("data-copy"));
      if (!code) return;
      // Selected, so that Ctrl+C works where the clipboard is not offered (a page opened from disk).
      var range = document.createRange();
      range.selectNodeContents(code);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (navigator.clipboard && navigator.clipboard.writeText)
        navigator.clipboard.writeText(code.textContent).then(function () { button.textContent = "Copied"; },
                                                             function () {});
    });
  });
})();
(function () {
  var heads = document.querySelectorAll("table.sortable th");
  Array.prototype.forEach.call(heads, function (th) {
    th.tabIndex = 0;
    th.title = "Sort by this column";
    function sort() {
      var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      // "68.5 ms", "1.04 s", "12.5%": numbers in their unit, compared in seconds.
      var scale = {"ns": 1e-9, "\u00B5s": 1e-6, "ms": 1e-3, "s": 1};
      function value(text) {
        var m = /^\s*(-?[0-9.]+(?:e[-+]?[0-9]+)?)\s*(ns|\u00B5s|ms|s)?\b/i.exec(text);
        if (!m) return NaN;
        return parseFloat(m[1]) * (m[2] ? scale[m[2]] : 1);
      }
      rows.sort(function (a, b) {
        var x = a.cells[col] ? a.cells[col].textContent : "", y = b.cells[col] ? b.cells[col].textContent : "";
        var p = value(x), q = value(y);
        var c = (!isNaN(p) && !isNaN(q)) ? p - q : x.localeCompare(y);
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
    });
  });
  // A filter above each table of more than a few rows: rows without the text are hidden.
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tBodies[0] || table.tBodies[0].rows.length <= 5) return;
    var input = document.createElement("input"), caption = table.caption ? table.caption.textContent : "the table";
    input.type = "search";
    input.className = "filter";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of " + caption);
    input.addEventListener("input", function () {
      var text = input.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        row.hidden = text !== "" && row.textContent.toLowerCase().indexOf(text) < 0;
      });
    });
    var at = table.parentNode.classList && table.parentNode.classList.contains("scroll") ? table.parentNode : table;
    at.parentNode.insertBefore(input, at);
  });
})();
(function () {
  // Printed, the folded parts are shown too.
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  });
})();
)";

/// One line: ranks, threads, wall time, parallel efficiency with its rating, findings.
void write_glance(HtmlWriter& html, const JsonValue* summary, const JsonValue* advice) {
    std::string line;
    if (summary) {
        auto text = [&](std::initializer_list<std::string_view> path) {
            const JsonValue* value = summary->find(path);
            return value ? value->display() : std::string();
        };
        line = text({"ranks"}) + " ranks, " + text({"cpu_threads"}) + " CPU threads, " + text({"gpu_streams"}) +
               " GPU streams; wall time " + text({"wall_time_s"}) + " s";
        const JsonValue* pe = summary->find({"pop", "parallel_efficiency"});
        if (pe && pe->is_number()) {
            const double value = pe->number();
            line += "; parallel efficiency " + pe->display() + " (" +
                    (value >= 0.8 ? "good" : value >= 0.6 ? "fair" : "poor") + ")";
        }
    }
    const JsonValue* findings = advice ? advice->find("findings") : nullptr;
    if (findings && findings->is_array()) {
        const std::size_t n = findings->items.size();
        line += std::string(line.empty() ? "" : "; ") + (n == 0 ? "no findings" : std::to_string(n) + (n == 1 ? " finding" : " findings"));
    }
    if (!line.empty()) html.element("p", line + ".", {{"class", "glance"}});
}

void write_header(HtmlWriter& html, const std::vector<ParsedReport>& reports, const JsonValue* calltree,
                  const std::string& experiment) {
    html.open("header");
    html.element("h1", experiment.empty() ? "Strata analysis" : "Strata analysis of " + experiment);
    write_glance(html, find_report(reports, "summary.json"), find_report(reports, "advice.json"));
    html.element("p",
                 "Start with the advice; every figure comes from the CSV and JSON reports next to this file.",
                 {{"class", "note"}});
    html.open("nav", {{"aria-label", "Sections"}});
    html.open("ul");
    auto link = [&](const char* id, const char* title) {
        html.open("li");
        html.element("a", title, {{"href", std::string("#") + id}});
        html.close("li");
    };
    link("advice", "Advice");
    link("overview", "Overview");
    if (find_report(reports, "summary.json")) link("summary", "Summary");
    if (find_report(reports, "loadbalance.json") || find_report(reports, "loadbalance_ranks.json"))
        link("load-balance", "Load balance");
    if (calltree) {
        link("calltree", "Call tree");
        link("heatmap", "Heatmap");
    }
    if (find_report(reports, "timeline.json")) link("timeline", "Timeline");
    if (find_report(reports, "waitstates.json")) link("wait-states", "Wait states");
    if (find_report(reports, "iterations.json")) link("iterations", "Iterations");
    link("gpu", "GPU");  // also without a GPU: the section says why it is empty
    if (find_report(reports, "ops.json")) link("ops", "Ops (DLProf)");
    if (find_report(reports, "step_trace.json")) link("step-trace", "Step trace");
    if (find_report(reports, "gpu_metrics.json")) link("gpu-metrics", "GPU metrics");
    link("reports", "All reports");
    html.close("ul");
    html.close("nav");
    html.close("header");
    html.newline();
}

}  // namespace

std::string html_report(const std::vector<ReportFile>& files) {
    std::vector<ParsedReport> reports;
    std::vector<std::string> unreadable;
    const std::string* summary_text = nullptr;
    const std::string* gpu_samples = nullptr;  // the one CSV the page reads: no JSON report has the samples
    // calltree.json has its own sections (and is embedded whole for their script), not a table.
    const std::string* calltree_text = nullptr;
    const std::string* timeline_text = nullptr;  // embedded whole for the timeline's script
    std::optional<JsonValue> calltree;
    for (const auto& [name, content] : files) {
        if (name == "summary.txt") summary_text = &content;
        if (name == "gpu_metrics.csv") gpu_samples = &content;
        if (name == "timeline.json") timeline_text = &content;
        if (name == "calltree.json") {
            try {
                calltree = parse_json(content);  // bounded by its caps (calltree_report.hpp)
                calltree_text = &content;
            } catch (const JsonError& error) {
                unreadable.push_back(name + ": " + error.what());
            }
            continue;
        }
        if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0 || name == "trace.json") continue;
        try {
            // The page shows the first rows of the load balance (sorted by the time balance would
            // save): a profile of a deep recursion has 10^5 of them.
            reports.push_back({name, parse_json(content, name == "loadbalance.json" ? 1000 : SIZE_MAX)});
        } catch (const JsonError& error) {
            unreadable.push_back(name + ": " + error.what());
        }
    }
    const JsonValue* summary = find_report(reports, "summary.json");
    std::string experiment;
    if (summary && summary->find("experiment")) experiment = summary->find("experiment")->display();

    HtmlWriter html;
    html.raw("<!DOCTYPE html>\n");
    html.open("html", {{"lang", "en"}});
    html.open("head");
    html.empty("meta", {{"charset", "utf-8"}});
    html.empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
    html.element("title", experiment.empty() ? "Strata analysis" : "Strata analysis: " + experiment);
    html.open("style");
    html.raw(style);
    html.close("style");
    html.close("head");
    html.newline();
    html.open("body");
    const JsonValue* tree = calltree ? &*calltree : nullptr;
    write_header(html, reports, tree, experiment);
    html.open("main");
    write_advice(html, find_report(reports, "advice.json"));
    write_overview(html, summary, tree);
    write_summary(html, summary);
    write_load_balance(html, find_report(reports, "loadbalance.json"),
                       find_report(reports, "loadbalance_ranks.json"));
    write_calltree(html, tree, calltree_text);
    write_heatmap(html, tree);
    write_timeline(html, find_report(reports, "timeline.json"), timeline_text, find_report(reports, "iterations.json"),
                   experiment);
    write_wait_states(html, find_report(reports, "waitstates.json"));
    write_iterations(html, find_report(reports, "iterations.json"), experiment);
    write_gpu(html, find_report(reports, "gpu.json"), find_report(reports, "gpu_kernels.json"),
              find_report(reports, "op_kernels.json"), summary, find_report(reports, "ops.json") != nullptr);
    write_ops(html, find_report(reports, "ops.json"));
    write_step_trace(html, find_report(reports, "step_trace.json"));
    write_gpu_metrics(html, find_report(reports, "gpu_metrics.json"), gpu_samples);
    write_all_reports(html, reports);
    if (!unreadable.empty()) {
        html.open("section", {{"aria-labelledby", "unreadable"}});
        html.element("h2", "Reports not shown", {{"id", "unreadable"}});
        html.open("ul");
        for (const std::string& problem : unreadable) html.element("li", problem);
        html.close("ul");
        html.close("section");
    }
    if (summary_text) {
        html.open("section", {{"aria-labelledby", "summary-text"}});
        html.element("h2", "The text summary (summary.txt)", {{"id", "summary-text"}});
        html.open("details");
        html.element("summary", "Show summary.txt");
        html.element("pre", *summary_text);
        html.close("details");
        html.close("section");
    }
    html.close("main");
    html.newline();
    html.open("script");
    html.raw(script);
    html.close("script");
    html.close("body");
    html.close("html");
    html.newline();
    return html.finish();
}

}  // namespace strata::analysis::report
