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

/// The labels from the root down to `callpath`, joined by '/'
/// (e.g. "main/compute/compute").
std::string callpath_name(const Profile& profile, std::size_t callpath);

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
    std::size_t callpaths = 0;  ///< call paths of the region (parameter nodes included); 0: not in the call tree
    std::vector<std::uint64_t> visits;   ///< per location; parameter nodes excluded
    std::vector<double> time_inclusive;  ///< per location; only call paths not nested in one of the same region
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
