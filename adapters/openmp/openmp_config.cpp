// SPDX-License-Identifier: BSD-3-Clause
// The STRATA_OPENMP_ENABLE row.
#include "openmp_config.hpp"

#include <sstream>
#include <utility>

#include "strata/measurement/config_registry.hpp"

namespace strata::openmp {

namespace {

constexpr config::EventGroup kGroups[] = {
    {"parallel", group_parallel,
     "parallel regions on every thread of the team, thread fork/join and team begin/end"},
    {"worksharing", group_worksharing, "loop (for/do), sections, single, workshare, distribute, taskloop, masked"},
    {"sync", group_sync, "explicit and implicit barriers, taskwait, taskgroup, reductions"},
    {"locks", group_locks,
     "critical, ordered and atomic constructs and OpenMP locks: the wait to acquire is a region of its own"},
    {"tasks", group_tasks, "explicit tasks: creation, and execution as a region on the executing thread"},
};

}  // namespace

std::uint32_t group_mask(const std::string& normalized) { return config::group_bits(normalized, kGroups, 0); }

Error register_variables(config::Registry& registry, std::function<void(std::uint32_t)> store) {
    // Both OpenMP adapters in one process (one linked by hand beside the other):
    // the second takes the row the first added, and its value (a bad one has
    // already stopped the program).
    for (const config::Variable& existing : registry.variables()) {
        if (existing.env_name() == enable_variable) {
            store(group_mask(registry.value_of(enable_variable)));
            return Error();
        }
    }
    config::Variable row;
    row.ns = "OPENMP";
    row.name = "ENABLE";
    row.type = config::Type::list;
    row.default_value = "all";
    row.accepted = config::group_values({"all", "none"}, kGroups);
    row.short_help = "OpenMP event groups recorded";
    std::ostringstream help;
    help << "Which OpenMP events are recorded, by group: a comma-separated list of the groups "
            "below, \"all\" (the default) or \"none\" (the OpenMP runtime is then not asked for "
            "any event at all).  Thread teams are always recorded when \"parallel\" is, so that "
            "each thread's work appears under the call path that opened the parallel region.\n\n";
    help << config::group_help(kGroups, 12);
    help << "\nOpenMP events come from the OpenMP runtime's tool interface (OMPT: LLVM's libomp, "
            "which programs built with clang -fopenmp use) or, for programs on GCC's libgomp (gcc, "
            "g++ and gfortran -fopenmp), from its GOMP_* entry points, which the strata wrapper and "
            "strata-preload measure.";
    row.long_help = help.str();
    row.store = [store = std::move(store)](const std::string& normalized) { store(group_mask(normalized)); };
    return registry.add_and_load(std::move(row));
}

}  // namespace strata::openmp
