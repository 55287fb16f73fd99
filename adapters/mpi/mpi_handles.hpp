// SPDX-License-Identifier: BSD-3-Clause
// MPI handles as table keys, and the C values of a Fortran entry point's
// arguments.  The generated Fortran wrappers pass everything by reference
// (void*); the message events need C handles and plain integers:
//
//   mpi_send_(buf, count, datatype, dest, tag, comm, ierror)      (Fortran, by reference)
//     -> begin_send(Function::MPI_Send, f_int(count), f_type(datatype), f_int(dest), f_int(tag), f_comm(comm))
//
// Handles become table keys through handle_key(): Open MPI's handles are
// pointers, MPICH's are ints; both fit an uintptr_t.
#pragma once

#include <cstdint>
#include <type_traits>

#include "mpi_adapter.hpp"

namespace strata::mpi {

/// An MPI handle (pointer or integer, depending on the MPI) as a table key.
template <typename Handle>
inline std::uintptr_t handle_key(Handle h) {
    if constexpr (std::is_pointer_v<Handle>) {
        return reinterpret_cast<std::uintptr_t>(h);
    } else {
        return static_cast<std::uintptr_t>(static_cast<std::make_unsigned_t<Handle>>(h));
    }
}

// --- Fortran arguments ---------------------------------------------------------

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as C int arrays");
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a Fortran status is a whole number of INTEGERs");

/// MPI_STATUS_SIZE of the Fortran bindings: Open MPI and MPICH make a Fortran
/// status exactly as large as the C struct (6 and 5 INTEGERs).
inline constexpr int kFortranStatusSize = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));

/// An INTEGER argument (count, rank, tag, ...).
inline int f_int(const void* p) {
    return *static_cast<const MPI_Fint*>(p);
}
/// An INTEGER array argument (sendcounts, ...): MPI_Fint is int.
inline const int* f_ints(const void* p) {
    return static_cast<const int*>(p);
}
/// A communicator (INTEGER in mpif.h and "use mpi"; TYPE(MPI_Comm), whose only
/// member is that INTEGER, in "use mpi_f08").
inline MPI_Comm f_comm(const void* p) {
    return PMPI_Comm_f2c(*static_cast<const MPI_Fint*>(p));
}
inline MPI_Datatype f_type(const void* p) {
    return PMPI_Type_f2c(*static_cast<const MPI_Fint*>(p));
}
inline MPI_Request f_request(const void* p) {
    return PMPI_Request_f2c(*static_cast<const MPI_Fint*>(p));
}
inline MPI_Message f_message(const void* p) {
    return PMPI_Message_f2c(*static_cast<const MPI_Fint*>(p));
}
/// A Fortran call's error code (ierror is a null pointer when mpi_f08 callers omit it).
inline int f_result(const MPI_Fint* ierror) {
    return ierror == nullptr ? MPI_SUCCESS : *ierror;
}
/// A Fortran call succeeded.
inline bool f_ok(const MPI_Fint* ierror) {
    return f_result(ierror) == MPI_SUCCESS;
}
/// INTEGER / LOGICAL output arguments (flag, index, outcount, indices) as C ints.
inline const int* f_int_out(const void* p) {
    return static_cast<const int*>(p);
}
/// A buffer: the Fortran MPI_IN_PLACE (an address in the MPI library) becomes the C MPI_IN_PLACE.
const void* f_buffer(const void* p);
/// Whether a Fortran status argument is MPI_STATUS_IGNORE / a statuses argument MPI_STATUSES_IGNORE.
bool f_status_ignored(const void* p);
bool f_statuses_ignored(const void* p);

/// A Fortran status converted to C (for the events after a receive).
class FortranStatus {
public:
    explicit FortranStatus(const void* f) { PMPI_Status_f2c(static_cast<const MPI_Fint*>(f), &c_); }
    const MPI_Status* get() const { return &c_; }

private:
    MPI_Status c_;
};

}  // namespace strata::mpi
