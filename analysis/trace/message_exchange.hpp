// SPDX-License-Identifier: BSD-3-Clause
// The seam between the trace analysis and MPI: the two collective
// operations the replay needs, on byte buffers, and the hand-out of the
// trace's parts to read.  message_exchange_mpi.cpp implements them with
// MPI_Alltoallv, MPI_Gatherv and messages to rank 0 (the only MPI calls of
// the trace analysis); the tests run K shares in one process and move the
// buffers themselves (wait_state_analysis.hpp, analyze_trace_in_process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::analysis::trace {

/// Hands out the units of the read phase (blocks of measured ranks, numbered
/// in rank order) to the analysis ranks.  Handed out on request, a rank on a
/// slower core, or with heavier units, takes fewer: a static split waits for
/// its slowest rank.  Every rank gets its units in ascending order.
class UnitDispenser {
public:
    virtual ~UnitDispenser() = default;
    /// The next unit for this rank; -1 once none is left for it (and from then on).
    virtual std::int64_t next() = 0;
    /// Called between batches of events while a unit is read: the rank that
    /// hands the units out answers the others' requests there.
    virtual void serve() {}
    /// This rank takes no more units (it cannot read them).  Returns the
    /// units it is left with: those no rank took, once every other rank is
    /// done (handed out on request), or the rest of its own (a fixed plan).
    virtual std::vector<std::int64_t> stop() = 0;
};

/// Collective byte exchange among the K analysis ranks.
class Exchange {
public:
    virtual ~Exchange() = default;
    /// This analysis rank and their number.
    virtual std::size_t rank() const = 0;
    virtual std::size_t size() const = 0;
    /// outbox[r] goes to rank r; returns inbox[r], what rank r sent here.  Collective.
    /// (By value: this rank's own part moves to its inbox without a copy.)
    virtual std::vector<std::string> all_to_all(std::vector<std::string> outbox) = 0;
    /// Every rank's `mine`, by rank, on rank 0; empty elsewhere.  Collective.
    virtual std::vector<std::string> gather(const std::string& mine) = 0;
    /// A dispenser of `units` units among the ranks, handed out in `order`
    /// (a permutation of 0 .. units - 1; empty: ascending).  Only rank 0 hands
    /// units out, so only its `order` counts.  Collective.
    virtual std::unique_ptr<UnitDispenser> dispenser(std::int64_t units, std::vector<std::int64_t> order) = 0;
};

}  // namespace strata::analysis::trace
