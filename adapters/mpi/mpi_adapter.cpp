// SPDX-License-Identifier: BSD-3-Clause
// libstrata-mpi's state and start-up: the group switch, the recursion guard, the
// lazily filled region table, the STRATA_MPI_ENABLE_GROUPS row and the MPI
// functions a filter file excludes.
#include "mpi_adapter.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "strata/measurement/config_registry.hpp"
#include "strata/measurement/subsystem.hpp"
#include "filter/filter_rules.hpp"
#include "mpi_config.hpp"

namespace strata::mpi {

namespace detail {

// Nothing is recorded until the constructor below has read STRATA_MPI_ENABLE_GROUPS.
std::uint32_t enabled_groups = 0;
/// Per Function: STRATA_FILTERING_FILE excludes it (set by the constructor, read-only after).
bool filtered[function_count] = {};
__thread bool inside_strata __attribute__((tls_model("initial-exec"))) = false;
RegionHandle region_table[function_count] = {};

RegionHandle define_function_region(Function f) {
    // Before start-up and during finalisation (when HDF5 and OTF2 may call MPI while
    // the experiment is written) nothing is recorded: do not add definitions then.
    if (!events::is_active()) return 0;
    const std::size_t index = static_cast<std::size_t>(f);
    if (filtered[index]) {
        __atomic_store_n(&region_table[index], filtered_region, __ATOMIC_RELAXED);
        return filtered_region;
    }
    events::RegionSpec spec;
    spec.name = function_table[index].name;
    // The source file Score-P gives every MPI region: Scalasca (and Cube) know MPI calls by it.
    spec.file = "MPI";
    spec.paradigm = Paradigm::mpi;
    spec.role = function_table[index].role;
    // define_region returns the existing handle for the same spec, so a race between
    // threads stores the same value twice.  0 (out of memory) is retried on the next call.
    const RegionHandle region = events::define_region(spec);
    __atomic_store_n(&region_table[index], region, __ATOMIC_RELAXED);
    return region;
}

void missing_fortran_symbol(const char* name) {
    std::fprintf(stderr,
                 "strata: a Fortran MPI call reached libstrata-mpi, but the MPI library's %s is not "
                 "loaded (is the program linked with the MPI Fortran libraries?)\n",
                 name);
    std::fflush(stderr);
    std::abort();
}

}  // namespace detail

namespace {

/// The MPI functions STRATA_FILTERING_FILE excludes, by its MPI rules
/// (FilterFile::mpi_rules): `EXCLUDE MPI_Test* MPI_Iprobe` takes a polling
/// loop's calls out.  A bad file stops the program with the message the
/// compiler adapter gives.
Error read_mpi_filter() {
    std::optional<filter::FilterFile> rules;
    if (Error problem = filter::read_configured_filter(&rules)) return problem;
    if (!rules) return {};
    const filter::FilterFile mpi_rules = rules->mpi_rules();
    for (std::size_t f = 0; f < function_count && !mpi_rules.rules.empty(); ++f)
        detail::filtered[f] = mpi_rules.region_excluded(function_table[f].name, "");
    return {};
}

/// Before main: STRATA_MPI_ENABLE_GROUPS (the core read its own variables when
/// libstrata-measurement was loaded, before this library started; add_and_load
/// parses this row at once) and the filter file.  A bad value or file stops
/// the program (subsystem.hpp, init).
Error init_mpi_adapter() {
    if (Error failure = register_variables(config::Registry::instance(),
                                           [](std::uint32_t mask) { detail::enabled_groups = mask; }))
        return failure;
    return read_mpi_filter();
}

/// The ranks measure together: they agree on one experiment at MPI_Init.
constexpr events::Subsystem kMpiSubsystem{"mpi", true, init_mpi_adapter, nullptr};

__attribute__((constructor)) void start_mpi_adapter() { events::register_subsystem(&kMpiSubsystem); }

}  // namespace

}  // namespace strata::mpi
