// SPDX-License-Identifier: BSD-3-Clause
// Substrates consume events: one constexpr Callbacks per substrate, its
// lifecycle (Management) apart from its events (EventCallbacks), as Score-P
// keeps its substrates' management and event callbacks apart.
//
// The core resolves the location and the timestamp once per event, then calls
// the matching callback of every active substrate through a null-terminated
// array (EventTable, merged from the substrates' EventCallbacks at start), as
// Score-P's substrate mechanism does.  A callback a substrate does not need is
// nullptr in its table and never called.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "strata/measurement/error.hpp"
#include "strata/measurement/types.hpp"

namespace strata {

struct Location;
namespace events {
class ProcessGroup;
struct GpuAttributeValue;
}
namespace unification {
struct Unified;
}
namespace clock_sync {
struct Point;
}

namespace substrate {

constexpr int kMaxSubstrates = 4;

/// Most counters one location reads (STRATA_METRIC_PAPI and STRATA_METRIC_RUSAGE
/// together); bounds the trace's metric record.
constexpr int kMaxMetrics = 16;

/// Each substrate owns a fixed slot of Location::substrate_data, so that its
/// callbacks find their per-location state at a constant offset.
enum Slot : int { slot_profiling = 0, slot_tracing = 1, slot_testing = 2 };

using EnterFn = void (*)(Location&, Ticks, RegionHandle);
using ExitFn = void (*)(Location&, Ticks, RegionHandle);
/// An enter that carries a correlation id (a CUDA launch and its GPU work).
using EnterCorrelatedFn = void (*)(Location&, Ticks, RegionHandle, std::uint64_t correlation);
/// An enter on a location of its own (a GPU stream) as if inside `path[0..depth)`,
/// the call path of the host call that launched it (core/launch_paths.hpp), and
/// the matching exit.
using EnterUnderFn = void (*)(Location&, Ticks, RegionHandle, const RegionHandle* path, std::uint32_t depth,
                              std::uint64_t correlation);
using ExitUnderFn = void (*)(Location&, Ticks, RegionHandle, std::uint32_t depth);
/// The attributes of the enter that follows at the same time (events::location_enter).
using GpuAttributesFn = void (*)(Location&, Ticks, const events::GpuAttributeValue*, std::uint32_t count);
/// A sample on a location of device metrics (events::location_metric).
using DeviceMetricFn = void (*)(Location&, Ticks, DeviceMetric, std::uint64_t value);
using ParameterIntFn = void (*)(Location&, Ticks, ParameterHandle, std::int64_t);
using ParameterStringFn = void (*)(Location&, Ticks, ParameterHandle, StringHandle);

/// An MPI event (events.hpp); which fields matter depends on the kind.
struct MpiEvent {
    /// One kind per row of mpi_events.def, in its order; kind_count last.
    enum Kind : std::uint8_t {
#define STRATA_MPI_EVENT(function, kind, bytes, parameters, fields) kind,
#include "strata/measurement/mpi_events.def"
#undef STRATA_MPI_EVENT
        kind_count
    };
    Kind kind = send;
    std::uint32_t comm = 0;
    std::int32_t peer = 0;  ///< or the root of a collective (-1: none)
    std::int32_t tag = 0;
    std::uint64_t bytes = 0;  ///< or bytes sent by a collective
    std::uint64_t bytes_received = 0;
    std::uint64_t request = 0;
    std::uint8_t op = 0;  ///< events::CollectiveOp
};
using MpiEventFn = void (*)(Location&, Ticks, const MpiEvent&);

/// What an MPI event counts on its call's call path in the profile
/// (mpi_events.def, column `bytes`).
enum class MessageBytes : std::uint8_t { none, sent, received, both };
inline constexpr MessageBytes kMessageBytes[MpiEvent::kind_count] = {
#define STRATA_MPI_EVENT(function, kind, bytes, parameters, fields) MessageBytes::bytes,
#include "strata/measurement/mpi_events.def"
#undef STRATA_MPI_EVENT
};

/// The bytes `e` moves, as (sent, received).
constexpr std::pair<std::uint64_t, std::uint64_t> message_bytes(const MpiEvent& e) {
    switch (kMessageBytes[e.kind]) {
        case MessageBytes::sent: return {e.bytes, 0};
        case MessageBytes::received: return {0, e.bytes};
        case MessageBytes::both: return {e.bytes, e.bytes_received};
        case MessageBytes::none: break;
    }
    return {0, 0};
}

/// The kinds that move bytes (bit 1 << kind): those the profile takes.
constexpr std::uint32_t kinds_moving_bytes() {
    std::uint32_t mask = 0;
    for (int k = 0; k < MpiEvent::kind_count; ++k)
        if (kMessageBytes[k] != MessageBytes::none) mask |= 1u << k;
    return mask;
}
static_assert(MpiEvent::kind_count <= 32,
              "an MPI event kind is a bit of a 32-bit mask (EventCallbacks::mpi_event_kinds)");
/// An MPI call's enter with the bytes its first MPI event moves, or the bytes
/// of its last MPI event with its exit (events.hpp "MPI"): sent and received.
using EnterBytesFn = void (*)(Location&, Ticks, RegionHandle, std::uint64_t sent, std::uint64_t received);
using BytesExitFn = void (*)(Location&, Ticks, RegionHandle, std::uint64_t sent, std::uint64_t received);

/// A thread event (events.hpp, "threads"); which fields it carries depends
/// on the kind (thread_events.def).
struct ThreadEvent {
    /// One kind per row of thread_events.def, in its order; kind_count last.
    enum Kind : std::uint8_t {
#define STRATA_THREAD_EVENT(kind, fields, functions) kind,
#include "core/thread_events.def"
#undef STRATA_THREAD_EVENT
        kind_count
    };
    Kind kind = fork;
    Paradigm model = Paradigm::openmp;
    std::uint32_t requested_threads = 0;  ///< fork
    std::uint32_t team = 0;               ///< team_begin/team_end: the team's CommunicatorHandle
    std::uint32_t thread_number = 0;      ///< team_begin
    /// team_begin of a thread other than the forking one: the call path open on
    /// the forking thread at the fork (outermost first), which this thread's
    /// work continues.  Empty for the forking thread itself.
    const RegionHandle* inherited = nullptr;
    std::uint32_t inherited_depth = 0;
    /// task_*: the explicit task, in the team `team` (events::TaskId).
    std::uint32_t task_creator = 0;
    std::uint32_t task_generation = 0;
};

/// The fields of a ThreadEvent, named in thread_events.def.
enum class ThreadField : std::uint8_t {
    model,              ///< ThreadEvent::model
    requested_threads,  ///< ThreadEvent::requested_threads
    team,               ///< ThreadEvent::team
    thread_number,      ///< ThreadEvent::thread_number
    inherited,          ///< ThreadEvent::inherited and inherited_depth
    task,               ///< ThreadEvent::task_creator and task_generation
};
constexpr std::uint8_t bit(ThreadField f) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(f)); }

namespace spec_detail {
struct ThreadEventFields {
    std::uint8_t of[ThreadEvent::kind_count] = {};
};
constexpr ThreadEventFields thread_event_fields() {
    using F = ThreadField;
    [[maybe_unused]] constexpr F model = F::model, requested_threads = F::requested_threads, team = F::team,
                                 thread_number = F::thread_number, inherited = F::inherited, task = F::task;
    ThreadEventFields t;
#define STRATA_THREAD_FIELD_LIST(...) std::initializer_list<ThreadField>{__VA_ARGS__}
#define STRATA_THREAD_EVENT(kind, fields, functions)    \
    for (ThreadField f : STRATA_THREAD_FIELD_LIST fields) \
        t.of[ThreadEvent::kind] = static_cast<std::uint8_t>(t.of[ThreadEvent::kind] | bit(f));
#include "core/thread_events.def"
#undef STRATA_THREAD_EVENT
#undef STRATA_THREAD_FIELD_LIST
    return t;
}
}  // namespace spec_detail

/// The fields each kind carries, bit(ThreadField) each (thread_events.def, column `fields`).
inline constexpr spec_detail::ThreadEventFields kThreadEventFields = spec_detail::thread_event_fields();

using ThreadEventFn = void (*)(Location&, Ticks, const ThreadEvent&);

/// Everything a substrate needs at the end of the run.
struct FinalizeContext {
    const char* experiment_directory = nullptr;  ///< nullptr: write nothing (tests)
    Ticks end_time = 0;
    const unification::Unified* definitions = nullptr;  ///< the job's definitions and this rank's maps
    events::ProcessGroup* group = nullptr;              ///< the ranks writing together, or nullptr
    int rank = 0;  ///< this process's MPI rank (also when it writes alone)
    /// This rank's clock offsets to rank 0 (at MPI_Init and at MPI_Finalize); empty alone.
    const std::vector<clock_sync::Point>* clock_points = nullptr;
};

/// What the measurement itself spends time on at a location, which the
/// results show as a region of its own.
enum class MeasurementActivity : std::uint8_t {
    trace_buffer_flush,  ///< STRATA_TRACE_BUFFER_FLUSH: a trace buffer written to disk
};

/// The one way back from a substrate to the core's events, given to it when
/// the measurement starts (Management::init): a substrate consumes events and
/// never dispatches any to the others itself.
struct CoreServices {
    /// The measurement spent [begin, end] on `loc`, a thread of the program,
    /// doing `activity`, right after the event the substrate was just given:
    /// the core records it in every substrate as the activity's region (the
    /// enter with the counters of that event, the exit with those read now).
    void (*measurement_activity)(Location& loc, MeasurementActivity activity, Ticks begin, Ticks end) = nullptr;
};

/// What a substrate does outside the events: its lifecycle (as Score-P keeps
/// its substrates' management callbacks apart from their event callbacks).
struct Management {
    const char* name = "";
    /// The measurement starts, before any location: what the core offers the
    /// substrate's callbacks (kept until the next init).
    void (*init)(const CoreServices& core) = nullptr;
    /// A location was created (runs on its thread): allocate per-location state.
    void (*location_created)(Location&) = nullptr;
    /// The ranks have agreed on the experiment directory (after MPI_Init):
    /// collective set-up, e.g. opening the trace archive together.
    Error (*begin_multi_process)(events::ProcessGroup*) = nullptr;
    /// Write the results.  Events have stopped; every open region was closed.
    /// Collective when ctx.group is set.
    /// The error says what could not be written.
    Error (*finalize)(const FinalizeContext&) = nullptr;
    /// Forget all state (tests).
    void (*reset)() = nullptr;
};

/// A substrate's callback per event (nullptr: it does not take the event) and
/// what it wants of them.  The runtime merges the substrates' into the
/// EventTable the hot path walks.
struct EventCallbacks {
    EnterFn enter = nullptr;
    ExitFn exit = nullptr;
    ParameterIntFn parameter_int = nullptr;
    ParameterStringFn parameter_string = nullptr;
    MpiEventFn mpi_event = nullptr;
    ThreadEventFn thread_event = nullptr;
    /// Used instead of enter/exit when counters are configured (STRATA_METRIC_*):
    /// the core has read them into Location::metric_values just before.  nullptr:
    /// the substrate ignores counters and enter/exit are used.  Separate entries,
    /// so that a run without counters pays nothing for them.
    EnterFn enter_with_metrics = nullptr;
    ExitFn exit_with_metrics = nullptr;
    /// The MPI event kinds mpi_event wants (bit 1 << MpiEvent::Kind), and
    /// whether it uses their time: an MPI call then skips what nobody records.
    std::uint32_t mpi_event_kinds = ~0u;
    bool mpi_event_time = true;
    /// thread_event wants only the team begins and ends that carry an inherited
    /// call path (the profile's continuity): forks, joins, tasks and the other
    /// team events are then not built for it.
    bool thread_events_inherited_only = false;
    /// For a substrate that takes only the bytes of its MPI events (the
    /// profile): enter then mpi_event, and mpi_event then exit, in one call
    /// each.  Used instead of the two when this is the only substrate and no
    /// counters are read (one dispatch less per MPI call, and no MpiEvent
    /// built: callgrind counts 270 / 270 / 297 instructions per profiled
    /// MPI_Send / MPI_Recv / MPI_Allreduce without them, 236 / 238 / 266
    /// with them).  nullptr: the two callbacks are called.
    EnterBytesFn enter_with_bytes = nullptr;
    BytesExitFn bytes_then_exit = nullptr;
    /// An enter with a correlation id (events::enter_correlated, location_enter);
    /// nullptr: the substrate takes it as a plain enter.  With counters
    /// configured it reads Location::metric_values itself when they are set.
    EnterCorrelatedFn enter_correlated = nullptr;
    /// GPU work under the call path that launched it (the profile); nullptr:
    /// the substrate takes it as enter_correlated (or enter) and exit.
    EnterUnderFn enter_under = nullptr;
    ExitUnderFn exit_under = nullptr;
    /// A GPU activity's attributes, right before its enter; nullptr: not wanted.
    GpuAttributesFn gpu_attributes = nullptr;
    /// A device metric sample; nullptr: not wanted.
    DeviceMetricFn device_metric = nullptr;
};

/// A substrate.  Each fills its own in a constexpr function, member by member
/// (profiling_substrate.cpp, tracing_substrate.cpp).
struct Callbacks {
    Management management;
    EventCallbacks events;
};

/// The per-event arrays that the hot path walks.
struct EventTable {
    /// The only substrate's callback when exactly one substrate is active
    /// (the usual case), else nullptr: lets the hot path end in a tail call.
    EnterFn single_enter = nullptr;
    ExitFn single_exit = nullptr;
    /// The only substrate's Callbacks::enter_with_bytes and bytes_then_exit, when single_enter is set.
    EnterBytesFn single_enter_bytes = nullptr;
    BytesExitFn single_bytes_exit = nullptr;
    EnterFn enter[kMaxSubstrates + 1] = {};
    /// Beside enter[i]: the same substrate's enter with a correlation id, or
    /// nullptr when it takes enter[i] for it.
    EnterCorrelatedFn enter_correlated[kMaxSubstrates + 1] = {};
    /// Beside enter[i] and exit[i]: the substrate's own GPU-work callbacks, or nullptr.
    EnterUnderFn enter_under[kMaxSubstrates + 1] = {};
    ExitUnderFn exit_under[kMaxSubstrates + 1] = {};
    GpuAttributesFn gpu_attributes[kMaxSubstrates + 1] = {};
    DeviceMetricFn device_metric[kMaxSubstrates + 1] = {};
    /// Some substrate places GPU work under its launch: launches keep their call path.
    bool keep_launch_paths = false;
    ExitFn exit[kMaxSubstrates + 1] = {};
    ParameterIntFn parameter_int[kMaxSubstrates + 1] = {};
    ParameterStringFn parameter_string[kMaxSubstrates + 1] = {};
    MpiEventFn mpi_event[kMaxSubstrates + 1] = {};
    std::uint32_t mpi_event_kinds = 0;  ///< union of the substrates' kinds
    bool mpi_event_time = false;        ///< some substrate uses the time of MPI events
    ThreadEventFn thread_event[kMaxSubstrates + 1] = {};
    /// Every substrate with a thread_event wants only inherited call paths.
    bool thread_events_inherited_only = false;
};

}  // namespace substrate
}  // namespace strata
