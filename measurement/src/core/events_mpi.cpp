// SPDX-License-Identifier: BSD-3-Clause
// The event API's MPI events: communicators, message and collective events,
// and the MPI call's region together with its first or last event (one
// location look-up, one timestamp).
#include "strata/measurement/events.hpp"

#include <utility>

#include "core/definitions.hpp"
#include "core/event_path.hpp"
#include "core/timer.hpp"

namespace strata::events {

using namespace event_path;

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
    Location* loc = recording_location();
    if (loc == nullptr) return;
    if (time == 0 && table->mpi_event_time) time = timer::now();  // profiling alone needs no time
    deliver_mpi(table, *loc, time, make_event(kind, make));
}

using substrate::message_bytes;

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

// Each row's event, from the function's parameters: <function>_event(...).
#define STRATA_MPI_EVENT(function, kind, bytes, parameters, fields) \
    inline substrate::MpiEvent function##_event parameters {        \
        substrate::MpiEvent e;                                      \
        fields;                                                     \
        return e;                                                   \
    }
#include "strata/measurement/mpi_events.def"
#undef STRATA_MPI_EVENT
}  // namespace

using K = substrate::MpiEvent;

// The MPI events of mpi_events.def: each builds its MpiEvent only when a
// substrate takes its kind (the same fields as <function>_event, which needs
// the parameters' names).
#define STRATA_MPI_EVENT(function, kind, bytes, parameters, fields) \
    void function parameters {                                      \
        mpi_dispatch(K::kind, [&] {                                 \
            substrate::MpiEvent e;                                  \
            fields;                                                 \
            return e;                                               \
        });                                                         \
    }
#include "strata/measurement/mpi_events.def"
#undef STRATA_MPI_EVENT

// The MPI wrappers' combined calls: the events of their rows.
void enter_mpi_send(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                    std::uint64_t bytes) {
    enter_then_mpi(region, K::send, [=] { return mpi_send_event(comm, peer, tag, bytes); });
}
void enter_mpi_collective_begin(RegionHandle region) {
    enter_then_mpi(region, K::collective_begin, [] { return mpi_collective_begin_event(); });
}
void mpi_recv_exit(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                   std::uint64_t bytes) {
    mpi_then_exit(region, K::recv, [=] { return mpi_recv_event(comm, peer, tag, bytes); });
}
void mpi_collective_end_exit(RegionHandle region, CollectiveOp op, CommunicatorHandle comm, std::int32_t root,
                             std::uint64_t bytes_sent, std::uint64_t bytes_received) {
    mpi_then_exit(region, K::collective_end,
                  [=] { return mpi_collective_end_event(op, comm, root, bytes_sent, bytes_received); });
}

}  // namespace strata::events
