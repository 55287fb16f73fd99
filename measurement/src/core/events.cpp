// SPDX-License-Identifier: BSD-3-Clause
// The event API: location and time resolved once, then the substrates' callbacks.
//
// Hot path per enter: one acquire load of the table (a plain load on x86),
// one TLS load, one timer read, a push on the location's region stack and a
// tail call of the substrate (or a walk over a null-terminated array of
// function pointers when several are active).  No lock, no allocation, no
// virtual call.
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

#include <new>
#include <string>

#include "core/definitions.hpp"
#include "core/location.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "metrics/metrics.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace strata::events {

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
                               "same time (reported once per region)");
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

void enter_at(Ticks time, RegionHandle region) {
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;  // 0: a definition that failed
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    if (table == &runtime::detail::off_table) {
        push(loc, region | kUndelivered);
        return;
    }
    push(loc, region);
    if (STRATA_UNLIKELY(loc->metric_values != nullptr)) metrics::read(*loc);
    dispatch(table->enter, *loc, time, region);
}

void enter(RegionHandle region) {
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = location::detail::current;
    const substrate::EnterFn single = table != nullptr ? table->single_enter : nullptr;
    // One test covers: inactive, recording off (off_table has no single_enter),
    // several substrates, and the first event of this thread.
    if (STRATA_UNLIKELY(single == nullptr || loc == nullptr || region == 0 || loc->busy)) {
        return enter_general(region);
    }
    const Ticks time = timer::now();
    push(loc, region);
    return single(*loc, time, region);
}

void exit_at(Ticks time, RegionHandle region) {
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
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = location::detail::current;
    const substrate::ExitFn single = table == &runtime::detail::on_table ? table->single_exit : nullptr;
    if (STRATA_UNLIKELY(single == nullptr || loc == nullptr || loc->busy)) return exit_general(region);
    const Ticks time = timer::now();
    if (STRATA_UNLIKELY(loc->depth == 0 || loc->stack[loc->depth - 1] != region)) {
        return exit_unmatched(table, loc, time, region);
    }
    --loc->depth;
    return single(*loc, time, region);
}

void parameter_int(ParameterHandle parameter, std::int64_t value) {
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

// --- MPI ----------------------------------------------------------------------

CommunicatorHandle define_communicator(const CommunicatorSpec& spec) {
    return define_or_degrade("communicator", [&] { return definitions().define_communicator(spec); });
}

namespace {
inline void mpi_dispatch(const substrate::MpiEvent& event) {
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr) || table->mpi_event[0] == nullptr) return;
    Location* loc = location::current();
    // Being created on this thread (see location.cpp), or Strata is busy on it (Location::busy).
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    const Ticks time = timer::now();
    for (auto* f = table->mpi_event; *f; ++f) (*f)(*loc, time, event);
}

substrate::MpiEvent message(substrate::MpiEvent::Kind kind, CommunicatorHandle comm, std::int32_t peer,
                            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) {
    substrate::MpiEvent e;
    e.kind = kind;
    e.comm = comm;
    e.peer = peer;
    e.tag = tag;
    e.bytes = bytes;
    e.request = request;
    return e;
}
}  // namespace

void mpi_send(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes) {
    mpi_dispatch(message(substrate::MpiEvent::send, comm, peer, tag, bytes, 0));
}
void mpi_recv(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes) {
    mpi_dispatch(message(substrate::MpiEvent::recv, comm, peer, tag, bytes, 0));
}
void mpi_isend(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
               std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::isend, comm, peer, tag, bytes, request));
}
void mpi_isend_complete(std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::isend_complete, 0, 0, 0, 0, request));
}
void mpi_irecv_request(std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::irecv_request, 0, 0, 0, 0, request));
}
void mpi_irecv(CommunicatorHandle comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
               std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::irecv, comm, peer, tag, bytes, request));
}
void mpi_request_test(std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::request_test, 0, 0, 0, 0, request));
}
void mpi_request_cancelled(std::uint64_t request) {
    mpi_dispatch(message(substrate::MpiEvent::request_cancelled, 0, 0, 0, 0, request));
}
void mpi_collective_begin() { mpi_dispatch(message(substrate::MpiEvent::collective_begin, 0, 0, 0, 0, 0)); }
void mpi_collective_end(CollectiveOp op, CommunicatorHandle comm, std::int32_t root, std::uint64_t bytes_sent,
                        std::uint64_t bytes_received) {
    substrate::MpiEvent e = message(substrate::MpiEvent::collective_end, comm, root, 0, bytes_sent, 0);
    e.bytes_received = bytes_received;
    e.op = static_cast<std::uint8_t>(op);
    mpi_dispatch(e);
}

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
