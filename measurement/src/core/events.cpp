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
//
// This file: definitions, regions and parameters, the recording switch.  MPI
// events are in events_mpi.cpp, thread events in events_threads.cpp, events
// on locations of their own (GPU streams) in events_locations.cpp; what they
// share in event_path.hpp.
#include "strata/measurement/events.hpp"

#include <string>

#include "config/config.hpp"
#include "core/definitions.hpp"
#include "core/event_path.hpp"
#include "core/timer.hpp"

namespace strata::events {

using namespace event_path;

namespace event_path {
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
}  // namespace event_path

namespace {
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

void enter_at(Ticks time, RegionHandle region) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;  // 0: a definition that failed
    Location* loc = recording_location();
    if (loc == nullptr) return;
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
    Location* loc = recording_location();
    if (loc == nullptr) return;
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
    Location* loc = recording_location();
    if (loc == nullptr) return;
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
    Location* loc = recording_location();
    if (loc == nullptr) return;
    const Ticks time = timer::now();
    if (loc->metric_values != nullptr) metrics::read(*loc);
    for (auto* f = table->parameter_string; *f; ++f) (*f)(*loc, time, parameter, text);
}

bool is_recording() {
    return active_table.load(std::memory_order_acquire) == &runtime::detail::on_table;
}

void set_recording(bool on) {
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table == nullptr) return;
    Location* loc = recording_location();
    if (loc == nullptr) return;
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
