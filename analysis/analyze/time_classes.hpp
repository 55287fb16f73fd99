// SPDX-License-Identifier: BSD-3-Clause
// Where the time of a call path goes: useful computation, MPI, file I/O,
// OpenMP, waiting for the GPU, other CUDA API calls, Strata's own
// measurement, or MPI start-up and shut-down.
//
//   paradigm of the call path's region     class
//   role file_io, or MPI_File_* (mpi)      io (file input/output: MPI-IO, not communication)
//   mpi, measurement                       mpi, measurement
//   cuda (host API calls), synchronising:  gpu_wait (the host waits for the GPU)
//     *Synchronize*, blocking copies
//     (cudaMemcpy*, cuMemcpy* but not
//     *Async*)
//   cuda, other calls (launches,           cuda_api
//     allocation, asynchronous copies)
//   openmp, waiting roles (barriers,       openmp (OpenMP synchronisation)
//     taskwait, critical/ordered/atomic
//     outside their sblock, locks,
//     task creation)
//   openmp, other roles (parallel, loop,   computation: the program's own code
//     single, sections, task, sblocks)     runs there
//   anything else (user, compiler, ...)    computation   (POP's "useful" time)
//   MPI_Init, MPI_Init_thread,             mpi_init_finalize, for the call path
//   MPI_Finalize (paradigm mpi)            and everything below it -- unless
//                                          --include-mpi-init, then plain mpi
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "profile/profile.hpp"

namespace strata::analysis {

/// The classes time is split into (exclusive time of a call path).
enum class TimeClass : std::uint8_t {
    computation = 0,
    mpi = 1,
    io = 2,
    openmp = 3,
    gpu_wait = 4,
    cuda_api = 5,
    measurement = 6,
    mpi_init_finalize = 7  ///< last: the classes before it make up the program time
};

/// The number of TimeClass values.
inline constexpr std::size_t time_class_count = 8;

/// The name of a class in reports: computation, mpi, io, openmp, gpu_wait,
/// cuda_api, measurement, mpi_init_finalize.
std::string_view time_class_name(TimeClass time_class);

/// A CUDA API call in which the host waits for the GPU (see the table above).
bool is_gpu_wait_call(std::string_view name);

/// Reads or writes files: role file_io, or an MPI-IO call (MPI_File_*, which
/// profiles written before the role existed hold as functions).
bool is_file_io(const Profile& profile, std::uint32_t region);

/// The class of a region's own time, MPI_Init/Finalize aside (they are set
/// apart by call path, see classify_callpaths).
TimeClass region_time_class(const Profile& profile, std::uint32_t region);

/// The class of every call path of a profile.
struct CallPathClasses {
    std::vector<TimeClass> time_class;  ///< per call path
    std::vector<bool> root;             ///< per call path: a root of the call tree
    std::vector<bool>
        outermost_init_finalize;  ///< per call path: MPI_Init/Finalize not nested in another such call path
};

/// True for the regions MPI_Init, MPI_Init_thread and MPI_Finalize (paradigm mpi).
bool is_mpi_init_finalize(const Profile& profile, std::uint32_t region);

/// Classifies every call path; with `include_mpi_init` MPI_Init and
/// MPI_Finalize are plain MPI time and no call path is set apart.
CallPathClasses classify_callpaths(const Profile& profile, bool include_mpi_init);

}  // namespace strata::analysis
