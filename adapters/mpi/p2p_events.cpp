// SPDX-License-Identifier: BSD-3-Clause
// Point-to-point message events and the request table (see p2p_events.hpp).
#include "p2p_events.hpp"

#include <atomic>

#include "collectives.hpp"

#include "communicators.hpp"
#include "datatype_sizes.hpp"
#include "mpi_handles.hpp"

namespace strata::mpi {

// --- tables -------------------------------------------------------------------

StripedTable<RequestEntry>& requests() {
    static auto* t = new StripedTable<RequestEntry>();  // never destroyed: wrappers may run during exit
    return *t;
}

StripedTable<MessageEntry>& messages() {
    static auto* t = new StripedTable<MessageEntry>();
    return *t;
}

std::uint32_t this_thread() {
    static std::atomic<std::uint32_t> next{1};
    static __thread std::uint32_t mine __attribute__((tls_model("initial-exec"))) = 0;
    if (__builtin_expect(mine == 0, 0)) mine = next.fetch_add(1, std::memory_order_relaxed);
    return mine;
}

std::uint64_t next_request_id() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

// --- sizes --------------------------------------------------------------------

std::uint64_t received_bytes_from_mpi(const MPI_Status* status) {
    int n = 0;
    PMPI_Get_count(status, MPI_BYTE, &n);
    if (n != MPI_UNDEFINED) return n < 0 ? 0 : static_cast<std::uint64_t>(n);
    MPI_Count large = 0;  // more than INT_MAX bytes
    PMPI_Get_elements_x(status, MPI_BYTE, &large);
    return large < 0 ? 0 : static_cast<std::uint64_t>(large);
}

#if defined(OPEN_MPI)
namespace detail {
std::atomic<int> status_bytes_agreed{0};

std::uint64_t received_bytes_checked(const MPI_Status* status) {
    const std::uint64_t bytes = received_bytes_from_mpi(status);
    const int state = status_bytes_agreed.load(std::memory_order_relaxed);
    if (state >= 0 && state < kStatusBytesTrusted) {
        if (bytes == status->_ucount) {
            int expected = state;
            status_bytes_agreed.compare_exchange_strong(expected, state + 1, std::memory_order_relaxed);
        } else {
            status_bytes_agreed.store(-1, std::memory_order_relaxed);
        }
    }
    return bytes;
}
}  // namespace detail
#endif

// --- blocking -----------------------------------------------------------------

void on_recv(events::CommunicatorHandle comm, const MPI_Status* status) {
    if (!from_a_peer(status)) return;
    events::mpi_recv(comm, status->MPI_SOURCE, status->MPI_TAG, received_bytes(status));
}

// --- nonblocking --------------------------------------------------------------

RequestEntry isend_begin(int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    RequestEntry e;
    if (dest == MPI_PROC_NULL) return e;
    e.id = next_request_id();
    e.kind = RequestEntry::send;
    e.flags = RequestEntry::active;
    e.comm = communicator_handle(comm);
    e.peer = dest;
    e.tag = tag;
    e.bytes = message_bytes(count, type);
    events::mpi_isend(e.comm, e.peer, e.tag, e.bytes, e.id);
    return e;
}

void isend_end(const RequestEntry& entry, MPI_Request request) {
    if (entry.id == 0 || request == MPI_REQUEST_NULL) return;
    RequestEntry e = entry;
    e.key = handle_key(request);
    requests().insert(e);
}

void irecv_posted(events::CommunicatorHandle comm, MPI_Request request) {
    if (comm == 0 || request == MPI_REQUEST_NULL) return;
    RequestEntry e;
    e.key = handle_key(request);
    e.id = next_request_id();
    e.kind = RequestEntry::recv;
    e.flags = RequestEntry::active;
    e.comm = comm;
    requests().insert(e);
    events::mpi_irecv_request(e.id);
}

void icollective_posted(const CollectiveRecord& collective, MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return;
    RequestEntry e;
    e.key = handle_key(request);
    e.id = next_request_id();
    e.kind = RequestEntry::collective;
    e.flags = RequestEntry::active;
    e.comm = collective.comm;
    e.peer = collective.root;
    e.tag = static_cast<std::int32_t>(collective.op);
    e.bytes = collective.sent;
    e.bytes_received = collective.received;
    requests().insert(e);
    events::mpi_nonblocking_collective_request(e.id);
}

void irecv_posted(int source, MPI_Comm comm, MPI_Request request) {
    if (source == MPI_PROC_NULL) return;
    irecv_posted(communicator_handle(comm), request);
}

// --- persistent ---------------------------------------------------------------

void persistent_send_created(int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request request) {
    if (dest == MPI_PROC_NULL || request == MPI_REQUEST_NULL) return;
    RequestEntry e;
    e.key = handle_key(request);
    e.kind = RequestEntry::send;
    e.flags = RequestEntry::persistent;
    e.comm = communicator_handle(comm);
    e.peer = dest;
    e.tag = tag;
    e.bytes = message_bytes(count, type);
    requests().insert(e);
}

void persistent_recv_created(int source, MPI_Comm comm, MPI_Request request) {
    if (source == MPI_PROC_NULL || request == MPI_REQUEST_NULL) return;
    RequestEntry e;
    e.key = handle_key(request);
    e.kind = RequestEntry::recv;
    e.flags = RequestEntry::persistent;
    e.comm = communicator_handle(comm);
    requests().insert(e);
}

namespace {
void start_one(MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return;
    RequestEntry started;
    const bool found = requests().update(handle_key(request), [&](RequestEntry& e) {
        if ((e.flags & RequestEntry::persistent) == 0) return;
        e.id = next_request_id();
        e.flags =
            static_cast<std::uint8_t>((e.flags | RequestEntry::active) & ~RequestEntry::cancel_requested);
        started = e;
    });
    if (!found || started.id == 0) return;
    if (started.kind == RequestEntry::send) {
        events::mpi_isend(started.comm, started.peer, started.tag, started.bytes, started.id);
    } else {
        events::mpi_irecv_request(started.id);
    }
}
}  // namespace

void start_requests(int n, const MPI_Request* requests_started) {
    if (requests().empty()) return;
    for (int i = 0; i < n; ++i) start_one(requests_started[i]);
}

void start_fortran_requests(int n, const void* requests_started) {
    if (requests().empty()) return;
    const auto* f = static_cast<const MPI_Fint*>(requests_started);
    for (int i = 0; i < n; ++i) start_one(PMPI_Request_f2c(f[i]));
}

void cancel_requested(MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return;
    requests().update(handle_key(request),
                      [](RequestEntry& e) { e.flags |= RequestEntry::cancel_requested; });
}

void request_freed(MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return;
    RequestEntry dropped;
    requests().take(handle_key(request), &dropped);
}

// --- matched probes -----------------------------------------------------------

void message_matched(MPI_Comm comm, MPI_Message message) {
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC) return;
    MessageEntry e;
    e.key = handle_key(message);
    e.comm = communicator_handle(comm);
    messages().insert(e);
}

events::CommunicatorHandle message_taken(MPI_Message message) {
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC) return 0;
    MessageEntry e;
    if (messages().take(handle_key(message), &e)) return e.comm;
    return detail::unknown_communicator();  // matched by an unrecorded MPI_Mprobe
}

}  // namespace strata::mpi
