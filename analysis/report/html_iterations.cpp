// SPDX-License-Identifier: BSD-3-Clause
// The "Iterations" section of report.html (see html_iterations.hpp).
#include "report/html_iterations.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/html_sections.hpp"
#include "report/json_fields.hpp"

namespace strata::analysis::report {

namespace {

namespace f = fields;

/// More iterations than this are shown as runs of consecutive ones, a column each.
constexpr std::size_t kMaxColumns = 400;
/// The scale ends this far above the longest regular iteration, so that the
/// stable ones stay readable beside a long warm-up.
constexpr double kScaleHeadroom = 1.3;

struct Iteration {
    std::string label;
    double duration = NAN;
    double fastest = NAN, slowest = NAN;  ///< of the ranks' times
    std::string flag;                     ///< "", "warm-up", "outlier", ...
    bool stable = false;
};

std::string kind_of(const std::string& flag) {
    if (flag.empty()) return "";
    return flag.find("warm") != std::string::npos ? "warmup" : "outlier";
}

Iteration iteration_of(const JsonValue* row, const std::string& label, const char* value) {
    Iteration it;
    it.label = f::text(row, label.c_str());
    it.duration = f::number(row, value);
    it.flag = f::text(row, "flag");
    it.stable = f::flag(row, "stable");
    const JsonValue* ranks = row->find("rank_times_s");
    if (ranks && ranks->is_array()) {
        for (const JsonValue& t : ranks->items) {
            const double v = t.number(NAN);
            if (!std::isfinite(v)) continue;
            it.fastest = std::isfinite(it.fastest) ? std::min(it.fastest, v) : v;
            it.slowest = std::isfinite(it.slowest) ? std::max(it.slowest, v) : v;
        }
    }
    return it;
}

/// One column per iteration, or per run of `per` consecutive ones: the run's
/// longest duration, its ranks' extremes, marked as its most unusual member.
std::vector<IterationColumn> columns_of(const std::vector<Iteration>& iterations, const std::string& label) {
    const std::size_t per = (iterations.size() + kMaxColumns - 1) / kMaxColumns;
    std::vector<IterationColumn> columns;
    for (std::size_t first = 0; first < iterations.size(); first += per) {
        const std::size_t last = std::min(first + per, iterations.size()) - 1;
        IterationColumn c;
        c.value = 0.0;
        c.stable = true;
        std::string flags;
        for (std::size_t i = first; i <= last; ++i) {
            const Iteration& it = iterations[i];
            if (std::isfinite(it.duration)) c.value = std::max(c.value, it.duration);
            if (std::isfinite(it.fastest)) c.low = std::isfinite(c.low) ? std::min(c.low, it.fastest) : it.fastest;
            if (std::isfinite(it.slowest)) c.high = std::isfinite(c.high) ? std::max(c.high, it.slowest) : it.slowest;
            c.stable = c.stable && it.stable;
            const std::string kind = kind_of(it.flag);
            if (kind == "outlier" || (kind == "warmup" && c.kind.empty())) c.kind = kind;
            if (!it.flag.empty() && flags.find(it.flag) == std::string::npos)
                flags += (flags.empty() ? "" : ", ") + it.flag;
        }
        const Iteration& head = iterations[first];
        if (first == last) {
            c.label = label + " " + head.label;
            c.tick = head.label;
            c.text = std::isfinite(head.duration) ? human_seconds(head.duration) : "no duration";
        } else {
            c.label = label + "s " + head.label + " to " + iterations[last].label;
            c.tick = head.label;
            c.text = "up to " + human_seconds(c.value);
        }
        if (!flags.empty()) c.text += " (" + flags + ")";
        if (std::isfinite(c.low) && std::isfinite(c.high) && c.high > c.low)
            c.text += "; ranks " + human_seconds(c.low) + " to " + human_seconds(c.high);
        columns.push_back(std::move(c));
    }
    return columns;
}

}  // namespace

void write_iterations(HtmlWriter& html, const JsonValue* iterations, const std::string& experiment) {
    if (!iterations) return;
    const std::vector<const JsonValue*> rows = f::objects(iterations->find("rows"));
    if (rows.empty()) return;
    // The label is "iteration" (or the first member), the value
    // "duration_s" (or the first member in seconds).
    const std::string label = rows.front()->find("iteration") ? "iteration" : rows.front()->members.front().first;
    std::string value = rows.front()->find("duration_s") ? "duration_s" : "";
    for (const auto& member : rows.front()->members)
        if (value.empty() && unit_of(member.first) == "s" && member.second.is_number()) value = member.first;
    if (value.empty()) return;

    html.newline();
    html.open("section", {{"aria-labelledby", "iterations"}});
    html.element("h2", "Iterations", {{"id", "iterations"}});
    html.open("dl", {{"class", "facts"}});
    fact(html, "Key region", f::text(iterations, "key_region").empty()
                                 ? std::string("none found: the whole run is one iteration; the candidates, "
                                               "the most regularly recurring first, are in the iterations.json "
                                               "table below")
                                 : f::text(iterations, "key_region") + " (" + f::text(iterations, "key_source") + ")");
    fact(html, "Iterations", f::text(iterations, "iterations"));
    fact(html, "Mean, standard deviation", f::text(iterations, "mean_s").empty()
                                               ? std::string()
                                               : f::seconds(iterations, "mean_s") + ", " +
                                                     f::seconds(iterations, "stddev_s"));
    const JsonValue* stable = iterations->find("stable_range");
    const bool has_stable = stable && stable->is_object() && !f::text(stable, "start").empty();
    if (has_stable)
        fact(html, "Stable range", f::text(stable, "start") + " to " + f::text(stable, "stop") +
                                       " (--iter-start " + f::text(stable, "start") + " --iter-stop " +
                                       f::text(stable, "stop") + ")");
    html.close("dl");

    std::vector<Iteration> its;
    for (const JsonValue* row : rows) its.push_back(iteration_of(row, label, value.c_str()));
    const std::vector<IterationColumn> columns = columns_of(its, label);
    double longest = 0.0, regular = 0.0;
    std::size_t above = 0;
    for (const Iteration& it : its) {
        if (!std::isfinite(it.duration)) continue;
        longest = std::max(longest, it.duration);
        if (it.flag.empty()) regular = std::max(regular, it.duration);
    }
    const double scale = regular > 0.0 ? std::min(longest, kScaleHeadroom * regular) : longest;
    for (const Iteration& it : its) above += std::isfinite(it.duration) && it.duration > scale;
    const bool runs = columns.size() < its.size();
    const bool whiskers = columns.size() <= kIterationWhiskersUpTo &&
                          std::any_of(columns.begin(), columns.end(), [](const IterationColumn& c) {
                              return std::isfinite(c.low) && std::isfinite(c.high) && c.high > c.low;
                          });
    html.raw(svg_iteration_chart(value + " per " + label, columns, scale));
    std::string note = "Each column is " +
                       (runs ? "a run of " + std::to_string((its.size() + columns.size() - 1) / columns.size()) +
                                   " consecutive " + label + "s (their longest " + value + ")"
                             : "one " + label + " (" + value + ")") +
                       "; grey: warm-up, orange: outliers, the shaded band: the suggested stable range" +
                       (whiskers ? ", the thin line in a column: from the fastest to the slowest rank's time." : ".");
    if (above > 0)
        note += " The scale ends at " + human_seconds(scale) + ", " + std::to_string(static_cast<int>(kScaleHeadroom * 100 - 100)) +
                "% above the longest regular " + label + ": " + std::to_string(above) + " " + label +
                (above == 1 ? " goes" : "s go") + " beyond it (up to " + human_seconds(longest) +
                "), cut and marked \u25B2; each column's tooltip has its duration.";
    note += " The full table is below under iterations.json.";
    html.element("p", note, {{"class", "note"}});
    if (has_stable) {
        const std::string command = "strata-analyze --iter-start " + f::text(stable, "start") + " --iter-stop " +
                                    f::text(stable, "stop") + " " + (experiment.empty() ? "EXPERIMENT" : experiment);
        html.open("p");
        html.text("To analyse only the stable range (trace reports, iterations, GPU views): ");
        html.element("code", command, {{"id", "iteration-command"}});
        html.text(" ");
        html.element("button", "Copy", {{"type", "button"}, {"class", "copy"}, {"data-copy", "iteration-command"}});
        html.close("p");
    }
    html.close("section");
}

}  // namespace strata::analysis::report
