// SPDX-License-Identifier: BSD-3-Clause
// calltree.json: the call tree of the whole profile with every metric, per
// call path and location, as Cube shows it (call tree x system tree), and
// the region x rank exclusive times of the largest regions; report.html
// draws its call tree, the distribution over locations and the heatmap
// from it.
//
//   profile.h5 (every column, read by analysis rank 0)
//        |  call paths by inclusive time, with their callers, at most caps.callpaths
//        v
//   callpaths[]  in tree order: label, path, region, paradigm; per metric the
//                sum, the mean over the locations that take part, the 3 largest
//                and smallest locations, and the value on each of the first
//                caps.locations locations (while caps.values lasts)
//   heatmap      the caps.heatmap_regions regions with most exclusive time,
//                per rank (its CPU threads summed), the first caps.heatmap_ranks ranks
//
// Made from the whole profile on one rank, in a fixed order with the
// reports' number formats: the same bytes for any number of analysis ranks.
// Every cut is named in "cut", with what it left out.
#pragma once

#include <cstddef>
#include <string>

#include "profile/profile.hpp"

namespace strata::analysis {

/// The report's file name.
inline constexpr const char* calltree_file_name = "calltree.json";

/// How much of a profile calltree.json holds (its size stays bounded for any run).
struct CallTreeCaps {
    std::size_t callpaths = 1000;      ///< call paths, the largest by inclusive time and their callers
    std::size_t locations = 256;       ///< locations with a value each (the first, in the profile's order)
    std::size_t values = 500000;       ///< per-location values in all (call paths x locations x metrics)
    std::size_t heatmap_regions = 30;  ///< regions in the heatmap, by exclusive time
    std::size_t heatmap_ranks = 256;   ///< ranks in the heatmap (the first)
};

/// calltree.json of `profile` (read whole); throws ProfileError when a time metric is missing.
std::string calltree_json(const Profile& profile, const CallTreeCaps& caps = {});

}  // namespace strata::analysis
