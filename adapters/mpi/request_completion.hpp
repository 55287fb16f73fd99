// SPDX-License-Identifier: BSD-3-Clause
// The completion of requests in MPI_Wait, Waitall, Waitany, Waitsome, Test,
// Testall, Testany and Testsome (C and Fortran), as the generated wrappers use it:
//
//   mpi::Completion c(count, array_of_requests, array_of_statuses, count);  // takes the table entries
//   result = PMPI_Waitall(count, array_of_requests, c.statuses());           // ours if the user ignores them
//   c.finish(result, /*is_test=*/false, flag, index, outcount, indices);    // events; puts back open ones
//
// For each tracked request (an MPI_Isend / MPI_Irecv / started persistent one):
//   completed send      -> MpiIsendComplete(id)
//   completed receive   -> MpiIrecv(comm, source, tag, bytes from the status, id)
//   completed, cancelled (after MPI_Cancel, MPI_Test_cancelled says so) -> MpiRequestCancelled(id)
//   not completed by a test -> MpiRequestTest(id)
// Which requests completed: all (Wait, Waitall, Test and Testall with flag
// set), the one at *index (Waitany, Testany), those in indices[0, *outcount)
// (Waitsome, Testsome); with MPI_ERR_IN_STATUS, those whose status error is
// not MPI_ERR_PENDING.  Requests the table does not know (collectives, RMA,
// I/O, generalized requests) are left alone.
//
// Up to 16 tracked requests and statuses live inside the object (on the
// caller's stack); more are allocated.
#pragma once

#include <type_traits>
#include <vector>

#include "mpi_adapter.hpp"
#include "request_table.hpp"

namespace strata::mpi {

class Completion {
public:
    /// Marks the Fortran constructor.
    struct Fortran {};

    /// C: `n` requests (1 for MPI_Wait / MPI_Test) and the user's status argument:
    /// one per request when `status_array` (Waitall, Waitsome, ...), else a single
    /// one (Wait, Waitany, ...); MPI_STATUS(ES)_IGNORE allowed.
    Completion(int n, const MPI_Request* requests, MPI_Status* statuses, bool status_array);
    /// Fortran: INTEGER request handles and INTEGER statuses (or MPI_STATUS(ES)_IGNORE);
    /// the indices finish() gets are then 1-based.
    Completion(Fortran, int n, const void* requests, void* statuses, bool status_array);
    Completion(const Completion&) = delete;
    Completion& operator=(const Completion&) = delete;

    /// The status argument to pass to PMPI (the user's, or ours when the user ignores it).
    MPI_Status* statuses() const { return c_statuses_; }
    void* fortran_statuses() const { return f_statuses_; }

    /// After the PMPI call: the events, then the open requests go back into the table.
    /// `flag`, `index`, `outcount`, `indices` are the call's arguments (nullptr when it has none).
    void finish(int result, bool is_test, const int* flag, const int* index, const int* outcount,
                const int* indices);

private:
    struct Taken {
        int index;  ///< position in the call's array
        int slot;   ///< status slot once completed
        bool completed;
        RequestEntry entry;
    };
    static_assert(std::is_trivially_copyable_v<RequestEntry>, "entries are copied as bytes");
    static constexpr int kInline = 16;

    void take(int index, MPI_Request request);
    void mark(int index, int slot);
    const MPI_Status* status_at(int slot, MPI_Status* scratch) const;

    // Raw storage: nothing is written until a request is tracked.
    alignas(Taken) unsigned char inline_taken_[kInline * sizeof(Taken)];
    std::vector<Taken> heap_taken_;
    Taken* taken_ = reinterpret_cast<Taken*>(inline_taken_);
    int ntaken_ = 0;
    int capacity_ = kInline;
    bool fortran_ = false;
    bool status_array_ = false;
    MPI_Status* c_statuses_ = nullptr;
    void* f_statuses_ = nullptr;
    MPI_Status inline_statuses_[kInline];
    MPI_Fint inline_fortran_statuses_[kInline * (sizeof(MPI_Status) / sizeof(MPI_Fint))];
    std::vector<MPI_Status> heap_statuses_;
    std::vector<MPI_Fint> heap_fortran_statuses_;
};

}  // namespace strata::mpi
