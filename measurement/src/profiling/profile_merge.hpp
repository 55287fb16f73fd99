// SPDX-License-Identifier: BSD-3-Clause
// Merging the profiles of several ranks into one (rank 0 writes profile.h5).
//
// All ranks share the unified definitions, so only call paths, locations and
// metric columns travel.  This gathers every rank's columns on rank 0: fine
// for hundreds of ranks; the collective parallel-HDF5 write that replaces it
// at scale is the plan in share/doc/profile-format.md.
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

}  // namespace strata::profiling
