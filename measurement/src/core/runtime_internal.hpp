// SPDX-License-Identifier: BSD-3-Clause
// What the runtime's own files share (runtime.cpp, runtime_start.cpp,
// runtime_multi_process.cpp, runtime_signals.cpp, runtime_losses.cpp): its state and the steps of its start.  Not for
// the rest of the core, which sees runtime.hpp.
#pragma once

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/clock_sync.hpp"
#include "core/substrate.hpp"
#include "strata/measurement/process_group.hpp"

namespace strata::runtime::internal {

// State with constructors lives in function-local statics: the library's
// start-up constructor may run before the static initialisers of its files.
struct State {
    std::vector<const substrate::Callbacks*> substrates;
    std::string experiment_directory;
    /// Launched among several processes: the directory waits for MPI_Init (begin_multi_process) or, without a
    /// subsystem that measures the processes together, for the first write (claim_directory_alone).
    bool directory_deferred = false;
    events::ProcessGroup* group = nullptr;
    std::vector<clock_sync::Point> clock_points;  ///< offsets to rank 0, at MPI_Init and MPI_Finalize
    int alone_rank = -1;  ///< the rank that finalised alone, or -1
    std::string made_directory;  ///< the experiment directory made at start-up (single process), or ""
    std::mutex warn_mutex;
    std::set<std::string> warned;
};
State& state();

extern std::atomic<bool> g_finalized;
/// Set while end_multi_process() runs: only then may finalisation use the group.
extern bool g_collective_finalize;
/// Why a rank finalises alone (a signal, MPI_Abort, exit without MPI_Finalize).
/// (A plain buffer: it must still be valid in atexit handlers and signal handlers.)
extern char g_alone_reason[256];
/// The signal that ends the process (finalize() runs from its handler), or 0.
extern int g_ending_signal;
extern bool g_verbose;
/// STRATA_* names no row declares are reported once every library has added its rows.
extern bool g_report_unknown_variables;

/// Opens the program region (runtime.cpp, see ProgramRegion).
void begin_program_region();
/// MEMBARRIER_CMD_PRIVATE_EXPEDITED, registered at start-up (finalize's barrier is then cheap).
void register_process_barrier();
/// Makes the experiment directory (runtime_start.cpp) and sets `path` to it;
/// `alone`: this process writes without the other ranks.
Error create_experiment_directory(long id, std::string* path, bool alone = false);
/// This process's rank among those a launcher started together, or -1.
long launcher_rank();
/// A job's named experiment directory must be free: checked before main, when
/// the subsystem that measures the processes together registers; ends the
/// process (status 1) when it is not (runtime_start.cpp).
void check_job_directory_before_main();
/// True when a registered subsystem measures the job's processes together (subsystems.cpp).
bool processes_measure_together();
/// Runs the subsystems' finalize, newest first.
void finalize_subsystems();
/// The registered subsystems' names, "mpi, openmp".
std::string subsystem_names();
/// Claims this process's own directory when it was deferred and no subsystem
/// measures the processes together (a launched process without MPI); the
/// error says why it could not.  Thread-safe; once.
Error claim_directory_alone();
/// Stops measuring without writing anything (a forked child, a failed start).
void stop_without_writing();
/// The exit handler, the fatal signals' and termination requests' handlers, the
/// forked child's stop (runtime_signals.cpp).
void install_handlers();
/// A signal that asks the program to end (from a user or a launcher), not a fault.
bool termination_request(int sig);
/// Writes losses/rank-<r>.tsv when something was lost (runtime_losses.cpp).
void write_losses(const std::string& directory, int rank);

}  // namespace strata::runtime::internal
