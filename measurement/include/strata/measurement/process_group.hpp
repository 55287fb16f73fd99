// SPDX-License-Identifier: BSD-3-Clause
// The processes of the measured job, as a multi-process adapter (MPI) sees them.
//
// The core never calls MPI itself.  The MPI adapter hands it a ProcessGroup
// after MPI_Init and the core uses it for what the ranks must agree on: the
// experiment directory, the unification of definitions (a tree reduction),
// the OTF2 archive (its collective operations) and the profile.  Tests use an
// in-process implementation with one thread per rank.
#pragma once

#include <cstddef>

#include "strata/measurement/types.hpp"

namespace strata::events {

class ProcessGroup {
public:
    virtual ~ProcessGroup() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual void barrier() = 0;
    /// `bytes` bytes at `data` from `root` to every rank.
    virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
    /// Each rank's `bytes` bytes (the same size everywhere), in rank order into `out` on `root`.
    virtual void gather(const void* in, std::size_t bytes, void* out, int root) = 0;
    /// Rank r's counts[r] bytes, in rank order into `out` on `root` (counts needed on root only).
    virtual void gatherv(const void* in, std::size_t bytes, void* out, const std::size_t* counts, int root) = 0;
    /// `bytes` bytes for each rank, in rank order from `in` on `root`, to `out` on every rank.
    virtual void scatter(const void* in, std::size_t bytes, void* out, int root) = 0;
    /// counts[r] bytes for rank r from `in` on `root` to `out` (`bytes` long) on every rank.
    virtual void scatterv(const void* in, const std::size_t* counts, void* out, std::size_t bytes, int root) = 0;
    /// Blocking point-to-point transfers (tree reductions); sizes must match.
    virtual void send(const void* data, std::size_t bytes, int peer) = 0;
    virtual void receive(void* data, std::size_t bytes, int peer) = 0;
    /// The MPI communicator behind the group (an MPI_Comm*), for MPI-IO; nullptr if none.
    virtual const void* native_communicator() const { return nullptr; }
};

/// Called by the MPI adapter right after MPI_Init on every rank: the ranks
/// agree on the experiment directory and open the trace archive together.
/// `group` must stay valid until end_multi_process() returns.
STRATA_API void begin_multi_process(ProcessGroup* group);

/// Called by the MPI adapter right before MPI_Finalize on every rank: stops
/// recording and writes the experiment of all ranks collectively.
STRATA_API void end_multi_process();

/// Called on one rank that cannot finish with the others (MPI_Abort): it
/// writes what it recorded alone, into rank-<r>/ of the experiment, with
/// `reason` in the INCOMPLETE file there.  Fatal signals and an exit without
/// MPI_Finalize take the same path by themselves.
STRATA_API void abort_multi_process(const char* reason);

}  // namespace strata::events
