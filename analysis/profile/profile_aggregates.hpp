// SPDX-License-Identifier: BSD-3-Clause
// Queries over a Profile: call-path names, the call tree's child lists, sums
// per region and per location.
//
//   main                       visits 1   incl 10   excl 2
//    ├─ compute                visits 2   incl  6   excl 3   <- outermost 'compute'
//    │   └─ compute            visits 2   incl  3   excl 2   <- nested in 'compute':
//    │       └─ n=4            visits 1   incl  1   excl 1      its inclusive time is
//    └─ io                     visits 1   incl  2   excl 2      already in the one above
//
//   region compute: visits 2+2 = 4 (parameter nodes are not visits of the
//   region), exclusive 3+2+1 = 6 (a parameter node's own time counts toward
//   its region), inclusive 6 (outermost call paths only, so recursion is not
//   counted twice).
//
// They need the metrics `visits`, `time_inclusive` and `time_exclusive`,
// read whole; a profile without one of them (or with a column slice of one)
// gives a ProfileError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace strata::analysis {

/// The last element of a call path: its region's name, or "name=value" for
/// a parameter node (e.g. "iterations=10", "mode=fast").
std::string callpath_label(const Profile& profile, std::size_t callpath);

/// Call-path names stay bounded, so that the reports of a recursion 10^5
/// deep are linear in its depth, not quadratic: a path of more than
/// `max_labels_in_name` labels keeps its first and last
/// `labels_kept_at_each_end` and shows the others as one label,
/// "...(N levels)..." (main/f/f/.../...(99952 levels).../f/MPI_Recv).
inline constexpr std::size_t max_labels_in_name = 64;
inline constexpr std::size_t labels_kept_at_each_end = 24;

/// The label that stands for `levels` labels left out of a name.
std::string elision_label(std::size_t levels);

/// The bounded names of the nodes of a forest (the call paths of a profile
/// or of a trace), built as nodes are added: time and memory per node are
/// bounded, whatever the depth.
class PathNames {
public:
    /// Adds the next node (ids count from 0) below `parent` (-1: a root; added before) with its label.
    std::size_t add(std::int64_t parent, std::string label);
    /// The labels from the root down to `node`, joined by '/', the middle left out beyond max_labels_in_name.
    std::string name(std::size_t node) const;
    std::size_t size() const { return label_.size(); }

private:
    std::vector<std::int64_t> parent_;
    std::vector<std::size_t> depth_;       ///< 0 for a root
    std::vector<std::size_t> prefix_end_;  ///< the last node of the kept beginning of its name (an ancestor)
    std::vector<std::string> label_;
};

/// The labels from the root down to `callpath`, joined by '/'
/// (e.g. "main/compute/compute"), bounded as PathNames does.
std::string callpath_name(const Profile& profile, std::size_t callpath);

/// callpath_name() of every call path, in time and memory linear in their number.
std::vector<std::string> callpath_names(const Profile& profile);

/// The call tree as child lists; the file may list a parent after its children.
struct CallTreeIndex {
    std::vector<std::size_t> roots;                  ///< call paths without a parent, by index
    std::vector<std::vector<std::size_t>> children;  ///< per call path, by index
    std::vector<std::size_t> depth;                  ///< per call path: 0 for a root
};

/// Builds the child lists and depths of `profile`'s call tree.
CallTreeIndex index_call_tree(const Profile& profile);

/// For every call path: true when no ancestor belongs to the same region (its
/// inclusive time is not already in an enclosing call path of its region).
std::vector<bool> outermost_of_region(const Profile& profile, const CallTreeIndex& tree);

/// Sums over the call paths of one region, one value per location.
struct RegionAggregate {
    std::uint32_t region = 0;
    std::size_t callpaths =
        0;  ///< call paths of the region (parameter nodes included); 0: not in the call tree
    std::vector<std::uint64_t> visits;  ///< per location; parameter nodes excluded
    std::vector<double>
        time_inclusive;  ///< per location; only call paths not nested in one of the same region
    std::vector<double> time_exclusive;  ///< per location; parameter nodes included

    /// Visits summed over locations.
    std::uint64_t total_visits() const;
    /// Inclusive time summed over locations (s).
    double total_time_inclusive() const;
    /// Exclusive time summed over locations (s).
    double total_time_exclusive() const;
};

/// One aggregate per region, indexed by region (regions on no call path
/// have `callpaths == 0` and zeros).
std::vector<RegionAggregate> aggregate_regions(const Profile& profile);

/// Sums over all call paths of one location.
struct LocationTotals {
    std::uint64_t visits = 0;     ///< region visits (parameter nodes excluded)
    double time_inclusive = 0.0;  ///< sum of the root call paths' inclusive time (s)
    double time_exclusive = 0.0;  ///< sum of every call path's exclusive time (s)
};

/// One entry per location, indexed by location.
std::vector<LocationTotals> location_totals(const Profile& profile);

/// The profile's total time: the root call paths' inclusive time summed
/// over all locations (s).
double total_time(const Profile& profile);

}  // namespace strata::analysis
