// SPDX-License-Identifier: BSD-3-Clause
// The "GPU" section of report.html (see html_gpu.hpp).  Chart geometry is
// fixed sizes and fixed formats, so the same reports always give the same bytes.
#include "report/html_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "analyze/report_format.hpp"
#include "report/html_sections.hpp"
#include "report/json_fields.hpp"

namespace strata::analysis::report {

namespace {

constexpr std::size_t max_drawn = 16, max_rows = 64, max_kernels = 20, max_op_kernels = 15;
constexpr int left = 150, plot_width = 720, right = 70, strip_height = 36, strip_gap = 8, axis_height = 20;
constexpr std::size_t name_limit = 80;  // characters of a kernel or call path name in a cell

using namespace fields;

std::string fixed(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    return buffer;
}

/// A demangled C++ name for a cell: template arguments and parameters elided (display_name),
/// then cut to `name_limit` characters; the cell's tooltip has it whole.
std::string short_name(const std::string& name) {
    std::string shown = display_name(name);
    std::size_t characters = 0, cut = 0;
    for (; cut < shown.size(); ++cut) {
        if ((static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) continue;  // inside a UTF-8 character
        if (characters++ == name_limit) break;
    }
    return cut < shown.size() ? shown.substr(0, cut) + "\u2026" : shown;
}

std::string gpu_label(const JsonValue* row) {
    return "GPU " + text(row, "device") + " of rank " + text(row, "rank");
}

/// One sentence: why there is no GPU data, and how to record a GPU.
std::string empty_reason(const JsonValue* gpu, const JsonValue* summary) {
    const std::string how =
        " To record one, build with `strata nvcc` or run under `strata-preload` (`strata-preload --cuda` for "
        "Python), with STRATA_ENABLE_TRACING=1 and STRATA_CUDA_ENABLE not set to none.";
    if (gpu) {
        const JsonValue* restricted = gpu->find("restricted_to_iterations");
        return restricted && restricted->is_object()
                   ? "The trace has GPU streams, but no kernel or copy in iterations " +
                         text(restricted, "start") + " to " + text(restricted, "stop") + "."
                   : "The trace has GPU streams, but no kernel or copy on them.";
    }
    const JsonValue* present = summary ? summary->find({"trace", "present"}) : nullptr;
    const bool no_trace = present && present->kind == JsonValue::Kind::boolean && !present->boolean;
    const double profile_streams = number(summary, "gpu_streams");
    if (no_trace && profile_streams > 0)
        return "The profile has " + text(summary, "gpu_streams") +
               (profile_streams == 1 ? " GPU stream" : " GPU streams") +
               ", but the GPU times come from the trace, and this experiment has none: run again with "
               "STRATA_ENABLE_TRACING=1.";
    if (no_trace)
        return "No GPU recorded: GPU times come from the trace's GPU streams, and this experiment has no "
               "trace." +
               how;
    return "No GPU recorded: this experiment has no GPU streams." + how;
}

void open_table(HtmlWriter& html, const std::string& caption,
                const std::vector<std::pair<const char*, bool>>& columns) {
    html.open("div", {{"class", "scroll"}});
    html.open("table", {{"class", "sortable"}});
    html.element("caption", caption);
    html.open("thead");
    html.open("tr");
    for (const auto& [label, numeric] : columns)
        html.element("th", label,
                     numeric ? Attributes{{"scope", "col"}, {"class", "num"}} : Attributes{{"scope", "col"}});
    html.close("tr");
    html.close("thead");
    html.open("tbody");
}

void close_table(HtmlWriter& html) {
    html.close("tbody");
    html.close("table");
    html.close("div");
}

/// A cell with a shortened name, the whole name in its tooltip.
void name_cell(HtmlWriter& html, const std::string& name) {
    html.element("td", short_name(name), {{"title", name}});
}

/// Busy and idle bars (devices, then streams) and the table with copies per direction.
void write_busy_idle(HtmlWriter& html, const std::vector<const JsonValue*>& devices,
                     const std::vector<const JsonValue*>& streams) {
    html.element("h3", "Busy and idle per GPU and stream");
    const auto bars = [](const std::vector<const JsonValue*>& rows, bool stream) {
        std::vector<StackedRow> out;
        std::vector<std::string> texts;
        for (std::size_t i = 0; i < rows.size() && i < max_drawn; ++i) {
            const JsonValue* r = rows[i];
            const std::string label =
                stream ? "rank " + text(r, "rank") + " " + text(r, "stream") : gpu_label(r);
            out.push_back({label,
                           {{"busy", number(r, "busy_s"), "g-busy"}, {"idle", number(r, "idle_s"), "g-idle"}},
                           share(r, "utilisation") + " busy (" + seconds(r, "busy_s") + " of " +
                               seconds(r, "span_s") + ")"});
            texts.push_back(seconds(r, "busy_s"));
            texts.push_back(seconds(r, "idle_s"));
        }
        return std::make_pair(out, texts);
    };
    const auto [device_rows, device_texts] = bars(devices, false);
    html.raw(svg_stacked_rows("Busy and idle time per GPU over its span", device_rows, device_texts));
    if (!streams.empty()) {
        const auto [stream_rows, stream_texts] = bars(streams, true);
        html.raw(svg_stacked_rows("Busy and idle time per stream over its span", stream_rows, stream_texts));
    }
    if (devices.size() > max_drawn || streams.size() > max_drawn)
        html.element("p",
                     "The first " + std::to_string(max_drawn) +
                         " GPUs and streams (by rank, device and stream) "
                         "are drawn, of " +
                         std::to_string(devices.size()) + " GPUs and " + std::to_string(streams.size()) +
                         " streams; gpu.csv has all of them.",
                     {{"class", "note"}});
    const std::vector<std::pair<const char*, bool>> columns = {
        {"GPU / stream", false}, {"kernels", true}, {"busy", true}, {"idle", true},
        {"utilisation", true},   {"HtoD", true},    {"DtoH", true}, {"DtoD", true},
        {"PtoP", true},          {"memset", true},  {"NCCL", true}, {"launch latency (mean)", true}};
    const std::size_t total = devices.size() + streams.size();
    open_table(html,
               total > max_rows ? "The first " + std::to_string(max_rows) + " of " + std::to_string(total) +
                                      " GPUs and streams; all in gpu.csv"
                                : "GPUs, then streams (copies per direction; NCCL: union of its kernels)",
               columns);
    std::vector<const JsonValue*> rows = devices;
    rows.insert(rows.end(), streams.begin(), streams.end());
    for (std::size_t i = 0; i < rows.size() && i < max_rows; ++i) {
        const JsonValue* r = rows[i];
        html.open("tr");
        const bool stream = text(r, "scope") == "stream";
        html.element("td", stream ? "rank " + text(r, "rank") + " " + text(r, "stream") + " (GPU " +
                                        text(r, "device") + ")"
                                  : gpu_label(r));
        const std::vector<std::string> cells = {text(r, "kernels"),
                                                seconds(r, "busy_s"),
                                                seconds(r, "idle_s"),
                                                share(r, "utilisation"),
                                                seconds(r, "copy_htod_s"),
                                                seconds(r, "copy_dtoh_s"),
                                                seconds(r, "copy_dtod_s"),
                                                seconds(r, "copy_ptop_s"),
                                                seconds(r, "memset_s"),
                                                seconds(r, "comm_s"),
                                                seconds(r, "launch_latency_mean_s")};
        for (const std::string& c : cells) html.element("td", c, {{"class", "num"}});
        html.close("tr");
        html.newline();
    }
    close_table(html);
}

/// One strip per GPU of its busy share per bin, all on gpu.json's activity axis.
void write_activity(HtmlWriter& html, const JsonValue* activity) {
    html.element("h3", "GPU % activity over time");
    const std::vector<const JsonValue*> gpus = objects(activity ? activity->find("gpus") : nullptr);
    const double begin = number(activity, "begin_s"), end = number(activity, "end_s");
    if (gpus.empty() || !(end > begin)) {
        html.element("p", "No activity series: the trace has no CPU timestamps to make a time axis of.",
                     {{"class", "none"}});
        return;
    }
    html.element("p",
                 "Per GPU, the share of each time bin (" + seconds(activity, "bin_s") + ", " +
                     text(activity, "bins") +
                     " bins) in which a kernel of this program ran (the union of its kernels), on one time "
                     "axis for all GPUs, as the Clara GPU profiler draws \u201cGPU % activity\u201d; each "
                     "strip goes from 0 to 100%. The series are in gpu.json (activity).",
                 {{"class", "note"}});
    const std::size_t drawn = std::min(gpus.size(), max_drawn);
    const int width = left + plot_width + right;
    const int height = static_cast<int>(drawn) * (strip_height + strip_gap) + axis_height;
    std::string svg = "<svg class=\"chart gpu-activity\" role=\"img\" viewBox=\"0 0 " +
                      std::to_string(width) + " " + std::to_string(height) + "\" width=\"" +
                      std::to_string(width) + "\" height=\"" + std::to_string(height) +
                      "\"><title>GPU % activity over time, per GPU</title>\n";
    for (std::size_t i = 0; i < drawn; ++i) {
        const JsonValue* g = gpus[i];
        const int top = static_cast<int>(i) * (strip_height + strip_gap) + 4, base = top + strip_height;
        const JsonValue* shares = g->find("busy_share");
        const std::size_t bins = shares && shares->is_array() ? shares->items.size() : 0;
        // A step line closed to the base: each bin is flat over its width, so a point is needed
        // only where the level changes (a 200-bin series stays a short path).
        std::string path = "M" + std::to_string(left) + "," + std::to_string(base);
        std::string level = fixed(base);
        double peak = 0;
        for (std::size_t b = 0; b < bins; ++b) {
            const double s = std::clamp(shares->items[b].number(0.0), 0.0, 1.0);
            peak = std::max(peak, s);
            const std::string y = fixed(base - s * strip_height);
            if (y == level) continue;
            const std::string x = fixed(left + static_cast<double>(plot_width) * b / bins);
            path += " L" + x + "," + level + " L" + x + "," + y;
            level = y;
        }
        path += " L" + std::to_string(left + plot_width) + "," + level + " L" +
                std::to_string(left + plot_width) + "," + std::to_string(base) + " Z";
        const std::string name = gpu_label(g);
        const std::string mean = percent(number(g, "busy_s") / (end - begin));
        svg += "<g><title>" +
               escape(name + ": busy " + mean + " of " + human_seconds(begin) + " to " + human_seconds(end) +
                      " (" + seconds(g, "busy_s") + "), peak " + percent(peak) + " in a bin") +
               "</title>";
        svg += "<rect class=\"plot\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top) +
               "\" width=\"" + std::to_string(plot_width) + "\" height=\"" + std::to_string(strip_height) +
               "\"/>";
        svg += "<path class=\"g-activity\" d=\"" + path + "\"/>";
        svg += "<text x=\"" + std::to_string(left - 8) + "\" y=\"" + std::to_string(top + 22) +
               "\" text-anchor=\"end\">" + escape(name) + "</text>";
        svg += "<text class=\"scale\" x=\"" + std::to_string(left + plot_width + 6) + "\" y=\"" +
               std::to_string(top + 22) + "\">" + escape(mean) + "</text></g>\n";
    }
    const int axis_top = static_cast<int>(drawn) * (strip_height + strip_gap) + 4;
    for (int q = 0; q <= 4; ++q) {
        const double t = begin + (end - begin) * q / 4.0;
        const char* anchor = q == 0 ? "start" : q == 4 ? "end" : "middle";
        svg += "<text class=\"scale\" x=\"" + fixed(left + plot_width * q / 4.0) + "\" y=\"" +
               std::to_string(axis_top + 10) + "\" text-anchor=\"" + anchor + "\">" +
               escape(human_seconds(t)) + "</text>";
    }
    html.raw(svg + "\n</svg>");
    if (gpus.size() > max_drawn)
        html.element("p",
                     "The first " + std::to_string(max_drawn) + " of " + std::to_string(gpus.size()) +
                         " GPUs (by rank and device) are drawn; the other " +
                         std::to_string(gpus.size() - max_drawn) +
                         " are left out here. gpu.json has the series of all of them.",
                     {{"class", "note"}});
}

void write_top_kernels(HtmlWriter& html, const JsonValue* kernels) {
    const std::vector<const JsonValue*> rows = objects(kernels ? kernels->find("rows") : nullptr);
    html.element("h3", "Top kernels");
    if (rows.empty()) {
        html.element("p", "No kernel ran (gpu_kernels.json has no rows).", {{"class", "none"}});
        return;
    }
    const std::size_t total = kernels->find("rows")->total_items;
    open_table(html,
               total > max_kernels
                   ? "The " + std::to_string(max_kernels) + " of " + std::to_string(total) +
                         " kernels (per name and launching call path) with most time, over all "
                         "ranks; all in gpu_kernels.csv"
                   : "Kernels per name and launching call path, by total time over all ranks",
               {{"kernel", false},
                {"count", true},
                {"total", true},
                {"mean", true},
                {"Tensor Cores", false},
                {"NCCL", false},
                {"launch latency (mean)", true},
                {"launched from", false}});
    for (std::size_t i = 0; i < rows.size() && i < max_kernels; ++i) {
        const JsonValue* k = rows[i];
        const bool nccl = flag(k, "communication");
        html.open("tr");
        name_cell(html, text(k, "kernel"));
        for (const std::string& c : {text(k, "count"), seconds(k, "total_s"), seconds(k, "mean_s")})
            html.element("td", c, {{"class", "num"}});
        html.element("td", nccl ? "\u2014" : flag(k, "tensor_core") ? "yes" : "no");
        html.element("td", nccl ? "NCCL" : "");
        html.element("td", seconds(k, "launch_latency_mean_s"), {{"class", "num"}});
        name_cell(html, text(k, "callpath"));
        html.close("tr");
        html.newline();
    }
    close_table(html);
}

void write_op_kernels(HtmlWriter& html, const JsonValue* op_kernels, bool ops_section) {
    std::vector<const JsonValue*> rows;  // kernels launched in no op are all in the top kernels already
    for (const JsonValue* row : objects(op_kernels ? op_kernels->find("rows") : nullptr))
        if (text(row, "op") != "(no op)") rows.push_back(row);
    if (rows.empty()) return;
    std::stable_sort(rows.begin(), rows.end(), [](const JsonValue* a, const JsonValue* b) {
        return number(a, "total_s") > number(b, "total_s");
    });
    html.element("h3", "Kernels per op (NVTX range)");
    if (ops_section) {
        html.open("p", {{"class", "note"}});
        html.text("The ops themselves, with their CPU time and Tensor Core use, are in ");
        html.element("a", "Ops (DLProf)", {{"href", "#ops"}});
        html.text(".");
        html.close("p");
    }
    open_table(html,
               rows.size() > max_op_kernels
                   ? "The " + std::to_string(max_op_kernels) + " of " + std::to_string(rows.size()) +
                         " (op, kernel) pairs with most time; all in op_kernels.csv"
                   : "Kernels per op, by total time over all ranks",
               {{"op", false}, {"kernel", false}, {"count", true}, {"total", true}, {"Tensor Cores", false}});
    for (std::size_t i = 0; i < rows.size() && i < max_op_kernels; ++i) {
        const JsonValue* k = rows[i];
        html.open("tr");
        name_cell(html, text(k, "op"));
        name_cell(html, text(k, "kernel"));
        html.element("td", text(k, "count"), {{"class", "num"}});
        html.element("td", seconds(k, "total_s"), {{"class", "num"}});
        html.element("td", flag(k, "communication") ? "\u2014" : flag(k, "tensor_core") ? "yes" : "no");
        html.close("tr");
        html.newline();
    }
    close_table(html);
}

}  // namespace

void write_gpu(HtmlWriter& html, const JsonValue* gpu, const JsonValue* kernels, const JsonValue* op_kernels,
               const JsonValue* summary, bool ops_section) {
    html.newline();
    html.open("section", {{"aria-labelledby", "gpu"}});
    html.element("h2", "GPU", {{"id", "gpu"}});
    std::vector<const JsonValue*> devices, streams;
    for (const JsonValue* row : objects(gpu ? gpu->find("rows") : nullptr)) {
        if (text(row, "scope") == "device") devices.push_back(row);
        if (text(row, "scope") == "stream") streams.push_back(row);
    }
    if (devices.empty()) {
        html.element("p", empty_reason(gpu, summary), {{"class", "none"}});
        html.close("section");
        return;
    }
    const JsonValue* restricted = gpu->find("restricted_to_iterations");
    html.element(
        "p",
        "Every GPU of every rank, from the trace's GPU streams: busy is the union of a GPU's kernel "
        "intervals (overlapping kernels count once), idle the rest of its span (first operation to "
        "last), utilisation busy / span (NVML's GPU utilisation); copies are apart from the kernels." +
            (restricted && restricted->is_object()
                 ? " Only iterations " + text(restricted, "start") + " to " + text(restricted, "stop") +
                       " (--iter-start/--iter-stop)."
                 : std::string()) +
            " The figures are in gpu.csv and gpu.json, the kernels in gpu_kernels.csv.",
        {{"class", "note"}});
    write_busy_idle(html, devices, streams);
    write_activity(html, gpu->find("activity"));
    write_top_kernels(html, kernels);
    write_op_kernels(html, op_kernels, ops_section);
    html.close("section");
}

}  // namespace strata::analysis::report
