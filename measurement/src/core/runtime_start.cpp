// SPDX-License-Identifier: BSD-3-Clause
// The measurement's start before main (initialize_from_environment): the
// STRATA_* variables, the counters, the experiment directory of a process
// that writes alone or the check that an MPI job's is free, and what
// strata-preload hands on to the program's children.
#include "core/runtime.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "config/config.hpp"
#include "core/experiment_directory.hpp"
#include "core/runtime_internal.hpp"
#include "metrics/metrics.hpp"
#include "profiling/profiling_substrate.hpp"
#include "strata/measurement/preload_environment.hpp"
#include "tracing/tracing_substrate.hpp"

namespace strata::runtime {

using namespace internal;

namespace {

/// The working directory when the measurement started ("" when unknown).  A
/// function-local static, as State: the start (autostart.cpp) runs before the
/// static initialisers of this file, which would empty a global string after
/// the start had set it (an MPI program's directory, made at MPI_Init, then
/// followed the program's later working directory).
std::string& start_directory() {
    static auto* const directory = new std::string();  // never destroyed: used until the end
    return *directory;
}

/// This process was started by strata-preload (see give_children_the_original_preload).
bool g_started_by_preload = false;

/// strata-preload measures the program it starts, not the ones that program starts in turn:
/// they get the LD_PRELOAD strata-preload found (see preload_environment.hpp).
void give_children_the_original_preload() {
    const char* original = std::getenv(preload_original_variable);
    if (original == nullptr) return;
    g_started_by_preload = true;
    if (*original == '\0') {
        unsetenv("LD_PRELOAD");
    } else {
        setenv("LD_PRELOAD", original, 1);
    }
    unsetenv(preload_original_variable);
}

}  // namespace

void initialize_from_environment() {
    give_children_the_original_preload();
    if (char* cwd = getcwd(nullptr, 0)) {
        start_directory() = cwd;
        std::free(cwd);
    }
    register_process_barrier();
    // Only the core rows exist yet: adapter libraries add theirs when they start,
    // after this one.  Unknown names are reported with the first event.
    auto failure = config::Registry::instance().load_values(
        [](const char* name) -> const char* { return std::getenv(name); });
    g_report_unknown_variables = true;
    if (failure) {
        std::fprintf(stderr, "%s\n", failure->c_str());
        std::fflush(stderr);
        _exit(1);
    }
    const config::Settings& settings = config::settings();
    // Counters the user asked for must work, or the run stops here, before main
    // and before an experiment directory exists (initialize() sets them up again).
    if (const Error metrics_problem = metrics::configure(settings)) {
        std::fprintf(stderr, "%s\n", metrics_problem->c_str());
        std::fflush(stderr);
        _exit(1);
    }
    Options options;
    options.settings = settings;
    options.install_handlers = true;
    // A process that a launcher (mpirun, srun) started among several defers its
    // directory: the adapters register after this start (their libraries
    // depend on this one), and if one measures the processes together (MPI),
    // the ranks agree on one directory at MPI_Init; if none does, the process
    // writes alone, into a directory of its own made when it first writes.
    // Any other process claims its directory now (an MPI program started
    // alone keeps it at MPI_Init).
    const bool launched = launcher_rank() >= 0;
    // With profiling and tracing both off nothing is written: no directory, and
    // no "experiment written".  The runtime still starts, so that a misspelt
    // STRATA_ENABLE_TRACING is reported with the first event.
    const bool writes = settings.enable_profiling || settings.enable_tracing;
    if (!writes && launcher_rank() <= 0) {
        std::fprintf(stderr, "strata: STRATA_ENABLE_PROFILING and STRATA_ENABLE_TRACING are both off: nothing is "
                             "recorded and no experiment is written\n");
    }
    if (!launched && writes) {
        if (const Error problem =
                create_experiment_directory(static_cast<long>(getpid()), &options.experiment_directory, true)) {
            std::fprintf(stderr, "%s\n", problem->c_str());
            std::fflush(stderr);
            _exit(1);
        }
        state().made_directory = options.experiment_directory;
    }
    if (settings.enable_profiling) options.substrates.push_back(&profiling::substrate_callbacks());
    if (settings.enable_tracing) options.substrates.push_back(&tracing::substrate_callbacks());
    if (const Error error = initialize(options)) {
        std::fprintf(stderr, "%s\n", error->c_str());
        return;
    }
    state().directory_deferred = launched && writes;
    begin_program_region();
}

void internal::check_job_directory_before_main() {
    const config::Settings& settings = config::settings();
    if (!state().directory_deferred || settings.experiment_directory.empty()) return;
    // Rank 0 makes the directory at MPI_Init; that it exists is known now, on
    // every rank: the job stops before main, as a single process does.
    std::string path = settings.experiment_directory;
    if (path[0] != '/' && !start_directory().empty()) path = start_directory() + "/" + path;
    if (const Error problem = experiment::refusal(path, settings.overwrite_experiment_directory)) {
        if (launcher_rank() <= 0) std::fprintf(stderr, "%s\n", problem->c_str());
        std::fflush(stderr);
        _exit(1);
    }
}

/// This process's rank among the processes a launcher (mpirun, srun) started
/// together, when there are several; -1 otherwise.
long internal::launcher_rank() {
    // Open MPI, PMI (MPICH's Hydra, Intel MPI, Cray), PMIx, Slurm, MVAPICH, IBM's
    // jsrun, Flux.  A process started by a launcher not listed here claims its
    // directory before main, as one started alone does (runtime_multi_process.cpp
    // then gives the job rank 0's at MPI_Init).
    static const char* const variables[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                                               {"PMI_SIZE", "PMI_RANK"},
                                               {"PMIX_SIZE", "PMIX_RANK"},
                                               {"SLURM_NTASKS", "SLURM_PROCID"},
                                               {"MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"},
                                               {"JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_RANK"},
                                               {"FLUX_JOB_SIZE", "FLUX_TASK_RANK"}};
    for (const auto& v : variables) {
        const char* size = std::getenv(v[0]);
        const char* rank = std::getenv(v[1]);
        if (size != nullptr && rank != nullptr) return std::atol(size) > 1 ? std::atol(rank) : -1;
    }
    return -1;
}

namespace {
/// Once per job (by its first process): why its processes write separate experiments.
void say_why_processes_measure_separately(const std::string& named_directory) {
    const std::string where =
        named_directory.empty() ? std::string("strata-<date>_<time>_<process id>") : named_directory + "-rank<r>";
    if (processes_measure_together()) {
        std::fprintf(stderr,
                     "strata: the processes of this job do not measure together (no MPI_Init in the "
                     "measurement): each writes its own experiment, %s\n",
                     where.c_str());
        return;
    }
    // strata-preload has judged from the program's libraries whether it uses MPI, and said so.
    if (g_started_by_preload) {
        if (!named_directory.empty()) {
            std::fprintf(stderr, "strata: the processes of this job measure separately: each writes its own "
                                 "experiment, %s\n", where.c_str());
        }
        return;
    }
    std::fprintf(stderr,
                 "strata: note: the processes of this job measure separately: this program was built without "
                 "Strata's MPI adapter, so its MPI calls (if it makes any) are not recorded and each process "
                 "writes its own experiment, %s.  For an MPI program, build it with an MPI compiler wrapper "
                 "(strata mpicc ...) or strata --mpi, or run it under strata-preload.\n",
                 where.c_str());
}
}  // namespace

/// `alone`: the process writes without the other ranks (it does not use MPI,
/// or never called MPI_Init).  When a launcher started several such processes
/// with one STRATA_EXPERIMENT_DIRECTORY, each takes <directory>-rank<r>:
/// otherwise all but the first would find the directory taken and stop.
Error internal::create_experiment_directory(long id, std::string* made, bool alone) {
    const config::Settings& settings = config::settings();
    std::string path =
        settings.experiment_directory.empty() ? experiment::default_name(id) : settings.experiment_directory;
    // Relative to where the program started: it may have changed its working
    // directory since (an MPI program's directory is made at MPI_Init).
    if (!path.empty() && path[0] != '/' && !start_directory().empty()) path = start_directory() + "/" + path;
    const long rank = alone ? launcher_rank() : -1;
    if (rank >= 0 && !settings.experiment_directory.empty()) path += "-rank" + std::to_string(rank);
    if (rank == 0) say_why_processes_measure_separately(settings.experiment_directory);
    Error problem = experiment::create(path, settings.overwrite_experiment_directory);
    // The default name is the date, the time and a process id: runs in
    // containers (the same pid) started in the same second share it.  The
    // later ones take the next free name, <name>.2, <name>.3, ...
    const std::string base = path;
    for (int n = 2; problem && settings.experiment_directory.empty() && n <= 1000; ++n) {
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) break;  // another problem
        path = base + "." + std::to_string(n);
        problem = experiment::create(path, false);
    }
    if (!problem) {
        // Without . and .. (and absolute even when the start directory was unknown).
        char* absolute = realpath(path.c_str(), nullptr);
        if (absolute != nullptr) path = absolute;
        std::free(absolute);
        std::ostringstream cfg;
        config::Registry::instance().write_cfg(cfg);
        problem = experiment::write_file(path + "/strata.cfg", cfg.str());
    }
    *made = path;
    return problem;
}

}  // namespace strata::runtime
