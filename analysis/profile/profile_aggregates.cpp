// SPDX-License-Identifier: BSD-3-Clause
// Queries over a Profile: call-path names, child lists, per-region and
// per-location sums (see profile_aggregates.hpp).
#include "profile/profile_aggregates.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace strata::analysis {

std::string callpath_label(const Profile& profile, std::size_t callpath) {
    const CallPath& cp = profile.callpaths[callpath];
    if (!cp.is_parameter()) return profile.region_name(cp.region);
    const std::string& name =
        profile.strings[profile.parameters[static_cast<std::size_t>(cp.parameter)].name];
    if (cp.string_value >= 0) return name + "=" + profile.strings[static_cast<std::size_t>(cp.string_value)];
    return name + "=" + std::to_string(cp.int_value);
}

std::string elision_label(std::size_t levels) {
    return "...(" + std::to_string(levels) + " levels)...";
}

std::size_t PathNames::add(std::int64_t parent, std::string label) {
    const std::size_t id = label_.size();
    const std::size_t depth = parent < 0 ? 0 : depth_[static_cast<std::size_t>(parent)] + 1;
    parent_.push_back(parent);
    depth_.push_back(depth);
    prefix_end_.push_back(depth < labels_kept_at_each_end ? id
                                                          : prefix_end_[static_cast<std::size_t>(parent)]);
    label_.push_back(std::move(label));
    return id;
}

std::string PathNames::name(std::size_t node) const {
    // The labels to print, from the node upwards: all of them, or the last
    // ones, the elision, and the first ones (from the kept beginning's end up).
    std::vector<const std::string*> up;
    std::string elision;
    const std::size_t labels = depth_[node] + 1;
    std::int64_t at = static_cast<std::int64_t>(node);
    if (labels > max_labels_in_name) {
        for (std::size_t i = 0; i < labels_kept_at_each_end; ++i) {
            up.push_back(&label_[static_cast<std::size_t>(at)]);
            at = parent_[static_cast<std::size_t>(at)];
        }
        elision = elision_label(labels - 2 * labels_kept_at_each_end);
        up.push_back(&elision);
        at = static_cast<std::int64_t>(prefix_end_[node]);
    }
    for (; at >= 0; at = parent_[static_cast<std::size_t>(at)])
        up.push_back(&label_[static_cast<std::size_t>(at)]);
    std::string name;
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
        if (!name.empty()) name += '/';
        name += **it;
    }
    return name;
}

std::string callpath_name(const Profile& profile, std::size_t callpath) {
    std::vector<std::size_t> chain;
    for (std::int64_t i = static_cast<std::int64_t>(callpath); i >= 0; i = profile.callpaths[i].parent)
        chain.push_back(static_cast<std::size_t>(i));  // read_profile() ruled out cycles
    PathNames names;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        names.add(static_cast<std::int64_t>(names.size()) - 1, callpath_label(profile, *it));
    return names.name(names.size() - 1);
}

std::vector<std::string> callpath_names(const Profile& profile) {
    // Parents before children (the file may list them in any order).
    const CallTreeIndex tree = index_call_tree(profile);
    PathNames names;
    std::vector<std::size_t> node_of(profile.callpaths.size());
    std::vector<std::size_t> stack(tree.roots.rbegin(), tree.roots.rend());
    while (!stack.empty()) {
        const std::size_t cp = stack.back();
        stack.pop_back();
        const std::int64_t parent = profile.callpaths[cp].parent;
        node_of[cp] =
            names.add(parent < 0 ? -1 : static_cast<std::int64_t>(node_of[static_cast<std::size_t>(parent)]),
                      callpath_label(profile, cp));
        stack.insert(stack.end(), tree.children[cp].rbegin(), tree.children[cp].rend());
    }
    std::vector<std::string> all(profile.callpaths.size());
    for (std::size_t cp = 0; cp < all.size(); ++cp) all[cp] = names.name(node_of[cp]);
    return all;
}

CallTreeIndex index_call_tree(const Profile& profile) {
    const std::size_t n = profile.callpaths.size();
    CallTreeIndex index;
    index.children.resize(n);
    index.depth.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t parent = profile.callpaths[i].parent;
        if (parent < 0)
            index.roots.push_back(i);
        else
            index.children[static_cast<std::size_t>(parent)].push_back(i);
    }
    // Depths top-down, so that the order of the rows does not matter.
    std::vector<std::size_t> stack(index.roots.rbegin(), index.roots.rend());
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        for (std::size_t child : index.children[i]) {
            index.depth[child] = index.depth[i] + 1;
            stack.push_back(child);
        }
    }
    return index;
}

std::uint64_t RegionAggregate::total_visits() const {
    return std::accumulate(visits.begin(), visits.end(), std::uint64_t{0});
}

double RegionAggregate::total_time_inclusive() const {
    return std::accumulate(time_inclusive.begin(), time_inclusive.end(), 0.0);
}

double RegionAggregate::total_time_exclusive() const {
    return std::accumulate(time_exclusive.begin(), time_exclusive.end(), 0.0);
}

namespace {

/// The metric `name` with every location's column (these sums need the
/// whole matrix, not a column slice).
const Metric& whole_metric(const Profile& profile, const char* name) {
    const Metric& metric = profile.metric(name);
    if (!metric.whole(profile.locations.size()))
        throw ProfileError(profile.path + ": /metrics/" + name + " was read as a column slice, not whole");
    return metric;
}

}  // namespace

// A depth-first walk that counts, per region, the call paths open above.
std::vector<bool> outermost_of_region(const Profile& profile, const CallTreeIndex& tree) {
    std::vector<bool> outermost(profile.callpaths.size(), false);
    std::vector<std::uint32_t> open(profile.regions.size(), 0);
    // (call path, false) enters it, (call path, true) leaves it.
    std::vector<std::pair<std::size_t, bool>> stack;
    for (auto root = tree.roots.rbegin(); root != tree.roots.rend(); ++root) stack.emplace_back(*root, false);
    while (!stack.empty()) {
        const auto [i, leaving] = stack.back();
        stack.pop_back();
        const std::uint32_t region = profile.callpaths[i].region;
        if (leaving) {
            --open[region];
            continue;
        }
        outermost[i] = open[region] == 0;
        ++open[region];
        stack.emplace_back(i, true);
        for (auto child = tree.children[i].rbegin(); child != tree.children[i].rend(); ++child)
            stack.emplace_back(*child, false);
    }
    return outermost;
}

std::vector<RegionAggregate> aggregate_regions(const Profile& profile) {
    const Metric& visits = whole_metric(profile, "visits");
    const Metric& inclusive = whole_metric(profile, "time_inclusive");
    const Metric& exclusive = whole_metric(profile, "time_exclusive");
    const std::size_t locations = profile.locations.size();

    std::vector<RegionAggregate> regions(profile.regions.size());
    for (std::size_t r = 0; r < regions.size(); ++r) {
        regions[r].region = static_cast<std::uint32_t>(r);
        regions[r].visits.assign(locations, 0);
        regions[r].time_inclusive.assign(locations, 0.0);
        regions[r].time_exclusive.assign(locations, 0.0);
    }
    const std::vector<bool> outermost = outermost_of_region(profile, index_call_tree(profile));
    for (std::size_t cp = 0; cp < profile.callpaths.size(); ++cp) {
        const CallPath& path = profile.callpaths[cp];
        RegionAggregate& aggregate = regions[path.region];
        ++aggregate.callpaths;
        for (std::size_t l = 0; l < locations; ++l) {
            if (!path.is_parameter()) aggregate.visits[l] += visits.count_at(cp, l);
            if (outermost[cp]) aggregate.time_inclusive[l] += inclusive.at(cp, l);
            aggregate.time_exclusive[l] += exclusive.at(cp, l);
        }
    }
    return regions;
}

std::vector<LocationTotals> location_totals(const Profile& profile) {
    const Metric& visits = whole_metric(profile, "visits");
    const Metric& inclusive = whole_metric(profile, "time_inclusive");
    const Metric& exclusive = whole_metric(profile, "time_exclusive");
    std::vector<LocationTotals> totals(profile.locations.size());
    for (std::size_t cp = 0; cp < profile.callpaths.size(); ++cp) {
        const CallPath& path = profile.callpaths[cp];
        for (std::size_t l = 0; l < totals.size(); ++l) {
            if (!path.is_parameter()) totals[l].visits += visits.count_at(cp, l);
            if (path.is_root()) totals[l].time_inclusive += inclusive.at(cp, l);
            totals[l].time_exclusive += exclusive.at(cp, l);
        }
    }
    return totals;
}

double total_time(const Profile& profile) {
    double total = 0.0;
    for (const LocationTotals& location : location_totals(profile)) total += location.time_inclusive;
    return total;
}

}  // namespace strata::analysis
