// SPDX-License-Identifier: BSD-3-Clause
// The event API: location and time resolved once, then the substrates' callbacks.
//
// Hot path per enter: one TLS load, the location's in-event mark (see
// EventScope), one acquire load of the table (a plain load on x86), one timer
// read, a push on the location's region stack and a call of the only
// substrate's callback; everything else (several substrates, counters,
// recording off, the thread's first event) is left to out-of-line general
// paths, so that the fast path saves few registers.  No lock, no allocation,
// no virtual call.
//
// Counters (STRATA_METRIC_*): the runtime then leaves single_enter/single_exit
// empty, so enter() and exit() take the general path, which reads the thread's
// counters into the location right before the substrates run.  A run without
// counters never tests for them on the fast path.
//
// Recording off: the active table becomes off_table, whose enter/parameter
// arrays are empty.  Regions entered while off are pushed with kUndelivered
// set, so their exits are not delivered either; regions entered while on are
// still delivered when they are left while off (off_table.exit == on_table.exit),
// so every substrate sees balanced enter/exit pairs.
#include "strata/measurement/events.hpp"

#include <atomic>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "core/definitions.hpp"
#include "core/launch_paths.hpp"
#include "core/location.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "filter/filter_rules.hpp"
#include "strata/measurement/thread_sanitizer.hpp"
#include "metrics/metrics.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)

namespace strata::events {

namespace {
/// Marks the calling thread's location while one of its events is recorded.
/// runtime::finalize waits for the marks of other threads before it closes
/// their locations (a thread may still record while another one calls
/// exit()).  The mark is made before the event table is read, and finalize
/// reads the marks after it has removed the table and run a process-wide
/// memory barrier (membarrier): an event that read the old table is seen,
/// one that did not finds no table.  Two stores on a line the thread owns.
/// Event functions that call each other clear it early; each of them reads
/// the table again after marking, so the rest finds no table.
class EventScope {
public:
    /// `loc`: the calling thread's location, or a location of its own being recorded.
    explicit EventScope(Location* loc = location::detail::current) : loc_(loc) {
        if (loc_ != nullptr) loc_->in_event.store(true, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    ~EventScope() {
        if (loc_ != nullptr) loc_->in_event.store(false, std::memory_order_release);
    }
    EventScope(const EventScope&) = delete;
    EventScope& operator=(const EventScope&) = delete;

private:
    Location* const loc_;
};

/// The same mark for the fast paths, which have the location already and
/// leave to an out-of-line general path (that marks again) after unmark().
inline void mark(Location* loc) {
    loc->in_event.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
}
inline void unmark(Location* loc) { loc->in_event.store(false, std::memory_order_release); }
}  // namespace

namespace {

using runtime::detail::active_table;
using substrate::EventTable;

constexpr RegionHandle kUndelivered = 0x80000000u;

inline void push(Location* loc, RegionHandle value) {
    if (STRATA_UNLIKELY(loc->depth == loc->capacity)) loc->grow_stack();
    loc->stack[loc->depth++] = value;
}

/// Calls every substrate's callback; with one substrate (the usual case) a tail call.
inline void dispatch(const substrate::EnterFn* fns, Location& loc, Ticks time, RegionHandle region) {
    if (fns[1] == nullptr) return fns[0](loc, time, region);
    // Several substrates: tracing may have flushed (Location::measured_until).
    if (STRATA_UNLIKELY(time < loc.measured_until)) time = loc.measured_until;
    for (; *fns; ++fns) (*fns)(loc, time, region);
}

inline void deliver_exit(const EventTable* table, Location* loc, Ticks time, RegionHandle region) {
    dispatch(table->exit, *loc, time, region);
}

__attribute__((noinline)) void exit_unmatched(const EventTable* table, Location* loc, Ticks time,
                                              RegionHandle region) {
    // Find the region further out on the stack.
    std::int64_t at = -1;
    for (std::int64_t i = static_cast<std::int64_t>(loc->depth) - 1; i >= 0; --i) {
        if ((loc->stack[i] & ~kUndelivered) == region) {
            at = i;
            break;
        }
    }
    if (at < 0) {
        // After the end of the measurement, finalisation has closed this thread's regions itself.
        if (active_table.load(std::memory_order_acquire) == nullptr) return;
        ++loc->unmatched_exits;
        runtime::warn_once("exit-not-open/" + std::to_string(region),
                           "strata: warning: region '" + definitions().region_name(region) +
                               "' was left but is not open on this thread; the exit is ignored "
                               "(reported once per region)");
        return;
    }
    if (at != static_cast<std::int64_t>(loc->depth) - 1) {
        const RegionHandle inner = loc->stack[loc->depth - 1] & ~kUndelivered;
        ++loc->unmatched_exits;
        runtime::warn_once("exit-order/" + std::to_string(region),
                           "strata: warning: region '" + definitions().region_name(region) +
                               "' was left while '" + definitions().region_name(inner) +
                               "' inside it was still open; the inner regions are closed at the "
                               "same time (a longjmp past them, or code that leaves without its exit "
                               "event, does this; reported once per region)");
    }
    while (static_cast<std::int64_t>(loc->depth) > at) {
        const RegionHandle top = loc->stack[--loc->depth];
        if ((top & kUndelivered) == 0) deliver_exit(table, loc, time, top);
    }
}

/// enter() when the fast path does not apply (kept out of line so that the
/// fast path needs no saved registers).
__attribute__((noinline)) void enter_general(RegionHandle region) {
    if (active_table.load(std::memory_order_acquire) == nullptr) return;
    enter_at(timer::now(), region);
}

__attribute__((noinline)) void exit_general(RegionHandle region) {
    if (active_table.load(std::memory_order_acquire) == nullptr) return;
    exit_at(timer::now(), region);
}

}  // namespace

// Definitions live outside the page pool.  If the process runs out of memory
// while defining, the program must not die from it (Score-P aborts): the
// definition is replaced by "none" (its events are ignored) and we say so once.
template <typename Fn>
auto define_or_degrade(const char* what, Fn&& fn) -> decltype(fn()) {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        runtime::warn_once(std::string("definitions-oom/") + what,
                           std::string("strata: warning: out of memory while defining a ") + what +
                               "; its events are not recorded (reported once)");
        return 0;
    }
}

RegionHandle define_region(const RegionSpec& spec) {
    return define_or_degrade("region", [&] { return definitions().define_region(spec); });
}

RegionHandle find_region(Paradigm paradigm, std::string_view name, std::uint32_t flags) {
    return define_or_degrade("region", [&] { return definitions().find_region(paradigm, name, flags); });
}

ParameterHandle define_parameter(std::string_view name, ParameterType type) {
    return define_or_degrade("parameter", [&] { return definitions().define_parameter(name, type); });
}

StringHandle define_string(std::string_view text) {
    return define_or_degrade("string", [&] { return definitions().intern(text); });
}

Ticks now() { return timer::now(); }

bool is_active() { return active_table.load(std::memory_order_acquire) != nullptr; }

bool is_tracing() { return is_active() && config::settings().enable_tracing; }

namespace {
/// The enter of `region` on `loc` (not busy) under the non-null `table`.
inline void enter_on(const EventTable* table, Location* loc, Ticks time, RegionHandle region) {
    if (table == &runtime::detail::off_table) {
        push(loc, region | kUndelivered);
        return;
    }
    push(loc, region);
    if (STRATA_UNLIKELY(loc->metric_values != nullptr)) metrics::read(*loc);
    dispatch(table->enter, *loc, time, region);
}
}  // namespace

void enter_at(Ticks time, RegionHandle region) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;  // 0: a definition that failed
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    enter_on(table, loc, time, region);
}

void enter(RegionHandle region) {
    Location* const loc = location::detail::current;
    if (STRATA_LIKELY(loc != nullptr)) {  // else the thread's first event
        mark(loc);
        const EventTable* table = active_table.load(std::memory_order_acquire);
        const substrate::EnterFn single = table != nullptr ? table->single_enter : nullptr;
        // One test covers: inactive, recording off (off_table has no single_enter),
        // several substrates and counters.
        if (STRATA_LIKELY(single != nullptr && region != 0 && !loc->busy)) {
            const Ticks time = timer::now();
            push(loc, region);
            single(*loc, time, region);
            return unmark(loc);
        }
        unmark(loc);
    }
    enter_general(region);
}

void exit_at(Ticks time, RegionHandle region) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;  // 0: a definition that failed
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    if (STRATA_UNLIKELY(loc->metric_values != nullptr)) metrics::read(*loc);
    if (STRATA_UNLIKELY(loc->depth == 0 || loc->stack[loc->depth - 1] != region)) {
        exit_unmatched(table, loc, time, region);
        return;
    }
    --loc->depth;
    deliver_exit(table, loc, time, region);
}

void exit(RegionHandle region) {
    Location* const loc = location::detail::current;
    if (STRATA_LIKELY(loc != nullptr)) {
        mark(loc);
        const EventTable* table = active_table.load(std::memory_order_acquire);
        const substrate::ExitFn single = table == &runtime::detail::on_table ? table->single_exit : nullptr;
        // Not the innermost region: exit_at() repairs the nesting.
        if (STRATA_LIKELY(single != nullptr && !loc->busy && loc->depth != 0 &&
                          loc->stack[loc->depth - 1] == region)) {
            const Ticks time = timer::now();
            --loc->depth;
            single(*loc, time, region);
            return unmark(loc);
        }
        unmark(loc);
    }
    exit_general(region);
}

void parameter_int(ParameterHandle parameter, std::int64_t value) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr)) return;
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    const Ticks time = timer::now();
    // A parameter opens a call path in the profile: its counters start here.
    if (loc->metric_values != nullptr) metrics::read(*loc);
    for (auto* f = table->parameter_int; *f; ++f) (*f)(*loc, time, parameter, value);
}

void parameter_string(ParameterHandle parameter, std::string_view value) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr) || table->parameter_string[0] == nullptr) return;
    const StringHandle text = definitions().intern(value);
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    const Ticks time = timer::now();
    if (loc->metric_values != nullptr) metrics::read(*loc);
    for (auto* f = table->parameter_string; *f; ++f) (*f)(*loc, time, parameter, text);
}

// --- locations of their own ------------------------------------------------------

namespace {
inline Location* own_location(LocationHandle handle) {
    return handle == 0 ? nullptr : location::own(handle - 1);
}

/// The enter with a correlation id: each substrate's own callback, or its enter.
/// A launch keeps its call path for the GPU work it starts (launch_paths.hpp).
void enter_correlated_on(const EventTable* table, Location* loc, Ticks time, RegionHandle region,
                         std::uint64_t correlation) {
    if (table == &runtime::detail::off_table) {
        push(loc, region | kUndelivered);
        return;
    }
    push(loc, region);
    if (table->keep_launch_paths && correlation != 0 && loc->type == LocationType::cpu_thread) {
        launch_paths::remember(correlation, *loc);
    }
    if (STRATA_UNLIKELY(loc->metric_values != nullptr)) metrics::read(*loc);
    if (STRATA_UNLIKELY(time < loc->measured_until)) time = loc->measured_until;
    for (int i = 0; table->enter[i] != nullptr; ++i) {
        if (table->enter_correlated[i] != nullptr) {
            table->enter_correlated[i](*loc, time, region, correlation);
        } else {
            table->enter[i](*loc, time, region);
        }
    }
}
}  // namespace

LocationHandle define_location(const LocationSpec& spec) {
    if (active_table.load(std::memory_order_acquire) == nullptr) return 0;
    return define_or_degrade("location", [&]() -> LocationHandle {
        Location* loc = location::create_own(std::string(spec.name), spec.type, spec.device);
        if (loc == nullptr) {
            runtime::warn_once("own-locations-full",
                               "strata: warning: more than 65535 GPU streams; the events of the others are not "
                               "recorded (reported once)");
            return 0;
        }
        return loc->index - location::kFirstOwnIndex + 1;
    });
}

void location_enter(LocationHandle location, Ticks time, RegionHandle region, std::uint64_t correlation,
                    const GpuAttributeValue* attributes, std::uint32_t count) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || region == 0)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    if (count > 0 && attributes != nullptr && table != &runtime::detail::off_table) {
        for (auto* f = table->gpu_attributes; *f; ++f) (*f)(*loc, time, attributes, count);
    }
    RegionHandle path[launch_paths::kMaxDepth];
    const std::uint32_t depth = table->keep_launch_paths && table != &runtime::detail::off_table
                                    ? launch_paths::find(correlation, path)
                                    : 0;
    if (depth == 0) {
        enter_correlated_on(table, loc, time, region, correlation);
    } else {
        push(loc, region);
        for (int i = 0; table->enter[i] != nullptr; ++i) {
            if (table->enter_under[i] != nullptr) {
                table->enter_under[i](*loc, time, region, path, depth, correlation);
            } else if (table->enter_correlated[i] != nullptr) {
                table->enter_correlated[i](*loc, time, region, correlation);
            } else {
                table->enter[i](*loc, time, region);
            }
        }
    }
    loc->under.push_back(depth);
}

void location_exit(LocationHandle location, Ticks time, RegionHandle region) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || region == 0)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    if (STRATA_UNLIKELY(loc->depth == 0 || loc->stack[loc->depth - 1] != region)) {
        exit_unmatched(table, loc, time, region);
        loc->under.resize(loc->depth);  // what exit_unmatched closed is no longer under a path
        return;
    }
    --loc->depth;
    const std::uint32_t depth = loc->under.empty() ? 0 : loc->under.back();
    if (!loc->under.empty()) loc->under.pop_back();
    if (depth == 0) return deliver_exit(table, loc, time, region);
    for (int i = 0; table->exit[i] != nullptr; ++i) {
        if (table->exit_under[i] != nullptr) {
            table->exit_under[i](*loc, time, region, depth);
        } else {
            table->exit[i](*loc, time, region);
        }
    }
}

void location_metric(LocationHandle location, Ticks time, DeviceMetric metric, std::uint64_t value) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || metric >= DeviceMetric::count)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    for (auto* f = table->device_metric; *f; ++f) (*f)(*loc, time, metric, value);
}

void name_thread(std::uint32_t os_thread, std::string_view name) {
    if (active_table.load(std::memory_order_acquire) == nullptr || name.empty()) return;
    if (os_thread == 0) {
        Location* loc = location::current();
        if (loc == nullptr) return;
        os_thread = loc->os_thread;
    }
    try {
        location::name_thread(os_thread, filter::valid_utf8(std::string(name)));
    } catch (const std::bad_alloc&) {
        // The thread keeps its number as its name.
    }
}

void enter_correlated(RegionHandle region, std::uint64_t correlation) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    enter_correlated_on(table, loc, timer::now(), region, correlation);
}

void report_loss(std::string_view what, std::uint64_t count, std::string_view remedy) {
    try {
        runtime::report_loss(std::string(what), count, std::string(remedy));
    } catch (const std::bad_alloc&) {
        // The caller's own message still says it.
    }
}

void verbose(std::string_view message) { runtime::verbose(std::string(message)); }

void at_measurement_end(void (*hook)()) {
    if (!runtime::add_end_hook(hook)) {
        runtime::warn_once("end-hooks-full",
                           "strata: warning: too many adapters asked to run at the end of the measurement; one "
                           "of them cannot hand over its last events");
    }
}

// --- MPI ----------------------------------------------------------------------

CommunicatorHandle define_communicator(const CommunicatorSpec& spec) {
    return define_or_degrade("communicator", [&] { return definitions().define_communicator(spec); });
}

namespace {
/// Delivers the MPI event `make()` builds to the substrates that take `kind`.
/// The event is built only when one takes it (profiling takes only the message
/// bytes: a collective's begin costs it a load and a test).
/// Calls every substrate's MPI callback; with one substrate a tail call.
inline void deliver_mpi(const EventTable* table, Location& loc, Ticks time, const substrate::MpiEvent& event) {
    const substrate::MpiEventFn* f = table->mpi_event;
    if (f[1] == nullptr) return f[0](loc, time, event);
    for (; *f; ++f) (*f)(loc, time, event);
}

/// The event `make` builds, of kind `kind`.
template <typename Make>
inline substrate::MpiEvent make_event(substrate::MpiEvent::Kind kind, const Make& make) {
    substrate::MpiEvent event = make();
    event.kind = kind;
    return event;
}

/// `time`: the event's time, or 0 to read the clock (when a substrate needs the time).
template <typename Make>
inline void mpi_dispatch(substrate::MpiEvent::Kind kind, Make&& make, Ticks time = 0) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr) || (table->mpi_event_kinds & (1u << kind)) == 0) return;
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    if (time == 0 && table->mpi_event_time) time = timer::now();  // profiling alone needs no time
    deliver_mpi(table, *loc, time, make_event(kind, make));
}

/// The bytes an MPI event moves, as (sent, received) on the call path of its call.
inline std::pair<std::uint64_t, std::uint64_t> message_bytes(const substrate::MpiEvent& e) {
    using K = substrate::MpiEvent;
    switch (e.kind) {
        case K::send:
        case K::isend: return {e.bytes, 0};
        case K::recv:
        case K::irecv: return {0, e.bytes};
        case K::collective_end:
        case K::nonblocking_collective_complete: return {e.bytes, e.bytes_received};
        default: return {0, 0};
    }
}

/// In a general path: recording on, on a location that is neither busy nor
/// reads counters, so the substrates' arrays can be called directly (several
/// substrates are active).
inline bool several_substrates_only(const EventTable* table, const Location* loc) {
    return table == &runtime::detail::on_table && loc != nullptr && !loc->busy && loc->metric_values == nullptr;
}

/// enter_then_mpi when the fast path does not apply: recording off, counters,
/// several substrates, the thread's first event, Strata busy on the thread.
template <typename Make>
__attribute__((noinline)) void enter_then_mpi_general(RegionHandle region, substrate::MpiEvent::Kind kind,
                                                      const Make& make) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table == nullptr) return;
    const Ticks time = timer::now();
    Location* loc = location::detail::current;
    if (several_substrates_only(table, loc) && region != 0) {
        push(loc, region);
        dispatch(table->enter, *loc, time, region);
        if ((table->mpi_event_kinds & (1u << kind)) == 0 || loc->busy) return;
        return deliver_mpi(table, *loc, time, make_event(kind, make));
    }
    enter_at(time, region);
    mpi_dispatch(kind, make, time);
}

/// enter(region) and then the MPI event: one location look-up, one timestamp.
/// With one substrate that takes message bytes with the enter (the profile),
/// one call of it.
template <typename Make>
inline void enter_then_mpi(RegionHandle region, substrate::MpiEvent::Kind kind, Make&& make) {
    Location* const loc = location::detail::current;
    if (STRATA_LIKELY(loc != nullptr)) {
        mark(loc);
        const EventTable* table = active_table.load(std::memory_order_acquire);
        // single_enter: exactly one substrate, no counters (not set in off_table).
        if (STRATA_LIKELY(table != nullptr && table->single_enter != nullptr && region != 0 && !loc->busy)) {
            const Ticks time = timer::now();
            push(loc, region);
            if ((table->mpi_event_kinds & (1u << kind)) == 0) {
                table->single_enter(*loc, time, region);
            } else if (table->single_enter_bytes != nullptr) {
                const auto bytes = message_bytes(make_event(kind, make));
                table->single_enter_bytes(*loc, time, region, bytes.first, bytes.second);
            } else {
                table->single_enter(*loc, time, region);
                if (!loc->busy) deliver_mpi(table, *loc, time, make_event(kind, make));
            }
            return unmark(loc);
        }
        unmark(loc);
    }
    enter_then_mpi_general(region, kind, make);
}

/// mpi_then_exit when the fast path does not apply (as enter_then_mpi_general).
template <typename Make>
__attribute__((noinline)) void mpi_then_exit_general(RegionHandle region, substrate::MpiEvent::Kind kind,
                                                     const Make& make) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table == nullptr) return;
    const Ticks time = timer::now();
    Location* loc = location::detail::current;
    if (several_substrates_only(table, loc) && loc->depth != 0 && loc->stack[loc->depth - 1] == region) {
        if ((table->mpi_event_kinds & (1u << kind)) != 0) {
            deliver_mpi(table, *loc, time, make_event(kind, make));
            // A substrate busy with the location now (flushing) takes no exit either: exit_at() decides.
            if (loc->busy) return exit_at(time, region);
        }
        --loc->depth;
        return dispatch(table->exit, *loc, time, region);
    }
    mpi_dispatch(kind, make, time);
    exit_at(time, region);
}

/// The MPI event and then exit(region), likewise.
template <typename Make>
inline void mpi_then_exit(RegionHandle region, substrate::MpiEvent::Kind kind, Make&& make) {
    Location* const loc = location::detail::current;
    if (STRATA_LIKELY(loc != nullptr)) {
        mark(loc);
        const EventTable* table = active_table.load(std::memory_order_acquire);
        if (STRATA_LIKELY(table == &runtime::detail::on_table && table->single_exit != nullptr && !loc->busy &&
                          loc->depth != 0 && loc->stack[loc->depth - 1] == region)) {
            const Ticks time = timer::now();
            if ((table->mpi_event_kinds & (1u << kind)) == 0) {
                --loc->depth;
                table->single_exit(*loc, time, region);
            } else if (table->single_bytes_exit != nullptr) {
                const auto bytes = message_bytes(make_event(kind, make));
                --loc->depth;
                table->single_bytes_exit(*loc, time, region, bytes.first, bytes.second);
            } else {
                deliver_mpi(table, *loc, time, make_event(kind, make));
                // A substrate busy with the location now (flushing) takes no exit either: exit_at() decides.
                if (STRATA_UNLIKELY(loc->busy)) {
                    unmark(loc);
                    return exit_at(time, region);
                }
                --loc->depth;
                table->single_exit(*loc, time, region);
            }
            return unmark(loc);
        }
        unmark(loc);
    }
    mpi_then_exit_general(region, kind, make);
}

substrate::MpiEvent message(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
                            std::uint64_t request) {
    substrate::MpiEvent e;
    e.comm = comm;
    e.peer = peer;
    e.tag = tag;
    e.bytes = bytes;
    e.request = request;
    return e;
}
substrate::MpiEvent request_event(std::uint64_t request) { return message(0, 0, 0, 0, request); }
}  // namespace

using K = substrate::MpiEvent;

void mpi_send(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes) {
    mpi_dispatch(K::send, [&] { return message(comm, peer, tag, bytes, 0); });
}
void mpi_recv(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes) {
    mpi_dispatch(K::recv, [&] { return message(comm, peer, tag, bytes, 0); });
}
void mpi_isend(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
               std::uint64_t request) {
    mpi_dispatch(K::isend, [&] { return message(comm, peer, tag, bytes, request); });
}
void mpi_isend_complete(std::uint64_t request) {
    mpi_dispatch(K::isend_complete, [&] { return request_event(request); });
}
void mpi_irecv_request(std::uint64_t request) {
    mpi_dispatch(K::irecv_request, [&] { return request_event(request); });
}
void mpi_irecv(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
               std::uint64_t request) {
    mpi_dispatch(K::irecv, [&] { return message(comm, peer, tag, bytes, request); });
}
void mpi_request_test(std::uint64_t request) {
    mpi_dispatch(K::request_test, [&] { return request_event(request); });
}
void mpi_request_cancelled(std::uint64_t request) {
    mpi_dispatch(K::request_cancelled, [&] { return request_event(request); });
}
void mpi_collective_begin() {
    mpi_dispatch(K::collective_begin, [] { return request_event(0); });
}
void mpi_collective_end(CollectiveOp op, CommunicatorHandle comm, std::int32_t root, std::uint64_t bytes_sent,
                        std::uint64_t bytes_received) {
    mpi_dispatch(K::collective_end, [&] {
        substrate::MpiEvent e = message(comm, root, 0, bytes_sent, 0);
        e.bytes_received = bytes_received;
        e.op = static_cast<std::uint8_t>(op);
        return e;
    });
}
void enter_mpi_send(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                    std::uint64_t bytes) {
    enter_then_mpi(region, K::send, [=] { return message(comm, peer, tag, bytes, 0); });
}
void enter_mpi_collective_begin(RegionHandle region) {
    enter_then_mpi(region, K::collective_begin, [] { return request_event(0); });
}
void mpi_recv_exit(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                   std::uint64_t bytes) {
    mpi_then_exit(region, K::recv, [=] { return message(comm, peer, tag, bytes, 0); });
}
void mpi_collective_end_exit(RegionHandle region, CollectiveOp op, CommunicatorHandle comm, std::int32_t root,
                             std::uint64_t bytes_sent, std::uint64_t bytes_received) {
    mpi_then_exit(region, K::collective_end, [=] {
        substrate::MpiEvent e = message(comm, root, 0, bytes_sent, 0);
        e.bytes_received = bytes_received;
        e.op = static_cast<std::uint8_t>(op);
        return e;
    });
}

void mpi_nonblocking_collective_request(std::uint64_t request) {
    mpi_dispatch(K::nonblocking_collective_request, [&] { return request_event(request); });
}
void mpi_nonblocking_collective_complete(CollectiveOp op, CommunicatorHandle comm, std::int32_t root,
                                         std::uint64_t bytes_sent, std::uint64_t bytes_received,
                                         std::uint64_t request) {
    mpi_dispatch(K::nonblocking_collective_complete, [&] {
        substrate::MpiEvent e = message(comm, root, 0, bytes_sent, request);
        e.bytes_received = bytes_received;
        e.op = static_cast<std::uint8_t>(op);
        return e;
    });
}

// --- threads ------------------------------------------------------------------

struct ForkSlab;

struct ForkContext {
    // Read by the team's threads.  The forking thread reuses a context for a
    // later fork and then writes only what differs, so that in a loop of the
    // same parallel region these lines stay shared in every cache.
    ForkSlab* slab = nullptr;         ///< where the context lives (set once)
    std::uint32_t slot = 0;           ///< its index there (set once)
    Paradigm model = Paradigm::openmp;
    std::uint32_t master = 0;         ///< location index of the forking thread
    std::uint32_t level = 1;          ///< nesting level of the team (1: outermost)
    std::vector<RegionHandle> path;   ///< call path open there at the fork
    const void* user[2] = {};         ///< the adapter's (thread_fork_user_data)
    /// (team size << 32) | team handle of the last team_begin: the threads of
    /// one fork look the team up once instead of taking the definitions lock.
    std::atomic<std::uint64_t> team{0};
    /// When the team joined: written by the forking thread at the join, read
    /// once by each other thread of the team.  Not cleared when the context is
    /// reused (that write would move the line to the forking thread once more
    /// per fork): a time before a thread's team begin is the previous team's,
    /// so the team has not joined yet (joined_after()).
    alignas(64) std::atomic<Ticks> join_time{0};
};

/// A forking thread's fork contexts, kSize at a time.  A context is reused
/// once every other thread of its last team has released it.  The releases
/// are counted on one line that only those threads write, and the forking
/// thread looks at it only when it has no context known to be free (each look
/// finds most of them free): a parallel region costs no cache-line transfer
/// for the reuse, only the join time's.
struct ForkSlab {
    static constexpr std::uint32_t kSize = 16;  // at most 32 (bit masks)
    static constexpr std::uint32_t kAll = (1u << kSize) - 1;
    ForkContext forks[kSize];
    /// Per context, the references released in all, by the team's other threads.
    alignas(64) std::atomic<std::uint32_t> released[kSize] = {};
    // The forking thread's own.
    alignas(64) Location* owner = nullptr;
    std::uint32_t handed_out[kSize] = {};  ///< references handed out in all (added at each join)
    std::int32_t workers[kSize] = {};      ///< the current team's other threads; -1: unknown
    std::uint32_t in_use = 0;              ///< bit i: forks[i] forked and not joined
    std::uint32_t dead = 0;                ///< bit i: never reused (its team size was unknown)
    std::uint32_t known_free = 0;          ///< bit i: forks[i] was free at the last look
    ForkSlab* next = nullptr;

    /// The contexts free now (one look at `released`).
    std::uint32_t free_now() const {
        std::uint32_t mask = 0;
        for (std::uint32_t i = 0; i < kSize; ++i) {
            if (((in_use | dead) >> i) & 1u) continue;
            if (released[i].load(std::memory_order_acquire) == handed_out[i]) mask |= 1u << i;
        }
        return mask;
    }
};

namespace {
/// A thread other than the forking one is done with `fork`.
void release(ForkContext* fork) {
    if (fork != nullptr) fork->slab->released[fork->slot].fetch_add(1, std::memory_order_release);
}

/// A context for a new fork of `loc` (nullptr: out of memory).
ForkContext* reuse_or_make(Location* loc) {
    ForkSlab** link = &loc->fork_slabs;
    for (ForkSlab* slab = *link; slab != nullptr; link = &slab->next, slab = slab->next) {
        if (slab->known_free == 0) slab->known_free = slab->free_now();
        if (slab->known_free == 0) continue;
        const auto i = static_cast<std::uint32_t>(__builtin_ctz(slab->known_free));
        slab->known_free &= ~(1u << i);
        slab->in_use |= 1u << i;
        slab->workers[i] = -1;
        return &slab->forks[i];
    }
    auto* slab = new (std::nothrow) ForkSlab;
    if (slab == nullptr) return nullptr;
    slab->owner = loc;
    for (std::uint32_t i = 0; i < ForkSlab::kSize; ++i) {
        slab->forks[i].slab = slab;
        slab->forks[i].slot = i;
    }
    *link = slab;
    slab->known_free = ForkSlab::kAll & ~1u;
    slab->in_use = 1u;
    slab->workers[0] = -1;
    return &slab->forks[0];
}

/// The forking thread has joined `fork`: its team's other threads hold the
/// references it hands out now (unknown team size: never reused).
void note_join(ForkContext* fork) {
    ForkSlab& slab = *fork->slab;
    const std::uint32_t i = fork->slot;
    slab.in_use &= ~(1u << i);
    if (slab.workers[i] < 0) {
        slab.dead |= 1u << i;
    } else {
        slab.handed_out[i] += static_cast<std::uint32_t>(slab.workers[i]);
    }
}

/// The join time of the team `membership` began in `fork`; 0: not joined yet.
inline Ticks joined_after(const ForkContext& fork, const Location::TeamMembership& membership) {
    const Ticks joined = fork.join_time.load(std::memory_order_acquire);
    return joined >= membership.begun ? joined : 0;
}

/// Writes `value` to `field` only when it differs (see ForkContext).
template <typename T>
inline void set_if_changed(T& field, const T& value) {
    if (field != value) field = value;
}
}  // namespace

namespace detail {
void free_fork_contexts(Location& loc) {
    while (loc.fork_slabs != nullptr) delete std::exchange(loc.fork_slabs, loc.fork_slabs->next);
}
}  // namespace detail

namespace {
inline void thread_dispatch(const EventTable* table, Location& loc, Ticks time, const substrate::ThreadEvent& e) {
    if (STRATA_UNLIKELY(time < loc.measured_until)) time = loc.measured_until;  // see dispatch()
    for (auto* f = table->thread_event; *f; ++f) (*f)(loc, time, e);
}

/// The team of `fork` with `size` threads: from the fork (the threads of one
/// fork look it up once), else from the thread's own cache (the same team is
/// forked again and again), else from the definitions (a lock).
std::uint32_t team_of(Location& loc, ForkContext& fork, std::uint32_t size) {
    const std::uint64_t cached = fork.team.load(std::memory_order_relaxed);
    if ((cached >> 32) == size && (cached & 0xffffffffu) != 0) return static_cast<std::uint32_t>(cached);
    const std::uint64_t key = (static_cast<std::uint64_t>(fork.master) << 32) | (static_cast<std::uint64_t>(size) << 16) |
                              (fork.level & 0xffffu);
    std::uint32_t team = 0;
    if (loc.team_cache_key == key && loc.team_cache_handle != 0) {
        team = loc.team_cache_handle;
    } else {
        team = define_or_degrade("thread team",
                                 [&] { return definitions().define_thread_team(fork.master, size, fork.level); });
        loc.team_cache_key = key;
        loc.team_cache_handle = team;
    }
    fork.team.store((static_cast<std::uint64_t>(size) << 32) | team, std::memory_order_relaxed);
    return team;
}

/// Closes regions a thread left open inside its team (the runtime ended the
/// team under them), so that every substrate stays well nested.
void close_regions_above(const EventTable* table, Location* loc, Ticks time, std::uint32_t depth, bool warn) {
    if (loc->depth <= depth) return;
    if (warn) runtime::warn_once("team-end-open-regions",
                       "strata: warning: a thread ended its work in a thread team with regions still open "
                       "(innermost: '" + definitions().region_name(loc->stack[loc->depth - 1] & ~kUndelivered) +
                           "'); they are closed there (reported once)");
    while (loc->depth > depth) {
        const RegionHandle top = loc->stack[--loc->depth];
        if ((top & kUndelivered) == 0 && table != nullptr) deliver_exit(table, loc, time, top);
    }
}

/// Ends the innermost team of `loc` at `time`: what is still open in it first
/// (`warn`: say so; at finalisation that is expected).
void end_team(const EventTable* table, Location* loc, Ticks time, bool warn) {
    const Location::TeamMembership membership = loc->teams.back();
    loc->teams.pop_back();
    close_regions_above(table, loc, time, membership.depth, warn);
    const auto inherited = static_cast<std::uint32_t>(loc->inherited.size()) - membership.inherited_size;
    loc->inherited.resize(membership.inherited_size);
    release(membership.fork);  // unless the join time was seen (thread_team_joined)
    if (membership.team == 0 || table == nullptr || (table->thread_events_inherited_only && inherited == 0)) return;
    substrate::ThreadEvent e;
    e.kind = substrate::ThreadEvent::team_end;
    e.team = membership.team;
    e.inherited_depth = inherited;
    thread_dispatch(table, *loc, time, e);
}
}  // namespace

ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads) {
    return thread_fork(model, requested_threads, nullptr, nullptr);
}

const void* const* thread_fork_user_data(const ForkContext* fork) { return fork->user; }

ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads, const void* user0, const void* user1) {
    return thread_fork_at(timer::now(), model, requested_threads, user0, user1);
}

ForkContext* thread_fork_at(Ticks time, Paradigm model, std::uint32_t requested_threads, const void* user0,
                            const void* user1) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table != &runtime::detail::on_table) return nullptr;  // inactive, or recording off
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return nullptr;
    loc->busy = true;  // the context may allocate
    ForkContext* fork = reuse_or_make(loc);
    if (fork != nullptr) {
        const auto level = static_cast<std::uint32_t>(loc->teams.size()) + 1;
        set_if_changed(fork->model, model);
        set_if_changed(fork->user[0], user0);
        set_if_changed(fork->user[1], user1);
        set_if_changed(fork->master, loc->index);
        if (fork->level != level) {
            fork->level = level;
            fork->team.store(0, std::memory_order_relaxed);  // another team
        }
        // The call path, compared before it is written (usually the same as last time).
        std::vector<RegionHandle>& path = fork->path;
        std::size_t n = 0;
        bool same = true;
        auto add = [&](RegionHandle r) {
            if (same && n < path.size() && path[n] == r) {
                ++n;
                return;
            }
            if (same) {
                path.resize(n);
                same = false;
            }
            path.push_back(r);
            ++n;
        };
        for (const RegionHandle r : loc->inherited) add(r);
        for (std::uint32_t i = 0; i < loc->depth; ++i) {
            if ((loc->stack[i] & kUndelivered) == 0) add(loc->stack[i]);
        }
        if (same && n != path.size()) path.resize(n);
    }
    loc->busy = false;
    runtime::busy_ended();
    if (fork == nullptr) return nullptr;
    if (!table->thread_events_inherited_only) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::fork;
        e.model = model;
        e.requested_threads = requested_threads;
        thread_dispatch(table, *loc, time, e);
    }
    strata_tsan_release(fork);  // the runtime hands it to the team's threads
    return fork;
}

void thread_join(ForkContext* fork) {
    if (fork != nullptr) thread_join_at(timer::now(), fork);
}

void thread_join_at(Ticks time, ForkContext* fork) {
    const EventScope scope;
    if (fork == nullptr) return;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = location::detail::current;
    fork->join_time.store(time, std::memory_order_release);
    if (table != nullptr && !table->thread_events_inherited_only && loc != nullptr && !loc->busy) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::join;
        e.model = fork->model;
        thread_dispatch(table, *loc, time, e);
    }
    note_join(fork);
}

void thread_team_begin(ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size) {
    thread_team_begin_at(timer::now(), fork, thread_number, team_size);
}

void thread_team_begin_at(Ticks time, ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size) {
    thread_team_begin_enter_at(time, fork, thread_number, team_size, 0);
}

void thread_team_begin_enter_at(Ticks time, ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size,
                                RegionHandle region) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = table != nullptr ? location::current() : nullptr;
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) {
        // Not a member: this thread will not hold the context.
        if (fork != nullptr && thread_number != 0) release(fork);
        return;
    }
    if (fork != nullptr) strata_tsan_acquire(fork);
    const std::uint32_t team = fork != nullptr ? team_of(*loc, *fork, team_size) : 0;
    loc->busy = true;  // the membership lists and the definitions may allocate
    if (team != 0 && loc->last_noted_team != team) {
        definitions().note_team_member(team, loc->index);
        loc->last_noted_team = team;
    }
    const auto inherited_before = static_cast<std::uint32_t>(loc->inherited.size());
    // The other threads hold the context until their part ends (see release()); the
    // forking thread says at the join how many they are.
    ForkContext* reference = nullptr;
    if (fork != nullptr) {
        if (thread_number != 0) {
            reference = fork;
        } else if (fork->slab->owner == loc) {
            fork->slab->workers[fork->slot] = team_size > 0 ? static_cast<std::int32_t>(team_size) - 1 : 0;
        }
    }
    loc->teams.push_back(
        Location::TeamMembership{team, inherited_before, loc->depth, reference, 0, time, thread_number});
    // Thread 0 is the forking thread: its own call path is already open.
    const bool inherits = team != 0 && thread_number != 0 && !fork->path.empty();
    // Element by element: a path is a few regions, and the range insert's
    // general case (memmove) costs more than the copy.
    if (inherits) {
        for (const RegionHandle r : fork->path) loc->inherited.push_back(r);
    }
    loc->busy = false;
    runtime::busy_ended();
    if (team != 0 && !(table->thread_events_inherited_only && !inherits)) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::team_begin;
        e.model = fork->model;
        e.team = team;
        e.thread_number = thread_number;
        if (inherits) {
            e.inherited = fork->path.data();
            e.inherited_depth = static_cast<std::uint32_t>(fork->path.size());
        }
        thread_dispatch(table, *loc, time, e);
    }
    if (region != 0 && !loc->busy) enter_on(table, loc, time, region);
}

void thread_team_end() { thread_team_end_at(timer::now()); }

void thread_team_end_at(Ticks time) { thread_team_end_closing_at(time, 0); }

void thread_team_end_closing_at(Ticks time, std::uint32_t open_regions) {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->busy || loc->teams.empty()) return;
    // More open than the caller knows of: regions the program left open in the team.
    const bool unexpected = loc->depth > loc->teams.back().depth + open_regions;
    end_team(active_table.load(std::memory_order_acquire), loc, time, unexpected);
}

Ticks thread_team_joined() {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->teams.empty()) return 0;
    Location::TeamMembership& membership = loc->teams.back();
    if (membership.joined != 0 || membership.fork == nullptr) return membership.joined;
    const Ticks joined = joined_after(*membership.fork, membership);
    if (joined != 0) {
        // Nothing else of the context is needed: release it now for its next fork.
        membership.joined = joined;
        release(std::exchange(membership.fork, nullptr));
    }
    return joined;
}

namespace {
/// A task event in the calling thread's innermost team (none: not recorded).
bool task_event(substrate::ThreadEvent::Kind kind, TaskId task) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table != &runtime::detail::on_table || table->thread_events_inherited_only || task.generation == 0) return false;
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy) || loc->teams.empty() || loc->teams.back().team == 0) return false;
    substrate::ThreadEvent e;
    e.kind = kind;
    e.team = loc->teams.back().team;
    e.task_creator = task.creator;
    e.task_generation = task.generation;
    thread_dispatch(table, *loc, timer::now(), e);
    return true;
}
}  // namespace

TaskId task_create() {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->teams.empty()) return TaskId{};
    const TaskId task{loc->teams.back().thread_number, loc->tasks_created + 1};
    if (!task_event(substrate::ThreadEvent::task_create, task)) return TaskId{};
    ++loc->tasks_created;
    return task;
}

void task_switch(TaskId task) { task_event(substrate::ThreadEvent::task_switch, task); }

void task_complete(TaskId task) { task_event(substrate::ThreadEvent::task_complete, task); }

namespace detail {
void close_open_teams(const EventTable* table, Location& loc, Ticks end) {
    while (!loc.teams.empty()) {
        // A team that joined ended for this thread at the join at the latest.
        const Location::TeamMembership& membership = loc.teams.back();
        const Ticks joined = membership.fork != nullptr ? joined_after(*membership.fork, membership) : membership.joined;
        end_team(table, &loc, joined != 0 && joined < end ? joined : end, false);
    }
}
}  // namespace detail

bool is_recording() {
    return active_table.load(std::memory_order_acquire) == &runtime::detail::on_table;
}

void set_recording(bool on) {
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table == nullptr) return;
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    const RegionHandle off_region = runtime::detail::recording_off_region;
    if (!on) {
        if (table == &runtime::detail::off_table) return;  // already off
        enter(off_region);
        active_table.store(&runtime::detail::off_table, std::memory_order_release);
        return;
    }
    if (table == &runtime::detail::on_table) return;  // already on
    if (loc->depth == 0 || loc->stack[loc->depth - 1] != off_region) {
        runtime::warn_once("recording-on-depth",
                           "strata: warning: STRATA_RECORDING_ON() was called at a different call "
                           "depth or on another thread than STRATA_RECORDING_OFF(); recording stays "
                           "off (reported once)");
        return;
    }
    active_table.store(&runtime::detail::on_table, std::memory_order_release);
    exit(off_region);
}

}  // namespace strata::events
