// SPDX-License-Identifier: BSD-3-Clause
// calltree.json (see calltree_report.hpp).
#include "analyze/calltree_report.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "analyze/partial.hpp"
#include "analyze/report_format.hpp"
#include "profile/profile_aggregates.hpp"

namespace strata::analysis {
namespace {

/// The metrics in the order the page shows them: the times and visits, then the others by name.
std::vector<const Metric*> ordered_metrics(const Profile& profile) {
    std::vector<const Metric*> out;
    for (const char* name : {"time_inclusive", "time_exclusive", "visits"})
        out.push_back(&profile.metric(name));
    for (const Metric& m : profile.metrics)
        if (std::find(out.begin(), out.end(), &m) == out.end()) out.push_back(&m);
    return out;
}

/// A value as the file writes it: integers exactly, the others "%.9g".
std::string cell(const Metric& m, std::size_t callpath, std::size_t location) {
    const std::size_t i = callpath * m.columns + location;
    return m.integral ? std::to_string(m.counts[i]) : format_number(m.values[i]);
}

const char* location_type(LocationType type) {
    return type == LocationType::gpu_stream ? "gpu_stream"
           : type == LocationType::metric   ? "metric"
                                            : "cpu_thread";
}

/// The (at most) 3 of `at` (positions in `scope`) with the largest or smallest value of `m`,
/// in that order, ties by location.
std::vector<std::size_t> extremes(const Metric& m, std::size_t callpath,
                                  const std::vector<std::size_t>& scope, std::vector<std::size_t> at,
                                  bool largest) {
    const auto before = [&](std::size_t a, std::size_t b) {
        const double x = m.at(callpath, scope[a]), y = m.at(callpath, scope[b]);
        if (x != y) return largest ? x > y : x < y;
        return a < b;
    };
    const std::size_t n = std::min<std::size_t>(3, at.size());
    std::partial_sort(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(n), at.end(), before);
    at.resize(n);
    return at;
}

constexpr const char* definitions =
    "{\"sum\": \"the value summed over every location (CPU thread and GPU stream)\", "
    "\"participants\": \"the locations that visited the call path or spent time in it\", "
    "\"mean\": \"sum over the participants divided by their number (null when none)\", "
    "\"largest\": \"the 3 participants with the largest value, as [location, value], ties by location\", "
    "\"smallest\": \"the 3 participants with the smallest value, likewise\", "
    "\"values\": \"per metric, the value on each of locations[0..shown_locations) (null: left out, see "
    "cut)\", "
    "\"location\": \"the row of the profile's location table (/definitions/locations)\", "
    "\"heatmap\": \"exclusive time per rank (its CPU threads summed, parameter nodes included) of the "
    "regions with most exclusive time over all CPU threads\"}";

}  // namespace

std::string calltree_json(const Profile& profile, const CallTreeCaps& caps) {
    const std::vector<const Metric*> metrics = ordered_metrics(profile);
    const Metric& inclusive = *metrics[0];
    const Metric& exclusive = *metrics[1];
    const Metric& visits = *metrics[2];
    const std::size_t callpaths = profile.callpaths.size();

    // Threads and GPU streams; metric sources have no call paths of their own.
    std::vector<std::size_t> scope;
    for (std::size_t l = 0; l < profile.locations.size(); ++l)
        if (profile.locations[l].type != LocationType::metric) scope.push_back(l);
    const std::size_t shown_locations = std::min(scope.size(), caps.locations);

    const CallTreeIndex tree = index_call_tree(profile);
    std::vector<double> inclusive_total(callpaths, 0.0), exclusive_total(callpaths, 0.0);
    for (std::size_t cp = 0; cp < callpaths; ++cp) {
        long double incl = 0, excl = 0;
        for (std::size_t l : scope) {
            incl += inclusive.at(cp, l);
            excl += exclusive.at(cp, l);
        }
        inclusive_total[cp] = static_cast<double>(incl);
        exclusive_total[cp] = static_cast<double>(excl);
    }
    // Most inclusive time first; a caller has at least its callee's, and comes first on a tie.
    const auto larger = [&](std::size_t a, std::size_t b) {
        if (inclusive_total[a] != inclusive_total[b]) return inclusive_total[a] > inclusive_total[b];
        if (tree.depth[a] != tree.depth[b]) return tree.depth[a] < tree.depth[b];
        return a < b;
    };
    std::vector<std::size_t> order(callpaths);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), larger);
    // Kept with their callers, so that the tree stays whole.
    std::vector<char> kept(callpaths, 0);
    std::vector<std::size_t> selection;
    for (std::size_t cp : order) {
        if (selection.size() >= caps.callpaths) break;
        if (kept[cp]) continue;
        std::vector<std::size_t> chain;
        for (std::int64_t at = static_cast<std::int64_t>(cp); at >= 0 && !kept[static_cast<std::size_t>(at)];
             at = profile.callpaths[static_cast<std::size_t>(at)].parent)
            chain.push_back(static_cast<std::size_t>(at));
        if (selection.size() + chain.size() > caps.callpaths) continue;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            kept[*it] = 1;
            selection.push_back(*it);
        }
    }
    // Per-location values for the first call paths of the selection, while the budget lasts.
    const std::size_t cost = shown_locations * metrics.size();
    const std::size_t with_values =
        cost == 0 ? selection.size() : std::min(selection.size(), caps.values / cost);
    std::vector<char> has_values(callpaths, 0);
    for (std::size_t i = 0; i < with_values; ++i) has_values[selection[i]] = 1;

    // Tree order: each node before its children, siblings by inclusive time.
    std::vector<std::size_t> roots;
    for (std::size_t cp : tree.roots)
        if (kept[cp]) roots.push_back(cp);
    std::sort(roots.begin(), roots.end(), larger);
    std::vector<std::size_t> tree_order, stack(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
        const std::size_t cp = stack.back();
        stack.pop_back();
        tree_order.push_back(cp);
        std::vector<std::size_t> children;
        for (std::size_t child : tree.children[cp])
            if (kept[child]) children.push_back(child);
        std::sort(children.begin(), children.end(), larger);
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }

    const std::vector<std::string> names = callpath_names(profile);
    std::set<std::size_t> listed(scope.begin(), scope.begin() + static_cast<std::ptrdiff_t>(shown_locations));
    std::string rows;
    for (std::size_t cp : tree_order) {
        std::vector<std::size_t> participants;  // positions in scope
        for (std::size_t i = 0; i < scope.size(); ++i)
            if (visits.at(cp, scope[i]) > 0 || inclusive.at(cp, scope[i]) > 0) participants.push_back(i);
        const CallPath& path = profile.callpaths[cp];
        const Region& region = profile.regions[path.region];
        std::string sum = "[", mean = "[", largest = "[", smallest = "[", values = "[";
        for (std::size_t m = 0; m < metrics.size(); ++m) {
            const Metric& metric = *metrics[m];
            const std::string comma = m > 0 ? ", " : "";
            std::string total, over_participants = "null";
            if (metric.integral) {
                WideSum all = 0, part = 0;
                for (std::size_t l : scope) all += metric.counts[cp * metric.columns + l];
                for (std::size_t i : participants) part += metric.counts[cp * metric.columns + scope[i]];
                total = format_wide(all);
                if (!participants.empty())
                    over_participants = format_number(static_cast<double>(
                        static_cast<long double>(part) / static_cast<long double>(participants.size())));
            } else {
                long double all = 0, part = 0;
                for (std::size_t l : scope) all += metric.values[cp * metric.columns + l];
                for (std::size_t i : participants) part += metric.values[cp * metric.columns + scope[i]];
                total = format_number(static_cast<double>(all));
                if (!participants.empty())
                    over_participants = format_number(
                        static_cast<double>(part / static_cast<long double>(participants.size())));
            }
            sum += comma + total;
            mean += comma + over_participants;
            for (bool large : {true, false}) {
                std::string pairs = "[";
                for (std::size_t i : extremes(metric, cp, scope, participants, large)) {
                    pairs += std::string(pairs.size() > 1 ? ", " : "") + "[" + std::to_string(scope[i]) +
                             ", " + cell(metric, cp, scope[i]) + "]";
                    listed.insert(scope[i]);  // every location the file names is in its table
                }
                (large ? largest : smallest) += comma + pairs + "]";
            }
            if (has_values[cp]) {
                values += comma + "[";
                for (std::size_t j = 0; j < shown_locations; ++j)
                    values += std::string(j > 0 ? ", " : "") + cell(metric, cp, scope[j]);
                values += "]";
            }
        }
        rows += std::string(rows.empty() ? "\n" : ",\n") + "    {\"id\": " + std::to_string(cp) +
                ", \"parent\": " + (path.parent < 0 ? std::string("null") : std::to_string(path.parent)) +
                ", \"depth\": " + std::to_string(tree.depth[cp]) +
                ", \"label\": " + json_string(callpath_label(profile, cp)) +
                ", \"callpath\": " + json_string(names[cp]) +
                ", \"region\": " + json_string(profile.region_name(path.region)) + ", \"paradigm\": " +
                json_string(profile.paradigm_names.name(static_cast<std::uint8_t>(region.paradigm))) +
                ", \"participants\": " + std::to_string(participants.size()) + ", \"sum\": " + sum +
                "], \"mean\": " + mean + "], \"largest\": " + largest + "], \"smallest\": " + smallest +
                "], \"values\": " + (has_values[cp] ? values + "]" : std::string("null")) + "}";
    }

    // The heatmap: exclusive time per region and rank, CPU threads only (as the summary's top regions).
    std::vector<std::uint32_t> ranks;
    for (const Location& l : profile.locations)
        if (l.type == LocationType::cpu_thread) ranks.push_back(l.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const std::size_t shown_ranks = std::min(ranks.size(), caps.heatmap_ranks);
    const std::vector<RegionAggregate> regions = aggregate_regions(profile);
    std::vector<std::pair<double, std::uint32_t>> by_time;  // (total, region)
    for (const RegionAggregate& r : regions) {
        long double total = 0;
        for (std::size_t l = 0; l < profile.locations.size(); ++l)
            if (profile.locations[l].type == LocationType::cpu_thread) total += r.time_exclusive[l];
        if (total > 0) by_time.emplace_back(static_cast<double>(total), r.region);
    }
    std::sort(by_time.begin(), by_time.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        const std::string &x = profile.region_name(a.second), &y = profile.region_name(b.second);
        return x != y ? x < y : a.second < b.second;
    });
    const std::size_t shown_regions = std::min(by_time.size(), caps.heatmap_regions);
    std::string heat_rows;
    for (std::size_t i = 0; i < shown_regions; ++i) {
        const RegionAggregate& r = regions[by_time[i].second];
        std::vector<long double> per_rank(shown_ranks, 0);
        for (std::size_t l = 0; l < profile.locations.size(); ++l) {
            const Location& location = profile.locations[l];
            if (location.type != LocationType::cpu_thread) continue;
            const auto at = std::lower_bound(ranks.begin(), ranks.end(), location.rank) - ranks.begin();
            if (static_cast<std::size_t>(at) < shown_ranks)
                per_rank[static_cast<std::size_t>(at)] += r.time_exclusive[l];
        }
        std::string cells;
        for (std::size_t j = 0; j < shown_ranks; ++j)
            cells += std::string(j > 0 ? ", " : "") + format_number(static_cast<double>(per_rank[j]));
        const Region& region = profile.regions[r.region];
        heat_rows += std::string(heat_rows.empty() ? "\n" : ",\n") +
                     "      {\"region\": " + json_string(profile.region_name(r.region)) + ", \"paradigm\": " +
                     json_string(profile.paradigm_names.name(static_cast<std::uint8_t>(region.paradigm))) +
                     ", \"total_s\": " + format_number(by_time[i].first) + ", \"ranks_s\": [" + cells + "]}";
    }

    // What was cut, for people.
    std::vector<std::string> cut;
    if (selection.size() < callpaths) {
        long double left_out = 0, all = 0;
        for (std::size_t cp = 0; cp < callpaths; ++cp) {
            all += exclusive_total[cp];
            if (!kept[cp]) left_out += exclusive_total[cp];
        }
        cut.push_back("call paths: the " + std::to_string(selection.size()) +
                      " with most inclusive time (with their callers) of " + std::to_string(callpaths) +
                      " (caps.callpaths); the " + std::to_string(callpaths - selection.size()) +
                      " left out hold " + text_seconds(static_cast<double>(left_out)) + " of exclusive time" +
                      (all > 0 ? " (" + text_percent(static_cast<double>(left_out / all)) + " of all)" : "") +
                      "; loadbalance.csv and profile.cubex have every call path");
    }
    if (shown_locations < scope.size())
        cut.push_back("locations: values on the first " + std::to_string(shown_locations) + " of " +
                      std::to_string(scope.size()) +
                      " CPU threads and GPU streams (caps.locations, in the profile's order); sum, mean, "
                      "largest and smallest are over all of them");
    if (with_values < selection.size())
        cut.push_back("values: per-location values for the first " + std::to_string(with_values) +
                      " call paths by inclusive time (caps.values); the other " +
                      std::to_string(selection.size() - with_values) +
                      " have sum, mean, largest and smallest only");
    if (shown_regions < by_time.size())
        cut.push_back("heatmap: the " + std::to_string(shown_regions) +
                      " regions with most exclusive time of " + std::to_string(by_time.size()) +
                      " with any (caps.heatmap_regions)");
    if (shown_ranks < ranks.size())
        cut.push_back("heatmap: the first " + std::to_string(shown_ranks) + " of " +
                      std::to_string(ranks.size()) + " ranks (caps.heatmap_ranks)");

    std::string t = "{\n";
    t += "  \"report\": \"calltree\",\n";
    t += "  \"definitions\": " + std::string(definitions) + ",\n";
    t += "  \"caps\": {\"callpaths\": " + std::to_string(caps.callpaths) +
         ", \"locations\": " + std::to_string(caps.locations) +
         ", \"values\": " + std::to_string(caps.values) +
         ", \"heatmap_regions\": " + std::to_string(caps.heatmap_regions) +
         ", \"heatmap_ranks\": " + std::to_string(caps.heatmap_ranks) + "},\n";
    t += "  \"callpaths_total\": " + std::to_string(callpaths) + ",\n";
    t += "  \"locations_total\": " + std::to_string(scope.size()) + ",\n";
    t += "  \"shown_locations\": " + std::to_string(shown_locations) + ",\n";
    t += "  \"cut\": [";
    for (std::size_t i = 0; i < cut.size(); ++i) t += std::string(i > 0 ? ", " : "") + json_string(cut[i]);
    t += "],\n";
    t += "  \"metrics\": [";
    for (std::size_t m = 0; m < metrics.size(); ++m)
        t += std::string(m > 0 ? ",\n" : "\n") + "    {\"name\": " + json_string(metrics[m]->name) +
             ", \"unit\": " + json_string(metrics[m]->unit) +
             ", \"description\": " + json_string(metrics[m]->description) +
             ", \"integral\": " + (metrics[m]->integral ? "true" : "false") + "}";
    t += "\n  ],\n";
    t += "  \"locations\": [";
    bool first = true;
    for (std::size_t l : listed) {
        const Location& location = profile.locations[l];
        t += std::string(first ? "\n" : ",\n") + "    {\"location\": " + std::to_string(l) +
             ", \"rank\": " + std::to_string(location.rank) +
             ", \"thread\": " + std::to_string(location.thread) + ", \"type\": \"" +
             location_type(location.type) + "\", \"name\": " + json_string(profile.location_name(l)) + "}";
        first = false;
    }
    t += std::string(first ? "" : "\n  ") + "],\n";
    t += "  \"callpaths\": [" + rows + (rows.empty() ? "" : "\n  ") + "],\n";
    t += "  \"heatmap\": {\"metric\": \"time_exclusive\", \"ranks_total\": " + std::to_string(ranks.size()) +
         ", \"regions_total\": " + std::to_string(by_time.size()) + ", \"ranks\": [";
    for (std::size_t j = 0; j < shown_ranks; ++j)
        t += std::string(j > 0 ? ", " : "") + std::to_string(ranks[j]);
    t += "],\n    \"rows\": [" + heat_rows + (heat_rows.empty() ? "" : "\n    ") + "]}\n";
    t += "}\n";
    return t;
}

}  // namespace strata::analysis
