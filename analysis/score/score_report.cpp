// SPDX-License-Identifier: BSD-3-Clause
// The strata-score report (see score_report.hpp).
#include "score/score_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "profile/profile_aggregates.hpp"
#include "score/filter_suggestion.hpp"
#include "score/number_text.hpp"
#include "score/trace_estimate.hpp"

namespace strata::analysis {
namespace {

/// A time as a sort key: NaN (a corrupt value) sorts last instead of
/// breaking the ordering.
double key(double value) { return std::isnan(value) ? -std::numeric_limits<double>::infinity() : value; }

/// True when `a` comes before `b`: the larger `sort` value first, then by
/// label.  Used with stable_sort, so equal rows keep their table order.
bool before(const ScoreRow& a, const ScoreRow& b, ScoreSort sort) {
    switch (sort) {
        case ScoreSort::exclusive:
            if (key(a.time_exclusive) != key(b.time_exclusive)) return key(a.time_exclusive) > key(b.time_exclusive);
            break;
        case ScoreSort::inclusive:
            if (key(a.time_inclusive) != key(b.time_inclusive)) return key(a.time_inclusive) > key(b.time_inclusive);
            break;
        case ScoreSort::visits:
            if (a.visits != b.visits) return a.visits > b.visits;
            break;
    }
    return a.label < b.label;
}

std::vector<ScoreRow> region_rows(const Profile& profile, ScoreSort sort) {
    std::vector<ScoreRow> rows;
    for (const RegionAggregate& aggregate : aggregate_regions(profile)) {
        if (aggregate.callpaths == 0) continue;  // defined but never entered
        const Region& region = profile.regions[aggregate.region];
        ScoreRow row;
        row.label = row.path = profile.region_name(aggregate.region);
        row.paradigm = profile.paradigm_names.name(static_cast<std::uint8_t>(region.paradigm));
        row.visits = aggregate.total_visits();
        row.time_inclusive = aggregate.total_time_inclusive();
        row.time_exclusive = aggregate.total_time_exclusive();
        row.region = aggregate.region;
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [sort](const auto& a, const auto& b) { return before(a, b, sort); });
    return rows;
}

std::vector<ScoreRow> callpath_rows(const Profile& profile, ScoreSort sort) {
    const Metric& visits = profile.metric("visits");
    const Metric& inclusive = profile.metric("time_inclusive");
    const Metric& exclusive = profile.metric("time_exclusive");
    const CallTreeIndex tree = index_call_tree(profile);
    std::vector<std::string> paths = callpath_names(profile);
    std::vector<ScoreRow> all(profile.callpaths.size());
    for (std::size_t cp = 0; cp < all.size(); ++cp) {
        ScoreRow& row = all[cp];
        const Region& region = profile.regions[profile.callpaths[cp].region];
        row.label = callpath_label(profile, cp);
        row.path = std::move(paths[cp]);
        row.depth = tree.depth[cp];
        row.paradigm = profile.paradigm_names.name(static_cast<std::uint8_t>(region.paradigm));
        row.region = profile.callpaths[cp].region;
        for (std::size_t l = 0; l < profile.locations.size(); ++l) {
            row.visits += visits.count_at(cp, l);
            row.time_inclusive += inclusive.at(cp, l);
            row.time_exclusive += exclusive.at(cp, l);
        }
    }
    // Depth first; each group of siblings sorted.
    const auto sorted = [&](std::vector<std::size_t> ids) {
        std::stable_sort(ids.begin(), ids.end(),
                         [&](std::size_t a, std::size_t b) { return before(all[a], all[b], sort); });
        return ids;
    };
    std::vector<ScoreRow> rows;
    std::vector<std::size_t> stack;
    const auto push = [&](const std::vector<std::size_t>& ids) {
        const std::vector<std::size_t> order = sorted(ids);
        stack.insert(stack.end(), order.rbegin(), order.rend());
    };
    push(tree.roots);
    while (!stack.empty()) {
        const std::size_t cp = stack.back();
        stack.pop_back();
        rows.push_back(all[cp]);
        push(tree.children[cp]);
    }
    return rows;
}

/// "2 (ranks: 1, CPU threads: 2)".
std::string describe_locations(const Profile& profile) {
    std::set<std::uint32_t> ranks;
    std::size_t by_type[3] = {0, 0, 0};
    std::size_t other = 0;
    for (const Location& location : profile.locations) {
        ranks.insert(location.rank);
        const auto type = static_cast<std::size_t>(location.type);
        if (type < 3)
            ++by_type[type];
        else
            ++other;
    }
    std::string text = std::to_string(profile.locations.size()) + " (ranks: " + std::to_string(ranks.size());
    const char* names[3] = {"CPU threads", "GPU streams", "metric sources"};
    for (std::size_t t = 0; t < 3; ++t)
        if (by_type[t] > 0 || t == 0) text += ", " + std::string(names[t]) + ": " + std::to_string(by_type[t]);
    if (other > 0) text += ", other: " + std::to_string(other);
    return text + ")";
}

std::string dropped_warning(const Profile& profile) {
    return "Warning: " + std::to_string(profile.dropped_callpaths) +
           " call paths were not recorded because the profile ran out of memory; the profile is incomplete. "
           "Raise STRATA_TOTAL_MEMORY and measure again.\n";
}

/// The share of `total` in percent (0 when there is no total).
double percent(double part, double total) { return total > 0.0 ? 100.0 * part / total : 0.0; }

/// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

/// Per row, whether the filter leaves it out (empty without a filter).
using FilterMarks = std::vector<bool>;

void write_csv(std::ostream& out, const std::vector<ScoreRow>& rows, std::size_t shown, ScoreGrouping by,
               double total_exclusive, const FilterMarks& filtered) {
    if (by == ScoreGrouping::callpath)
        out << "callpath,depth,";
    else
        out << "region,";
    out << "paradigm,visits,time_inclusive_s,time_exclusive_s,time_exclusive_percent,time_exclusive_per_visit_us"
        << (filtered.empty() ? "\n" : ",filtered\n");
    for (std::size_t i = 0; i < shown; ++i) {
        const ScoreRow& row = rows[i];
        out << csv_field(row.path) << ',';
        if (by == ScoreGrouping::callpath) out << row.depth << ',';
        out << csv_field(row.paradigm) << ',' << row.visits << ',' << number_text("%.9f", row.time_inclusive)
            << ',' << number_text("%.9f", row.time_exclusive) << ','
            << number_text("%.4f", percent(row.time_exclusive, total_exclusive)) << ',';
        if (row.visits > 0) out << number_text("%.3f", 1e6 * row.time_exclusive / static_cast<double>(row.visits));
        if (!filtered.empty()) out << ',' << (filtered[i] ? 1 : 0);
        out << '\n';
    }
}

/// "Filter:      FILE leaves out 2 of 5 function regions: 1200 of 1300 visits (92.3%)".
std::string filter_line(const strata::filter::FilterFile& filter, const Profile& profile) {
    std::size_t functions = 0, left_out = 0;
    std::uint64_t visits = 0, left_out_visits = 0;
    for (const RegionAggregate& aggregate : aggregate_regions(profile)) {
        if (aggregate.callpaths == 0) continue;
        visits += aggregate.total_visits();
        if (profile.regions[aggregate.region].paradigm != Paradigm::compiler) continue;
        ++functions;
        if (!filtered_out(filter, profile, aggregate.region)) continue;
        ++left_out;
        left_out_visits += aggregate.total_visits();
    }
    const bool mangled = std::any_of(filter.rules.begin(), filter.rules.end(),
                                     [](const strata::filter::FilterRule& rule) { return rule.mangled; });
    return "Filter:      " + filter.path + " leaves out " + std::to_string(left_out) + " of " +
           std::to_string(functions) + " function regions (flt -): " + std::to_string(left_out_visits) + " of " +
           std::to_string(visits) + " visits (" +
           number_text("%.1f", percent(static_cast<double>(left_out_visits), static_cast<double>(visits))) +
           "%); their callees would be recorded under their callers" +
           (mangled ? "; MANGLED rules are matched against the demangled names (the profile keeps only those)" : "") +
           "\n";
}

/// "rank 1 thread 0": the location's name, with its rank when the name has none.
std::string location_label(const Profile& profile, std::size_t location) {
    const std::string& name = profile.location_name(location);
    if (name.rfind("rank ", 0) == 0) return name;
    return "rank " + std::to_string(profile.locations[location].rank) + " " + name;
}

/// "Trace: ..." and "Memory: ..." (scorep-score's estimate); with a filter, also as filtered.
std::string estimate_lines(const Profile& profile, const strata::filter::FilterFile* filter) {
    const TraceEstimate all = estimate_trace(profile);
    if (all.events == 0) return "";
    std::string text = "Trace:       about " + format_bytes(all.otf2_bytes) + " of OTF2 events (" +
                       std::to_string(all.events) + " events) if traced; the largest location, " +
                       location_label(profile, all.largest_location) + ": " +
                       format_bytes(all.largest_location_otf2_bytes);
    TraceEstimate shown = all;
    if (filter != nullptr) {
        std::vector<bool> left_out(profile.regions.size(), false);
        for (std::uint32_t r = 0; r < profile.regions.size(); ++r) left_out[r] = filtered_out(*filter, profile, r);
        shown = estimate_trace(profile, &left_out);
        text += "; with the filter " + format_bytes(shown.otf2_bytes) + " (" + std::to_string(shown.events) +
                " events)";
    }
    text += "\n";
    // Trace buffers may take 7/8 of the budget (the rest is kept for the profile, see
    // measurement/src/core/memory_pool.hpp); 16 MiB more for the profile and the definitions,
    // in steps of 64 MiB.
    constexpr double mib = 1024.0 * 1024.0;
    const double need = shown.largest_rank_buffer_bytes;
    const double budget = std::ceil((need / mib * 8.0 / 7.0 + 16.0) / 64.0) * 64.0;
    text += "Memory:      rank " + std::to_string(shown.largest_rank) + " needs about " + format_bytes(need) +
            " of trace buffers" + (filter != nullptr ? " with the filter" : "") +
            (budget <= 64.0 ? "; the default STRATA_TOTAL_MEMORY=64M holds them\n"
                            : ": STRATA_TOTAL_MEMORY=" + number_text("%.0f", budget) +
                                  "M keeps Strata from flushing them during the run\n");
    return text;
}

void write_header(std::ostream& out, const Profile& profile, const std::string& experiment,
                  const std::string& filter_line) {
    out << "Experiment:  " << experiment << '\n'
        << "Written by:  Strata " << profile.strata_version << " at " << profile.creation_time << '\n'
        << "Locations:   " << describe_locations(profile) << '\n'
        << "Total time:  " << number_text("%.6f", total_time(profile))
        << " s (sum over locations of the root call paths' inclusive time)\n"
        << "Timer:       " << profile.timer << " (" << number_text("%.0f", profile.timer_resolution) << " Hz)\n"
        << filter_line;
    if (profile.dropped_callpaths > 0) out << '\n' << dropped_warning(profile);
    out << '\n';
}

void write_table(std::ostream& out, const std::vector<ScoreRow>& rows, std::size_t shown, ScoreGrouping by,
                 double total_exclusive, const FilterMarks& filtered) {
    // Columns: [flt], paradigm (left), five numbers (right), then the name, unpadded.
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"paradigm", "visits", "incl(s)", "excl(s)", "excl(%)", "excl/visit(us)",
                     by == ScoreGrouping::callpath ? "call path" : "region"});
    for (std::size_t i = 0; i < shown; ++i) {
        const ScoreRow& row = rows[i];
        const std::string per_visit =
            row.visits > 0 ? number_text("%.2f", 1e6 * row.time_exclusive / static_cast<double>(row.visits)) : "-";
        const std::string share = number_text("%.2f", percent(row.time_exclusive, total_exclusive));
        cells.push_back({row.paradigm, std::to_string(row.visits), number_text("%.6f", row.time_inclusive),
                         number_text("%.6f", row.time_exclusive), share, per_visit,
                         std::string(2 * row.depth, ' ') + row.label});
    }
    std::vector<std::size_t> width(6, 0);
    for (const auto& line : cells)
        for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], line[c].size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& line = cells[i];
        if (!filtered.empty()) out << (i == 0 ? "flt  " : filtered[i - 1] ? "-    " : "+    ");
        out << line[0] << std::string(width[0] - line[0].size(), ' ');
        for (std::size_t c = 1; c < width.size(); ++c)
            out << "  " << std::string(width[c] - line[c].size(), ' ') << line[c];
        out << "  " << line[6] << '\n';
    }
    const std::string what = by == ScoreGrouping::callpath ? "call path" : "region";
    if (rows.empty()) out << "(no " << what << "s)\n";
    if (shown < rows.size()) {
        const std::size_t hidden = rows.size() - shown;
        out << "(" << hidden << " more " << what << (hidden == 1 ? "" : "s") << " not shown; --top " << shown << ")\n";
    }
}

}  // namespace

std::vector<ScoreRow> score_rows(const Profile& profile, ScoreGrouping by, ScoreSort sort) {
    return by == ScoreGrouping::callpath ? callpath_rows(profile, sort) : region_rows(profile, sort);
}

void write_score_report(std::ostream& out, std::ostream& warnings, const Profile& profile,
                        const ScoreOptions& options, const std::string& experiment,
                        const strata::filter::FilterFile* filter) {
    const std::vector<ScoreRow> rows = score_rows(profile, options.by, options.sort);
    const std::size_t shown = options.top > 0 ? std::min(options.top, rows.size()) : rows.size();
    double total_exclusive = 0.0;
    for (const LocationTotals& location : location_totals(profile)) total_exclusive += location.time_exclusive;
    FilterMarks filtered;
    if (filter != nullptr) {
        filtered.resize(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) filtered[i] = filtered_out(*filter, profile, rows[i].region);
    }
    if (options.csv) {
        if (profile.dropped_callpaths > 0) warnings << dropped_warning(profile);
        write_csv(out, rows, shown, options.by, total_exclusive, filtered);
        return;
    }
    write_header(out, profile, experiment,
                 (filter != nullptr ? filter_line(*filter, profile) : std::string()) + estimate_lines(profile, filter));
    write_table(out, rows, shown, options.by, total_exclusive, filtered);
}

std::string suggestion_summary(const FilterSuggestion& suggestion, const FilterCriteria& criteria,
                               const std::string& file) {
    const std::string rule = "mean inclusive time per visit at most " + number_text("%g", criteria.max_us_per_visit) +
                             " us, at least " + number_text("%g", criteria.min_visit_percent) + "% of all visits";
    if (suggestion.regions.empty())
        return "No function is short and called often enough to filter (" + rule + "); " + file + " not written.\n";
    std::string names;
    for (std::size_t i = 0; i < suggestion.regions.size() && i < 5; ++i)
        names += (i > 0 ? ", " : "") + suggestion.regions[i].name;
    if (suggestion.regions.size() > 5) names += ", ...";
    return "Suggested filter written to " + file + ": it leaves out " + std::to_string(suggestion.regions.size()) +
           (suggestion.regions.size() == 1 ? " function" : " functions") + " (" + names + ") with " +
           std::to_string(suggestion.visits) + " of " + std::to_string(suggestion.all_visits) + " visits (" +
           number_text("%.1f", percent(static_cast<double>(suggestion.visits),
                                       static_cast<double>(suggestion.all_visits))) +
           "%; " + rule + "). Measure again with STRATA_FILTERING_FILE=" + file +
           ", or build with strata --instrument-filter=" + file + ".\n";
}

}  // namespace strata::analysis
