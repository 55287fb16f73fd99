// SPDX-License-Identifier: BSD-3-Clause
// Communicators: MPI_Comm -> the core's CommunicatorHandle, with the rank and
// size the collective byte counts need.
//
//   MPI_Init        after_init: MPI_COMM_WORLD (0, 0), MPI_COMM_SELF (rank, 1)
//   MPI_Comm_split  (and every function with a newcomm argument, recorded or not)
//     PMPI_Comm_split -> communicator_created(parent, new):
//       rank 0 of the new communicator takes the next number of its counter (2, 3, ...)
//       PMPI_Bcast (world rank of rank 0, number) over the new communicator
//       every member: world ranks of all members -> events::define_communicator
//   MPI_Comm_free   communicator_freed before PMPI_Comm_free
//   MPI_Send(comm)  lookup(comm): MPI_COMM_WORLD without a table look-up; others
//                   in a table read without a lock (a sequence lock; writers are rare)
//
//   MPI_Comm_idup   communicator_idup(parent, new) right after PMPI_Comm_idup, with
//                   no communication (a collective there could deadlock): the
//                   members are the parent's, and the id follows from the parent's
//                   id and the number of idups on it so far, which every member
//                   counts alike (MPI orders collectives on a communicator)
//
// A communicator the table does not know (created before Strata saw MPI_Init,
// by PMPI directly, or inside Strata) cannot be defined later: that would need
// a collective inside a point-to-point call.  Its events name the
// communicator "unknown communicator" (job-wide id (2^32-1, 2^32-1), no
// members); such uses are counted and reported at MPI_Finalize.
//
// Intercommunicators: the definition's members are the local group.  Their id
// is agreed over an intracommunicator of the local group that Strata keeps for
// each intercommunicator (a duplicate of the local communicator the creating
// call names, or a split of the parent intercommunicator's one).
#pragma once

#include <cstdint>

#include "mpi_adapter.hpp"

namespace strata::mpi {

/// What the wrappers need to know about a communicator.
struct CommInfo {
    events::CommunicatorHandle handle = 0;
    int rank = 0;         ///< in the (local) group
    int size = 0;         ///< of the (local) group
    int remote_size = 0;  ///< intercommunicators only
    bool inter = false;
    MPI_Comm local = MPI_COMM_NULL;  ///< intercommunicators: Strata's intracommunicator of the local group
    std::uint32_t id_root = 0, id_sequence = 0;  ///< the job-wide id (events::CommunicatorSpec)
    /// MPI_Comm_idup calls on it so far: the same count on every member.
    mutable std::uint32_t idups = 0;
};

namespace detail {
/// MPI_COMM_WORLD, filled by define_world_and_self().
extern CommInfo world_info;
/// Looks a communicator other than MPI_COMM_WORLD up; nullptr when unknown.
const CommInfo* find_communicator(MPI_Comm comm);
/// The handle of "unknown communicator" (defined on first use); counts the use.
events::CommunicatorHandle unknown_communicator();
}  // namespace detail

/// The communicator's handle for an event ("unknown communicator" when it is not known).
inline events::CommunicatorHandle communicator_handle(MPI_Comm comm) {
    if (comm == MPI_COMM_WORLD) return detail::world_info.handle;
    const CommInfo* info = detail::find_communicator(comm);
    return info != nullptr ? info->handle : detail::unknown_communicator();
}

/// Rank, size and handle of a communicator; for an unknown one they are asked
/// from MPI into `unknown` and the handle is "unknown communicator".
const CommInfo& communicator_info(MPI_Comm comm, CommInfo& unknown);

/// MPI_COMM_WORLD and MPI_COMM_SELF (after PMPI_Init).
void define_world_and_self();

/// After a call that made `created` (MPI_COMM_NULL on ranks that got none) from
/// `parent` (the call's communicator argument; MPI_COMM_NULL when it has none).
/// Collective over the members of `parent` (or of its local group); `function`
/// names the definition.
void communicator_created(const char* function, MPI_Comm parent, MPI_Comm created);

/// After MPI_Comm_idup made `created` from `parent` (the new handle is set,
/// though not usable before the request completes); no communication.
void communicator_idup(MPI_Comm parent, MPI_Comm created);

/// Before MPI_Comm_free / MPI_Comm_disconnect.
void communicator_freed(MPI_Comm comm);

/// Number of events that named a communicator Strata did not know.
std::uint64_t unknown_communicator_uses();

}  // namespace strata::mpi
