// SPDX-License-Identifier: BSD-3-Clause
// Runtime lifecycle: initialisation, event tables, the program region,
// finalisation.  The start from the environment (before main) is in
// runtime_start.cpp, the MPI job's start and end in runtime_multi_process.cpp,
// the exit and signal handlers in runtime_signals.cpp, what could not be
// recorded in runtime_losses.cpp.
#include "core/runtime.hpp"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

#include "core/clock_sync.hpp"
#include "core/file_size_guard.hpp"
#include "core/definitions.hpp"
#include "core/experiment_directory.hpp"
#include "core/launch_paths.hpp"
#include "core/location.hpp"
#include "core/memory_pool.hpp"
#include "core/ranks_writing_alone.hpp"
#include "core/runtime_internal.hpp"
#include "core/timer.hpp"
#include "core/unification.hpp"
#include "metrics/metrics.hpp"
#include "tracing/tracing_substrate.hpp"

namespace strata::runtime {

namespace detail {
std::atomic<const substrate::EventTable*> active_table{nullptr};
substrate::EventTable on_table;
substrate::EventTable off_table;
RegionHandle flush_region = 0;
RegionHandle recording_off_region = 0;
}  // namespace detail

namespace internal {
State& state() {
    static State* s = new State();  // never destroyed: used until the last atexit handler
    return *s;
}
std::atomic<bool> g_finalized{false};
bool g_collective_finalize = false;
char g_alone_reason[256] = "it exited without calling MPI_Finalize";
int g_ending_signal = 0;
bool g_verbose = false;
bool g_report_unknown_variables = false;
}  // namespace internal

using namespace internal;

namespace {

void ignore_region_event(Location&, Ticks, RegionHandle) {}

void build_tables() {
    detail::on_table = substrate::EventTable{};
    int n_enter = 0, n_exit = 0, n_pi = 0, n_ps = 0, n_mpi = 0, n_thread = 0, n_attributes = 0;
    int n_samples = 0;
    bool inherited_only = true;
    const bool counters = metrics::active();
    for (const substrate::Callbacks* each : state().substrates) {
        const substrate::EventCallbacks* s = &each->events;
        const substrate::EnterFn enter = counters && s->enter_with_metrics ? s->enter_with_metrics : s->enter;
        const substrate::ExitFn exit = counters && s->exit_with_metrics ? s->exit_with_metrics : s->exit;
        if (enter) {
            detail::on_table.enter_correlated[n_enter] = s->enter_correlated;
            detail::on_table.enter_under[n_enter] = s->enter_under;
            detail::on_table.enter[n_enter++] = enter;
        }
        if (exit) {
            detail::on_table.exit_under[n_exit] = s->exit_under;
            detail::on_table.exit[n_exit++] = exit;
        }
        detail::on_table.keep_launch_paths |= s->enter_under != nullptr;
        if (s->gpu_attributes) detail::on_table.gpu_attributes[n_attributes++] = s->gpu_attributes;
        if (s->device_metric) detail::on_table.device_metric[n_samples++] = s->device_metric;
        if (s->parameter_int) detail::on_table.parameter_int[n_pi++] = s->parameter_int;
        if (s->parameter_string) detail::on_table.parameter_string[n_ps++] = s->parameter_string;
        if (s->mpi_event) {
            detail::on_table.mpi_event[n_mpi++] = s->mpi_event;
            detail::on_table.mpi_event_kinds |= s->mpi_event_kinds;
            detail::on_table.mpi_event_time |= s->mpi_event_time;
        }
        if (s->thread_event) {
            detail::on_table.thread_event[n_thread++] = s->thread_event;
            inherited_only = inherited_only && s->thread_events_inherited_only;
        }
    }
    detail::on_table.thread_events_inherited_only = inherited_only;
    // Counters are read on the general path only (events.cpp): no single entry then.
    if (n_enter == 1 && n_exit == 1 && !counters) {
        detail::on_table.single_enter = detail::on_table.enter[0];
        detail::on_table.single_exit = detail::on_table.exit[0];
        for (const substrate::Callbacks* each : state().substrates) {
            const substrate::EventCallbacks* s = &each->events;
            if (s->enter == nullptr || s->mpi_event == nullptr || n_mpi != 1) continue;
            detail::on_table.single_enter_bytes = s->enter_with_bytes;
            detail::on_table.single_bytes_exit = s->bytes_then_exit;
        }
    }
    // The hot path calls entry 0 without testing it: never leave it empty.
    if (n_enter == 0) detail::on_table.enter[0] = ignore_region_event;
    if (n_exit == 0) detail::on_table.exit[0] = ignore_region_event;
    // While recording is off only the exits of regions entered before are delivered.
    detail::off_table = substrate::EventTable{};
    // Thread teams are structure, not measurement: a team begun while recording
    // was on must end in every substrate even if recording is off by then.
    for (int i = 0; i <= substrate::kMaxSubstrates; ++i) {
        detail::off_table.exit[i] = detail::on_table.exit[i];
        detail::off_table.exit_under[i] = detail::on_table.exit_under[i];
        detail::off_table.thread_event[i] = detail::on_table.thread_event[i];
    }
    detail::off_table.thread_events_inherited_only = inherited_only;
}

void define_internal_regions() {
    events::RegionSpec flush;
    flush.name = "STRATA_TRACE_BUFFER_FLUSH";
    flush.paradigm = Paradigm::measurement;
    flush.role = RegionRole::artificial;
    detail::flush_region = definitions().define_region(flush);
    events::RegionSpec off = flush;
    off.name = "STRATA_RECORDING_OFF";
    detail::recording_off_region = definitions().define_region(off);
}

/// The program's name as it was started (argv[0] without its directory).
std::string program_name() {
    if (program_invocation_short_name != nullptr && program_invocation_short_name[0] != '\0') {
        return program_invocation_short_name;
    }
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return "program";
    path[n] = '\0';
    const char* slash = std::strrchr(path, '/');
    return slash != nullptr ? slash + 1 : path;
}

/// The program region, named after the program, is open on the thread that
/// started the measurement (the main thread, before main) until finalize()
/// closes it: the root of that thread's call paths, whose exclusive time is the
/// program's own work outside every measured region.  Without it a binary
/// measured through strata-preload (or built without function instrumentation)
/// would show its computation nowhere: only its MPI calls would have time.
/// Score-P and TAU open such a region as well.  Defined past the filter: it is
/// never filtered out.
///
/// It begins when the measurement starts but is entered only with the thread's
/// first event (program_region_due()), at that start time: the thread's location
/// must not exist before every library of the program has started (see
/// first_location_created()).
struct ProgramRegion {
    RegionHandle region = 0;
    Ticks begin = 0;
    pthread_t thread{};
    std::atomic<bool> pending{false};
};
ProgramRegion g_program;

}  // namespace

void internal::begin_program_region() {
    const std::string name = program_name();
    events::RegionSpec spec;
    spec.name = name;
    spec.paradigm = Paradigm::user;
    spec.role = RegionRole::artificial;
    g_program.region = definitions().define_region(spec);
    if (g_program.region == 0) return;
    g_program.begin = timer::now();
    g_program.thread = pthread_self();
    g_program.pending.store(true, std::memory_order_release);
}

const std::vector<const substrate::Callbacks*>& substrates() { return state().substrates; }

void first_location_created() {
    // By now every library of the program has started and added its variables.
    if (!g_report_unknown_variables) return;
    g_report_unknown_variables = false;
    for (const std::string& w : config::Registry::instance().unknown_variables()) {
        std::fprintf(stderr, "%s\n", w.c_str());
    }
}

void program_region_due() {
    if (!g_program.pending.load(std::memory_order_acquire) || !pthread_equal(pthread_self(), g_program.thread)) return;
    g_program.pending.store(false, std::memory_order_relaxed);
    events::enter_at(g_program.begin, g_program.region);
}

namespace {
/// CoreServices::measurement_activity: the activity as its region, in every substrate, right away.
void record_measurement_activity(Location& loc, substrate::MeasurementActivity activity, Ticks begin, Ticks end) {
    RegionHandle region = 0;
    switch (activity) {
        case substrate::MeasurementActivity::trace_buffer_flush: region = detail::flush_region; break;
    }
    if (end > loc.measured_until) loc.measured_until = end;
    // The enter carries the counters of the event that caused the activity, the
    // exit those read now: the difference is what the activity cost.
    for (auto* f = detail::on_table.enter; *f; ++f) (*f)(loc, begin, region);
    if (loc.metric_values != nullptr && &loc == location::detail::current) metrics::read(loc);
    for (auto* f = detail::on_table.exit; *f; ++f) (*f)(loc, end, region);
}
constexpr substrate::CoreServices kCoreServices{record_measurement_activity};
}  // namespace

const std::string& experiment_directory() {
    // A launched process that no subsystem makes measure with the others writes
    // alone: its directory is made when it first writes (a flush).
    if (state().directory_deferred && state().group == nullptr && !g_finalized.load() &&
        !processes_measure_together()) {
        if (const Error problem = claim_directory_alone()) {
            warn_once("claim-alone", problem.message() + "; the trace is not written");
        }
    }
    return state().experiment_directory;
}

Error internal::claim_directory_alone() {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    static Error failure;  // once: a refused directory is not tried again at every flush
    if (failure || !state().directory_deferred || !state().experiment_directory.empty()) return failure;
    std::string path;
    failure = create_experiment_directory(static_cast<long>(getpid()), &path, true);
    if (!failure) state().experiment_directory = path;
    return failure;
}

void warn_once(const std::string& key, const std::string& message) {
    {
        std::lock_guard<std::mutex> lock(state().warn_mutex);
        if (!state().warned.insert(key).second) return;
    }
    std::fprintf(stderr, "%s\n", message.c_str());
}

void verbose(const std::string& message) {
    if (g_verbose) std::fprintf(stderr, "strata: %s\n", message.c_str());
}

Error initialize(const Options& options) {
    if (detail::active_table.load() != nullptr) return "strata: the runtime is already initialised";
    if (options.substrates.size() > static_cast<size_t>(substrate::kMaxSubstrates)) {
        return "strata: too many substrates";
    }
    // Tracing records its buffer flushes through all substrates from inside its
    // own callback; it must come last so that the others have already seen the
    // event that caused the flush.
    for (size_t i = 0; i + 1 < options.substrates.size(); ++i) {
        if (options.substrates[i] == &tracing::substrate_callbacks()) {
            return "strata: the tracing substrate must be the last one";
        }
    }
    config::settings() = options.settings;
    g_verbose = options.settings.verbose;
    const std::string timer_warning = timer::initialize(options.settings.timer);
    if (!timer_warning.empty()) std::fprintf(stderr, "%s\n", timer_warning.c_str());
    page_pool().configure(options.settings.total_memory, options.settings.page_size);
    if (Error metrics_problem = metrics::configure(options.settings)) return metrics_problem;
    // Before any location: each one's counters start in its init_location (registered once).
    if (metrics::active()) events::register_subsystem(&metrics::subsystem());
    define_internal_regions();
    state().experiment_directory = options.experiment_directory;
    state().substrates = options.substrates;
    for (const substrate::Callbacks* s : state().substrates) {
        if (s->management.init) s->management.init(kCoreServices);
    }
    build_tables();
    g_finalized.store(false);
    if (options.install_handlers) install_handlers();
    detail::active_table.store(&detail::on_table, std::memory_order_release);
    verbose("measurement started; timer " + std::string(timer::name()) + ", experiment directory '" +
            state().experiment_directory + "'");
    return {};
}

void internal::stop_without_writing() {
    detail::active_table.store(nullptr, std::memory_order_release);
    g_finalized.store(true);
}

/// MEMBARRIER_CMD_PRIVATE_EXPEDITED registered at start-up (finalize's barrier is then cheap).
bool g_expedited_barrier = false;

void internal::register_process_barrier() {
    g_expedited_barrier = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/// A full memory barrier on every thread of the process that is running now;
/// false when the kernel offers none.
bool process_barrier() {
    if (g_expedited_barrier && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return true;
    return syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0;
}

/// Waits (5 s at most) until the other threads have finished the events they
/// began before the event table was removed (Location::in_event).  The
/// barrier pairs with the compiler-only fence of EventScope's (event_path.hpp):
/// a thread that read the old table has its mark visible after it.
void wait_for_events_in_flight() {
    const std::vector<Location*> locations = location::all();
    if (locations.size() < 2) return;
    if (!process_barrier()) {
        const timespec pause{0, 5000000};  // no barrier: a pause covers all but descheduled threads
        nanosleep(&pause, nullptr);
    }
    const Location* self = location::detail::current;
    long waited_us = 0;
    for (Location* loc : locations) {
        if (loc == self) continue;
        while (loc->in_event.load(std::memory_order_acquire) && waited_us < 5000000) {
            const timespec pause{0, 100000};
            nanosleep(&pause, nullptr);
            waited_us += 100;
        }
    }
    if (waited_us >= 5000000) {
        std::fprintf(stderr, "strata: warning: a thread was still recording an event 5 s after the end of the "
                             "measurement; its last events may be incomplete\n");
    }
}

namespace {
/// While the experiment is written, a closed stdout or stderr (`| head`, mpirun
/// tearing a job down) makes Strata's messages fail with EPIPE instead of
/// killing the process halfway through its files; the program's own
/// disposition comes back afterwards.
class SigpipeIgnored {
public:
    SigpipeIgnored() {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        saved_ = sigaction(SIGPIPE, &ignore, &previous_) == 0;
    }
    ~SigpipeIgnored() {
        if (saved_) sigaction(SIGPIPE, &previous_, nullptr);
    }
    SigpipeIgnored(const SigpipeIgnored&) = delete;
    SigpipeIgnored& operator=(const SigpipeIgnored&) = delete;

private:
    struct sigaction previous_ {};
    bool saved_ = false;
};
}  // namespace

bool finalize() {
    if (g_finalized.exchange(true)) return true;
    const SigpipeIgnored sigpipe_ignored;
    // A rank of a job that writes alone on a termination request: its marker.
    struct {
        std::string job_directory;
        std::string marker;
    } writing_alone;
    // Adapters hand over what they hold while events are still recorded; not
    // from a signal handler, where their libraries (CUPTI) cannot be called.
    if (g_ending_signal == 0 && detail::active_table.load(std::memory_order_acquire) != nullptr) {
        if (g_verbose && !subsystem_names().empty()) verbose("subsystems: " + subsystem_names());
        finalize_subsystems();
    }
    // A main thread without any event still ran the program: its program region
    // (the location is made here, which enters it).
    if (g_program.pending.load(std::memory_order_acquire) && pthread_equal(pthread_self(), g_program.thread) &&
        detail::active_table.load(std::memory_order_acquire) != nullptr) {
        location::current();
    }
    const substrate::EventTable* table = detail::active_table.exchange(nullptr);
    if (table == nullptr) return true;
    // MPI_Finalize ends for every rank when the last one has entered it, as a
    // barrier does: no rank may leave it before another entered (the clock
    // condition that Scalasca checks; before, a rank ended its measurement at once).
    if (g_collective_finalize && state().group != nullptr) state().group->barrier();
    const Ticks end = timer::now();
    // Other threads may still run (exit() from one thread of many): the events
    // they began before the table went away end before their locations are closed.
    wait_for_events_in_flight();
    // Close what is still open (exit() inside regions, crashes), so that
    // profile and trace hold complete, well-nested regions.
    for (Location* loc : location::all()) {
        // Only the calling thread's counters can be read; other threads close
        // with the values of their last event.
        if (loc->depth > 0 && loc->metric_values != nullptr && loc == location::detail::current) metrics::read(*loc);
        events::detail::close_open_teams(&detail::on_table, *loc, end);
        while (loc->depth > 0) {
            const RegionHandle top = loc->stack[--loc->depth];
            if ((top & 0x80000000u) == 0) {
                for (auto* f = detail::on_table.exit; *f; ++f) (*f)(*loc, end, top);
            }
        }
    }
    events::ProcessGroup* group = state().group;
    if (group != nullptr && !g_collective_finalize) {
        // This rank stops alone (signal, MPI_Abort, exit without MPI_Finalize):
        // no collective operation may be used, the other ranks would not join
        // (or are gone).  It writes what it recorded into rank-<r>/ of the
        // experiment, a complete experiment of its own, and says why.
        const std::string rank_directory =
            state().experiment_directory + "/rank-" + std::to_string(group->rank());
        Error problem = experiment::create(rank_directory, false);
        if (!problem) {
            // "rank r of n": the analysis names the ranks that left no experiment (SIGKILL).
            problem = experiment::write_file(rank_directory + "/INCOMPLETE",
                                             "rank " + std::to_string(group->rank()) + " of " +
                                             std::to_string(group->size()) + " did not finish with the "
                                             "other ranks: " + std::string(g_alone_reason) + ".\nWhat it recorded until then "
                                             "is in this directory, its trace with what its threads flushed "
                                             "to disk during the run (moved here from the job's shared "
                                             "traces/).\n");
        }
        if (problem) {
            std::fprintf(stderr, "%s; nothing is written\n", problem->c_str());
            return false;
        }
        std::fprintf(stderr, "strata: rank %d stops alone (%s); writing what it recorded to %s\n", group->rank(),
                     g_alone_reason, rank_directory.c_str());
        if (termination_request(g_ending_signal)) {
            writing_alone.job_directory = state().experiment_directory;
            writing_alone.marker = ranks_writing_alone::begin(writing_alone.job_directory, group->rank());
        }
        state().experiment_directory = rank_directory;
        state().alone_rank = group->rank();
        group = nullptr;
        state().group = nullptr;
    }
    if (state().directory_deferred && group == nullptr && state().alone_rank < 0) {
        // A launched process that never joined the job (no MPI, or no MPI_Init): write alone.
        if (const Error problem = claim_directory_alone()) {
            std::fprintf(stderr, "%s; nothing is written\n", problem->c_str());
            return false;
        }
    }
    const int rank = group != nullptr ? group->rank() : 0;
    if (group != nullptr) state().clock_points.push_back(clock_sync::measure(*group, timer::now, timer::clock_domain()));
    // strata.cfg again: adapters that started after the core have added their variables.
    if (rank == 0 && !state().experiment_directory.empty() && g_report_unknown_variables == false) {
        std::ostringstream cfg;
        config::Registry::instance().write_cfg(cfg);
        if (const Error problem = experiment::write_file(state().experiment_directory + "/strata.cfg", cfg.str()))
            std::fprintf(stderr, "%s\n", problem->c_str());
    }
    substrate::FinalizeContext ctx;
    const std::string& directory = state().experiment_directory;
    ctx.experiment_directory = directory.empty() ? nullptr : directory.c_str();
    ctx.end_time = end;
    ctx.group = group;
    ctx.rank = group != nullptr ? group->rank() : std::max(state().alone_rank, 0);
    ctx.clock_points = &state().clock_points;
    // The job's definitions: every substrate writes global ids (collective with a group).
    DefinitionsSnapshot local = definitions().snapshot();
    local.set_rank(ctx.rank);
    const unification::Unified unified = unification::unify(local, group);
    ctx.definitions = &unified;
    bool ok = true;
    FileSizeGuard file_size;  // a file-size limit fails these writes; it does not kill the program
    for (const substrate::Callbacks* s : state().substrates) {
        if (!s->management.finalize) continue;
        if (Error error = s->management.finalize(ctx)) {
            if (file_size.limit_hit()) *error += " (the file-size limit, ulimit -f, was reached)";
            std::fprintf(stderr, "%s\n", error->c_str());
            ok = false;
        }
    }
    if (ctx.experiment_directory != nullptr) write_losses(ctx.experiment_directory, ctx.rank);
    if (g_ending_signal != 0 && group == nullptr && state().alone_rank < 0 && ctx.experiment_directory != nullptr) {
        // One process ended by a signal: the experiment says so, or the analysis
        // would present it as a whole run (a rank that stops alone says so above).
        const char* text = strsignal(g_ending_signal);
        const Error problem = experiment::write_file(
            directory + "/INCOMPLETE", "the program did not run to its end: it received signal " +
                                           std::to_string(g_ending_signal) + " (" + (text ? text : "?") +
                                           ").\nWhat it recorded until then is in this directory; the regions "
                                           "still open then end at that moment.\n");
        if (problem) std::fprintf(stderr, "%s\n", problem->c_str());
    }
    std::uint64_t unmatched = 0;
    for (Location* loc : location::all()) unmatched += loc->unmatched_exits;
    if (unmatched > 0) {
        std::fprintf(stderr, "strata: warning: %llu region exits did not match the open region (see above)\n",
                     static_cast<unsigned long long>(unmatched));
    }
    if (ctx.experiment_directory != nullptr && rank == 0) {
        char* absolute = realpath(ctx.experiment_directory, nullptr);
        std::fprintf(stderr, "strata: experiment written to %s%s\n", absolute ? absolute : ctx.experiment_directory,
                     ok ? "" : ", incomplete (see above)");
        std::free(absolute);
    }
    if (!writing_alone.job_directory.empty()) {
        // The launcher kills this host's other ranks soon after this one exits:
        // it stays while they still write (ranks_writing_alone.hpp).
        ranks_writing_alone::end(writing_alone.marker);
        ranks_writing_alone::wait_for_siblings(writing_alone.job_directory, 200, 10000);
    }
    return ok;
}

void reset_for_tests() {
    finalize();
    for (const substrate::Callbacks* s : state().substrates) {
        if (s->management.reset) s->management.reset();
    }
    location::reset_all();
    launch_paths::reset();
    definitions().clear();
    metrics::reset();
    state().substrates.clear();
    state().experiment_directory.clear();
    g_finalized.store(false);
    std::lock_guard<std::mutex> lock(state().warn_mutex);
    state().warned.clear();
}

}  // namespace strata::runtime
