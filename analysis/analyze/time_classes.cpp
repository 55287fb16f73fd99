// SPDX-License-Identifier: BSD-3-Clause
// The class of every call path's time (see time_classes.hpp).
#include "analyze/time_classes.hpp"

#include "profile/profile_aggregates.hpp"

namespace strata::analysis {

std::string_view time_class_name(TimeClass time_class) {
    switch (time_class) {
        case TimeClass::computation:
            return "computation";
        case TimeClass::mpi:
            return "mpi";
        case TimeClass::io:
            return "io";
        case TimeClass::openmp:
            return "openmp";
        case TimeClass::gpu_wait:
            return "gpu_wait";
        case TimeClass::cuda_api:
            return "cuda_api";
        case TimeClass::measurement:
            return "measurement";
        case TimeClass::mpi_init_finalize:
            return "mpi_init_finalize";
    }
    return "computation";
}

/// OpenMP regions in which a thread waits or the runtime works for it; the
/// others (parallel, loop, single, task, sblocks, ...) hold the program's code.
bool is_openmp_synchronisation(RegionRole role) {
    switch (role) {
        case RegionRole::barrier:
        case RegionRole::implicit_barrier:
        case RegionRole::task_wait:
        case RegionRole::critical:
        case RegionRole::ordered:
        case RegionRole::atomic:
        case RegionRole::lock:
        case RegionRole::task_create:
            return true;
        default:
            return false;
    }
}

bool is_gpu_wait_call(std::string_view name) {
    if (name.find("Synchronize") != std::string_view::npos) return true;
    const bool copy = name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0;
    return copy && name.find("Async") == std::string_view::npos;
}

bool is_file_io(const Profile& profile, std::uint32_t region) {
    const Region& r = profile.regions[region];
    return r.role == RegionRole::file_io ||
           (r.paradigm == Paradigm::mpi && profile.region_name(region).rfind("MPI_File_", 0) == 0);
}

TimeClass region_time_class(const Profile& profile, std::uint32_t region) {
    if (is_file_io(profile, region)) return TimeClass::io;
    switch (profile.regions[region].paradigm) {
        case Paradigm::mpi:
            return TimeClass::mpi;
        case Paradigm::openmp:
            return is_openmp_synchronisation(profile.regions[region].role) ? TimeClass::openmp
                                                                           : TimeClass::computation;
        case Paradigm::cuda:
            return is_gpu_wait_call(profile.region_name(region)) ? TimeClass::gpu_wait : TimeClass::cuda_api;
        case Paradigm::measurement:
            return TimeClass::measurement;
        default:
            return TimeClass::computation;
    }
}

bool is_mpi_init_finalize(const Profile& profile, std::uint32_t region) {
    if (profile.regions[region].paradigm != Paradigm::mpi) return false;
    const std::string& name = profile.region_name(region);
    return name == "MPI_Init" || name == "MPI_Init_thread" || name == "MPI_Finalize";
}

CallPathClasses classify_callpaths(const Profile& profile, bool include_mpi_init) {
    const std::size_t n = profile.callpaths.size();
    CallPathClasses classes;
    classes.time_class.assign(n, TimeClass::computation);
    classes.root.assign(n, false);
    classes.outermost_init_finalize.assign(n, false);
    std::vector<bool> inside_init_finalize(n, false);
    const CallTreeIndex tree = index_call_tree(profile);
    // Top-down, so that a call path's parent is classified before it.
    std::vector<std::size_t> stack(tree.roots.rbegin(), tree.roots.rend());
    while (!stack.empty()) {
        const std::size_t cp = stack.back();
        stack.pop_back();
        const CallPath& path = profile.callpaths[cp];
        const bool parent_inside =
            !path.is_root() && inside_init_finalize[static_cast<std::size_t>(path.parent)];
        const bool own = !include_mpi_init && is_mpi_init_finalize(profile, path.region);
        inside_init_finalize[cp] = parent_inside || own;
        classes.outermost_init_finalize[cp] = own && !parent_inside;
        classes.root[cp] = path.is_root();
        classes.time_class[cp] = inside_init_finalize[cp] ? TimeClass::mpi_init_finalize
                                                          : region_time_class(profile, path.region);
        for (auto child = tree.children[cp].rbegin(); child != tree.children[cp].rend(); ++child)
            stack.push_back(*child);
    }
    return classes;
}

}  // namespace strata::analysis
