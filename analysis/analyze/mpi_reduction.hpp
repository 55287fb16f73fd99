// SPDX-License-Identifier: BSD-3-Clause
// The MPI side of strata-analyze: every analysis rank's Partial combined on
// rank 0, and agreement on failures.  This file and tools/strata_analyze.cpp
// are the only ones that call MPI.
//
//   field                          MPI operation
//   ranks taking part              MPI_SUM on MPI_UINT64_T
//   sums, sums of squares, visits  a 128-bit integer sum (user op; exact)
//   max / min with their rank      MPI_MAXLOC / MPI_MINLOC on MPI_LONG_INT
//                                  (lowest rank on ties, by the MPI standard)
//   3 slowest / 3 fastest ranks    an ordered top-3 merge (user op)
//   rank records                   MPI_Gatherv on MPI_INT64_T, sorted by rank
//
// Every operation is exact, associative and commutative, so the result does
// not depend on K or on the order MPI combines in: merge_partial() is the
// same combination in one process.
#pragma once

#include <mpi.h>

#include "analyze/partial.hpp"

namespace strata::analysis {

/// Combines every rank's `partial` onto rank 0 of `comm`; on other ranks
/// `partial` is left unspecified.  Collective.
void reduce_partial(Partial& partial, MPI_Comm comm);

/// The lowest rank of `comm` for which `failed` is true, or the size of
/// `comm` when none failed.  Collective.
int first_failing_rank(bool failed, MPI_Comm comm);

}  // namespace strata::analysis
