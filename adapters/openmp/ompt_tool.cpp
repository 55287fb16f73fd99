// SPDX-License-Identifier: BSD-3-Clause
// The OMPT tool: the OpenMP runtime's callbacks turned into events.
//
//   forking thread   parallel_begin -> thread_fork            parallel_end -> thread_join
//   every thread     implicit_task begin -> team begin, enter "!$omp parallel @f:l"
//                    ... worksharing, barriers, critical, tasks as regions ...
//                    implicit_task end -> leave what is open, team end
//
// OMPT reports begin and end of a construct separately, and not always in a
// nested order.  Each thread therefore keeps the constructs it has open
// (ThreadState); an end closes the innermost open construct of its kind and
// whatever was opened inside it, and an end whose construct is not open is
// ignored.  Ends are matched by construct, not by return address: the end of a
// loop is reported from another call (__kmpc_for_static_fini) than its begin.
//
// LLVM's libomp reports the end of a worker's implicit barrier and implicit
// task only when the worker wakes up for the next parallel region (or at
// exit).  Taken at face value, the idle time between parallel regions would
// count as barrier time of the previous one.  The forking thread therefore
// notes when the team joined (events::thread_team_joined), and a worker's
// late ends are recorded at that time: nothing of that team can happen after it.
//
// The forking thread's callbacks at the fork (parallel begin, its implicit
// task's begin) and at the join (the end of the implicit barrier, of its
// implicit task, parallel end) come back to back from inside the runtime, with
// no program code between them: each group shares one clock reading
// (ThreadState::fork_time, join_time), three readings fewer per region.
#include <omp-tools.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "strata/measurement/config_registry.hpp"
#include "construct_regions.hpp"
#include "openmp_config.hpp"
#include "source_location.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"
#include "strata/measurement/thread_sanitizer.hpp"

namespace strata::openmp {

namespace {

std::uint32_t g_groups = all_groups;

/// What a parallel region's threads need from its forking thread: the region
/// they enter and where the construct is.  Kept in the fork context (see
/// events::thread_fork), which the team's threads read anyway; only when
/// nothing is recorded (no fork context: recording is off) does ompt
/// parallel_data point to a ParallelInfo instead, tagged by its lowest bit.
/// A ParallelInfo is owned by the forking thread until the parallel end.
struct ParallelInfo {
    RegionHandle region = 0;
    const void* codeptr_ra = nullptr;
    ParallelInfo* next_spare = nullptr;  ///< in the forking thread's list of free ones
};

constexpr std::uintptr_t kInfoTag = 1;

/// A construct open on this thread.
struct Frame {
    enum Kind : std::uint8_t { team, parallel, work, sync, masked, mutex_wait, mutex_held, task };
    Kind kind;
    /// Team frames: this thread is thread 0 of the team (the forking thread),
    /// whose ends the runtime reports on time.
    bool forking;
    RegionHandle region;  ///< 0: nothing entered (the team marker)
    /// What the end callback names: construct, wait id or task data; for a
    /// team, where its parallel construct is.
    const void* key;
};

/// Per-thread state: plain data in initial-exec TLS, so that every callback
/// finds it with one segment-relative load (no constructor, no lookup).
struct ThreadState {
    Frame* open;             ///< the open constructs, innermost last
    std::uint32_t size;
    std::uint32_t capacity;
    ParallelInfo* spare;     ///< freed ParallelInfo objects of the parallel regions this thread forked
    std::uint32_t spare_count;
    /// Shared clock readings (see the top of this file); 0: none pending.
    /// fork_time: taken at parallel begin, for this thread's implicit task begin
    /// as thread 0.  join_time: taken at the first end on the way to the join,
    /// for the later ends and parallel end, which clears it.
    Ticks fork_time;
    Ticks join_time;
    /// 1 + the index in `open` of the innermost team frame; 0: none.  Kept
    /// where team frames are pushed and popped (on_implicit_task), so that the
    /// callbacks that ask for the innermost team do not search for it.
    std::uint32_t team_plus1;
    /// The innermost team's join time once seen (events::thread_team_joined(),
    /// which does not change after); 0: not yet.  Cleared where team_plus1 changes.
    Ticks team_joined;
    /// A lock request not yet granted (see on_mutex_acquire); lock_wait_id 0: none.
    ompt_wait_id_t lock_wait_id;
    RegionHandle lock_region;
    Ticks lock_requested;
};

__thread ThreadState t_state __attribute__((tls_model("initial-exec")));

__attribute__((noinline)) void grow_open() {
    const std::uint32_t capacity = t_state.capacity == 0 ? 16 : t_state.capacity * 2;
    auto* grown = static_cast<Frame*>(std::realloc(t_state.open, capacity * sizeof(Frame)));
    if (grown == nullptr) std::abort();  // a few hundred bytes
    t_state.open = grown;
    t_state.capacity = capacity;
}

inline void push_frame(Frame frame) {
    if (__builtin_expect(t_state.size == t_state.capacity, 0)) grow_open();
    t_state.open[t_state.size++] = frame;
}

/// The innermost team frame of this thread (nullptr: none).
const Frame* innermost_team() {
    return t_state.team_plus1 != 0 ? &t_state.open[t_state.team_plus1 - 1] : nullptr;
}

void push_team_frame(Frame frame) {
    push_frame(frame);
    t_state.team_plus1 = t_state.size;
    t_state.team_joined = 0;
}

/// After the team frame at `index` was popped: the enclosing team, if any.
void popped_team_frame(std::uint32_t index) {
    t_state.team_plus1 = 0;
    t_state.team_joined = 0;
    for (std::uint32_t i = index; i-- > 0;) {
        if (t_state.open[i].kind == Frame::team) {
            t_state.team_plus1 = i + 1;
            return;
        }
    }
}

/// When the innermost team joined (0: not yet), asked of the event layer until it is known.
Ticks team_joined() {
    if (t_state.team_joined == 0) t_state.team_joined = events::thread_team_joined();
    return t_state.team_joined;
}

/// The time of an end event of a team's work: for a worker whose team has
/// already joined, the join (the runtime reports the worker's ends late, see
/// above; the join happened before this callback, so the clock need not be
/// read).  The forking thread's ends are never late: they are on its way to
/// the join and share one reading with it.
Ticks end_time() {
    const Frame* team = innermost_team();
    if (team != nullptr && team->forking) {
        if (t_state.join_time == 0) t_state.join_time = events::now();
        return t_state.join_time;
    }
    const Ticks joined = team_joined();
    return joined != 0 ? joined : events::now();
}

/// Whether an end reported late (see end_time) comes after its team joined, on
/// a thread other than the forking one.  libomp reports such an end as the
/// thread wakes up for the next parallel region, right before the end of the
/// thread's implicit task, which closes everything still open in the team at
/// the join: the end is left to it (one event API call fewer on the way into
/// the next region).
bool ends_with_its_team() {
    const Frame* team = innermost_team();
    return team != nullptr && !team->forking && team_joined() != 0;
}

/// Where the parallel construct of the innermost team of this thread is.
const void* innermost_parallel_code() {
    const Frame* team = innermost_team();
    return team != nullptr ? team->key : nullptr;
}

const void* construct_key(Construct c) { return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(c) + 1); }

void open(Frame::Kind kind, RegionHandle region, const void* key) {
    if (region != 0) events::enter(region);
    push_frame(Frame{kind, false, region, key});
}

/// Closes the innermost open construct of `kind` named `key`, and what was
/// opened inside it; false when there is none.  `late`: an end libomp may
/// report after the team joined (see end_time); the others are on time.
bool close(Frame::Kind kind, const void* key, bool late = false) {
    Frame* const open = t_state.open;
    for (std::uint32_t i = t_state.size; i-- > 0;) {
        if (open[i].kind == Frame::team) return false;  // never close across a team boundary
        if (open[i].kind != kind || open[i].key != key) continue;
        if (!late && i + 1 == t_state.size) {
            // The usual case: the innermost construct, on time (the event API reads the clock).
            t_state.size = i;
            if (open[i].region != 0) events::exit(open[i].region);
            return true;
        }
        if (late && ends_with_its_team()) return true;
        const Ticks time = late ? end_time() : events::now();
        while (t_state.size > i) {
            const Frame& top = open[--t_state.size];
            if (top.region != 0) events::exit_at(time, top.region);
        }
        return true;
    }
    return false;
}

// --- parallel ---------------------------------------------------------------

/// ParallelInfo objects are made and freed by the forking thread: it keeps the
/// freed ones for its next parallel regions instead of a malloc/free pair each.
ParallelInfo* take_parallel_info() {
    ParallelInfo* info = t_state.spare;
    if (info == nullptr) return new ParallelInfo();
    t_state.spare = info->next_spare;
    --t_state.spare_count;
    info->next_spare = nullptr;
    return info;
}

void give_back(ParallelInfo* info) {
    if (t_state.spare_count < 16) {
        info->next_spare = t_state.spare;
        t_state.spare = info;
        ++t_state.spare_count;
    } else {
        delete info;
    }
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel_data, unsigned int requested,
                       int, const void* codeptr_ra) {
    const RegionHandle region = construct_region(Construct::parallel, codeptr_ra);
    const Ticks time = events::now();
    t_state.fork_time = time;
    events::ForkContext* fork =
        events::thread_fork_at(time, Paradigm::openmp, requested,
                               reinterpret_cast<const void*>(static_cast<std::uintptr_t>(region)), codeptr_ra);
    if (fork != nullptr) {
        parallel_data->ptr = fork;
    } else {
        ParallelInfo* info = take_parallel_info();
        info->region = region;
        info->codeptr_ra = codeptr_ra;
        parallel_data->ptr = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(info) | kInfoTag);
        strata_tsan_release(info);  // read by the team's threads (see thread_sanitizer.hpp)
    }
    strata_tsan_release(parallel_data);
}

void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t*, int, const void*) {
    const Ticks joined = std::exchange(t_state.join_time, 0);
    const auto value = reinterpret_cast<std::uintptr_t>(parallel_data->ptr);
    if (value == 0) return;
    if ((value & kInfoTag) == 0) {
        return events::thread_join_at(joined != 0 ? joined : events::now(),
                                      static_cast<events::ForkContext*>(parallel_data->ptr));
    }
    auto* info = reinterpret_cast<ParallelInfo*>(value & ~kInfoTag);
    strata_tsan_acquire(info);  // the team's reads happened before the join
    give_back(info);
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t*,
                      unsigned int actual_parallelism, unsigned int index, int flags) {
    if (flags & ompt_task_initial) return;  // the program's initial task: no team
    if (endpoint == ompt_scope_begin) {
        if (parallel_data != nullptr) strata_tsan_acquire(parallel_data);
        const auto value = parallel_data != nullptr ? reinterpret_cast<std::uintptr_t>(parallel_data->ptr) : 0;
        events::ForkContext* fork = nullptr;
        RegionHandle region = 0;
        const void* code = nullptr;
        if ((value & kInfoTag) != 0) {
            const auto* info = reinterpret_cast<const ParallelInfo*>(value & ~kInfoTag);
            strata_tsan_acquire(info);
            region = info->region;
            code = info->codeptr_ra;
            strata_tsan_release(info);  // read before the join, which frees it
        } else if (value != 0) {
            fork = reinterpret_cast<events::ForkContext*>(value);
            strata_tsan_acquire(fork);
            const void* const* user = events::thread_fork_user_data(fork);
            region = static_cast<RegionHandle>(reinterpret_cast<std::uintptr_t>(user[0]));
            code = user[1];
        }
        // The team's begin and the parallel region's enter: one clock reading,
        // on thread 0 the fork's.
        const Ticks time = index == 0 && t_state.fork_time != 0 ? std::exchange(t_state.fork_time, 0) : events::now();
        events::thread_team_begin_enter_at(time, fork, index, actual_parallelism, value != 0 ? region : 0);
        push_team_frame(Frame{Frame::team, index == 0, 0, code});
        if (value != 0) push_frame(Frame{Frame::parallel, false, region, nullptr});
        return;
    }
    // End: leave everything opened in the team, then the team (one call of the event API).
    const Ticks time = end_time();
    std::uint32_t open_regions = 0;
    while (t_state.size > 0) {
        const Frame top = t_state.open[--t_state.size];
        if (top.kind == Frame::team) {
            popped_team_frame(t_state.size);
            break;
        }
        if (top.region != 0) ++open_regions;
    }
    events::thread_team_end_closing_at(time, open_regions);
}

// --- worksharing --------------------------------------------------------------

Construct work_construct(ompt_work_t kind) {
    switch (kind) {
        case ompt_work_loop: return Construct::loop;
        case ompt_work_sections: return Construct::sections;
        case ompt_work_single_executor:
        case ompt_work_single_other: return Construct::single;
        case ompt_work_workshare: return Construct::workshare;
        case ompt_work_distribute: return Construct::distribute;
        case ompt_work_taskloop: return Construct::taskloop;
        default: return Construct::scope;
    }
}

/// Worksharing regions and barriers may not be closely nested inside a
/// worksharing region (OpenMP 5.1, 17.1): one beginning while a worksharing
/// construct is the innermost open one means the runtime did not report that
/// construct's end (libomp's GCC entry points do not for single), so it ends here.
void end_unreported_work() {
    if (t_state.size > 0 && t_state.open[t_state.size - 1].kind == Frame::work) {
        close(Frame::work, t_state.open[t_state.size - 1].key);
    }
}

void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*, uint64_t,
             const void* codeptr_ra) {
    const Construct construct = work_construct(kind);
    if (endpoint == ompt_scope_begin) {
        end_unreported_work();
        open(Frame::work, construct_region(construct, codeptr_ra), construct_key(construct));
    } else {
        close(Frame::work, construct_key(construct));
    }
}

void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*, const void* codeptr_ra) {
    if (endpoint == ompt_scope_begin) {
        open(Frame::masked, construct_region(Construct::masked, codeptr_ra), nullptr);
    } else {
        close(Frame::masked, nullptr);
    }
}

// --- synchronisation -----------------------------------------------------------

Construct sync_construct(ompt_sync_region_t kind) {
    switch (kind) {
        case ompt_sync_region_barrier_explicit: return Construct::barrier;
        case ompt_sync_region_barrier_implementation: return Construct::runtime_barrier;
        case ompt_sync_region_taskwait: return Construct::taskwait;
        case ompt_sync_region_taskgroup: return Construct::taskgroup;
        case ompt_sync_region_reduction: return Construct::reduction;
        default: return Construct::implicit_barrier;  // implicit, implicit_workshare, implicit_parallel, teams
    }
}

/// The code of the OpenMP runtime and of this adapter (set at initialisation).
CodeRange g_runtime_code, g_adapter_code;

/// Whether the end of a barrier may be reported after its team joined (see
/// end_time): the barrier at the end of a parallel region, on a thread other
/// than the forking one, which libomp reports when the thread wakes up for the
/// next parallel region.  LLVM 14's libomp names every implicit barrier
/// ompt_sync_region_barrier_implicit (OpenMP 5.0), the one at the end of a
/// parallel region included, so on those threads every implicit barrier
/// takes the late path: before the join end_time() reads the clock as usual.
/// On the forking thread the one at the end of the parallel region shares the
/// join's clock reading: named as the parallel region's (OpenMP 5.1), or, in
/// LLVM 14, told by its code, which is the parallel construct's own (the
/// other implicit barriers name code inside the region); its other implicit
/// barriers end on time.  (A GCC-compiled program's names code of the runtime:
/// it ends on time, as does any barrier that names the runtime.)
bool may_end_late(ompt_sync_region_t kind, Construct construct, const void* codeptr_ra) {
    if (kind == ompt_sync_region_barrier_implicit_parallel) return true;
    if (construct != Construct::implicit_barrier) return false;
    const Frame* team = innermost_team();
    return team != nullptr && (!team->forking || (codeptr_ra != nullptr && codeptr_ra == team->key));
}

void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*,
                    const void* codeptr_ra) {
    Construct construct = sync_construct(kind);
    // libomp's GOMP_barrier (a GCC-compiled `#pragma omp barrier`) passes no
    // barrier flag and reports an implementation barrier, but at the program's
    // code: a barrier the program wrote (libomp's own name code of libomp or none).
    if (construct == Construct::runtime_barrier && codeptr_ra != nullptr && !g_runtime_code.contains(codeptr_ra))
        construct = Construct::barrier;
    if (endpoint == ompt_scope_begin) {
        if (construct != Construct::taskwait && construct != Construct::taskgroup) end_unreported_work();
        // libomp names no code for a worker's barrier at the end of a parallel
        // region, and code of its own for that barrier of a GCC-compiled program
        // (GOMP_parallel): it is the parallel construct's, as on the forking thread.
        if ((construct == Construct::implicit_barrier || construct == Construct::runtime_barrier) &&
            (codeptr_ra == nullptr || g_runtime_code.contains(codeptr_ra))) {
            codeptr_ra = innermost_parallel_code();
        }
        open(Frame::sync, construct_region(construct, codeptr_ra), construct_key(construct));
    } else {
        close(Frame::sync, construct_key(construct), may_end_late(kind, construct, codeptr_ra));
    }
}

// --- mutual exclusion ------------------------------------------------------------
// critical/ordered: the construct from the request to the release, its "sblock"
// while held: the wait is the construct's time outside the sblock.  Locks: the
// call that acquires (omp_set_lock) is the region, so its time is the wait.  It
// is recorded when the lock is granted, from the time of the request: libomp
// reports omp_test_lock's request as a lock request too and nothing when the
// test fails, and an owner taking its nest lock again gets no "acquired" either;
// neither waits, and neither may leave a region open.

const void* wait_key(ompt_wait_id_t wait_id) { return reinterpret_cast<const void*>(wait_id); }


/// libomp's GCC entry points sometimes report a return address inside libomp
/// itself (GOMP_critical_start, seen when threads contend): the construct is
/// then found as the first caller outside the runtime and this adapter.
__attribute__((noinline)) const void* caller_outside_runtime(const void* codeptr_ra) {
    const void* caller = first_caller_outside(g_runtime_code, g_adapter_code);
    return caller != nullptr ? caller : codeptr_ra;
}

inline const void* program_code(const void* codeptr_ra) {
    return __builtin_expect(g_runtime_code.contains(codeptr_ra), 0) ? caller_outside_runtime(codeptr_ra) : codeptr_ra;
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned int, unsigned int, ompt_wait_id_t wait_id, const void* codeptr_ra) {
    codeptr_ra = program_code(codeptr_ra);
    switch (kind) {
        case ompt_mutex_critical: open(Frame::mutex_wait, construct_region(Construct::critical, codeptr_ra), wait_key(wait_id)); break;
        case ompt_mutex_ordered: open(Frame::mutex_wait, construct_region(Construct::ordered, codeptr_ra), wait_key(wait_id)); break;
        case ompt_mutex_atomic: open(Frame::mutex_wait, construct_region(Construct::atomic, codeptr_ra), wait_key(wait_id)); break;
        case ompt_mutex_lock:
        case ompt_mutex_nest_lock:
            t_state.lock_region =
                construct_region(kind == ompt_mutex_lock ? Construct::lock : Construct::nest_lock, codeptr_ra);
            t_state.lock_wait_id = wait_id;
            t_state.lock_requested = events::now();
            break;
        default: break;  // omp_test_lock as a runtime names it: no wait to show
    }
}

void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr_ra) {
    codeptr_ra = program_code(codeptr_ra);
    switch (kind) {
        case ompt_mutex_critical:
            open(Frame::mutex_held, construct_region(Construct::critical_sblock, codeptr_ra), wait_key(wait_id));
            break;
        case ompt_mutex_ordered:
            open(Frame::mutex_held, construct_region(Construct::ordered_sblock, codeptr_ra), wait_key(wait_id));
            break;
        case ompt_mutex_lock:
        case ompt_mutex_nest_lock:
            // Nothing was recorded on this thread since the request: its time may come first.
            if (t_state.lock_wait_id == wait_id && t_state.lock_region != 0) {
                events::enter_at(t_state.lock_requested, t_state.lock_region);
                events::exit(t_state.lock_region);
            }
            t_state.lock_wait_id = 0;
            break;
        default: break;
    }
}

void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void*) {
    switch (kind) {
        case ompt_mutex_critical:
        case ompt_mutex_ordered:
        case ompt_mutex_atomic: close(Frame::mutex_wait, wait_key(wait_id)); break;  // and the sblock inside
        default: break;
    }
}

// --- tasks ------------------------------------------------------------------------
// An explicit task's data points to its TaskRecord from its creation to its
// completion.  Its execution is a region; creation, start or resumption and
// completion are also OTF2's ThreadTask events, which name the task by its
// creating thread and that thread's count of tasks (events::TaskId).

struct TaskRecord {
    RegionHandle region;
    events::TaskId id;
    bool started;
};

void on_task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t* new_task_data, int flags, int,
                    const void* codeptr_ra) {
    if ((flags & ompt_task_explicit) == 0 || new_task_data == nullptr) return;
    strata_tsan_acquire(new_task_data);  // the runtime may reuse the memory of a finished task
    const RegionHandle create = construct_region(Construct::task_create, codeptr_ra);
    if (create != 0) events::enter(create);
    auto* task = new (std::nothrow) TaskRecord{construct_region(Construct::task, codeptr_ra), {}, false};
    if (task != nullptr) task->id = events::task_create();
    new_task_data->ptr = task;
    strata_tsan_release(new_task_data);  // read by the thread that runs the task
    if (create != 0) events::exit(create);
}

void on_task_schedule(ompt_data_t* prior_task_data, ompt_task_status_t prior_task_status,
                      ompt_data_t* next_task_data) {
    if (prior_task_data != nullptr) strata_tsan_acquire(prior_task_data);
    if (next_task_data != nullptr) strata_tsan_acquire(next_task_data);
    // Implicit and initial tasks have no record (their data stays null).
    auto* prior = prior_task_data != nullptr ? static_cast<TaskRecord*>(prior_task_data->ptr) : nullptr;
    if (prior != nullptr) {
        switch (prior_task_status) {
            case ompt_task_complete:
            case ompt_task_cancel:
            case ompt_task_detach:  // its body is done; a late fulfilment finds no record
                if (prior->started) {
                    close(Frame::task, prior);
                    events::task_complete(prior->id);
                }
                prior_task_data->ptr = nullptr;
                strata_tsan_release(prior_task_data);
                delete prior;
                break;
            default: break;  // suspended (yield, switch): resumes later, still open
        }
    }
    auto* next = next_task_data != nullptr ? static_cast<TaskRecord*>(next_task_data->ptr) : nullptr;
    if (next != nullptr) {
        events::task_switch(next->id);  // starts or resumes
        if (!next->started) {
            next->started = true;
            strata_tsan_release(next_task_data);
            open(Frame::task, next->region, next);
        }
    }
}

void on_thread_end(ompt_data_t*) {
    while (t_state.spare != nullptr) delete std::exchange(t_state.spare, t_state.spare->next_spare);
    std::free(t_state.open);
    t_state = ThreadState{};
}

// --- start-up -------------------------------------------------------------------

bool g_configured = false;

/// STRATA_OPENMP_ENABLE; a bad value stops the program before main (subsystem.hpp, init).
Error init_ompt_adapter() {
    return register_variables(config::Registry::instance(), [](std::uint32_t mask) { g_groups = mask; });
}

/// Once (ompt_start_tool may come before this library's constructor).
void configure() {
    if (g_configured) return;
    g_configured = true;
    static constexpr events::Subsystem subsystem{"openmp (OMPT)", false, init_ompt_adapter, nullptr};
    events::register_subsystem(&subsystem);
}

__attribute__((constructor)) void configure_openmp_adapter() { configure(); }

/// A program on GCC's libgomp never calls ompt_start_tool: say so once, at the end of start-up.
__attribute__((constructor(65535))) void check_openmp_runtime() {
    if (g_groups == 0) return;
    void* gomp = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    Dl_info info{};
    if (gomp == nullptr || dladdr(gomp, &info) == 0 || info.dli_fname == nullptr) return;
    if (std::strstr(info.dli_fname, "libgomp") == nullptr) return;
    std::fprintf(stderr,
                 "strata: warning: this program uses GCC's OpenMP runtime (%s), which has no OMPT "
                 "interface: its OpenMP constructs are not recorded.  Link it with `strata`, or run it "
                 "under strata-preload: both measure libgomp through its GOMP_* entry points "
                 "(libstrata-openmp-gomp).\n",
                 info.dli_fname);
}

template <typename Fn>
void set_callback(ompt_set_callback_t set, ompt_callbacks_t which, Fn fn, const char* name) {
    const int result = set(which, reinterpret_cast<ompt_callback_t>(fn));
    if (result == ompt_set_never || result == ompt_set_error) {
        std::fprintf(stderr, "strata: note: the OpenMP runtime does not report %s; those events are not recorded\n",
                     name);
    }
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
    auto set = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
    if (set == nullptr) return 0;
    g_runtime_code = code_range_of(reinterpret_cast<const void*>(set));  // a function of the runtime
    g_adapter_code = code_range_of(reinterpret_cast<const void*>(&caller_outside_runtime));
    set_callback(set, ompt_callback_thread_end, on_thread_end, "thread ends");
    if (g_groups & group_parallel) {
        set_callback(set, ompt_callback_parallel_begin, on_parallel_begin, "parallel regions");
        set_callback(set, ompt_callback_parallel_end, on_parallel_end, "parallel regions");
        set_callback(set, ompt_callback_implicit_task, on_implicit_task, "implicit tasks");
    }
    if (g_groups & group_worksharing) {
        set_callback(set, ompt_callback_work, on_work, "worksharing constructs");
        set_callback(set, ompt_callback_masked, on_masked, "masked constructs");
    }
    if (g_groups & group_sync) set_callback(set, ompt_callback_sync_region, on_sync_region, "barriers and taskwaits");
    if (g_groups & group_locks) {
        set_callback(set, ompt_callback_mutex_acquire, on_mutex_acquire, "lock requests");
        set_callback(set, ompt_callback_mutex_acquired, on_mutex_acquired, "lock acquisitions");
        set_callback(set, ompt_callback_mutex_released, on_mutex_released, "lock releases");
    }
    if (g_groups & group_tasks) {
        set_callback(set, ompt_callback_task_create, on_task_create, "task creation");
        set_callback(set, ompt_callback_task_schedule, on_task_schedule, "task scheduling");
    }
    return 1;  // keep the tool
}

void finalize(ompt_data_t*) {}

ompt_start_tool_result_t g_tool = {initialize, finalize, {0}};

}  // namespace

}  // namespace strata::openmp

/// Found by the OpenMP runtime (OMPT tool discovery) in any loaded object.
extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(unsigned int,
                                                                                           const char*) {
    strata::openmp::configure();
    if (strata::openmp::g_groups == 0) return nullptr;  // STRATA_OPENMP_ENABLE=none: no tool at all
    return &strata::openmp::g_tool;
}
