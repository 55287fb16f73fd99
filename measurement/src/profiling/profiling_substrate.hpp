// SPDX-License-Identifier: BSD-3-Clause
// The profiling substrate: one CallTree per location, written to profile.h5.
#pragma once

#include "core/substrate.hpp"
#include "core/unification.hpp"
#include "profiling/profile_data.hpp"

namespace strata::profiling {

const substrate::Callbacks& substrate_callbacks();

/// Merges the call trees of all locations into one ProfileData (rows: call
/// paths merged by region and parameter; columns: locations).  Call after the
/// events have stopped (runtime::finalize).
ProfileData collect();

/// The same with the job's definitions: global region, parameter and string
/// ids, location ids of `rank` (as in the trace).
ProfileData collect(const unification::Unified& defs, int rank);

}  // namespace strata::profiling
