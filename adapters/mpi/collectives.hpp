// SPDX-License-Identifier: BSD-3-Clause
// Blocking collectives: the bytes each rank sends and receives, as Score-P
// counts them (README.md has the table), for MpiCollectiveBegin/End.
//
//   MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)     (generated)
//     CollectiveArgs a; a.sendbuf = sendbuf; ... a.comm = comm;   every argument by its spec role
//     const CollectiveRecord c = collective_bytes<CollectiveOp::allreduce>(a);
//     const RegionHandle r = begin_collective(Function::MPI_Allreduce);   enter, MpiCollectiveBegin
//     PMPI_Allreduce(...)
//     end_collective(r, c);                                             MpiCollectiveEnd, exit
//
// The arguments a collective does not have keep their defaults.  Nonblocking
// collectives use the same counts (icollective_posted, p2p_events.hpp);
// neighbourhood collectives have no OTF2 operation and are regions only.
#pragma once

#include "mpi_adapter.hpp"

namespace strata::mpi {

/// A collective's arguments, by their role in mpi_functions.spec.
struct CollectiveArgs {
    const void* buf = nullptr;
    const void* sendbuf = nullptr;
    const void* recvbuf = nullptr;
    int count = 0;
    int sendcount = 0;
    int recvcount = 0;
    const int* sendcounts = nullptr;
    const int* recvcounts = nullptr;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_Datatype sendtype = MPI_DATATYPE_NULL;
    MPI_Datatype recvtype = MPI_DATATYPE_NULL;
    const MPI_Datatype* sendtypes = nullptr;
    const MPI_Datatype* recvtypes = nullptr;
    int root = -1;
    MPI_Comm comm = MPI_COMM_NULL;
};

/// What MpiCollectiveEnd says.
struct CollectiveRecord {
    events::CollectiveOp op = events::CollectiveOp::barrier;
    events::CommunicatorHandle comm = 0;
    std::int32_t root =
        -1;  ///< -1: none (rootless operations; MPI_ROOT and MPI_PROC_NULL of intercommunicators)
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
};

/// The record of `op` called with `a` (before the PMPI call: the arguments are
/// inputs); defined in collective_bytes.hpp, included at the end of this file.
template <events::CollectiveOp op>
CollectiveRecord collective_bytes(const CollectiveArgs& a);

/// detail::begin(f) and MpiCollectiveBegin in one.
inline RegionHandle begin_collective(Function f) {
    detail::inside_strata = true;
    const RegionHandle region = detail::region_of(f);
    if (__builtin_expect(region != detail::filtered_region, 1)) {
        events::enter_mpi_collective_begin(region);
    } else {
        events::mpi_collective_begin();
    }
    return region;
}
/// MpiCollectiveEnd with `c`, then detail::end(region).
inline void end_collective(RegionHandle region, const CollectiveRecord& c) {
    if (__builtin_expect(region != detail::filtered_region, 1)) {
        events::mpi_collective_end_exit(region, c.op, c.comm, c.root, c.sent, c.received);
    } else {
        events::mpi_collective_end(c.op, c.comm, c.root, c.sent, c.received);
    }
    detail::inside_strata = false;
}

}  // namespace strata::mpi

#include "collective_bytes.hpp"
