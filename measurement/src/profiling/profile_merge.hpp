// SPDX-License-Identifier: BSD-3-Clause
// Merging the profiles of several ranks into one (rank 0 writes profile.h5).
//
// All ranks share the unified definitions, so only call paths, locations and
// metric columns travel.  Two ways:
//
//   collective (parallel HDF5)   job_callpaths(): the ranks' call-path tables
//                                merged over a tree and broadcast, so that every
//                                rank knows the rows; align_to_job(): each rank
//                                re-orders its rows and places its columns; then
//                                every rank writes its own columns into one file.
//   gather (fallback)            gather_profiles(): every rank's columns to
//                                rank 0, which writes alone.
#pragma once

#include <string>
#include <vector>

#include "profiling/profile_data.hpp"
#include "strata/measurement/process_group.hpp"

namespace strata::profiling {

/// The call paths, locations (with their names) and metrics of `data`.
std::string serialize_columns(const ProfileData& data);
/// Adds serialised columns of another rank to `into` (same definitions):
/// call paths merged by (parent, region, parameter, value), new location columns.
bool merge_columns(ProfileData& into, const std::string& columns);

/// Collective: rank 0 returns the merged profile of all ranks, the others `mine` unchanged.
ProfileData gather_profiles(ProfileData mine, events::ProcessGroup& group);

/// Collective: the call paths of all ranks, merged by (parent, region,
/// parameter, value) over a hypercube of the ranks (O(log P) steps, as the
/// definitions are) and broadcast; parents come before their children.
std::vector<ProfileData::CallPath> job_callpaths(const ProfileData& mine, events::ProcessGroup& group);

/// Collective: gives `data` the rows `callpaths` (which include all of its own)
/// and its place among the ranks' columns (location_offset, total_locations);
/// also sums dropped_callpaths over the ranks.  False when `callpaths` lacks
/// one of `data`'s call paths (never expected).
bool align_to_job(ProfileData& data, const std::vector<ProfileData::CallPath>& callpaths,
                  events::ProcessGroup& group);

}  // namespace strata::profiling
