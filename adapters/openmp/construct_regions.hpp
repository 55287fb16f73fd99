// SPDX-License-Identifier: BSD-3-Clause
// The region of an OpenMP construct at a call site: "!$omp parallel @jacobi.c:42".
//
// One region per (construct, return address), so two parallel loops of a
// program are told apart.  The first event of a call site defines the region
// (a lock, the DWARF look-up); afterwards each thread finds it in a small
// direct-mapped cache of its own, without a lock.
#pragma once

#include <cstdint>

#include "strata/measurement/types.hpp"

namespace strata::openmp {

enum class Construct : std::uint8_t {
    parallel,
    loop,
    sections,
    single,
    workshare,
    distribute,
    taskloop,
    scope,
    masked,
    barrier,
    implicit_barrier,
    runtime_barrier,
    taskwait,
    taskgroup,
    reduction,
    critical,
    critical_sblock,
    ordered,
    ordered_sblock,
    atomic,
    lock,
    nest_lock,
    task,
    task_create,
    count_,
};

/// The region of `construct` at `return_address` (0 when it could not be defined).
RegionHandle construct_region(Construct construct, const void* return_address);

}  // namespace strata::openmp
