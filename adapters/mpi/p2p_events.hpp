// SPDX-License-Identifier: BSD-3-Clause
// The point-to-point message events, called by the generated wrappers of the
// spec's p2p and request functions (generate_wrappers.py picks the call from
// the argument roles).  All take C handles; the Fortran wrappers convert first
// (mpi_handles.hpp).
//
//   MPI_Send/Bsend/Ssend/Rsend   begin_send: enter and MpiSend before PMPI
//   MPI_Recv                     end_recv: MpiRecv from the status and exit after PMPI
//   MPI_Mrecv                    on_recv after PMPI, from the status -> MpiRecv
//   MPI_Sendrecv(_replace)       begin_send and end_recv
//   MPI_Isend/Ibsend/Issend/Irsend  isend_begin before (event), isend_end after (table)  -> MpiIsend
//   MPI_Irecv, MPI_Imrecv        irecv_posted after                 -> MpiIrecvRequest
//   MPI_Send_init/..., Recv_init persistent_*_created after (table only)
//   MPI_Start, MPI_Startall      start_requests before              -> MpiIsend / MpiIrecvRequest
//   MPI_Cancel, MPI_Request_free cancel_requested / request_freed before
//   MPI_Mprobe, MPI_Improbe      message_matched after (which communicator the message came on)
//   completion (MPI_Wait*, MPI_Test*): request_completion.hpp
//
// Peers are ranks in the communicator; MPI_PROC_NULL peers produce no events.
// Received bytes come from the status: PMPI_Get_count with MPI_BYTE (Open MPI
// and MPICH keep the byte count there, whatever the datatype, so this also
// works when the receive's datatype has been freed by completion time); with
// Open MPI, once the first receives agreed with it, its status field directly.
// Sent bytes: count × datatype_size() (datatype_sizes.hpp).
#pragma once

#include <atomic>

#include "communicators.hpp"
#include "datatype_sizes.hpp"
#include "mpi_adapter.hpp"
#include "request_table.hpp"

namespace strata::mpi {

struct CollectiveRecord;

/// Bytes of `count` elements of `type`.
inline std::uint64_t message_bytes(int count, MPI_Datatype type) {
    return count > 0 ? static_cast<std::uint64_t>(count) * datatype_size(type) : 0;
}
/// Bytes a status says were received, asked from MPI (PMPI_Get_count).
std::uint64_t received_bytes_from_mpi(const MPI_Status* status);

#if defined(OPEN_MPI)
namespace detail {
// Open MPI keeps the received bytes in the status (_ucount), which saves a
// library call per receive.  The field is not part of the MPI standard, so the
// first receives of the process compare it with PMPI_Get_count; a single
// difference and MPI is asked from then on.
inline constexpr int kStatusBytesTrusted = 16;
extern std::atomic<int> status_bytes_agreed;  ///< kStatusBytesTrusted: use _ucount; -1: never
std::uint64_t received_bytes_checked(const MPI_Status* status);
}  // namespace detail
#endif

/// Bytes a status says were received.
inline std::uint64_t received_bytes(const MPI_Status* status) {
#if defined(OPEN_MPI)
    if (__builtin_expect(detail::status_bytes_agreed.load(std::memory_order_relaxed) == detail::kStatusBytesTrusted,
                         1))
        return status->_ucount;
    return detail::received_bytes_checked(status);
#else
    return received_bytes_from_mpi(status);
#endif
}

/// A status of a receive that got a message (not one from MPI_PROC_NULL).
inline bool from_a_peer(const MPI_Status* status) {
    return status->MPI_SOURCE != MPI_PROC_NULL && status->MPI_SOURCE >= 0;
}

/// detail::begin(f) and MpiSend (none to MPI_PROC_NULL) in one (MPI_Send, MPI_Sendrecv, ...).
inline RegionHandle begin_send(Function f, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    detail::inside_strata = true;
    const RegionHandle region = detail::region_of(f);
    if (dest == MPI_PROC_NULL) {
        if (region != detail::filtered_region) events::enter(region);
    } else if (__builtin_expect(region != detail::filtered_region, 1)) {
        events::enter_mpi_send(region, communicator_handle(comm), dest, tag, message_bytes(count, type));
    } else {
        events::mpi_send(communicator_handle(comm), dest, tag, message_bytes(count, type));
    }
    return region;
}

/// MpiRecv from the status when `received` (none from MPI_PROC_NULL), then
/// detail::end(region) (MPI_Recv, MPI_Sendrecv, ...).
inline void end_recv(RegionHandle region, bool received, MPI_Comm comm, const MPI_Status* status) {
    if (received && from_a_peer(status)) {
        if (__builtin_expect(region != detail::filtered_region, 1)) {
            events::mpi_recv_exit(region, communicator_handle(comm), status->MPI_SOURCE, status->MPI_TAG,
                                  received_bytes(status));
        } else {
            events::mpi_recv(communicator_handle(comm), status->MPI_SOURCE, status->MPI_TAG, received_bytes(status));
        }
    } else if (region != detail::filtered_region) {
        events::exit(region);
    }
    detail::inside_strata = false;
}
/// MpiRecv from the status (MPI_Mrecv: the communicator of the matched message).
void on_recv(events::CommunicatorHandle comm, const MPI_Status* status);

/// MpiIsend with a new request id; the entry for isend_end (id 0: MPI_PROC_NULL, nothing to track).
RequestEntry isend_begin(int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void isend_end(const RequestEntry& entry, MPI_Request request);

void irecv_posted(int source, MPI_Comm comm, MPI_Request request);
/// A nonblocking collective (MPI_Iallreduce, ...) got `request`: its request
/// event now, its completion event (with `collective`'s bytes) at the Wait/Test.
void icollective_posted(const CollectiveRecord& collective, MPI_Request request);
/// MPI_Imrecv: `comm` from message_taken (0: MPI_MESSAGE_NO_PROC, nothing to track).
void irecv_posted(events::CommunicatorHandle comm, MPI_Request request);

void persistent_send_created(int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request request);
void persistent_recv_created(int source, MPI_Comm comm, MPI_Request request);
void start_requests(int n, const MPI_Request* requests);
void start_fortran_requests(int n, const void* requests);

void cancel_requested(MPI_Request request);
void request_freed(MPI_Request request);

void message_matched(MPI_Comm comm, MPI_Message message);
/// The communicator of a matched message, forgotten now (0 for MPI_MESSAGE_NO_PROC).
events::CommunicatorHandle message_taken(MPI_Message message);

}  // namespace strata::mpi
