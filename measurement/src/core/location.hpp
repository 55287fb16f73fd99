// SPDX-License-Identifier: BSD-3-Clause
// Locations: the per-thread (later also per-GPU-stream) recording state.
//
// A CPU location is created on a thread's first event and found afterwards
// through one initial-exec TLS pointer: no lock and no lookup per event.
// The core keeps the stack of open regions itself, so that every substrate
// sees well-nested enter/exit pairs even when the program's are not.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/substrate.hpp"
#include "strata/measurement/types.hpp"

namespace strata {

namespace events {
struct ForkContext;
struct ForkSlab;
}
namespace metrics {
class ThreadCounters;
}

struct Location {
    /// Its number in the process, the low half of its trace id: the creation
    /// order among the threads (0 = first thread), 0x10000 + n for the n-th
    /// location of its own (a GPU stream, events::define_location).
    std::uint32_t index = 0;
    LocationType type = LocationType::cpu_thread;
    std::string name;
    std::uint32_t device = 0;  ///< GPU streams: the CUDA device ordinal
    std::uint32_t os_thread = 0;  ///< CPU threads: the Linux thread id (gettid)
    /// A name the program gave the thread (events::name_thread); written under
    /// the location lock, read when the results are written.
    std::string given_name;
    /// Locations of their own: the time of the last event (their times never decrease).
    Ticks last_time = 0;
    /// Locations of their own: for each open region, the depth of the launch
    /// path it was entered under (core/launch_paths.hpp), 0 for none.
    std::vector<std::uint32_t> under;

    /// Open regions, innermost last.  Grown outside the hot path.
    RegionHandle* stack = nullptr;
    std::uint32_t depth = 0;
    std::uint32_t capacity = 0;

    /// Per-substrate state, indexed by the substrate's position in the runtime.
    void* substrate_data[substrate::kMaxSubstrates] = {};

    /// Thread teams this thread works in, innermost last (events.hpp "threads").
    struct TeamMembership {
        std::uint32_t team = 0;            ///< CommunicatorHandle; 0: not recorded
        std::uint32_t inherited_size = 0;  ///< size of `inherited` before this team began
        std::uint32_t depth = 0;           ///< region stack depth when this team began
        /// For threads other than the forking one, a reference to the fork: it
        /// knows when the team joined (the end of this thread's part, should
        /// the runtime never report it).  Released once the join time is known.
        events::ForkContext* fork = nullptr;
        Ticks joined = 0;  ///< the join time, once seen (then `fork` is released)
        /// When this thread began its part: a join time before it is the fork
        /// context's previous team's (the context is reused without clearing it).
        Ticks begun = 0;
        std::uint32_t thread_number = 0;  ///< this thread's number in the team
    };
    std::vector<TeamMembership> teams;
    /// The call path taken over from forking threads (outermost first); it
    /// precedes `stack` when this thread forks a team itself (nested parallelism).
    std::vector<RegionHandle> inherited;
    std::uint32_t last_noted_team = 0;  ///< membership already in the definitions
    std::uint32_t tasks_created = 0;    ///< explicit tasks this thread created (events::task_create)
    /// The fork contexts this thread made, which it reuses (events_threads.cpp).
    events::ForkSlab* fork_slabs = nullptr;
    std::uint64_t team_cache_key = 0;   ///< (forking thread, size, level) of team_cache_handle
    std::uint32_t team_cache_handle = 0;
    /// The counters of this thread (STRATA_METRIC_*) as read right before the
    /// current event is delivered, in the order of metrics::configured(); the
    /// substrates read them from here.  nullptr when no counter is configured.
    std::uint64_t* metric_values = nullptr;
    /// The thread's counters (src/metrics/thread_counters.hpp); deleted with the location.
    metrics::ThreadCounters* counters = nullptr;

    std::uint64_t unmatched_exits = 0;

    /// The end of the last measurement activity recorded on this thread (a
    /// trace buffer flush, substrate::CoreServices::measurement_activity).  An event
    /// whose time was read before it but that reaches the substrates after it
    /// (the exit of an MPI call, delivered after its message event caused the
    /// flush) is moved to it, as the trace's buffer moves it: the profile and
    /// the trace then show the same times, and the flush stays inside the call.
    Ticks measured_until = 0;

    /// Set while Strata itself works on this thread in a slow path that may
    /// allocate (a new call-path node, a trace page, a flush).  A program whose
    /// allocator is instrumented calls back into the event API from there; those
    /// events are ignored instead of re-entering (and dead-locking) Strata.
    bool busy = false;

    /// An event function of this thread is running.  Only this thread writes
    /// it; runtime::finalize reads it to wait for the events other threads
    /// began before the measurement ended (event_path.hpp, EventScope).
    std::atomic<bool> in_event{false};

    Location() = default;
    Location(const Location&) = delete;
    Location& operator=(const Location&) = delete;
    ~Location();

    void grow_stack();

    /// The name the results show: "<given name> (thread <n>)", else `name`.
    std::string display_name() const { return given_name.empty() ? name : given_name + " (" + name + ")"; }
};

namespace location {

namespace detail {
// __thread, not thread_local: no dynamic-initialisation wrapper on access.
extern __thread Location* current __attribute__((tls_model("initial-exec")));
Location* create_current();
}  // namespace detail

/// The calling thread's location, created on first use; nullptr only while it
/// is being created (an event from inside the allocation, which is dropped).
inline Location* current() {
    Location* loc = detail::current;
    if (__builtin_expect(loc == nullptr, 0)) loc = detail::create_current();
    return loc;
}

/// The first number of locations of their own (Location::index).
constexpr std::uint32_t kFirstOwnIndex = 0x10000;

/// Makes a location that is not a thread's (events::define_location); nullptr
/// when 0xFFFF of them exist already.
Location* create_own(std::string name, LocationType type, std::uint32_t device);

/// The n-th location of its own (index kFirstOwnIndex + n), nullptr if none; no lock.
Location* own(std::uint32_t n);

/// Gives the location of OS thread `os_thread` the name `name` (now, or when
/// that thread's location is made).
void name_thread(std::uint32_t os_thread, const std::string& name);

/// Every location created so far (copy; takes a lock).
std::vector<Location*> all();

/// Forgets every location (tests; no thread may be recording).
void reset_all();

}  // namespace location

namespace events::detail {
/// Deletes the fork contexts `loc` keeps for reuse.
void free_fork_contexts(Location& loc);
/// At finalisation: ends the thread teams `loc` is still in, at their join
/// when the team joined (the runtime never reported this thread's end), else
/// at `end`, closing the regions open inside them.  `table` receives the events.
void close_open_teams(const substrate::EventTable* table, Location& loc, Ticks end);
}  // namespace events::detail

}  // namespace strata
