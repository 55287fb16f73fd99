// SPDX-License-Identifier: BSD-3-Clause
// libstrata-openmp-gomp: GCC's OpenMP runtime (libgomp) measured where it is.
//
// libgomp has no tool interface (OMPT), but every OpenMP construct GCC compiles
// (C, C++ and gfortran alike) calls one of its GOMP_* entry points.  This
// library defines those entry points itself, ahead of libgomp in the program's
// symbol search order (linked before -lgomp by the strata wrapper, preloaded by
// strata-preload); each records events and calls libgomp's own, found with
// dlsym(RTLD_NEXT).  So a GCC program keeps the runtime it was built for, and
// its threads wait as they wait without Strata.
//
//   forking thread   GOMP_parallel -> thread_fork, the runtime's GOMP_parallel
//                    with run_outlined() in place of the program's body, join
//   every thread     run_outlined: team begin + "!$omp parallel @f:l", the body,
//                    the barrier at its end (see below), team end
//   constructs       GOMP_loop_*_start .. GOMP_loop_end*, GOMP_sections_*,
//                    GOMP_single_*, GOMP_barrier, GOMP_critical_*, GOMP_atomic_*,
//                    GOMP_ordered_*, GOMP_taskwait, GOMP_taskgroup_end,
//                    omp_set_lock: a region each, named by the call site
//   tasks            GOMP_task: "!$omp create task" around the creation;
//                    GOMP_taskloop: "!$omp taskloop" around it; each task's
//                    body runs through run_task(), which records it
//
// The barrier at the end of a parallel region happens inside libgomp after the
// body returns, where no entry point shows it.  Each thread enters the
// region's "!$omp implicit barrier" as its body returns; the forking thread
// leaves it, and ends its part of the team, when the runtime returns from
// GOMP_parallel, and the join is at the same time.  The other threads go on
// waiting in the runtime (and run tasks there) until the team joins: their
// barrier and their part of the team end at the join, recorded when the
// thread next begins a team (or at finalisation).  A barrier of our own after
// the body (as OPARI2 adds in the source) would show each thread's wait too,
// but costs a barrier per region: where threads outnumber cores, a third more
// time for a program of short parallel regions.
//
// What GCC compiles inline calls nothing and is not recorded: loops with a
// static schedule (their end barrier is a GOMP_barrier, recorded), master and
// masked, atomics the processor does itself.  A single construct reports no
// end: its region on the thread that executes it ends at that thread's next
// construct or barrier, or at the end of its part of the team.
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "construct_regions.hpp"
#include "openmp_config.hpp"
#include "strata/measurement/config_registry.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"
#include "strata/measurement/thread_sanitizer.hpp"

#define STRATA_GOMP_API extern "C" __attribute__((visibility("default")))

namespace strata::openmp {

namespace {

std::uint32_t g_groups = all_groups;

/// The entry points record only in front of GCC's libgomp: a runtime with OMPT
/// (LLVM's libomp also defines GOMP_*) reports to libstrata-openmp instead.
/// Decided at the first call of an entry point, when the runtime is loaded
/// (a program may open it only later, with a library it loads itself, as
/// Python does with PyTorch's own libgomp).
enum Runtime : int { runtime_unknown, runtime_libgomp, runtime_other };
int g_runtime = runtime_unknown;

/// Whether the runtime behind this library is libgomp (asked at the first call
/// of an entry point: by then the program's runtime is loaded).
__attribute__((noinline)) bool find_runtime() {
    void* entry = dlsym(RTLD_NEXT, "GOMP_parallel");
    bool libgomp = false;
    Dl_info info{};
    if (entry != nullptr) {
        libgomp = dladdr(entry, &info) != 0 && info.dli_fname != nullptr &&
                  std::strstr(info.dli_fname, "libgomp") != nullptr;
    } else if (void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
        libgomp = true;  // loaded out of RTLD_NEXT's sight, by a library opened with RTLD_LOCAL
        dlclose(gomp);
    }
    __atomic_store_n(&g_runtime, libgomp ? runtime_libgomp : runtime_other, __ATOMIC_RELAXED);
    return libgomp;
}

inline bool on_libgomp() {
    const int known = __atomic_load_n(&g_runtime, __ATOMIC_RELAXED);
    return __builtin_expect(known == runtime_libgomp, 1) || (known == runtime_unknown && find_runtime());
}

bool enabled(Group group) { return (g_groups & group) != 0 && on_libgomp(); }

// --- the runtime's own entry points ---------------------------------------------

/// libgomp's definition of `name`: the next one after this library in the
/// search order, else libgomp's own if it is loaded at all (by a library
/// opened with RTLD_LOCAL, which RTLD_NEXT does not search).
void* next_symbol(const char* name, const char* version) {
    void* found = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : nullptr;
    if (found == nullptr) found = dlsym(RTLD_NEXT, name);
    if (found == nullptr) {
        if (void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
            found = version != nullptr ? dlvsym(gomp, name, version) : nullptr;
            if (found == nullptr) found = dlsym(gomp, name);
            dlclose(gomp);
        }
    }
    if (found == nullptr) {
        std::fprintf(stderr,
                     "strata: error: the program calls the OpenMP runtime's %s, which no loaded OpenMP "
                     "runtime defines (GCC's libgomp must be loaded after libstrata-openmp-gomp)\n",
                     name);
        std::abort();
    }
    return found;
}

/// The runtime's definition of one entry point, looked up at its first call.
/// Constant-initialised (a function-local static costs no guard).
template <typename Fn>
struct Next {
    const char* name;
    const char* version;
    Fn fn;
    Fn get() {
        Fn known = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
        if (__builtin_expect(known != nullptr, 1)) return known;
        known = reinterpret_cast<Fn>(next_symbol(name, version));
        __atomic_store_n(&fn, known, __ATOMIC_RELEASE);
        return known;
    }
};

#define STRATA_NEXT(name) \
    static ::strata::openmp::Next<decltype(&name)> next_##name { #name, nullptr, nullptr }

using IntQuery = int (*)();
Next<IntQuery> g_thread_num{"omp_get_thread_num", nullptr, nullptr};
Next<IntQuery> g_num_threads{"omp_get_num_threads", nullptr, nullptr};
Next<IntQuery> g_max_threads{"omp_get_max_threads", nullptr, nullptr};

// --- each thread's open constructs -------------------------------------------------

/// A construct open on this thread.  The entry points come in nested order
/// from one thread, so an end closes the innermost open construct of its kind
/// (and, should anything be left inside it, that too).
struct Frame {
    enum Kind : std::uint8_t { team, parallel, work, single, sync, mutex_wait, mutex_held, task };
    Kind kind;
    RegionHandle region;  ///< 0: nothing entered
};

struct ThreadState {
    Frame* open;  ///< innermost last
    std::uint32_t size;
    std::uint32_t capacity;
    /// Not the forking thread, its body returned: its part of the team ends at the join.
    bool ends_at_join;
};

__thread ThreadState t_state __attribute__((tls_model("initial-exec")));

pthread_key_t g_state_key;
pthread_once_t g_state_key_once = PTHREAD_ONCE_INIT;

void free_state(void* frames) { std::free(frames); }

__attribute__((noinline)) void grow_open() {
    pthread_once(&g_state_key_once, [] { pthread_key_create(&g_state_key, free_state); });
    const std::uint32_t capacity = t_state.capacity == 0 ? 16 : t_state.capacity * 2;
    auto* grown = static_cast<Frame*>(std::realloc(t_state.open, capacity * sizeof(Frame)));
    if (grown == nullptr) std::abort();  // a few hundred bytes
    t_state.open = grown;
    t_state.capacity = capacity;
    pthread_setspecific(g_state_key, grown);  // freed when the thread ends
}

inline void push(Frame::Kind kind, RegionHandle region) {
    if (__builtin_expect(t_state.size == t_state.capacity, 0)) grow_open();
    t_state.open[t_state.size++] = Frame{kind, region};
}

/// Enters `region` (0: nothing) and notes it open as `kind`.
inline void open(Frame::Kind kind, RegionHandle region) {
    if (region != 0) events::enter(region);
    push(kind, region);
}

/// Closes the innermost open construct of `kind` and what is open inside it,
/// all at one time; nothing when there is none in the innermost team.
void close(Frame::Kind kind) {
    Frame* const open = t_state.open;
    for (std::uint32_t i = t_state.size; i-- > 0;) {
        if (open[i].kind == Frame::team) return;
        if (open[i].kind != kind) continue;
        if (i + 1 == t_state.size) {  // the usual case: the innermost one
            t_state.size = i;
            if (open[i].region != 0) events::exit(open[i].region);
            return;
        }
        const Ticks time = events::now();
        while (t_state.size > i) {
            const Frame& top = open[--t_state.size];
            if (top.region != 0) events::exit_at(time, top.region);
        }
        return;
    }
}

/// A single construct reports no end (see the top of this file): the next
/// worksharing construct or barrier of the thread ends it.
inline void end_open_single() {
    if (t_state.size > 0 && t_state.open[t_state.size - 1].kind == Frame::single) close(Frame::single);
}

/// Ends the calling thread's part of its innermost team at `time`, closing
/// every region still open in it.
void end_team(Ticks time) {
    std::uint32_t regions = 0;
    while (t_state.size > 0) {
        const Frame top = t_state.open[--t_state.size];
        if (top.kind == Frame::team) break;
        if (top.region != 0) ++regions;
    }
    events::thread_team_end_closing_at(time, regions);
}

/// A construct's region around one call of the runtime.
template <typename Call>
auto around(Group group, Frame::Kind kind, Construct construct, const void* code, Call call) {
    if (!enabled(group)) return call();
    if (kind != Frame::task) end_open_single();
    open(kind, construct_region(construct, code));
    struct Closer {
        Frame::Kind kind;
        ~Closer() { close(kind); }
    } closer{kind};
    return call();
}

// --- parallel regions ------------------------------------------------------------------

/// What the team's threads take from the forking thread (on its stack, or for
/// GOMP_parallel_start on the heap, until the join).
struct Outlined {
    void (*fn)(void*);
    void* data;
    events::ForkContext* fork;
    RegionHandle region;
    const void* code;
    Ticks fork_time;
    Construct work;  ///< the worksharing construct of a combined one (parallel for), else count_
    Outlined* enclosing;  ///< GOMP_parallel_start's, not yet ended, of the same thread
};

/// The forking thread's part before the runtime's fork.
void fork(Outlined& outlined, void (*fn)(void*), void* data, unsigned requested, const void* code, Construct work) {
    outlined.fn = fn;
    outlined.data = data;
    outlined.code = code;
    outlined.work = work;
    outlined.region = construct_region(Construct::parallel, code);
    outlined.fork_time = events::now();
    if (requested == 0) requested = static_cast<unsigned>(g_max_threads.get()());
    outlined.fork = events::thread_fork_at(outlined.fork_time, Paradigm::openmp, requested, nullptr, nullptr);
    outlined.enclosing = nullptr;
    strata_tsan_release(&outlined);  // libgomp hands it to the team (see thread_sanitizer.hpp)
}

/// A thread's begin in the team: the team, its parallel region and, for a
/// combined construct, the worksharing region (left by the body's GOMP_*_end).
void begin_in_team(const Outlined& outlined, unsigned thread, unsigned team_size, Ticks time) {
    events::thread_team_begin_enter_at(time, outlined.fork, thread, team_size, outlined.region);
    push(Frame::team, 0);
    push(Frame::parallel, outlined.region);
    if (outlined.work != Construct::count_ && (g_groups & group_worksharing) != 0)
        open(Frame::work, construct_region(outlined.work, outlined.code));
}

/// A thread's body has returned: the region's implicit barrier, in the runtime, until the join.
void body_returned(const Outlined& outlined) {
    end_open_single();
    if ((g_groups & group_sync) != 0) open(Frame::sync, construct_region(Construct::implicit_barrier, outlined.code));
}

/// A thread other than the forking one ends its part of its last team, at the
/// join (see the top of this file), before it begins another.
void end_at_join() {
    t_state.ends_at_join = false;
    const Ticks joined = events::thread_team_joined();
    end_team(joined != 0 ? joined : events::now());
}

/// Each thread's body of a recorded parallel region.  Thread 0 is the forking
/// thread: its team begins at the fork and ends at the join.
void run_outlined(void* argument) {
    strata_tsan_acquire(argument);
    const auto& outlined = *static_cast<const Outlined*>(argument);
    if (t_state.ends_at_join) end_at_join();
    const auto thread = static_cast<unsigned>(g_thread_num.get()());
    const auto team_size = static_cast<unsigned>(g_num_threads.get()());
    begin_in_team(outlined, thread, team_size, thread == 0 ? outlined.fork_time : events::now());
    outlined.fn(outlined.data);
    body_returned(outlined);
    if (thread != 0) t_state.ends_at_join = true;
    strata_tsan_release(argument);  // read before the join, after which the forking thread reuses it
}

/// The forking thread's part after the runtime's join: its own team end and
/// the join at one time.
void join(const Outlined& outlined) {
    strata_tsan_acquire(&outlined);  // the team's reads happened before the join
    const Ticks time = events::now();
    end_team(time);
    events::thread_join_at(time, outlined.fork);
}

/// A parallel construct: `run(fn, data)` is the runtime's entry point with the
/// body to run on every thread.
template <typename Run>
auto parallel(void (*fn)(void*), void* data, unsigned requested, const void* code, Construct work, Run run) {
    if (!enabled(group_parallel)) return run(fn, data);
    Outlined outlined;
    fork(outlined, fn, data, requested, code, work);
    struct Joiner {
        const Outlined& outlined;
        ~Joiner() { join(outlined); }
    } joiner{outlined};
    return run(&run_outlined, &outlined);
}

/// GCC before 4.9: GOMP_parallel_start forks and returns, the forking thread
/// runs the body itself, GOMP_parallel_end joins.
__thread Outlined* t_started __attribute__((tls_model("initial-exec")));

template <typename Start>
void parallel_start(void (*fn)(void*), void* data, unsigned requested, const void* code, Construct work,
                    Start start) {
    if (!enabled(group_parallel)) return start(fn, data);
    auto* outlined = new Outlined;
    fork(*outlined, fn, data, requested, code, work);
    outlined->enclosing = t_started;
    t_started = outlined;
    start(&run_outlined, outlined);  // the team's other threads
    begin_in_team(*outlined, 0, static_cast<unsigned>(g_num_threads.get()()), outlined->fork_time);
}

// --- explicit tasks ------------------------------------------------------------------
// The runtime copies a task's arguments (arg_size bytes, by cpyfn or memcpy)
// into storage of its own and calls fn on the copy.  A recorded task gets a
// TaskHeader in front of that copy (the runtime is asked for that much more,
// and copy_task() is its cpyfn): run_task() finds the task's region and id
// there and calls the program's fn on the arguments behind it.
//
// The tasks of a taskloop are copied alike, and then the runtime writes each
// task's iteration bounds into the first two words of its copy: into the
// header's `bounds`, which run_task() moves to where the program's code reads
// them.  With a reduction clause the runtime also reads the first three words
// of the arguments it is given: TaskSource begins with the program's.

struct TaskHeader {
    std::uint64_t bounds[2];  ///< a taskloop task's first and last iteration, as the runtime writes them
    void (*fn)(void*);
    events::TaskId id;
    RegionHandle region;
    std::uint32_t offset;  ///< of the program's arguments, from the header
    bool taskloop;         ///< one of a taskloop's tasks: created (task_create) as it is copied
};

/// What copy_task() copies from (on the creating thread's stack).
struct TaskSource {
    std::uint64_t head[3];  ///< the program's first three words of arguments, for a taskloop with reductions
    TaskHeader header;
    void* data;
    void (*cpyfn)(void*, void*);
    long arg_size;
};

/// The runtime's argument size and alignment for a recorded task whose
/// program's arguments take `arg_size` bytes aligned at `arg_align`.
struct TaskLayout {
    long size, align;
    std::uint32_t offset;
};
TaskLayout task_layout(long arg_size, long arg_align) {
    const long align = std::max(arg_align, static_cast<long>(alignof(TaskHeader)));
    const long offset = (static_cast<long>(sizeof(TaskHeader)) + align - 1) / align * align;
    return {offset + std::max(arg_size, 0L), align, static_cast<std::uint32_t>(offset)};
}

void copy_task(void* destination, void* source) {
    const auto& from = *static_cast<const TaskSource*>(source);
    TaskHeader header = from.header;
    if (header.taskloop) header.id = events::task_create();  // each task of the taskloop, in turn
    std::memcpy(destination, &header, sizeof header);
    char* arguments = static_cast<char*>(destination) + header.offset;
    if (from.cpyfn != nullptr) {
        from.cpyfn(arguments, from.data);
    } else if (from.arg_size > 0) {
        std::memcpy(arguments, from.data, static_cast<std::size_t>(from.arg_size));
    }
    strata_tsan_release(destination);  // libgomp hands the task to the thread that runs it
}

void run_task(void* argument) {
    strata_tsan_acquire(argument);
    TaskHeader header;
    std::memcpy(&header, argument, sizeof header);
    char* arguments = static_cast<char*>(argument) + header.offset;
    if (header.taskloop) std::memcpy(arguments, header.bounds, sizeof header.bounds);
    events::task_switch(header.id);
    open(Frame::task, header.region);
    header.fn(arguments);
    close(Frame::task);
    events::task_complete(header.id);
}

/// The begin of a loop or sections construct (which ends a single still open).
void begin_work(Construct construct, const void* code) {
    if (!enabled(group_worksharing)) return;
    end_open_single();
    open(Frame::work, construct_region(construct, code));
}

/// The end of a loop or sections construct, with its barrier unless `nowait`.
template <typename Call>
auto end_work(const void* code, bool nowait, Call call) {
    if (enabled(group_worksharing)) close(Frame::work);
    if (nowait) return call();
    return around(group_sync, Frame::sync, Construct::implicit_barrier, code, call);
}

constexpr unsigned kTaskFlagDetach = 1u << 13;     // GOMP_TASK_FLAG_DETACH (gomp-constants.h)
constexpr unsigned kTaskFlagReduction = 1u << 12;  // GOMP_TASK_FLAG_REDUCTION

/// A taskloop's tasks recorded (see TaskHeader): `run(fn, data, cpyfn, size, align)`
/// is the runtime's GOMP_taskloop with the rest of the program's arguments.
template <typename Run>
void taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
              unsigned flags, const void* code, Run run) {
    if (!enabled(group_tasks)) return run(fn, data, cpyfn, arg_size, arg_align);
    const TaskLayout layout = task_layout(arg_size, arg_align);
    TaskSource source{};
    if ((flags & kTaskFlagReduction) != 0 && data != nullptr) std::memcpy(source.head, data, sizeof source.head);
    source.header.fn = fn;
    source.header.region = construct_region(Construct::task, code);
    source.header.offset = layout.offset;
    source.header.taskloop = true;
    source.data = data;
    source.cpyfn = cpyfn;
    source.arg_size = arg_size;
    run(&run_task, &source, &copy_task, layout.size, layout.align);
}

// --- start-up ------------------------------------------------------------------------

/// STRATA_OPENMP_ENABLE; a bad value stops the program before main (subsystem.hpp, init).
Error init_gomp_adapter() {
    return register_variables(config::Registry::instance(), [](std::uint32_t mask) { g_groups = mask; });
}
__attribute__((constructor)) void start_gomp_adapter() {
    static constexpr events::Subsystem subsystem{"openmp (libgomp)", false, init_gomp_adapter, nullptr};
    events::register_subsystem(&subsystem);
}

}  // namespace

}  // namespace strata::openmp

// --- the entry points ----------------------------------------------------------------------
// Declared as libgomp declares them (libgomp_g.h of GCC 12); each passes its
// arguments on unchanged.

using strata::openmp::Construct;
using strata::openmp::Frame;
namespace so = strata::openmp;

#define STRATA_CODE __builtin_return_address(0)

// parallel

STRATA_GOMP_API void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
    STRATA_NEXT(GOMP_parallel);
    so::parallel(fn, data, num_threads, STRATA_CODE, Construct::count_, [&](void (*body)(void*), void* argument) {
        next_GOMP_parallel.get()(body, argument, num_threads, flags);
    });
}

STRATA_GOMP_API unsigned GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                                  unsigned flags) {
    STRATA_NEXT(GOMP_parallel_reductions);
    return so::parallel(fn, data, num_threads, STRATA_CODE, Construct::count_,
                        [&](void (*body)(void*), void* argument) {
                            return next_GOMP_parallel_reductions.get()(body, argument, num_threads, flags);
                        });
}

STRATA_GOMP_API void GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count,
                                            unsigned flags) {
    STRATA_NEXT(GOMP_parallel_sections);
    so::parallel(fn, data, num_threads, STRATA_CODE, Construct::sections, [&](void (*body)(void*), void* argument) {
        next_GOMP_parallel_sections.get()(body, argument, num_threads, count, flags);
    });
}

// Combined parallel loops: the loop region begins with each thread's part and
// ends at the GOMP_loop_end_nowait of the body.
#define STRATA_PARALLEL_LOOP(NAME)                                                                              \
    STRATA_GOMP_API void NAME(void (*fn)(void*), void* data, unsigned num_threads, long start, long end,         \
                              long incr, long chunk_size, unsigned flags) {                                     \
        STRATA_NEXT(NAME);                                                                                      \
        so::parallel(fn, data, num_threads, STRATA_CODE, Construct::loop, [&](void (*body)(void*), void* arg) { \
            next_##NAME.get()(body, arg, num_threads, start, end, incr, chunk_size, flags);                     \
        });                                                                                                     \
    }
#define STRATA_PARALLEL_LOOP_RUNTIME(NAME)                                                                      \
    STRATA_GOMP_API void NAME(void (*fn)(void*), void* data, unsigned num_threads, long start, long end,         \
                              long incr, unsigned flags) {                                                      \
        STRATA_NEXT(NAME);                                                                                      \
        so::parallel(fn, data, num_threads, STRATA_CODE, Construct::loop, [&](void (*body)(void*), void* arg) { \
            next_##NAME.get()(body, arg, num_threads, start, end, incr, flags);                                 \
        });                                                                                                     \
    }
STRATA_PARALLEL_LOOP(GOMP_parallel_loop_static)
STRATA_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
STRATA_PARALLEL_LOOP(GOMP_parallel_loop_guided)
STRATA_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
STRATA_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
STRATA_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
STRATA_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
STRATA_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

// GCC before 4.9.
STRATA_GOMP_API void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
    STRATA_NEXT(GOMP_parallel_start);
    so::parallel_start(fn, data, num_threads, STRATA_CODE, Construct::count_, [&](void (*body)(void*), void* arg) {
        next_GOMP_parallel_start.get()(body, arg, num_threads);
    });
}

STRATA_GOMP_API void GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned num_threads,
                                                  unsigned count) {
    STRATA_NEXT(GOMP_parallel_sections_start);
    so::parallel_start(fn, data, num_threads, STRATA_CODE, Construct::sections,
                       [&](void (*body)(void*), void* arg) {
                           next_GOMP_parallel_sections_start.get()(body, arg, num_threads, count);
                       });
}

#define STRATA_PARALLEL_LOOP_START(NAME)                                                                      \
    STRATA_GOMP_API void NAME(void (*fn)(void*), void* data, unsigned num_threads, long start, long end,       \
                              long incr, long chunk_size) {                                                   \
        STRATA_NEXT(NAME);                                                                                    \
        so::parallel_start(fn, data, num_threads, STRATA_CODE, Construct::loop,                               \
                           [&](void (*body)(void*), void* arg) {                                              \
                               next_##NAME.get()(body, arg, num_threads, start, end, incr, chunk_size);       \
                           });                                                                                \
    }
STRATA_PARALLEL_LOOP_START(GOMP_parallel_loop_static_start)
STRATA_PARALLEL_LOOP_START(GOMP_parallel_loop_dynamic_start)
STRATA_PARALLEL_LOOP_START(GOMP_parallel_loop_guided_start)

STRATA_GOMP_API void GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned num_threads,
                                                      long start, long end, long incr) {
    STRATA_NEXT(GOMP_parallel_loop_runtime_start);
    so::parallel_start(fn, data, num_threads, STRATA_CODE, Construct::loop, [&](void (*body)(void*), void* arg) {
        next_GOMP_parallel_loop_runtime_start.get()(body, arg, num_threads, start, end, incr);
    });
}

STRATA_GOMP_API void GOMP_parallel_end(void) {
    STRATA_NEXT(GOMP_parallel_end);
    so::Outlined* outlined = so::t_started;
    if (outlined == nullptr) return next_GOMP_parallel_end.get()();
    so::t_started = outlined->enclosing;
    so::body_returned(*outlined);
    next_GOMP_parallel_end.get()();
    so::join(*outlined);
    delete outlined;
}

// worksharing: loops

#define STRATA_LOOP_START(NAME, CONSTRUCT, PARAMETERS, ARGUMENTS)                           \
    STRATA_GOMP_API bool NAME PARAMETERS {                                                  \
        STRATA_NEXT(NAME);                                                                  \
        so::begin_work(CONSTRUCT, STRATA_CODE);                                             \
        return next_##NAME.get() ARGUMENTS;                                                 \
    }
#define STRATA_LONG_CHUNK (long start, long end, long incr, long chunk, long* istart, long* iend)
#define STRATA_LONG_CHUNK_ARGS (start, end, incr, chunk, istart, iend)
#define STRATA_LONG (long start, long end, long incr, long* istart, long* iend)
#define STRATA_LONG_ARGS (start, end, incr, istart, iend)
#define STRATA_ULL_CHUNK                                                                                        \
    (bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk, \
     unsigned long long* istart, unsigned long long* iend)
#define STRATA_ULL_CHUNK_ARGS (up, start, end, incr, chunk, istart, iend)
#define STRATA_ULL                                                                                        \
    (bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long* istart, \
     unsigned long long* iend)
#define STRATA_ULL_ARGS (up, start, end, incr, istart, iend)
#define STRATA_GENERIC                                                                                       \
    (long start, long end, long incr, long sched, long chunk, long* istart, long* iend, std::uintptr_t* reductions, \
     void** mem)
#define STRATA_GENERIC_ARGS (start, end, incr, sched, chunk, istart, iend, reductions, mem)
#define STRATA_ULL_GENERIC                                                                               \
    (bool up, unsigned long long start, unsigned long long end, unsigned long long incr, long sched,       \
     unsigned long long chunk, unsigned long long* istart, unsigned long long* iend, std::uintptr_t* reductions, \
     void** mem)
#define STRATA_ULL_GENERIC_ARGS (up, start, end, incr, sched, chunk, istart, iend, reductions, mem)
#define STRATA_DOACROSS_CHUNK (unsigned ncounts, long* counts, long chunk, long* istart, long* iend)
#define STRATA_DOACROSS_CHUNK_ARGS (ncounts, counts, chunk, istart, iend)
#define STRATA_DOACROSS (unsigned ncounts, long* counts, long* istart, long* iend)
#define STRATA_DOACROSS_ARGS (ncounts, counts, istart, iend)
#define STRATA_DOACROSS_GENERIC \
    (unsigned ncounts, long* counts, long sched, long chunk, long* istart, long* iend, std::uintptr_t* reductions, void** mem)
#define STRATA_DOACROSS_GENERIC_ARGS (ncounts, counts, sched, chunk, istart, iend, reductions, mem)
#define STRATA_ULL_DOACROSS_CHUNK                                                                          \
    (unsigned ncounts, unsigned long long* counts, unsigned long long chunk, unsigned long long* istart, \
     unsigned long long* iend)
#define STRATA_ULL_DOACROSS (unsigned ncounts, unsigned long long* counts, unsigned long long* istart, unsigned long long* iend)
#define STRATA_ULL_DOACROSS_GENERIC                                                                          \
    (unsigned ncounts, unsigned long long* counts, long sched, unsigned long long chunk, unsigned long long* istart, \
     unsigned long long* iend, std::uintptr_t* reductions, void** mem)

STRATA_LOOP_START(GOMP_loop_static_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_dynamic_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_guided_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_nonmonotonic_guided_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ordered_static_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ordered_dynamic_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ordered_guided_start, Construct::loop, STRATA_LONG_CHUNK, STRATA_LONG_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_runtime_start, Construct::loop, STRATA_LONG, STRATA_LONG_ARGS)
STRATA_LOOP_START(GOMP_loop_nonmonotonic_runtime_start, Construct::loop, STRATA_LONG, STRATA_LONG_ARGS)
STRATA_LOOP_START(GOMP_loop_maybe_nonmonotonic_runtime_start, Construct::loop, STRATA_LONG, STRATA_LONG_ARGS)
STRATA_LOOP_START(GOMP_loop_ordered_runtime_start, Construct::loop, STRATA_LONG, STRATA_LONG_ARGS)
STRATA_LOOP_START(GOMP_loop_start, Construct::loop, STRATA_GENERIC, STRATA_GENERIC_ARGS)
STRATA_LOOP_START(GOMP_loop_ordered_start, Construct::loop, STRATA_GENERIC, STRATA_GENERIC_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_static_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_dynamic_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_guided_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_nonmonotonic_dynamic_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_nonmonotonic_guided_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_ordered_static_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_ordered_dynamic_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_ordered_guided_start, Construct::loop, STRATA_ULL_CHUNK, STRATA_ULL_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_runtime_start, Construct::loop, STRATA_ULL, STRATA_ULL_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_nonmonotonic_runtime_start, Construct::loop, STRATA_ULL, STRATA_ULL_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, Construct::loop, STRATA_ULL, STRATA_ULL_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_ordered_runtime_start, Construct::loop, STRATA_ULL, STRATA_ULL_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_start, Construct::loop, STRATA_ULL_GENERIC, STRATA_ULL_GENERIC_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_ordered_start, Construct::loop, STRATA_ULL_GENERIC, STRATA_ULL_GENERIC_ARGS)
STRATA_LOOP_START(GOMP_loop_doacross_static_start, Construct::loop, STRATA_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_doacross_dynamic_start, Construct::loop, STRATA_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_doacross_guided_start, Construct::loop, STRATA_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_doacross_runtime_start, Construct::loop, STRATA_DOACROSS, STRATA_DOACROSS_ARGS)
STRATA_LOOP_START(GOMP_loop_doacross_start, Construct::loop, STRATA_DOACROSS_GENERIC, STRATA_DOACROSS_GENERIC_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_doacross_static_start, Construct::loop, STRATA_ULL_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_doacross_dynamic_start, Construct::loop, STRATA_ULL_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_doacross_guided_start, Construct::loop, STRATA_ULL_DOACROSS_CHUNK, STRATA_DOACROSS_CHUNK_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_doacross_runtime_start, Construct::loop, STRATA_ULL_DOACROSS, STRATA_DOACROSS_ARGS)
STRATA_LOOP_START(GOMP_loop_ull_doacross_start, Construct::loop, STRATA_ULL_DOACROSS_GENERIC, STRATA_DOACROSS_GENERIC_ARGS)


STRATA_GOMP_API void GOMP_loop_end(void) {
    STRATA_NEXT(GOMP_loop_end);
    so::end_work(STRATA_CODE, false, [] { next_GOMP_loop_end.get()(); });
}
STRATA_GOMP_API bool GOMP_loop_end_cancel(void) {
    STRATA_NEXT(GOMP_loop_end_cancel);
    return so::end_work(STRATA_CODE, false, [] { return next_GOMP_loop_end_cancel.get()(); });
}
STRATA_GOMP_API void GOMP_loop_end_nowait(void) {
    STRATA_NEXT(GOMP_loop_end_nowait);
    so::end_work(STRATA_CODE, true, [] { next_GOMP_loop_end_nowait.get()(); });
}

// worksharing: sections, single

STRATA_GOMP_API unsigned GOMP_sections_start(unsigned count) {
    STRATA_NEXT(GOMP_sections_start);
    so::begin_work(Construct::sections, STRATA_CODE);
    return next_GOMP_sections_start.get()(count);
}
STRATA_GOMP_API unsigned GOMP_sections2_start(unsigned count, std::uintptr_t* reductions, void** mem) {
    STRATA_NEXT(GOMP_sections2_start);
    so::begin_work(Construct::sections, STRATA_CODE);
    return next_GOMP_sections2_start.get()(count, reductions, mem);
}
STRATA_GOMP_API void GOMP_sections_end(void) {
    STRATA_NEXT(GOMP_sections_end);
    so::end_work(STRATA_CODE, false, [] { next_GOMP_sections_end.get()(); });
}
STRATA_GOMP_API bool GOMP_sections_end_cancel(void) {
    STRATA_NEXT(GOMP_sections_end_cancel);
    return so::end_work(STRATA_CODE, false, [] { return next_GOMP_sections_end_cancel.get()(); });
}
STRATA_GOMP_API void GOMP_sections_end_nowait(void) {
    STRATA_NEXT(GOMP_sections_end_nowait);
    so::end_work(STRATA_CODE, true, [] { next_GOMP_sections_end_nowait.get()(); });
}

// The thread that executes a single construct keeps its region open (no end is
// reported); the others' region is their call.
STRATA_GOMP_API bool GOMP_single_start(void) {
    STRATA_NEXT(GOMP_single_start);
    if (!so::enabled(so::group_worksharing)) return next_GOMP_single_start.get()();
    so::end_open_single();
    so::open(Frame::single, so::construct_region(Construct::single, STRATA_CODE));
    const bool executes = next_GOMP_single_start.get()();
    if (!executes) so::close(Frame::single);
    return executes;
}
STRATA_GOMP_API void* GOMP_single_copy_start(void) {
    STRATA_NEXT(GOMP_single_copy_start);
    if (!so::enabled(so::group_worksharing)) return next_GOMP_single_copy_start.get()();
    so::end_open_single();
    so::open(Frame::single, so::construct_region(Construct::single, STRATA_CODE));
    void* copied = next_GOMP_single_copy_start.get()();
    if (copied != nullptr) so::close(Frame::single);  // waited for the executing thread's data
    return copied;
}
STRATA_GOMP_API void GOMP_single_copy_end(void* data) {
    STRATA_NEXT(GOMP_single_copy_end);
    next_GOMP_single_copy_end.get()(data);  // waits until every thread has copied
    if (so::enabled(so::group_worksharing)) so::close(Frame::single);
}

// synchronisation

STRATA_GOMP_API void GOMP_barrier(void) {
    STRATA_NEXT(GOMP_barrier);
    so::around(so::group_sync, Frame::sync, Construct::barrier, STRATA_CODE, [] { next_GOMP_barrier.get()(); });
}
STRATA_GOMP_API bool GOMP_barrier_cancel(void) {
    STRATA_NEXT(GOMP_barrier_cancel);
    return so::around(so::group_sync, Frame::sync, Construct::barrier, STRATA_CODE,
                      [] { return next_GOMP_barrier_cancel.get()(); });
}
STRATA_GOMP_API void GOMP_taskwait(void) {
    STRATA_NEXT(GOMP_taskwait);
    so::around(so::group_sync, Frame::task, Construct::taskwait, STRATA_CODE, [] { next_GOMP_taskwait.get()(); });
}
STRATA_GOMP_API void GOMP_taskwait_depend(void** depend) {
    STRATA_NEXT(GOMP_taskwait_depend);
    so::around(so::group_sync, Frame::task, Construct::taskwait, STRATA_CODE,
               [&] { next_GOMP_taskwait_depend.get()(depend); });
}
STRATA_GOMP_API void GOMP_taskgroup_end(void) {
    STRATA_NEXT(GOMP_taskgroup_end);
    so::around(so::group_sync, Frame::task, Construct::taskgroup, STRATA_CODE,
               [] { next_GOMP_taskgroup_end.get()(); });
}

// mutual exclusion: the construct from the request to the release, its sblock while held

namespace strata::openmp {
namespace {
template <typename Acquire>
void acquire(Construct construct, Construct held, const void* code, Acquire call) {
    if (!so::enabled(so::group_locks)) return call();
    so::open(Frame::mutex_wait, so::construct_region(construct, code));
    call();
    if (held != Construct::count_) so::open(Frame::mutex_held, so::construct_region(held, code));
}
template <typename Release>
void release(Release call) {
    call();
    if (so::enabled(so::group_locks)) so::close(Frame::mutex_wait);  // and its sblock
}
}  // namespace
}  // namespace strata::openmp

STRATA_GOMP_API void GOMP_critical_start(void) {
    STRATA_NEXT(GOMP_critical_start);
    so::acquire(Construct::critical, Construct::critical_sblock, STRATA_CODE, [] { next_GOMP_critical_start.get()(); });
}
STRATA_GOMP_API void GOMP_critical_end(void) {
    STRATA_NEXT(GOMP_critical_end);
    so::release([] { next_GOMP_critical_end.get()(); });
}
STRATA_GOMP_API void GOMP_critical_name_start(void** pptr) {
    STRATA_NEXT(GOMP_critical_name_start);
    so::acquire(Construct::critical, Construct::critical_sblock, STRATA_CODE,
            [&] { next_GOMP_critical_name_start.get()(pptr); });
}
STRATA_GOMP_API void GOMP_critical_name_end(void** pptr) {
    STRATA_NEXT(GOMP_critical_name_end);
    so::release([&] { next_GOMP_critical_name_end.get()(pptr); });
}
STRATA_GOMP_API void GOMP_atomic_start(void) {
    STRATA_NEXT(GOMP_atomic_start);
    so::acquire(Construct::atomic, Construct::count_, STRATA_CODE, [] { next_GOMP_atomic_start.get()(); });
}
STRATA_GOMP_API void GOMP_atomic_end(void) {
    STRATA_NEXT(GOMP_atomic_end);
    so::release([] { next_GOMP_atomic_end.get()(); });
}
STRATA_GOMP_API void GOMP_ordered_start(void) {
    STRATA_NEXT(GOMP_ordered_start);
    so::acquire(Construct::ordered, Construct::ordered_sblock, STRATA_CODE, [] { next_GOMP_ordered_start.get()(); });
}
STRATA_GOMP_API void GOMP_ordered_end(void) {
    STRATA_NEXT(GOMP_ordered_end);
    so::release([] { next_GOMP_ordered_end.get()(); });
}

// OpenMP locks: the call that acquires is the region (its time is the wait).
// libgomp's current lock functions are version OMP_3.0 (OMP_1.0 are those of
// programs built before GCC 4.4, with another lock layout).
#define STRATA_SET_LOCK(NAME, CONSTRUCT)                                                                  \
    STRATA_GOMP_API void NAME(void* lock) {                                                               \
        static so::Next<decltype(&NAME)> next{#NAME, "OMP_3.0", nullptr};                                 \
        if (!so::enabled(so::group_locks)) return next.get()(lock);                                       \
        const strata::RegionHandle region = so::construct_region(CONSTRUCT, STRATA_CODE);                 \
        if (region != 0) strata::events::enter(region);                                                   \
        next.get()(lock);                                                                                 \
        if (region != 0) strata::events::exit(region);                                                    \
    }
STRATA_SET_LOCK(omp_set_lock, Construct::lock)
STRATA_SET_LOCK(omp_set_nest_lock, Construct::nest_lock)
STRATA_SET_LOCK(omp_set_lock_, Construct::lock)            // gfortran
STRATA_SET_LOCK(omp_set_nest_lock_, Construct::nest_lock)  // gfortran

// tasks

STRATA_GOMP_API void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                               long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                               void* detach) {
    STRATA_NEXT(GOMP_task);
    const auto real = next_GOMP_task.get();
    // A detachable task's event handle is written by the runtime where the
    // program's arguments are: such a task is created as the program asks.
    if (!so::enabled(so::group_tasks) || (flags & so::kTaskFlagDetach) != 0)
        return real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
    const void* code = STRATA_CODE;
    const strata::RegionHandle create = so::construct_region(Construct::task_create, code);
    if (create != 0) strata::events::enter(create);
    const so::TaskLayout layout = so::task_layout(arg_size, arg_align);
    so::TaskSource source{};
    source.header.fn = fn;
    source.header.id = strata::events::task_create();
    source.header.region = so::construct_region(Construct::task, code);
    source.header.offset = layout.offset;
    source.data = data;
    source.cpyfn = cpyfn;
    source.arg_size = arg_size;
    real(&so::run_task, &source, &so::copy_task, layout.size, layout.align, if_clause, flags, depend, priority,
         detach);
    if (create != 0) strata::events::exit(create);
}

// A taskloop: its region around the creation of its tasks, each task recorded
// as GOMP_task's are (see TaskHeader for the bounds the runtime writes).  Not
// a worksharing construct: it may run inside a single, which it does not end
// (its frame is of the task kind, as taskwait's).
STRATA_GOMP_API void GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                                   long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                   long start, long end, long step) {
    STRATA_NEXT(GOMP_taskloop);
    const void* code = STRATA_CODE;
    so::around(so::group_worksharing, Frame::task, Construct::taskloop, code, [&] {
        so::taskloop(fn, data, cpyfn, arg_size, arg_align, flags, code,
                     [&](void (*body)(void*), void* arguments, void (*copy)(void*, void*), long size, long align) {
                         next_GOMP_taskloop.get()(body, arguments, copy, size, align, flags, num_tasks, priority,
                                                  start, end, step);
                     });
    });
}
STRATA_GOMP_API void GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                       unsigned long long start, unsigned long long end, unsigned long long step) {
    STRATA_NEXT(GOMP_taskloop_ull);
    const void* code = STRATA_CODE;
    so::around(so::group_worksharing, Frame::task, Construct::taskloop, code, [&] {
        so::taskloop(fn, data, cpyfn, arg_size, arg_align, flags, code,
                     [&](void (*body)(void*), void* arguments, void (*copy)(void*, void*), long size, long align) {
                         next_GOMP_taskloop_ull.get()(body, arguments, copy, size, align, flags, num_tasks, priority,
                                                      start, end, step);
                     });
    });
}
