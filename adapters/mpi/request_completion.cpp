// SPDX-License-Identifier: BSD-3-Clause
// Completion of point-to-point requests (see request_completion.hpp).
#include "request_completion.hpp"

#include <algorithm>
#include <new>

#include "mpi_handles.hpp"
#include "p2p_events.hpp"

namespace strata::mpi {

namespace {

/// The completion event of one tracked, active request.
void report(const RequestEntry& e, const MPI_Status* status) {
    if ((e.flags & RequestEntry::cancel_requested) != 0) {
        int cancelled = 0;
        PMPI_Test_cancelled(status, &cancelled);
        if (cancelled) {
            events::mpi_request_cancelled(e.id);
            return;
        }
    }
    if (e.kind == RequestEntry::send) {
        events::mpi_isend_complete(e.id);
    } else if (e.kind == RequestEntry::collective) {
        events::mpi_nonblocking_collective_complete(static_cast<events::CollectiveOp>(e.tag), e.comm, e.peer, e.bytes,
                                                    e.bytes_received, e.id);
    } else {
        events::mpi_irecv(e.comm, status->MPI_SOURCE, status->MPI_TAG, received_bytes(status), e.id);
    }
}

}  // namespace

Completion::Completion(int n, const MPI_Request* requests_in, MPI_Status* statuses, bool status_array)
    : status_array_(status_array), c_statuses_(statuses) {
    if (requests().empty()) return;
    for (int i = 0; i < n; ++i) take(i, requests_in[i]);
    // The two constants are equal in Open MPI and MPICH, but the standard does not say so.
    // NOLINTNEXTLINE(bugprone-branch-clone)
    const bool ignored = status_array ? statuses == MPI_STATUSES_IGNORE : statuses == MPI_STATUS_IGNORE;
    if (ntaken_ == 0 || !ignored) return;
    const int nstatuses = status_array ? n : 1;
    if (nstatuses <= kInline) {
        c_statuses_ = inline_statuses_;
    } else {
        heap_statuses_.resize(static_cast<std::size_t>(nstatuses));
        c_statuses_ = heap_statuses_.data();
    }
}

Completion::Completion(Fortran, int n, const void* requests_in, void* statuses, bool status_array)
    : fortran_(true), status_array_(status_array), f_statuses_(statuses) {
    if (requests().empty()) return;
    const auto* handles = static_cast<const MPI_Fint*>(requests_in);
    for (int i = 0; i < n; ++i) take(i, PMPI_Request_f2c(handles[i]));
    const bool ignored = status_array ? f_statuses_ignored(statuses) : f_status_ignored(statuses);
    if (ntaken_ == 0 || !ignored) return;
    const int nstatuses = status_array ? n : 1;
    if (nstatuses <= kInline) {
        f_statuses_ = inline_fortran_statuses_;
    } else {
        heap_fortran_statuses_.resize(static_cast<std::size_t>(nstatuses) * kFortranStatusSize);
        f_statuses_ = heap_fortran_statuses_.data();
    }
}

void Completion::take(int index, MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return;
    RequestEntry e;
    if (!requests().take(handle_key(request), &e)) return;
    if (ntaken_ == capacity_) {
        std::vector<Taken> bigger(static_cast<std::size_t>(capacity_) * 2);
        std::copy(taken_, taken_ + ntaken_, bigger.begin());
        heap_taken_.swap(bigger);
        taken_ = heap_taken_.data();
        capacity_ *= 2;
    }
    new (&taken_[ntaken_++]) Taken{index, 0, false, e};
}

void Completion::mark(int index, int slot) {
    // taken_ is in the order of the call's array: binary search.
    Taken* end = taken_ + ntaken_;
    Taken* t = std::lower_bound(taken_, end, index, [](const Taken& a, int i) { return a.index < i; });
    if (t != end && t->index == index) {
        t->completed = true;
        t->slot = slot;
    }
}

const MPI_Status* Completion::status_at(int slot, MPI_Status* scratch) const {
    if (!fortran_) return c_statuses_ + slot;
    PMPI_Status_f2c(
        static_cast<const MPI_Fint*>(f_statuses_) + static_cast<std::size_t>(slot) * kFortranStatusSize,
        scratch);
    return scratch;
}

void Completion::finish(int result, bool is_test, const int* flag, const int* index, const int* outcount,
                        const int* indices) {
    if (ntaken_ == 0) return;
    const bool in_status = result == MPI_ERR_IN_STATUS;
    if (result != MPI_SUCCESS && !in_status) {  // an error (with MPI_ERRORS_RETURN): nothing to say
        for (int i = 0; i < ntaken_; ++i) requests().insert(taken_[i].entry);
        return;
    }
    const int base = fortran_ ? 1 : 0;  // Fortran indices start at 1
    if (outcount != nullptr) {
        if (*outcount != MPI_UNDEFINED) {
            for (int k = 0; k < *outcount; ++k) mark(indices[k] - base, k);
        }
    } else if (index != nullptr) {
        if ((flag == nullptr || *flag) && *index != MPI_UNDEFINED) mark(*index - base, 0);
    } else if (flag == nullptr || *flag) {
        for (int i = 0; i < ntaken_; ++i) {
            taken_[i].completed = true;
            taken_[i].slot = status_array_ ? taken_[i].index : 0;
        }
    }
    MPI_Status scratch;
    for (int i = 0; i < ntaken_; ++i) {
        RequestEntry& e = taken_[i].entry;
        const MPI_Status* status = taken_[i].completed ? status_at(taken_[i].slot, &scratch) : nullptr;
        if (status != nullptr && in_status && status->MPI_ERROR == MPI_ERR_PENDING) status = nullptr;
        if (status == nullptr) {  // still open
            if (is_test && (e.flags & RequestEntry::active) != 0) events::mpi_request_test(e.id);
            requests().insert(e);
            continue;
        }
        const bool failed = in_status && status->MPI_ERROR != MPI_SUCCESS;
        if (!failed && (e.flags & RequestEntry::active) != 0) report(e, status);
        if ((e.flags & RequestEntry::persistent) != 0) {  // inactive until the next MPI_Start
            e.flags = RequestEntry::persistent;
            requests().insert(e);
        }
    }
}

}  // namespace strata::mpi
