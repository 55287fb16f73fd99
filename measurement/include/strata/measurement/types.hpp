// SPDX-License-Identifier: BSD-3-Clause
// Handles and enumerations shared by adapters, substrates and writers.
#pragma once

#include <cstdint>

#include "strata/measurement/error.hpp"
#include "strata/measurement/ticks.hpp"

/// Marks the functions libstrata-measurement exports (everything else is hidden).
#define STRATA_API __attribute__((visibility("default")))

namespace strata {

/// Small ids that events carry instead of strings.  0 is "none/invalid".
using StringHandle = std::uint32_t;
using RegionHandle = std::uint32_t;
using ParameterHandle = std::uint32_t;
using LocationId = std::uint64_t;

/// Where a region comes from (mirrors OTF2_Paradigm for the values we use).
enum class Paradigm : std::uint8_t {
    unknown = 0,
    user,         ///< user API
    compiler,     ///< compiler instrumentation
    mpi,
    openmp,
    cuda,
    measurement,  ///< Strata's own activity (buffer flush, recording off)
};

/// What a region does (mirrors the OTF2_RegionRole values we use).
enum class RegionRole : std::uint8_t {
    unknown = 0,
    function,
    code,
    loop,
    wrapper,
    parallel,
    barrier,
    implicit_barrier,
    point_to_point,
    coll_one2all,
    coll_all2one,
    coll_all2all,
    coll_other,
    artificial,
    // OpenMP constructs (numbers continue; the profile format keeps them stable)
    sections,
    section,
    single,
    single_sblock,
    master,
    critical,
    critical_sblock,
    atomic,
    ordered,
    ordered_sblock,
    task,
    task_create,
    task_wait,
    workshare,
    lock,  ///< an OpenMP lock API call (omp_set_lock, ...): the wait to acquire it
    file_io,  ///< reads or writes files (MPI_File_*)
    data_transfer,  ///< moves data between memories (a CUDA copy or memset on a GPU stream)
};

/// Region flags (bit set).
enum RegionFlags : std::uint32_t {
    region_flag_none = 0,
    region_flag_phase = 1u << 0,  ///< an iteration or phase (the analysis's default key region)
};

enum class LocationType : std::uint8_t { cpu_thread = 0, gpu_stream = 1, metric = 2 };

/// What the trace records of a GPU activity besides its region, times and
/// correlation id: attributes of its Enter (experiment-format.md, "GPU streams").
enum class GpuAttribute : std::uint8_t {
    grid_x = 0, grid_y, grid_z,     ///< a kernel's grid
    block_x, block_y, block_z,      ///< and its blocks
    registers,                      ///< registers per thread
    shared_memory,                  ///< bytes of shared memory per block, static and dynamic
    graph_id, graph_node_id,        ///< the CUDA graph and node it ran in (kernels, copies, memsets)
    bytes,                          ///< bytes a copy or memset moves
    count                           ///< (the number of attributes)
};

/// What a location of GPU metric samples records (events::location_metric),
/// as NVML reports it; the trace's metric members (experiment-format.md).
enum class DeviceMetric : std::uint8_t {
    utilization = 0,     ///< % of the sample period a kernel ran
    memory_utilization,  ///< % of the sample period device memory was read or written
    memory_used,         ///< bytes of device memory in use
    power,               ///< board power, mW
    sm_clock,            ///< SM clock, MHz
    count                ///< (the number of metrics)
};

STRATA_API const char* to_string(Paradigm p);
STRATA_API const char* to_string(RegionRole r);

}  // namespace strata
