// SPDX-License-Identifier: BSD-3-Clause
// The Fortran constants that are addresses: MPI_IN_PLACE and the status-ignore
// arguments.
#include "mpi_handles.hpp"

// Open MPI's Fortran MPI_IN_PLACE is a common block with one name per Fortran
// name mangling; MPICH keeps its address in MPIR_F_MPI_IN_PLACE.  Weak: a C
// program, or another MPI, leaves them undefined (null).  The names are Open
// MPI's and MPICH's, hence reserved-looking ones.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
extern char mpi_fortran_in_place_ __attribute__((weak));
extern char mpi_fortran_in_place __attribute__((weak));
extern char mpi_fortran_in_place__ __attribute__((weak));
extern char MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern void* MPIR_F_MPI_IN_PLACE __attribute__((weak));
}
// NOLINTEND(bugprone-reserved-identifier)

namespace strata::mpi {

const void* f_buffer(const void* p) {
    if (p == nullptr) return p;
    if (p == &mpi_fortran_in_place_ || p == &mpi_fortran_in_place || p == &mpi_fortran_in_place__ ||
        p == &MPI_FORTRAN_IN_PLACE) {
        return MPI_IN_PLACE;
    }
    if (&MPIR_F_MPI_IN_PLACE != nullptr && p == MPIR_F_MPI_IN_PLACE) return MPI_IN_PLACE;
    return p;
}

bool f_status_ignored(const void* p) {
    return p == MPI_F_STATUS_IGNORE;
}

bool f_statuses_ignored(const void* p) {
    return p == MPI_F_STATUSES_IGNORE;
}

}  // namespace strata::mpi
