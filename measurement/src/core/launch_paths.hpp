// SPDX-License-Identifier: BSD-3-Clause
// The host call path of each GPU launch, until its GPU work is recorded.
//
// A CUDA call that launches work enters its region with a correlation id
// (events::enter_correlated); its kernels arrive later, from CUPTI's buffers
// on another thread, with the same id.  The profile puts a kernel's time under
// the call path that launched it: the launching thread's open regions are kept
// here by correlation id, in a table of fixed size (slot = id modulo its size,
// lock-free: a sequence number per slot detects a slot being rewritten).  A
// launch whose kernels come more than kSlots launches later has been
// overwritten: its kernels are profiled at the stream's root, and counted.
#pragma once

#include <cstdint>

#include "strata/measurement/types.hpp"

namespace strata {
struct Location;
}

namespace strata::launch_paths {

/// Regions of a launch path kept; a deeper path keeps its outermost ones.
constexpr std::uint32_t kMaxDepth = 32;

/// Keeps the call path open on `loc` (its inherited part first, recording-off
/// regions left out) for `correlation`.  No-op when memory for the table
/// cannot be had.
void remember(std::uint64_t correlation, const Location& loc);

/// Copies the path kept for `correlation` into `out` (kMaxDepth entries);
/// returns its depth, 0 when none is kept (unknown or overwritten).
std::uint32_t find(std::uint64_t correlation, RegionHandle* out);

/// Launches whose path was no longer (or never) kept when their work arrived.
std::uint64_t not_found();

/// Forgets everything (tests).
void reset();

}  // namespace strata::launch_paths
