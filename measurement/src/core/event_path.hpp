// SPDX-License-Identifier: BSD-3-Clause
// What the functions of the event API share (events*.cpp, one file per
// group of events.hpp): the in-event mark, the region stack, the calls of the
// substrates' arrays and the prologue of every general path.  Internal to the
// core; everything on the hot path here is inline.
#pragma once

#include <atomic>
#include <new>
#include <string>

#include "core/location.hpp"
#include "core/runtime.hpp"
#include "core/substrate.hpp"
#include "metrics/metrics.hpp"
#include "strata/measurement/events.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)

namespace strata::events::event_path {

using runtime::detail::active_table;
using substrate::EventTable;

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

/// exit() of a region that is not the innermost open one: closes the regions
/// inside it first, or ignores the exit when it is not open (events.cpp).
void exit_unmatched(const EventTable* table, Location* loc, Ticks time, RegionHandle region);

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

/// The calling thread's location when it may record an event now, else
/// nullptr: being created on this thread (see location.cpp), or Strata is busy
/// on it (Location::busy).  Call after the event is marked (EventScope) and the
/// table was found.
inline Location* recording_location() {
    Location* loc = location::current();
    return STRATA_UNLIKELY(loc == nullptr || loc->busy) ? nullptr : loc;
}

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


}  // namespace strata::events::event_path
