// SPDX-License-Identifier: BSD-3-Clause
// Clock offsets of every rank to rank 0, measured by ping-pong (METRICS.md).
//
// Score-P pings every worker from rank 0 in turn (O(P) steps).  Here the ranks
// form a binomial tree (parent of r = r minus its lowest set bit): in round k
// every rank whose lowest set bit is 2^k measures its offset to its parent,
// all pairs of a round at once; then the offsets to rank 0 are summed down
// the tree.  O(log P) rounds; the error of a rank is the sum of the rtt/2 on
// its path, and that sum is stored as the standard deviation.
//
// A child and its parent that read one clock (the same clock domain: one
// host's CLOCK_MONOTONIC, or its TSC where the kernel keeps it synchronised)
// do not ping: their offset is zero by construction, and a measured one would
// only add the noise of the round trip (on an oversubscribed host, microseconds
// that turn correct timestamps into clock-condition violations).  So a job on
// one host is not corrected at all, and on many hosts only the edges of the
// tree that cross hosts are measured.
#pragma once

#include <cstdint>

#include "strata/measurement/process_group.hpp"
#include "strata/measurement/types.hpp"

namespace strata::clock_sync {

/// One synchronisation point: at local time `local_time`, rank 0's clock read
/// local_time + offset (in ticks), give or take `deviation`.
struct Point {
    Ticks local_time = 0;
    std::int64_t offset = 0;
    double deviation = 0;
};

/// Reads this rank's clock (explicit for tests).
using ClockFn = Ticks (*)();

/// Collective over `group`: this rank's offset to rank 0.  `domain` is this
/// rank's timer::clock_domain(): ranks with the same non-zero domain share a
/// clock; 0 shares with nobody.
Point measure(events::ProcessGroup& group, ClockFn clock, std::uint64_t domain, int pings = 10);

}  // namespace strata::clock_sync
