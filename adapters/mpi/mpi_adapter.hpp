// SPDX-License-Identifier: BSD-3-Clause
// What the generated MPI wrappers use: the group switch, the recursion guard and
// the region table.
//
//   MPI_Send(...)                                   (generated, mpi_c_wrappers.cpp)
//     should_record(group_p2p)?  no  -> return PMPI_Send(...)
//                                yes -> begin(MPI_Send): guard on, enter region
//                                       PMPI_Send(...)      MPI calls inside are not recorded
//                                       end(region):        exit region, guard off
//
// The first and last message events of a call go with its enter and exit
// (begin_send, end_recv, begin_collective, end_collective): one event-API call
// for both events.
//
// The guard is one thread-local flag: while it is set, MPI calls made by the MPI
// library itself (ROMIO, the Fortran bindings), by callbacks it runs, or by
// Strata (MeasurementScope) pass straight to PMPI.
#pragma once

// The C bindings only: Open MPI's and MPICH's mpi.h pull in their C++ bindings otherwise.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>

#include "mpi_function_table.hpp"
#include "strata/measurement/events.hpp"

/// Marks the MPI symbols libstrata-mpi exports (everything else is hidden).
#define STRATA_MPI_EXPORT __attribute__((visibility("default")))

/// True when mpi.h implements at least MPI major.minor (wrappers of newer functions are left out).
#define STRATA_MPI_SINCE(major, minor) \
    (MPI_VERSION > (major) || (MPI_VERSION == (major) && MPI_SUBVERSION >= (minor)))

namespace strata::mpi {

namespace detail {

/// The groups of STRATA_MPI_ENABLE_GROUPS in effect, derived groups included.
/// Written once by the library constructor, before main and before any thread
/// exists; read-only afterwards, so a plain load suffices.
extern std::uint32_t enabled_groups;

/// Set while the thread is inside a recorded MPI call or inside Strata.
/// __thread with initial-exec: one TLS load, no initialisation wrapper.
extern __thread bool inside_strata __attribute__((tls_model("initial-exec")));

/// Region handles by Function, 0 until the function is first recorded.
extern RegionHandle region_table[function_count];

/// Per Function: STRATA_FILTERING_FILE excludes it (mpi_adapter.cpp).
extern bool filtered[function_count];

/// The "region" of a function that STRATA_FILTERING_FILE excludes: the call
/// is no region, but its message and request events are recorded (the
/// analysis matches them; an excluded MPI_Test still completes requests).
inline constexpr RegionHandle filtered_region = UINT32_MAX;

/// Defines the region of `f` and stores it in region_table (out of line: once per function).
RegionHandle define_function_region(Function f);

/// Whether a wrapper of `group` records: the group is on and the thread is not inside a recorded call.
inline bool should_record(std::uint32_t group) {
    return (enabled_groups & group) != 0 && !inside_strata;
}

/// The region of `f`, defined on first use.
inline RegionHandle region_of(Function f) {
    // Relaxed: two threads defining the same function's region get the same handle.
    RegionHandle region = __atomic_load_n(&region_table[static_cast<std::size_t>(f)], __ATOMIC_RELAXED);
    if (__builtin_expect(region == 0, 0)) region = define_function_region(f);
    return region;
}

/// Guard on, then enter the region of `f`; returns the region for end().
inline RegionHandle begin(Function f) {
    inside_strata = true;
    const RegionHandle region = region_of(f);
    if (__builtin_expect(region != filtered_region, 1)) events::enter(region);
    return region;
}

/// Exit the region, then guard off.
inline void end(RegionHandle region) {
    if (__builtin_expect(region != filtered_region, 1)) events::exit(region);
    inside_strata = false;
}

/// A Fortran entry point was called but the MPI library's pmpi_xxx_ is not loaded: says so and aborts.
[[noreturn]] void missing_fortran_symbol(const char* name);

}  // namespace detail

/// Marks the calling thread as inside Strata for the lifetime of the object:
/// MPI calls Strata makes meanwhile (clock synchronisation, unification,
/// collective HDF5 writes) are not recorded.  Scopes nest.
class MeasurementScope {
public:
    MeasurementScope() : previous_(detail::inside_strata) { detail::inside_strata = true; }
    ~MeasurementScope() { detail::inside_strata = previous_; }
    MeasurementScope(const MeasurementScope&) = delete;
    MeasurementScope& operator=(const MeasurementScope&) = delete;

private:
    bool previous_;
};

}  // namespace strata::mpi
