// SPDX-License-Identifier: BSD-3-Clause
// The "GPU metrics over time" section of report.html (see html_gpu_metrics.hpp).
// Chart geometry is fixed sizes and fixed formats, so the same reports
// always give the same bytes.
#include "report/html_gpu_metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "report/html_sections.hpp"
#include "score/trace_estimate.hpp"

namespace strata::analysis::report {

namespace {

constexpr std::size_t max_charts = 16;
constexpr int left = 150, plot_width = 720, right = 70, strip_height = 44, strip_gap = 14, axis_height = 24;
constexpr std::size_t bins = plot_width;  // a point per pixel column at most

/// The metrics drawn, in strip order: column of gpu_metrics.csv, label, CSS class.
struct Drawn {
    const char* column;
    const char* label;
    const char* css;
};
constexpr std::array<Drawn, 3> drawn = {{{"utilization_pct", "utilisation", "m-util"},
                                         {"memory_used_bytes", "memory used", "m-memory"},
                                         {"power_w", "power", "m-power"}}};
enum Strip : std::size_t { utilisation_strip, memory_strip, power_strip };

/// One GPU's samples from gpu_metrics.csv, in time order; NaN: the value is absent.
struct Series {
    std::string rank, device;
    std::vector<double> time;
    std::array<std::vector<double>, drawn.size()> values;
    bool any(std::size_t strip) const {
        return std::any_of(values[strip].begin(), values[strip].end(),
                           [](double v) { return !std::isnan(v); });
    }
};

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
        if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

double number(const std::string& text) {
    if (text.empty()) return NAN;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    return end != nullptr && *end == '\0' ? value : NAN;
}

/// The samples per GPU (the file is sorted by rank, device and time); none when its header is not known.
std::vector<Series> read_samples(const std::string& csv) {
    std::vector<Series> out;
    std::size_t from = 0, to = csv.find('\n');
    if (to == std::string::npos) return out;
    const std::vector<std::string> header = fields(csv.substr(0, to));
    const auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? SIZE_MAX : static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t rank = column("rank"), device = column("device"), time = column("time_s");
    std::array<std::size_t, drawn.size()> value_columns{};
    for (std::size_t s = 0; s < drawn.size(); ++s) value_columns[s] = column(drawn[s].column);
    if (rank == SIZE_MAX || device == SIZE_MAX || time == SIZE_MAX) return out;
    for (from = to + 1; from < csv.size(); from = to + 1) {
        to = csv.find('\n', from);
        if (to == std::string::npos) to = csv.size();
        const std::vector<std::string> row = fields(csv.substr(from, to - from));
        if (row.size() != header.size() || std::isnan(number(row[time]))) continue;
        if (out.empty() || out.back().rank != row[rank] || out.back().device != row[device])
            out.push_back(Series{row[rank], row[device], {}, {}});
        Series& s = out.back();
        s.time.push_back(number(row[time]));
        for (std::size_t v = 0; v < drawn.size(); ++v)
            s.values[v].push_back(value_columns[v] == SIZE_MAX ? NAN : number(row[value_columns[v]]));
    }
    return out;
}

std::string fixed(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    return buffer;
}

/// "250 W", "1.23 kJ", "12.5 J": three significant figures, as human_seconds() writes times.
std::string human_quantity(double value, const char* unit) {
    if (!std::isfinite(value)) return "";
    if (value == 0.0) return std::string("0 ") + unit;
    const double magnitude = std::fabs(value);
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const double scale = std::pow(10.0, 2 - exponent);
    const double rounded = std::round(magnitude * scale) / scale;
    static const std::pair<double, const char*> prefixes[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}};
    const std::pair<double, const char*>* prefix = &prefixes[3];
    for (const auto& p : prefixes) {
        if (rounded >= p.first * (1 - 1e-12)) {
            prefix = &p;
            break;
        }
    }
    const double shown = rounded / prefix->first;
    char buffer[48];
    const int decimals = shown >= 100 ? 0 : shown >= 10 ? 1 : 2;
    std::snprintf(buffer, sizeof buffer, "%s%.*f %s%s", value < 0 ? "-" : "", decimals, shown, prefix->second,
                  unit);
    return buffer;
}

/// The time axis shared by all charts (seconds from T0).
struct Axis {
    double begin = 0, end = 1;
    double x(double t) const { return left + (t - begin) / (end - begin) * plot_width; }
};

/// One strip: its frame, its labels, and the series as a line through the
/// mean of each bin's samples (a dot when only one bin has any).
std::string strip(const Series& s, std::size_t metric, double scale, const std::string& scale_text,
                  const Axis& axis, int top, const std::string& tooltip) {
    std::array<double, bins> sum_t{}, sum_v{};
    std::array<std::uint32_t, bins> count{};
    for (std::size_t i = 0; i < s.time.size(); ++i) {
        const double v = s.values[metric][i];
        if (std::isnan(v)) continue;
        const double at = (s.time[i] - axis.begin) / (axis.end - axis.begin) * static_cast<double>(bins);
        const auto bin = static_cast<std::size_t>(std::clamp(at, 0.0, static_cast<double>(bins - 1)));
        sum_t[bin] += s.time[i];
        sum_v[bin] += v;
        ++count[bin];
    }
    std::string points;
    std::size_t used = 0;
    for (std::size_t b = 0; b < bins; ++b) {
        if (count[b] == 0) continue;
        const double v = sum_v[b] / count[b];
        const double y =
            top + strip_height - std::clamp(scale > 0 ? v / scale : 0.0, 0.0, 1.0) * strip_height;
        points += (used++ > 0 ? " " : "") + fixed(axis.x(sum_t[b] / count[b])) + "," + fixed(y);
    }
    std::string svg = "<g><title>" + escape(tooltip) + "</title>";
    svg += "<rect class=\"plot\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top) +
           "\" width=\"" + std::to_string(plot_width) + "\" height=\"" + std::to_string(strip_height) +
           "\"/>";
    svg += "<text x=\"" + std::to_string(left - 8) + "\" y=\"" + std::to_string(top + 17) +
           "\" text-anchor=\"end\">" + escape(drawn[metric].label) + "</text>";
    svg += "<text class=\"scale\" x=\"" + std::to_string(left - 8) + "\" y=\"" + std::to_string(top + 34) +
           "\" text-anchor=\"end\">" + escape(scale_text) + "</text>";
    if (used == 1) {
        const std::size_t comma = points.find(',');
        svg += "<circle class=\"" + std::string(drawn[metric].css) + "\" cx=\"" + points.substr(0, comma) +
               "\" cy=\"" + points.substr(comma + 1) + "\" r=\"2.5\"/>";
    } else if (used > 1) {
        svg += "<polyline class=\"" + std::string(drawn[metric].css) + "\" points=\"" + points + "\"/>";
    }
    return svg + "</g>\n";
}

/// The member `key` of a GPU's summary as text with `unit`; "" when absent.
std::string quantity(const JsonValue* gpu, const char* key, const char* unit) {
    const JsonValue* value = gpu ? gpu->find(key) : nullptr;
    return value && value->is_number() ? human_quantity(value->number(NAN), unit) : "";
}

std::string share(const JsonValue* gpu, const char* key) {
    const JsonValue* value = gpu ? gpu->find(key) : nullptr;
    return value && value->is_number() ? percent(value->number(NAN) / 100.0) : "";
}

/// The GPU's figures from gpu_metrics.json in one line.
std::string summary_line(const JsonValue* g) {
    if (!g) return "";
    const auto text = [&](const char* key) {
        const JsonValue* value = g->find(key);
        return value && !value->is_null() ? value->display() : std::string();
    };
    std::string line = text("samples") + (text("samples") == "1" ? " sample" : " samples") + " from " +
                       human_seconds(g->find("first_s") ? g->find("first_s")->number(NAN) : NAN) + " to " +
                       human_seconds(g->find("last_s") ? g->find("last_s")->number(NAN) : NAN);
    if (!share(g, "utilization_mean_pct").empty())
        line += "; utilisation mean " + share(g, "utilization_mean_pct") + ", max " +
                share(g, "utilization_max_pct");
    if (!share(g, "memory_utilization_mean_pct").empty())
        line += "; memory utilisation mean " + share(g, "memory_utilization_mean_pct");
    const JsonValue* memory = g->find("memory_used_max_bytes");
    if (memory && memory->is_number()) line += "; memory used peak " + format_bytes(memory->number(NAN));
    line += quantity(g, "power_mean_w", "W").empty() ? "; power not reported"
                                                     : "; power mean " + quantity(g, "power_mean_w", "W");
    if (!quantity(g, "energy_j", "J").empty()) line += ", energy " + quantity(g, "energy_j", "J");
    if (!text("sm_clock_min_mhz").empty())
        line += "; SM clock " + text("sm_clock_min_mhz") + " to " + text("sm_clock_max_mhz") + " MHz";
    return line + ".";
}

}  // namespace

void write_gpu_metrics(HtmlWriter& html, const JsonValue* metrics, const std::string* samples_csv) {
    if (!metrics) return;
    html.newline();
    html.open("section", {{"aria-labelledby", "gpu-metrics"}});
    html.element("h2", "GPU metrics over time", {{"id", "gpu-metrics"}});
    const JsonValue* restricted = metrics->find("restricted_to_iterations");
    html.element(
        "p",
        "NVML's samples of each GPU (STRATA_CUDA_SAMPLING_INTERVAL): utilisation is the share of each sample "
        "period in which a kernel ran on the board, any process's (the union of this program's kernels is in "
        "gpu.csv); memory used counts every process's memory; power is the board's draw. All charts share "
        "the time axis (from the start of the trace) and each metric's scale; a point is the mean of the "
        "samples in its 1/720 of the axis. The figures per GPU are in gpu_metrics.json, every sample in "
        "gpu_metrics.csv." +
            (restricted && restricted->find("start") && restricted->find("stop")
                 ? " Only the samples in iterations " + restricted->find("start")->display() + " to " +
                       restricted->find("stop")->display() + " (--iter-start/--iter-stop)."
                 : std::string()),
        {{"class", "note"}});
    const std::vector<Series> series = samples_csv ? read_samples(*samples_csv) : std::vector<Series>{};
    if (series.empty()) {
        html.element("p", "No samples.");
        html.close("section");
        return;
    }
    Axis axis{0, 0};
    double memory = 0, power = 0;
    for (const Series& s : series) {
        for (double t : s.time) {
            axis.begin = std::min(axis.begin, t);
            axis.end = std::max(axis.end, t);
        }
        for (double v : s.values[memory_strip])
            if (!std::isnan(v)) memory = std::max(memory, v);
        for (double v : s.values[power_strip])
            if (!std::isnan(v)) power = std::max(power, v);
    }
    if (!(axis.end > axis.begin)) axis.end = axis.begin + 1e-3;  // one sample: any width will do
    std::vector<const JsonValue*> gpus;
    if (const JsonValue* list = metrics->find("gpus"); list && list->is_array())
        for (const JsonValue& g : list->items) gpus.push_back(&g);
    const std::string scales[] = {"0 to 100%", "0 to " + format_bytes(memory),
                                  "0 to " + human_quantity(power, "W")};
    for (std::size_t i = 0; i < series.size() && i < max_charts; ++i) {
        const Series& s = series[i];
        const std::string name = "GPU " + s.device + " of rank " + s.rank;
        const JsonValue* summary = nullptr;
        for (const JsonValue* g : gpus)
            if (g->find("rank") && g->find("rank")->display() == s.rank && g->find("device") &&
                g->find("device")->display() == s.device)
                summary = g;
        std::vector<std::size_t> strips = {utilisation_strip, memory_strip};
        if (s.any(power_strip)) strips.push_back(power_strip);
        const int height = static_cast<int>(strips.size()) * (strip_height + strip_gap) + axis_height;
        const int width = left + plot_width + right;
        std::string svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 " + std::to_string(width) + " " +
                          std::to_string(height) + "\" width=\"" + std::to_string(width) + "\" height=\"" +
                          std::to_string(height) + "\"><title>" +
                          escape(name +
                                 (s.any(power_strip) ? ": utilisation, memory used and power"
                                                     : ": utilisation and memory used") +
                                 " over time") +
                          "</title>\n";
        int top = 4;
        for (std::size_t strip_index : strips) {
            const double scale = strip_index == utilisation_strip ? 100.0
                                 : strip_index == memory_strip    ? memory
                                                                  : power;
            svg += strip(s, strip_index, scale, scales[strip_index], axis, top,
                         name + ", " + drawn[strip_index].label + " (" + scales[strip_index] + ")");
            top += strip_height + strip_gap;
        }
        // Five ticks: the axis's ends and quarters.
        for (int q = 0; q <= 4; ++q) {
            const double t = axis.begin + (axis.end - axis.begin) * q / 4.0;
            const char* anchor = q == 0 ? "start" : q == 4 ? "end" : "middle";
            svg += "<text class=\"scale\" x=\"" + fixed(axis.x(t)) + "\" y=\"" + std::to_string(top + 6) +
                   "\" text-anchor=\"" + anchor + "\">" + escape(human_seconds(t)) + "</text>";
        }
        html.element("h3", name);
        html.raw(svg + "\n</svg>");
        if (summary) html.element("p", summary_line(summary), {{"class", "note"}});
    }
    if (series.size() > max_charts) {
        html.element("p",
                     "The first " + std::to_string(max_charts) + " of " + std::to_string(series.size()) +
                         " GPUs (by rank and device) are drawn; the other " +
                         std::to_string(series.size() - max_charts) +
                         " are left out here. gpu_metrics.csv has the samples of all of them, "
                         "gpu_metrics.json their figures.",
                     {{"class", "note"}});
    }
    html.close("section");
}

}  // namespace strata::analysis::report
