// SPDX-License-Identifier: BSD-3-Clause
// The sections of report.html (see html_sections.hpp).  Figures are shown
// as the JSON reports wrote them (JsonValue::display()), so the page and
// the CSV/JSON files agree digit for digit; charts scale by the parsed
// values.
#include "report/html_sections.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyze/report_format.hpp"
#include "trace/wait_states.hpp"

namespace strata::analysis::report {
namespace {

/// Members of a report shown as numbers in tables.
bool numeric(const JsonValue& value) { return value.is_number(); }

std::string text_of(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value ? value->display() : "";
}
double number_of(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value ? value->number(NAN) : NAN;
}
/// "13.0 ms" (human_seconds), or "" when the member is missing or null;
/// the files keep every digit.
std::string seconds_of(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    if (!value || value->is_null()) return "";
    if (!value->is_number()) return value->display();
    return human_seconds(value->number(NAN));
}

std::vector<const JsonValue*> items_of(const JsonValue* array) {
    std::vector<const JsonValue*> out;
    if (array && array->is_array())
        for (const JsonValue& item : array->items)
            if (item.is_object()) out.push_back(&item);
    return out;
}


void open_section(HtmlWriter& html, const char* id, const std::string& title) {
    html.newline();
    html.open("section", {{"aria-labelledby", id}});
    html.element("h2", title, {{"id", id}});
}

/// A table with fixed columns: header (label, numeric) and rows of cells.
struct Column {
    std::string label;
    bool number;
};
void simple_table(HtmlWriter& html, const std::string& caption, const std::vector<Column>& columns,
                  const std::vector<std::vector<std::string>>& rows) {
    html.open("div", {{"class", "scroll"}});
    html.open("table", {{"class", "sortable"}});
    html.element("caption", caption);
    html.open("thead");
    html.open("tr");
    for (const Column& c : columns)
        html.element("th", c.label, c.number ? Attributes{{"scope", "col"}, {"class", "num"}} : Attributes{{"scope", "col"}});
    html.close("tr");
    html.close("thead");
    html.open("tbody");
    for (const auto& row : rows) {
        html.open("tr");
        for (std::size_t i = 0; i < row.size() && i < columns.size(); ++i)
            html.element("td", row[i], columns[i].number ? Attributes{{"class", "num"}} : Attributes{});
        html.close("tr");
        html.newline();
    }
    html.close("tbody");
    html.close("table");
    html.close("div");
}

/// POP's traffic light: >= 0.8 good, >= 0.6 fair, below poor.
const char* rating(double value) {
    if (!std::isfinite(value)) return "";
    return value >= 0.8 ? "good" : value >= 0.6 ? "fair" : "poor";
}

std::string kind_title(const std::string& kind) {
    static const std::vector<std::pair<std::string, std::string>> titles = {
        {"load_imbalance", "Load imbalance"},
        {"wait_imbalance", "Imbalanced waiting"},
        {"mpi_share", "Large MPI share"},
        {"trace_buffer_flush", "Trace buffer flushes during the run"},
        {"dropped_callpaths", "Profile incomplete (dropped call paths)"}};
    for (const auto& [name, title] : titles)
        if (name == kind) return title;
    for (std::size_t m = 0; m < analysis::trace::wait_metric_count; ++m) {
        const analysis::trace::WaitMetricInfo& w = analysis::trace::info(static_cast<analysis::trace::WaitMetric>(m));
        if (kind == w.name) return w.title;
    }
    return kind;
}

}  // namespace

void fact(HtmlWriter& html, const std::string& term, const std::string& value) {
    if (value.empty()) return;
    html.element("dt", term);
    html.element("dd", value);
}

const JsonValue* find_report(const std::vector<ParsedReport>& reports, const std::string& name) {
    for (const ParsedReport& report : reports)
        if (report.name == name) return &report.value;
    return nullptr;
}

std::string unit_of(const std::string& column) {
    static const std::vector<std::pair<std::string, std::string>> suffixes = {
        {"_s", "s"},       {"_ms", "ms"}, {"_us", "\u00B5s"}, {"_ns", "ns"}, {"_bytes", "B"},
        {"_percent", "%"}, {"_pct", "%"}, {"_w", "W"},         {"_j", "J"},   {"_mhz", "MHz"}};
    for (const auto& [suffix, unit] : suffixes)
        if (column.size() > suffix.size() &&
            column.compare(column.size() - suffix.size(), suffix.size(), suffix) == 0)
            return unit;
    return "";
}

/// A table of the first `limit` of `rows`; `total` rows are in `full_file`
/// (more than `rows` holds when the report was read with a cap).
void write_table(HtmlWriter& html, const std::string& caption, const std::vector<const JsonValue*>& rows,
                 std::size_t total, std::size_t limit, const std::string& full_file) {
    std::vector<std::string> columns;
    std::vector<bool> numbers;
    for (const JsonValue* row : rows) {
        for (const auto& [key, value] : row->members) {
            const auto at = std::find(columns.begin(), columns.end(), key);
            if (at == columns.end()) {
                columns.push_back(key);
                numbers.push_back(numeric(value) || value.is_null());
            } else if (!numeric(value) && !value.is_null()) {
                numbers[static_cast<std::size_t>(at - columns.begin())] = false;
            }
        }
    }
    html.open("div", {{"class", "scroll"}});
    html.open("table", {{"class", "sortable"}});
    html.element("caption", caption);
    html.open("thead");
    html.open("tr");
    for (std::size_t c = 0; c < columns.size(); ++c) {
        // Times carry their unit in each cell (human_seconds); other units go into the header.
        const std::string unit = unit_of(columns[c]);
        const std::string label = unit.empty() || unit == "s" ? columns[c] : columns[c] + " (" + unit + ")";
        html.element("th", label, numbers[c] ? Attributes{{"scope", "col"}, {"class", "num"}} : Attributes{{"scope", "col"}});
    }
    html.close("tr");
    html.close("thead");
    html.open("tbody");
    for (std::size_t r = 0; r < rows.size() && r < limit; ++r) {
        html.open("tr");
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const JsonValue* value = rows[r]->find(columns[c]);
            if (value && value->is_number() && unit_of(columns[c]) == "s") {
                // For people "68.5 ms"; every digit in the tooltip, as in the file.
                html.element("td", human_seconds(value->number(NAN)),
                             {{"class", "num"}, {"title", value->display() + " s"}});
                continue;
            }
            html.element("td", value ? value->display() : "", numbers[c] ? Attributes{{"class", "num"}} : Attributes{});
        }
        html.close("tr");
        html.newline();
    }
    html.close("tbody");
    html.close("table");
    html.close("div");
    const std::size_t shown = std::min(rows.size(), limit);
    if (total > shown)
        html.element("p",
                     "The first " + std::to_string(shown) + " of " + std::to_string(total) +
                         " rows; all of them are in " + full_file + ".",
                     {{"class", "note"}});
}

void write_advice(HtmlWriter& html, const JsonValue* advice) {
    open_section(html, "advice", "Advice");
    if (!advice) {
        html.element("p", "No advice report (advice.json) was written.");
        html.close("section");
        return;
    }
    const std::vector<const JsonValue*> findings = items_of(advice->find("findings"));
    if (findings.empty()) {
        html.element("p", "No findings: nothing crossed the thresholds below.", {{"class", "none"}});
    }
    for (const JsonValue* f : findings) {
        html.open("article", {{"class", "finding"}});
        const std::string where = !text_of(f, "callpath").empty() ? text_of(f, "callpath") : text_of(f, "region");
        // The heading shortens C++ names (display_name); "Where to look" below has the full one.
        html.element("h3", text_of(f, "index") + ". " + kind_title(text_of(f, "kind")) +
                               (where.empty() ? "" : ": " + display_name(where)));
        html.element("p", text_of(f, "message"));
        html.open("dl", {{"class", "facts"}});
        fact(html, "Where to look", where.empty() ? "" : where);
        if (!text_of(f, "region").empty() && text_of(f, "region") != where) fact(html, "Region", text_of(f, "region"));
        fact(html, "Ranks", text_of(f, "ranks"));
        const std::string metric = text_of(f, "metric");
        if (!metric.empty())
            fact(html, "Measured", metric + " = " + text_of(f, "value") + " (threshold " + text_of(f, "threshold") + ")");
        fact(html, "Time at stake", seconds_of(f, "time_s"));
        fact(html, "Kind", text_of(f, "kind"));
        html.close("dl");
        html.close("article");
        html.newline();
    }
    html.element("p",
                 "Thresholds: imbalance " + text_of(advice, "imbalance_threshold") + " (--imbalance-threshold), " +
                     "MPI share " + text_of(advice, "mpi_threshold") + " (--mpi-threshold), wait states " +
                     text_of(advice, "wait_threshold") + " of the MPI time (--wait-threshold). The same findings are in advice.csv.",
                 {{"class", "note"}});
    html.close("section");
}

void write_summary(HtmlWriter& html, const JsonValue* s) {
    if (!s) return;
    open_section(html, "summary", "Summary");
    html.open("dl", {{"class", "facts"}});
    fact(html, "Experiment", text_of(s, "experiment"));
    const JsonValue* profile = s->find("profile");
    fact(html, "Measured with Strata", text_of(profile, "strata_version"));
    fact(html, "Created", text_of(profile, "creation_time"));
    fact(html, "Timer", text_of(profile, "timer"));
    fact(html, "Ranks", text_of(s, "ranks"));
    fact(html, "CPU threads", text_of(s, "cpu_threads"));
    fact(html, "GPU streams", text_of(s, "gpu_streams"));
    fact(html, "Wall time", seconds_of(s, "wall_time_s") + " (rank " + text_of(s, "wall_time_rank") + ")");
    fact(html, "Run time R", seconds_of(s, "run_time_s") + " (rank " + text_of(s, "run_time_rank") + ")");
    const JsonValue* trace = s->find("trace");
    fact(html, "Trace", text_of(trace, "note"));
    html.close("dl");

    // Time by class: the stacked bar and the same figures as a table.
    const JsonValue* share = s->find("share");
    const JsonValue* time = s->find("time_s");
    if (share && share->is_object()) {
        html.element("h3", "Where the time goes");
        std::vector<Segment> segments;
        std::vector<std::vector<std::string>> rows;
        for (const auto& [name, value] : share->members) {
            const bool known = name == "computation" || name == "mpi" || name == "io" || name == "openmp" ||
                               name == "gpu_wait" || name == "cuda_api" || name == "measurement";
            const std::string css = known ? "c-" + name : "c-other";
            segments.push_back({name, value.number(0.0), css});
            rows.push_back({name, seconds_of(time, name.c_str()), percent(value.number(NAN))});
        }
        html.raw(svg_stacked_bar("Share of the program time by class", segments));
        simple_table(html, "Time by class, summed over ranks (program time " + seconds_of(time, "program") + ")",
                     {{"class", false}, {"time", true}, {"share of program time", true}}, rows);
    }

    // POP efficiencies with their definitions and a traffic light.
    const JsonValue* pop = s->find("pop");
    if (pop) {
        const JsonValue* definitions = pop->find("definitions");
        html.element("h3", "POP efficiencies");
        std::vector<std::vector<std::string>> rows;
        html.open("div", {{"class", "scroll"}});
        html.open("table");
        html.element("caption", "POP efficiencies (the multiplicative definitions of the POP Centre of Excellence)");
        html.open("thead");
        html.open("tr");
        html.element("th", "metric", {{"scope", "col"}});
        html.element("th", "value", {{"scope", "col"}, {"class", "num"}});
        html.element("th", "rating", {{"scope", "col"}});
        html.element("th", "definition", {{"scope", "col"}});
        html.close("tr");
        html.close("thead");
        html.open("tbody");
        for (const auto& [key, title] : std::vector<std::pair<const char*, const char*>>{
                 {"parallel_efficiency", "Parallel efficiency"},
                 {"load_balance", "Load balance"},
                 {"communication_efficiency", "Communication efficiency"}}) {
            const double value = number_of(pop, key);
            const char* r = rating(value);
            html.open("tr");
            html.element("th", title, {{"scope", "row"}});
            html.element("td", text_of(pop, key).empty() ? "n/a" : text_of(pop, key) + " (" + percent(value) + ")",
                         {{"class", std::string("num ") + r}});
            html.element("td", *r ? r : "n/a", {{"class", std::string("rating ") + r}});
            html.element("td", text_of(definitions, key));
            html.close("tr");
        }
        html.close("tbody");
        html.close("table");
        html.close("div");
        html.element("p",
                     "Rating: good \u2265 0.8, fair 0.6 to 0.8, poor < 0.6 (POP reports call values above "
                     "0.8 acceptable and colour their efficiency tables at 0.8 and 0.6).",
                     {{"class", "note"}});
        html.open("dl", {{"class", "facts"}});
        fact(html, "U_p", text_of(definitions, "U_p"));
        fact(html, "R", text_of(definitions, "R"));
        fact(html, "Means", text_of(definitions, "means"));
        fact(html, "Useful time, mean", seconds_of(pop, "useful_time_mean_s"));
        fact(html, "Useful time, max",
             seconds_of(pop, "useful_time_max_s") + " (rank " + text_of(pop, "useful_time_max_rank") + ")");
        fact(html, "Useful time, min",
             seconds_of(pop, "useful_time_min_s") + " (rank " + text_of(pop, "useful_time_min_rank") + ")");
        html.close("dl");
    }

    const std::vector<const JsonValue*> top = items_of(s->find("top_regions"));
    if (!top.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const JsonValue* r : top)
            rows.push_back({text_of(r, "region"), text_of(r, "paradigm"), seconds_of(r, "time_s"),
                            percent(number_of(r, "share"))});
        simple_table(html, "Top regions by exclusive time, summed over all CPU threads",
                     {{"region", false}, {"paradigm", false}, {"time", true}, {"share", true}}, rows);
    }
    html.close("section");
}

void write_load_balance(HtmlWriter& html, const JsonValue* balance, const JsonValue* ranks) {
    if (!balance && !ranks) return;
    open_section(html, "load-balance", "Load balance");
    if (balance) {
        std::vector<const JsonValue*> top;
        double largest = 0.0;  // rows are sorted by saved_s: the first one shown has the most
        for (const JsonValue* row : items_of(balance->find("callpaths"))) {
            if (top.size() == 10) break;
            // Noise: call paths saving less than 1% of the largest saving are not shown.
            if (!top.empty() && number_of(row, "saved_s") < 0.01 * largest) break;
            // As in the advice: MPI start-up and shut-down and the measurement are not the program's work.
            const std::string time_class = text_of(row, "class");
            if (number_of(row, "saved_s") > 0 && time_class != "mpi_init_finalize" && time_class != "measurement") {
                if (top.empty()) largest = number_of(row, "saved_s");
                top.push_back(row);
            }
        }
        html.element("h3", "Call paths by the time perfect balance would save");
        if (top.empty()) {
            html.element("p", "No call path has time to gain from perfect balance.");
        } else {
            std::vector<Range> ranges;
            std::vector<std::vector<std::string>> rows;
            for (const JsonValue* r : top) {
                // Three digits in the chart; the table below has every digit.
                ranges.push_back({text_of(r, "name"), number_of(r, "min_s"), number_of(r, "mean_s"),
                                  number_of(r, "max_s"),
                                  short_number(number_of(r, "min_s"), 3) + " to " +
                                      short_number(number_of(r, "max_s"), 3) + " s, mean " +
                                      short_number(number_of(r, "mean_s"), 3)});
                rows.push_back({text_of(r, "name"), text_of(r, "class"), seconds_of(r, "min_s"),
                                seconds_of(r, "mean_s"), seconds_of(r, "max_s"), text_of(r, "rank_at_max"),
                                percent(number_of(r, "imbalance")), seconds_of(r, "saved_s")});
            }
            html.raw(svg_range_chart("Time per rank of the call paths with most to save: the bar spans min to "
                                     "max, the tick marks the mean",
                                     ranges));
            html.element("p",
                         "Each bar spans the smallest to the largest time of a rank on the call path (a rank's "
                         "time is the mean over its CPU threads: with several threads per rank, multiply by "
                         "their number for the sum); the tick is the mean over the ranks that take part. Call paths of MPI_Init/MPI_Finalize and of "
                         "the measurement, and those saving less than 1% of the largest saving, are left out "
                         "here (all are in loadbalance.csv).",
                         {{"class", "note"}});
            simple_table(html,
                         "Top " + std::to_string(top.size()) +
                             " call paths by time saved (max \u2212 mean), imbalance = (max \u2212 mean)/max",
                         {{"call path", false},
                          {"class", false},
                          {"min", true},
                          {"mean", true},
                          {"max", true},
                          {"rank at max", true},
                          {"imbalance", true},
                          {"saved", true}},
                         rows);
        }
    }
    const std::vector<const JsonValue*> by_rank = items_of(ranks ? ranks->find("ranks") : nullptr);
    if (!by_rank.empty()) {
        constexpr std::size_t chart_limit = 64;
        html.element("h3", "Ranks by useful time");
        // Where each rank's time goes (its threads' mean per class), as Scalasca's and
        // POP's views show it: useful computation first, then what kept it from computing.
        static const std::pair<const char*, const char*> classes[] = {
            {"useful_s", "computation"}, {"mpi_s", "mpi"},         {"io_s", "io"},
            {"openmp_s", "openmp"},      {"gpu_wait_s", "gpu_wait"}, {"cuda_api_s", "cuda_api"},
            {"measurement_s", "measurement"}};
        std::vector<StackedRow> rows;
        std::vector<std::string> texts;
        for (std::size_t i = 0; i < by_rank.size() && i < chart_limit; ++i) {
            StackedRow row;
            row.label = "rank " + text_of(by_rank[i], "rank");
            for (const auto& [key, name] : classes) {
                const double value = number_of(by_rank[i], key);
                row.parts.push_back({name, std::isfinite(value) ? value : 0.0, std::string("c-") + name});
                texts.push_back(seconds_of(by_rank[i], key));
            }
            row.text = "useful " + seconds_of(by_rank[i], "useful_s") + " of " + seconds_of(by_rank[i], "run_time_s");
            rows.push_back(std::move(row));
        }
        html.raw(svg_stacked_rows("Time per rank by class (useful computation U_p first), largest U_p first", rows,
                                  texts));
        html.element("p",
                     (by_rank.size() > chart_limit ? "The " + std::to_string(chart_limit) + " ranks with most useful time of " +
                                                         std::to_string(by_rank.size()) + "; all are in loadbalance_ranks.csv. "
                                                   : std::string()) +
                         "Useful time U_p: time outside MPI and the OpenMP runtime, per rank (its threads' mean); "
                         "the other parts are the rank's time in MPI, file I/O, OpenMP synchronisation, waiting for "
                         "the GPU, other CUDA calls and Strata's measurement, out of its run time.",
                     {{"class", "note"}});
    }
    html.close("section");
}

namespace {

/// At most this many ranks are rows and columns of the "who waits for whom" matrix.
constexpr std::size_t kMaxPairRanks = 48;

/// "Who waits for whom": a cell per (waiting rank, rank waited for) with their
/// total wait over every pattern (each pattern's share in its tooltip), on one
/// scale, in the heatmap's eight steps; the ranks most involved when there are
/// more than kMaxPairRanks.
void write_wait_pairs(HtmlWriter& html, const std::vector<const JsonValue*>& rows) {
    std::map<std::pair<long, long>, std::map<std::string, double>> pairs;  // (rank, partner) -> metric -> s
    std::map<long, double> involved;                                       // rank -> waiting or waited for
    for (const JsonValue* r : rows) {
        const double rank = number_of(r, "rank"), partner = number_of(r, "partner"), t = number_of(r, "time_s");
        if (!std::isfinite(rank) || !std::isfinite(partner) || partner < 0 || !(t > 0)) continue;
        pairs[{static_cast<long>(rank), static_cast<long>(partner)}][text_of(r, "metric")] += t;
        involved[static_cast<long>(rank)] += t;
        involved[static_cast<long>(partner)] += t;
    }
    if (pairs.empty()) return;
    std::vector<std::pair<long, double>> by_time(involved.begin(), involved.end());
    std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (by_time.size() > kMaxPairRanks) by_time.resize(kMaxPairRanks);
    std::vector<long> ranks;
    for (const auto& [rank, t] : by_time) ranks.push_back(rank);
    std::sort(ranks.begin(), ranks.end());
    std::map<long, int> index;
    for (std::size_t i = 0; i < ranks.size(); ++i) index[ranks[i]] = static_cast<int>(i);
    double largest = 0.0;
    for (const auto& [pair, metrics] : pairs) {
        double total = 0.0;
        for (const auto& [metric, t] : metrics) total += t;
        if (index.count(pair.first) && index.count(pair.second)) largest = std::max(largest, total);
    }
    html.element("h3", "Who waits for whom");
    html.element("p",
                 "Each row is a rank that waited, each column the rank it waited for (the late sender or "
                 "receiver, the last to enter a collective); a cell's colour is its wait summed over the "
                 "patterns, on one scale from 0 to the largest cell (" +
                     human_seconds(largest) + "); the tooltips give each pattern." +
                     (involved.size() > ranks.size()
                          ? " The " + std::to_string(ranks.size()) + " ranks most involved of " +
                                std::to_string(involved.size()) + "; waitstates.csv has every pair."
                          : ""),
                 {{"class", "note"}});
    const int n = static_cast<int>(ranks.size());
    const int cell = std::clamp(480 / n, 8, 28), left = 70, top = 40;
    const int width = std::max(left + cell * n + 20, 300), height = top + cell * n + 10;
    std::string svg = "<svg class=\"chart heat\" role=\"img\" viewBox=\"0 0 " + std::to_string(width) + " " +
                      std::to_string(height) + "\" width=\"" + std::to_string(width) + "\" height=\"" +
                      std::to_string(height) + "\"><title>Wait time per waiting rank and the rank waited for</title>\n";
    svg += "<text class=\"scale\" x=\"" + std::to_string(left) + "\" y=\"12\">waited for \u2192</text>";
    svg += "<text class=\"scale\" x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(top - 6) +
           "\" text-anchor=\"end\">waiting \u2193</text>";
    const int every = std::max(1, (20 + cell - 1) / cell);
    for (int j = 0; j < n; j += every) {
        const std::string label = std::to_string(ranks[static_cast<std::size_t>(j)]);
        svg += "<text class=\"scale\" x=\"" + std::to_string(left + j * cell + cell / 2) + "\" y=\"" +
               std::to_string(top - 6) + "\" text-anchor=\"middle\">" + label + "</text>";
        svg += "<text class=\"scale\" x=\"" + std::to_string(left - 6) + "\" y=\"" +
               std::to_string(top + j * cell + cell / 2 + 4) + "\" text-anchor=\"end\">" + label + "</text>";
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const auto found = pairs.find({ranks[static_cast<std::size_t>(i)], ranks[static_cast<std::size_t>(j)]});
            double total = 0.0;
            std::string parts;
            if (found != pairs.end()) {
                for (const auto& [metric, t] : found->second) {
                    total += t;
                    parts += (parts.empty() ? "" : ", ") + metric + " " + human_seconds(t);
                }
            }
            const std::string level =
                total > 0 ? "h" + std::to_string(std::min(7, static_cast<int>(total / largest * 8))) : "hz";
            svg += "<rect class=\"" + level + "\" x=\"" + std::to_string(left + j * cell) + "\" y=\"" +
                   std::to_string(top + i * cell) + "\" width=\"" + std::to_string(cell - 1) + "\" height=\"" +
                   std::to_string(cell - 1) + "\">";
            if (total > 0)
                svg += "<title>" +
                       escape("rank " + std::to_string(ranks[static_cast<std::size_t>(i)]) + " waited for rank " +
                              std::to_string(ranks[static_cast<std::size_t>(j)]) + ": " + human_seconds(total) +
                              " (" + parts + ")") +
                       "</title>";
            svg += "</rect>";
        }
        svg += "\n";
    }
    html.open("div", {{"class", "scroll"}});
    html.raw(svg + "</svg>");
    html.close("div");
}

/// The call paths with most waiting, a column per pattern found.
void write_wait_callpaths(HtmlWriter& html, const std::vector<const JsonValue*>& rows) {
    std::map<std::string, std::map<std::string, double>> by_path;  // call path -> metric -> s
    std::vector<std::string> metrics;
    for (const JsonValue* r : rows) {
        const double t = number_of(r, "time_s");
        if (!(t > 0)) continue;
        const std::string metric = text_of(r, "metric");
        by_path[text_of(r, "callpath")][metric] += t;
        if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) metrics.push_back(metric);
    }
    if (by_path.empty()) return;
    std::vector<std::pair<std::string, double>> paths;
    for (const auto& [path, per] : by_path) {
        double total = 0.0;
        for (const auto& [metric, t] : per) total += t;
        paths.emplace_back(path, total);
    }
    std::stable_sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr std::size_t shown = 15;
    std::vector<Column> columns = {{"call path", false}};
    for (const std::string& metric : metrics) columns.push_back({metric, true});
    columns.push_back({"total", true});
    std::vector<std::vector<std::string>> cells;
    for (std::size_t i = 0; i < paths.size() && i < shown; ++i) {
        std::vector<std::string> row = {paths[i].first};
        for (const std::string& metric : metrics) {
            const auto& per = by_path[paths[i].first];
            const auto t = per.find(metric);
            row.push_back(t == per.end() ? "" : human_seconds(t->second));
        }
        row.push_back(human_seconds(paths[i].second));
        cells.push_back(std::move(row));
    }
    simple_table(html,
                 "Waiting by call path, summed over ranks (the " + std::to_string(cells.size()) + " of " +
                     std::to_string(paths.size()) + " call paths with most)",
                 columns, cells);
}

}  // namespace

void write_wait_states(HtmlWriter& html, const JsonValue* waits) {
    if (!waits) return;
    open_section(html, "wait-states", "Wait states");
    const JsonValue* summary = waits->find("summary");
    const JsonValue* totals = summary ? summary->find("totals") : nullptr;
    html.open("dl", {{"class", "facts"}});
    fact(html, "MPI time (all ranks)", seconds_of(summary, "mpi_time_s"));
    fact(html, "Locations read", text_of(summary, "locations_read") + " of " + text_of(summary, "locations"));
    // The clocks: violations as the trace has them, and what the logical clock moved.
    const JsonValue* counts = summary ? summary->find("counts") : nullptr;
    const JsonValue* clock = summary ? summary->find("logical_clock") : nullptr;
    const double violations = number_of(counts, "clock_violations") + number_of(counts, "collective_clock_violations");
    if (violations > 0) {
        fact(html, "Clock-condition violations in the trace",
             text_of(counts, "clock_violations") + " in messages, " +
                 text_of(counts, "collective_clock_violations") + " in collectives");
        if (number_of(clock, "rounds") > 0) {
            fact(html, "Corrected by the controlled logical clock",
                 text_of(clock, "mpi_times_moved") + " of " + text_of(clock, "mpi_times") + " MPI times on " +
                     text_of(clock, "ranks_moved") + (text_of(clock, "ranks_moved") == "1" ? " rank" : " ranks") +
                     " moved later, by at most " +
                     seconds_of(clock, "largest_move_s") + " (mean " + seconds_of(clock, "mean_move_s") +
                     "); left: " + text_of(clock, "clock_violations_left") + " in messages, " +
                     text_of(clock, "collective_clock_violations_left") + " in collectives");
        } else if (clock) {
            fact(html, "Not corrected (--no-logical-clock)",
                 "the wait states of the calls that violate the clock condition are not reliable");
        }
    }
    html.close("dl");
    const bool no_mpi = number_of(summary, "mpi_time_s") <= 0 &&
                        number_of(counts, "messages_matched") + number_of(counts, "sends_unmatched") +
                                number_of(counts, "receives_unmatched") + number_of(counts, "collectives_matched") +
                                number_of(counts, "collectives_incomplete") ==
                            0;
    if (no_mpi) {
        html.element("p", "The trace holds no MPI call: there are no wait states to look for (the patterns need "
                          "messages or collectives; waitstates.csv has their zeros).",
                     {{"class", "none"}});
    } else if (totals && totals->is_object()) {
        std::vector<Bar> bars;
        std::vector<std::vector<std::string>> rows;
        for (const auto& [name, total] : totals->members) {
            bars.push_back({name, number_of(&total, "time_s"), seconds_of(&total, "time_s"), ""});
            rows.push_back({name, seconds_of(&total, "time_s"), text_of(&total, "instances"),
                            text_of(&total, "definition")});
        }
        html.raw(svg_bar_chart("Waiting time per pattern, summed over ranks", bars));
        simple_table(html, "Wait states per pattern (Scalasca's definitions), summed over ranks",
                     {{"pattern", false}, {"time", true}, {"instances", true}, {"definition", false}}, rows);
    }
    std::vector<const JsonValue*> rows = items_of(waits->find("rows"));
    write_wait_callpaths(html, rows);
    write_wait_pairs(html, rows);
    std::stable_sort(rows.begin(), rows.end(), [](const JsonValue* a, const JsonValue* b) {
        return number_of(a, "time_s") > number_of(b, "time_s");
    });
    if (rows.size() > 10) rows.resize(10);
    if (!rows.empty()) {
        std::vector<std::vector<std::string>> cells;
        for (const JsonValue* r : rows)
            cells.push_back({text_of(r, "metric"), text_of(r, "callpath"), text_of(r, "rank"),
                             text_of(r, "partner"), seconds_of(r, "time_s"), text_of(r, "instances")});
        simple_table(html, "The largest waits: call path, rank that waited and the partner it waited for",
                     {{"pattern", false},
                      {"call path", false},
                      {"rank", true},
                      {"partner", true},
                      {"time", true},
                      {"instances", true}},
                     cells);
    }
    for (const char* list : {"skipped", "timeline_cut"}) {
        const JsonValue* items = summary ? summary->find(list) : nullptr;
        if (!items || !items->is_array() || items->items.empty()) continue;
        html.element("h3", std::string(list) == "skipped" ? "Skipped parts of the trace" : "Timeline cut");
        html.open("ul");
        for (const JsonValue& item : items->items) html.element("li", item.display());
        html.close("ul");
    }
    html.close("section");
}

namespace {

using Facts = std::vector<std::pair<std::string, std::string>>;

/// The rows of an object whose members are all objects (e.g. totals per
/// metric), each with its member name first as "name".
std::vector<JsonValue> named_rows(const JsonValue& object) {
    std::vector<JsonValue> rows;
    for (const auto& [name, row] : object.members) {
        JsonValue named;
        named.kind = JsonValue::Kind::object;
        JsonValue title;
        title.kind = JsonValue::Kind::string;
        title.text = name;
        named.members.emplace_back("name", std::move(title));
        for (const auto& member : row.members) named.members.push_back(member);
        rows.push_back(std::move(named));
    }
    return rows;
}

bool all_objects(const JsonValue& value) {
    if (!value.is_object() || value.members.empty()) return false;
    for (const auto& member : value.members)
        if (!member.second.is_object()) return false;
    return true;
}

/// Writes the tables of `value` (at `path` in `report`) and collects its scalars as facts.
void report_part(HtmlWriter& html, const std::string& report, const std::string& path, const JsonValue& value,
                 int depth, Facts& facts) {
    constexpr std::size_t row_limit = 500;
    const std::string csv = report.substr(0, report.size() - 5) + ".csv";
    if (value.is_array() && !items_of(&value).empty()) {
        write_table(html, report + ": " + path, items_of(&value), value.total_items, row_limit,
                    depth == 1 ? csv : report);
    } else if (all_objects(value)) {
        const std::vector<JsonValue> rows = named_rows(value);
        std::vector<const JsonValue*> pointers;
        for (const JsonValue& row : rows) pointers.push_back(&row);
        write_table(html, report + ": " + path, pointers, pointers.size(), row_limit, report);
    } else if (value.is_object() && depth < 4) {
        for (const auto& [key, member] : value.members)
            report_part(html, report, path.empty() ? key : path + "." + key, member, depth + 1, facts);
    } else {
        facts.emplace_back(path, value.display());
    }
}

}  // namespace

void write_all_reports(HtmlWriter& html, const std::vector<ParsedReport>& reports) {
    open_section(html, "reports", "All reports");
    html.element("p",
                 "Every JSON report of this run as tables (with JavaScript, a click on a column header sorts). "
                 "The CSV files hold the same rows.",
                 {{"class", "note"}});
    for (const ParsedReport& report : reports) {
        if (report.name == "timeline.json") continue;  // the Timeline section draws it; as tables it would be bins
        const std::string id = "report-" + report.name.substr(0, report.name.size() - 5);
        html.newline();
        html.open("section", {{"aria-labelledby", id}});
        html.element("h3", report.name, {{"id", id}});
        Facts facts;
        report_part(html, report.name, "", report.value, 0, facts);
        if (!facts.empty()) {
            html.open("details");
            html.element("summary", "Other fields of " + report.name);
            html.open("dl", {{"class", "facts"}});
            for (const auto& [key, text] : facts) {
                const std::string unit = unit_of(key);
                html.element("dt", key.empty() ? "value" : key);
                html.element("dd", text.empty() ? "\u2014" : unit.empty() ? text : text + " " + unit);
            }
            html.close("dl");
            html.close("details");
        }
        html.close("section");
    }
    html.close("section");
}

}  // namespace strata::analysis::report
