// SPDX-License-Identifier: BSD-3-Clause
// A profile (and the wait states of its trace) as a Cube report with the
// metric names Score-P and Scalasca use, so that `cube_stat -m time -p`,
// `cube_diff` and the Cube GUI work on Strata's results as on theirs.
//
//   metric (uniq_name)        values at a call path and location
//   time                      time_exclusive
//    ├─ execution             all but Strata's own measurement
//    │   ├─ mpi               MPI calls
//    │   │   ├─ mpi_management         MPI calls that neither communicate nor synchronise
//    │   │   │   └─ mpi_init_exit      MPI_Init, MPI_Init_thread, MPI_Finalize
//    │   │   ├─ mpi_synchronization    barriers
//    │   │   │   └─ mpi_sync_collective
//    │   │   │       └─ mpi_barrier_wait       wait at barrier (trace)
//    │   │   ├─ mpi_communication
//    │   │   │   ├─ mpi_point2point    sends, receives, waits and tests on requests, probes
//    │   │   │   │   ├─ mpi_latesender         (trace)
//    │   │   │   │   └─ mpi_latereceiver       (trace)
//    │   │   │   └─ mpi_collective     the other collectives
//    │   │   │       ├─ mpi_earlyreduce        (trace)
//    │   │   │       ├─ mpi_latebroadcast      (trace)
//    │   │   │       └─ mpi_wait_nxn           (trace)
//    │   │   └─ mpi_io                MPI-IO (MPI_File_*)
//    │   └─ omp_time           OpenMP synchronisation (barriers, taskwait, critical, locks, ...)
//    └─ overhead              Strata's own measurement (buffer flushes)
//   visits                    visits
//   bytes_sent, bytes_received          the MPI bytes, when the profile has them
//   <counter>                 each counter's exclusive value (PAPI_TOT_INS, perf::TASK-CLOCK, ru_utime, ...)
//
// The wait states (trace metrics) appear only when a trace was analysed.  They
// sit on the rank's first CPU thread at the call path of the trace that has the
// same regions (parameter nodes left out); where parameter nodes make several
// such call paths, the one with the most time on that rank.  A call path the
// profile lacks becomes a root cnode named after the whole path; so does one
// deeper than 64 levels, whose name in the trace's reports leaves levels out
// (profile_aggregates.hpp, PathNames).
#pragma once

#include <string>

#include "cube/cube_file.hpp"
#include "profile/profile.hpp"
#include "trace/trace_report.hpp"

namespace strata::analysis::cube {

/// The Cube report of `profile` (read whole, not a column slice), with the
/// wait states of `waits` when it is not null.
CubeReport cube_report(const Profile& profile, const trace::TraceReport* waits);

/// The name of the file strata-analyze writes.
inline constexpr const char* cube_file_name = "profile.cubex";

}  // namespace strata::analysis::cube
