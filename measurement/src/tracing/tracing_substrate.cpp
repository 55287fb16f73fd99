// SPDX-License-Identifier: BSD-3-Clause
// Tracing substrate callbacks, buffer flushes and the end-of-run conversion.
#include "tracing/tracing_substrate.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <utility>

#include "config/config.hpp"
#include "core/file_size_guard.hpp"
#include "core/location.hpp"
#include "core/memory_pool.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "metrics/metrics.hpp"
#include "tracing/event_buffer.hpp"
#include "strata/measurement/events.hpp"
#include "tracing/otf2_archive.hpp"

namespace strata::tracing {

namespace {

struct TraceLocation {
    explicit TraceLocation(PagePool& pool) : buffer(pool) {}
    EventBuffer buffer;
    Otf2LocationState otf2;
    std::uint64_t records = 0;  ///< records of earlier (flushed) buffers
    std::uint64_t bytes = 0;
    std::uint64_t flushes = 0;
    std::uint64_t lost = 0;
    std::uint64_t written = 0;     ///< its event file's bytes, estimated at its last conversion (STRATA_TRACE_MAX_SIZE)
    bool stopped = false;          ///< its trace stopped at STRATA_TRACE_MAX_SIZE
    std::uint64_t unwritten = 0;   ///< records after that stop
    std::uint32_t metric_count = 0;            ///< counters written after each enter and leave
    std::size_t room_with_metrics = kMaxRecordSize;  ///< a region record and its metric record
};

constexpr int g_slot = substrate::slot_tracing;

/// What the core offers (Management::init): a flush goes through it to every substrate.
const substrate::CoreServices* g_core = nullptr;
void init(const substrate::CoreServices& core) { g_core = &core; }

inline TraceLocation& state(Location& loc) { return *static_cast<TraceLocation*>(loc.substrate_data[g_slot]); }

void on_location_created(Location& loc) {
    auto* tl = new TraceLocation(page_pool());
    tl->otf2.location_index = loc.index;
    if (loc.metric_values != nullptr) {
        tl->metric_count = static_cast<std::uint32_t>(metrics::configured().size());
        tl->room_with_metrics = kMaxRecordSize + metric_record_size(tl->metric_count);
    }
    loc.substrate_data[g_slot] = tl;
}

// A function-local static: thread-safe creation, independent of the order of
// static initialisers (the runtime may start before they run).
Otf2Archive*& archive_slot() {
    static Otf2Archive* archive = new Otf2Archive();
    return archive;
}
Otf2Archive& archive() { return *archive_slot(); }

Error open_archive(events::ProcessGroup* group = nullptr, int rank = 0) {
    const std::string& dir = runtime::experiment_directory();
    if (dir.empty()) return "no experiment directory yet";
    return archive().open(dir, 1 << 20, group, group != nullptr ? group->rank() : rank);
}

Error begin_multi_process(events::ProcessGroup* group) {
    // Collective: every rank opens the archive now, so that a later flush of
    // one rank's buffer needs no other rank.
    if (const Error problem = open_archive(group)) return "strata: the trace archive could not be opened: " + *problem;
    return {};
}

/// The process's event files, in bytes (the sum of the locations' `written`):
/// what STRATA_TRACE_MAX_SIZE bounds.
std::atomic<std::uint64_t> g_trace_bytes{0};

/// The bytes of OTF2 per event of a location: as its file shows, 16 before it
/// has events (an Enter with its timestamp, more than most events take).
std::uint64_t bytes_per_event(const TraceLocation& tl) {
    const std::uint64_t on_disk = archive().event_file_bytes(tl.otf2);
    if (tl.otf2.events == 0) return 16;
    return std::max<std::uint64_t>(4, on_disk / tl.otf2.events);
}

/// Converts the buffer, or, once the process's event files have reached
/// STRATA_TRACE_MAX_SIZE, stops the location's trace (or, stopped, counts the
/// records it does not write).
Error write_or_stop(TraceLocation& tl) {
    const std::uint64_t bound = config::settings().trace_max_size;
    if (tl.stopped) {
        tl.unwritten += tl.buffer.records();
        return {};
    }
    if (bound == 0) return archive().convert(tl.otf2, tl.buffer);
    // As many records as the bytes left allow.
    const std::uint64_t used = g_trace_bytes.load(std::memory_order_relaxed);
    const std::uint64_t allowed = used >= bound ? 0 : (bound - used) / bytes_per_event(tl);
    std::uint64_t converted = 0;
    Error error = archive().convert(tl.otf2, tl.buffer, allowed, &converted);
    const std::uint64_t written = archive().event_file_bytes(tl.otf2);
    if (written > tl.written) g_trace_bytes.fetch_add(written - tl.written, std::memory_order_relaxed);
    tl.written = std::max(tl.written, written);
    if (!error && converted < tl.buffer.records()) {
        tl.stopped = true;
        tl.unwritten += tl.buffer.records() - converted;
        error = archive().stop(tl.otf2);
    }
    return error;
}

/// Writes the buffer to the OTF2 archive and empties it (keeping one page
/// unless `final`).
Error flush(TraceLocation& tl, bool final) {
    FileSizeGuard guard;  // past a file-size limit: an error, not SIGXFSZ killing the program
    Error error = open_archive();
    if (!error) error = write_or_stop(tl);
    if (guard.limit_hit() && error) *error += " (the file-size limit, ulimit -f, was reached)";
    tl.records += tl.buffer.records();
    tl.bytes += tl.buffer.bytes();
    if (final) {
        tl.buffer.release_pages();
    } else {
        tl.buffer.clear_keep_first_page();
    }
    return error;
}

/// Where make_room() found room: a page, or a flush (recorded afterwards as
/// the region STRATA_TRACE_BUFFER_FLUSH, see record_flush).
struct Room {
    bool ok = false;  ///< false: no memory, the record is lost (and counted)
    bool flushed = false;
    Ticks begin = 0, end = 0;  ///< the flush
};

/// The buffer has less than `needed` bytes left: take a page, or flush to disk
/// and take one.
Room make_room(Location& loc, TraceLocation& tl, std::size_t needed) {
    Room room;
    loc.busy = true;  // pages, a flush and OTF2 allocate (see Location::busy)
    const bool full = !tl.buffer.add_page() && !tl.buffer.empty();
    if (full && tl.stopped) {
        // The trace stopped (STRATA_TRACE_MAX_SIZE): nothing goes to disk any more.
        tl.unwritten += tl.buffer.records();
        tl.buffer.clear_keep_first_page();
    } else if (full) {
        room.begin = timer::now();
        const Error error = flush(tl, false);
        room.end = timer::now();
        ++tl.flushes;
        room.flushed = true;
        if (error) {
            runtime::warn_once("trace-flush-error",
                               "strata: warning: a trace buffer could not be written to disk (" + *error +
                                   "); its events are lost and counted");
        }
        runtime::verbose("trace buffer of " + loc.name + " flushed to disk");
    }
    room.ok = tl.buffer.has_room(needed);
    if (!room.ok) {
        ++tl.lost;
        runtime::warn_once("trace-no-memory",
                           "strata: warning: no memory left for trace buffers (STRATA_TOTAL_MEMORY); "
                           "events are being lost and counted; increase STRATA_TOTAL_MEMORY");
    }
    loc.busy = false;
    return room;
}

/// A flush is recorded as the region STRATA_TRACE_BUFFER_FLUSH right after the
/// record that caused it (tracing is the last substrate, so the others have
/// seen that record too, and nest the flush as the trace does: inside a team
/// just begun, say).  Not on a GPU stream: its events come later than they
/// happened (CUPTI's buffers), and a flush at the present would push the
/// stream's next activities to after it.
void record_flush(Location& loc, const Room& room) {
    if (room.flushed && loc.type == LocationType::cpu_thread && g_core != nullptr) {
        g_core->measurement_activity(loc, substrate::MeasurementActivity::trace_buffer_flush, room.begin,
                                     room.end);
    }
}

/// The buffer is full: make room, then write the record (`fields` for a
/// record with several, else `a` and `b`; the counters after it when
/// `metric_values` is set).
__attribute__((noinline)) void write_slow(Location& loc, TraceLocation& tl, RecordType type, Ticks time,
                                          std::uint64_t a, std::uint64_t b,
                                          const std::uint64_t* metric_values = nullptr,
                                          const std::uint64_t* fields = nullptr) {
    const std::size_t needed = metric_values != nullptr ? tl.room_with_metrics : kMaxRecordSize;
    const Room room = make_room(loc, tl, needed);
    if (!room.ok) return runtime::busy_ended();
    if (fields != nullptr) {
        tl.buffer.write_fields(type, time, fields);
    } else if (record_spec(type).field_count == 2) {
        tl.buffer.write(type, time, a, b);
    } else {
        tl.buffer.write(type, time, a);
    }
    if (metric_values != nullptr) tl.buffer.write_metrics(tl.metric_count, metric_values);
    record_flush(loc, room);
    runtime::busy_ended();
}

/// A GPU activity's attributes, right before its enter (the converter gives
/// them to the next enter_correlated record).
void on_gpu_attributes(Location& loc, Ticks time, const events::GpuAttributeValue* values,
                       std::uint32_t count) {
    TraceLocation& tl = state(loc);
    count = std::min(count, kMaxGpuAttributes);
    // Room for the enter too: no flush comes between the two.
    const std::size_t needed = kMaxGpuAttributesRecordSize + tl.room_with_metrics;
    Room room;
    if (!tl.buffer.has_room(needed)) {
        room = make_room(loc, tl, needed);
        if (!room.ok) return runtime::busy_ended();
    }
    std::uint8_t ids[kMaxGpuAttributes];
    std::uint64_t numbers[kMaxGpuAttributes];
    for (std::uint32_t k = 0; k < count; ++k) {
        ids[k] = static_cast<std::uint8_t>(values[k].attribute);
        numbers[k] = values[k].value;
    }
    tl.buffer.write_gpu_attributes(time, ids, numbers, count);
    record_flush(loc, room);
    runtime::busy_ended();
}

void on_enter(Location& loc, Ticks time, RegionHandle region) {
    TraceLocation& tl = state(loc);
    if (__builtin_expect(!tl.buffer.has_room(), 0)) return write_slow(loc, tl, RecordType::enter, time, region, 0);
    tl.buffer.write(RecordType::enter, time, region);
}

void on_exit(Location& loc, Ticks time, RegionHandle region) {
    TraceLocation& tl = state(loc);
    if (__builtin_expect(!tl.buffer.has_room(), 0)) return write_slow(loc, tl, RecordType::leave, time, region, 0);
    tl.buffer.write(RecordType::leave, time, region);
}

// With counters (the runtime picks these then): the metric record follows the
// region record at the same time, in the same buffer (room for both is checked).
void on_enter_with_metrics(Location& loc, Ticks time, RegionHandle region) {
    TraceLocation& tl = state(loc);
    if (loc.metric_values == nullptr) return on_enter(loc, time, region);
    if (__builtin_expect(!tl.buffer.has_room(tl.room_with_metrics), 0)) {
        return write_slow(loc, tl, RecordType::enter, time, region, 0, loc.metric_values);
    }
    tl.buffer.write(RecordType::enter, time, region);
    tl.buffer.write_metrics(tl.metric_count, loc.metric_values);
}

void on_exit_with_metrics(Location& loc, Ticks time, RegionHandle region) {
    TraceLocation& tl = state(loc);
    if (loc.metric_values == nullptr) return on_exit(loc, time, region);
    if (__builtin_expect(!tl.buffer.has_room(tl.room_with_metrics), 0)) {
        return write_slow(loc, tl, RecordType::leave, time, region, 0, loc.metric_values);
    }
    tl.buffer.write(RecordType::leave, time, region);
    tl.buffer.write_metrics(tl.metric_count, loc.metric_values);
}

void on_enter_correlated(Location& loc, Ticks time, RegionHandle region, std::uint64_t correlation) {
    TraceLocation& tl = state(loc);
    if (!tl.buffer.has_room(tl.room_with_metrics)) {
        return write_slow(loc, tl, RecordType::enter_correlated, time, region, correlation,
                          loc.metric_values);
    }
    tl.buffer.write(RecordType::enter_correlated, time, region, correlation);
    if (loc.metric_values != nullptr) tl.buffer.write_metrics(tl.metric_count, loc.metric_values);
}

void on_parameter_int(Location& loc, Ticks time, ParameterHandle p, std::int64_t value) {
    TraceLocation& tl = state(loc);
    if (!tl.buffer.has_room()) return write_slow(loc, tl, RecordType::parameter_int, time, p, zigzag(value));
    tl.buffer.write(RecordType::parameter_int, time, p, zigzag(value));
}

void on_device_metric(Location& loc, Ticks time, DeviceMetric metric, std::uint64_t value) {
    TraceLocation& tl = state(loc);
    const auto id = static_cast<std::uint64_t>(metric);
    if (!tl.buffer.has_room()) return write_slow(loc, tl, RecordType::device_metric, time, id, value);
    tl.buffer.write(RecordType::device_metric, time, id, value);
}

void on_parameter_string(Location& loc, Ticks time, ParameterHandle p, StringHandle value) {
    TraceLocation& tl = state(loc);
    if (!tl.buffer.has_room()) return write_slow(loc, tl, RecordType::parameter_string, time, p, value);
    tl.buffer.write(RecordType::parameter_string, time, p, value);
}

/// For the archive of a rank that finishes alone: each location's event file
/// began in the job's shared archive, where its buffer's flushes wrote it; it
/// moves into this rank's own archive (opened by now) and goes on there, so
/// the rank's trace is whole.  A file that cannot move stays in the shared
/// traces/, ended, and the location starts again with what is still in
/// memory; regions entered before its last flush are not open then, so their
/// leaves are dropped and the trace stays well nested.
void continue_after_flushes(Otf2Archive& shared, bool own_archive_open) {
    std::uint64_t moved_events = 0, moved = 0, left_events = 0, left = 0;
    for (Location* loc : location::all()) {
        auto* tl = static_cast<TraceLocation*>(loc->substrate_data[g_slot]);
        if (tl == nullptr || tl->otf2.file == nullptr) continue;
        if (own_archive_open) {
            const Error problem = archive().adopt(tl->otf2);
            if (!problem) {
                moved_events += tl->otf2.file->events();
                ++moved;
                continue;
            }
            std::fprintf(stderr, "strata: warning: %s\n", problem->c_str());
        }
        left_events += tl->otf2.file->events();
        ++left;
        // Its end records make it a whole event file in the shared traces/.
        if (const Error problem = shared.close_writer(tl->otf2))
            std::fprintf(stderr, "strata: warning: %s\n", problem->c_str());
        Otf2LocationState fresh;
        fresh.location_index = tl->otf2.location_index;
        tl->otf2 = std::move(fresh);
    }
    if (moved > 0) {
        runtime::verbose("the " + std::to_string(moved_events) + " trace events that " + std::to_string(moved) +
                         " thread(s) flushed to the job's shared traces/ during the run moved into this rank's "
                         "own experiment");
    }
    if (left == 0) return;
    std::fprintf(stderr,
                 "strata: warning: %llu trace events of %llu thread(s) were flushed to the job's shared trace "
                 "during the run and could not be moved into this rank's own experiment (they are in the "
                 "shared traces/, an OTF2 event file per thread), so those threads' trace starts after their "
                 "last flush (the profile covers the whole run)\n",
                 static_cast<unsigned long long>(left_events), static_cast<unsigned long long>(left));
}

Error finalize(const substrate::FinalizeContext& ctx) {
    if (ctx.experiment_directory == nullptr) return {};
    Otf2Archive* shared = nullptr;
    if (ctx.group == nullptr && archive().is_collective()) {
        // This rank finishes alone: the shared archive needs every rank to be
        // closed, so it is left as it is; a new one in the rank's own
        // experiment takes the rank's event files over.
        shared = &archive();
        archive_slot() = new Otf2Archive();
    }
    Error problem = open_archive(ctx.group, ctx.rank);
    if (shared != nullptr) continue_after_flushes(*shared, !problem);
    // A run that recorded nothing still gets one (empty) location: OTF2 readers
    // refuse an archive without any.
    if (location::all().empty()) location::current();
    std::vector<Otf2Archive::LocationDefinition> defs;
    std::uint64_t lost = 0, flushes = 0, stopped = 0, unwritten = 0;
    for (Location* loc : location::all()) {
        auto* tl = static_cast<TraceLocation*>(loc->substrate_data[g_slot]);
        if (tl == nullptr) continue;
        if (!problem) problem = flush(*tl, true);
        if (!problem) problem = archive().close_open_regions(tl->otf2, ctx.end_time);
        if (!problem) problem = archive().close_writer(tl->otf2);
        lost += tl->lost;
        flushes += tl->flushes;
        stopped += tl->stopped ? 1 : 0;
        unwritten += tl->unwritten;
        defs.push_back({archive().location_id(loc->index), loc->display_name(), tl->otf2.events,
                        loc->type == LocationType::cpu_thread ? kNoDevice : loc->device,
                        loc->type == LocationType::metric});
    }
    // With a process group, finish() is collective: every rank must take part,
    // also one whose conversion failed.
    static const std::vector<clock_sync::Point> no_points;
    const Error finish_error =
        archive().finish(*ctx.definitions, defs, ctx.end_time, ctx.clock_points ? *ctx.clock_points : no_points);
    if (!problem) problem = finish_error;
    if (flushes > 0) {
        std::fprintf(stderr,
                     "strata: note: trace buffers were flushed to disk %llu times during the run "
                     "(see STRATA_TRACE_BUFFER_FLUSH in the trace); a larger STRATA_TOTAL_MEMORY avoids that\n",
                     static_cast<unsigned long long>(flushes));
    }
    if (lost > 0) {
        std::fprintf(stderr, "strata: warning: %llu trace records were lost for lack of memory\n",
                     static_cast<unsigned long long>(lost));
        runtime::report_loss("trace records lost for lack of memory", lost,
                             "increase STRATA_TOTAL_MEMORY (now " +
                                 config::format_size(config::settings().total_memory) + ")");
    }
    if (stopped > 0) {
        runtime::report_loss("trace events not written after the trace reached STRATA_TRACE_MAX_SIZE",
                             unwritten,
                             "raise STRATA_TRACE_MAX_SIZE (now " +
                                 config::format_size(config::settings().trace_max_size) + ")");
        std::fprintf(stderr,
                     "strata: note: rank %d: the trace reached STRATA_TRACE_MAX_SIZE=%s: it stops early on %llu "
                     "of %zu threads (a MeasurementOnOff event marks where), %llu events were not written; the "
                     "profile covers the whole run\n",
                     ctx.rank, config::format_size(config::settings().trace_max_size).c_str(),
                     static_cast<unsigned long long>(stopped), defs.size(), static_cast<unsigned long long>(unwritten));
    }
    if (problem) {
        return "strata: the trace could not be written: " + *problem +
               "; the trace is incomplete, the other files of the experiment are written as usual";
    }
    return {};
}

void reset() {
    for (Location* loc : location::all()) {
        delete static_cast<TraceLocation*>(loc->substrate_data[g_slot]);
        loc->substrate_data[g_slot] = nullptr;
    }
    delete archive_slot();
    archive_slot() = new Otf2Archive();
}

/// A record with several fields (MPI and thread events: rare next to enter/exit).
void write_record(Location& loc, Ticks time, RecordType type, const std::uint64_t* fields) {
    TraceLocation& tl = state(loc);
    if (!tl.buffer.has_room()) return write_slow(loc, tl, type, time, 0, 0, nullptr, fields);
    tl.buffer.write_fields(type, time, fields);
}

/// The value of field `f` of an MPI event, as the buffer stores it.
constexpr std::uint64_t field_of(const substrate::MpiEvent& e, FieldType f) {
    switch (f) {
        case FieldType::rank: return static_cast<std::uint32_t>(e.peer);
        case FieldType::communicator: return e.comm;
        case FieldType::tag: return zigzag(e.tag);
        case FieldType::root: return zigzag(e.peer);
        case FieldType::bytes:
        case FieldType::bytes_sent: return e.bytes;
        case FieldType::bytes_received: return e.bytes_received;
        case FieldType::request: return e.request;
        case FieldType::collective_op: return e.op;
        default: return 0;  // not a field of an MPI event: check_table refuses such a row
    }
}

/// The value of field `f` of a thread event.
constexpr std::uint64_t field_of(const substrate::ThreadEvent& e, FieldType f) {
    switch (f) {
        case FieldType::paradigm: return static_cast<std::uint64_t>(e.model);
        case FieldType::threads: return e.requested_threads;
        case FieldType::communicator: return e.team;
        case FieldType::thread_number: return e.task_creator;
        case FieldType::generation: return e.task_generation;
        default: return 0;
    }
}

/// The record `type` of an event, its fields as its row lists them: made per
/// row at compile time, so that each field is one load (no test of its type).
template <RecordType type, typename Event, std::size_t... I>
void write_fields_of(Location& loc, Ticks time, const Event& e, std::index_sequence<I...>) {
    [[maybe_unused]] constexpr RecordSpec spec = record_spec(type);  // (unused by a row without fields)
    const std::uint64_t fields[kMaxFields] = {field_of(e, spec.fields[I])...};
    write_record(loc, time, type, fields);
}

template <RecordType type, typename Event>
void write_event(Location& loc, Ticks time, const Event& e) {
    write_fields_of<type>(loc, time, e, std::make_index_sequence<record_spec(type).field_count>{});
}

/// A writer per event kind, in the order of the kinds.
template <typename Event>
using EventWriter = void (*)(Location&, Ticks, const Event&);
template <typename Event, typename Kind, std::size_t... K>
constexpr std::array<EventWriter<Event>, sizeof...(K)> writers(std::index_sequence<K...>) {
    return {&write_event<record_of(static_cast<Kind>(K)), Event>...};
}
constexpr auto kMpiWriters = writers<substrate::MpiEvent, substrate::MpiEvent::Kind>(
    std::make_index_sequence<substrate::MpiEvent::kind_count>{});
constexpr auto kThreadWriters = writers<substrate::ThreadEvent, substrate::ThreadEvent::Kind>(
    std::make_index_sequence<substrate::ThreadEvent::kind_count>{});

void on_mpi_event(Location& loc, Ticks time, const substrate::MpiEvent& e) { kMpiWriters[e.kind](loc, time, e); }

/// A thread event when the buffer is full, or a task event: the generic record path.
__attribute__((noinline)) void write_thread_event_slow(Location& loc, Ticks time, const substrate::ThreadEvent& e) {
    kThreadWriters[e.kind](loc, time, e);
}

// The in-place writes below follow the rows of trace_records.def.
static_assert(record_spec(RecordType::thread_fork).field_count == 2 &&
              record_spec(RecordType::thread_fork).fields[0] == FieldType::paradigm &&
              record_spec(RecordType::thread_fork).fields[1] == FieldType::threads);
static_assert(record_spec(RecordType::thread_join).field_count == 1 &&
              record_spec(RecordType::thread_join).fields[0] == FieldType::paradigm);
static_assert(record_spec(RecordType::thread_team_begin).field_count == 1 &&
              record_spec(RecordType::thread_team_begin).fields[0] == FieldType::communicator &&
              record_spec(RecordType::thread_team_end).field_count == 1 &&
              record_spec(RecordType::thread_team_end).fields[0] == FieldType::communicator);

void on_thread_event(Location& loc, Ticks time, const substrate::ThreadEvent& e) {
    using K = substrate::ThreadEvent;
    TraceLocation& tl = state(loc);
    // A few every parallel region: written in place as enter/exit are.
    if (__builtin_expect(!tl.buffer.has_room(), 0)) return write_thread_event_slow(loc, time, e);
    switch (e.kind) {
        case K::fork:
            tl.buffer.write(RecordType::thread_fork, time, static_cast<std::uint64_t>(e.model), e.requested_threads);
            break;
        case K::join: tl.buffer.write(RecordType::thread_join, time, static_cast<std::uint64_t>(e.model)); break;
        case K::team_begin: tl.buffer.write(RecordType::thread_team_begin, time, e.team); break;
        case K::team_end: tl.buffer.write(RecordType::thread_team_end, time, e.team); break;
        default: write_thread_event_slow(loc, time, e); break;  // tasks: the generic record path
    }
}

constexpr substrate::Callbacks make_callbacks() {
    substrate::Callbacks c;
    c.management.name = "tracing";
    c.management.init = init;
    c.management.location_created = on_location_created;
    c.management.begin_multi_process = begin_multi_process;
    c.management.finalize = finalize;
    c.management.reset = reset;
    substrate::EventCallbacks& e = c.events;
    e.enter = on_enter;
    e.exit = on_exit;
    e.enter_with_metrics = on_enter_with_metrics;
    e.exit_with_metrics = on_exit_with_metrics;
    e.enter_correlated = on_enter_correlated;
    e.parameter_int = on_parameter_int;
    e.parameter_string = on_parameter_string;
    e.mpi_event = on_mpi_event;  // every kind, with its time
    e.thread_event = on_thread_event;
    e.gpu_attributes = on_gpu_attributes;
    e.device_metric = on_device_metric;
    return c;
}
constexpr substrate::Callbacks kCallbacks = make_callbacks();

}  // namespace

const substrate::Callbacks& substrate_callbacks() { return kCallbacks; }

}  // namespace strata::tracing
