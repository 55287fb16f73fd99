// SPDX-License-Identifier: BSD-3-Clause
// The forward replay of one location (see location_replay.hpp): its regions,
// the reader's callbacks and the decoders; the message and collective events
// are replay_messages.cpp's, the state they share replay_state.hpp.
#include "trace/location_replay.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "trace/event_file.hpp"
#include "trace/op_analysis.hpp"
#include "trace/replay_state.hpp"

namespace strata::analysis::trace {

namespace {

using namespace replay;

// The rare cases of an Enter, out of line so that the common one stays short.
[[gnu::noinline]] OTF2_CallbackCode undefined_region(Replay& s, OTF2_RegionRef region) {
    s.problem = "an Enter event names region " + std::to_string(region) + ", which is not defined";
    return OTF2_CALLBACK_INTERRUPT;
}

/// The CUDA_CORRELATION_ID of an Enter, 0 none: a kernel on a stream, or the
/// host call that launched it (experiment-format.md).
[[gnu::noinline]] std::uint64_t correlation_of(const Replay& s, OTF2_AttributeList* attributes) {
    uint64_t id = 0;
    if (OTF2_AttributeList_GetUint64(attributes, s.defs->correlation_attribute, &id) == OTF2_SUCCESS)
        return id;
    return 0;
}

[[gnu::noinline]] void record_launch(Replay& s, const Frame& f) {
    LaunchRecord launch{s.rank, f.callpath, f.correlation, f.enter, s.location};
    // The kernel's op: the innermost op region open around the launch.
    for (std::size_t i = s.stack.size(); i-- > 0;) {
        if ((s.region_flags[s.stack[i].region] & op_region) == 0) continue;
        launch.op_callpath = s.stack[i].callpath;
        launch.op_region = s.stack[i].region;
        break;
    }
    s.out->launches.push_back(launch);
}

/// What every Enter does once its time, call path and correlation id are known.
[[gnu::always_inline]] inline void open_frame(Replay& s, Frame& f, std::uint32_t region, Ticks enter,
                                              std::uint32_t callpath, std::uint64_t correlation) {
    ++s.events;
    s.last = enter;
    if (s.first == no_time) s.first = enter;
    if (!s.gpu) {
        Visits& v = s.visits[region];
        if (v.calls++ == 0) {
            v.first = enter;
        } else {
            const double gap = static_cast<double>(enter - v.last);
            v.gap_squares += gap * gap;
        }
        v.last = enter;
    }
    const bool mpi = (s.region_flags[region] & counts_as_mpi) != 0;
    // Filled in place: building a Frame on the stack and copying it stalled
    // on the store-to-load forwarding of its fields (a quarter of the replay).
    f.region = region;
    f.callpath = callpath;
    f.enter = enter;
    f.block = 0;
    f.correlation = correlation;
    f.pending_from = s.pending.size();
    f.mpi_outermost = s.open_mpi == 0 && mpi;
    if (mpi) ++s.open_mpi;
}

/// Every Enter (the `region` as in the event, before mapping), with the
/// CUDA_CORRELATION_ID of its attributes (0: none).
[[gnu::noinline]] OTF2_CallbackCode enter_correlated(Replay& s, OTF2_TimeStamp time, OTF2_RegionRef region,
                                                     std::uint64_t correlation) {
    region = mapped(s.region_map, region);
    if (region >= s.region_flags.size()) {
        ++s.events;
        return undefined_region(s, region);
    }
    const Ticks enter = s.clock.correct(time);
    const std::uint32_t callpath = s.out->callpaths.child(
        s.stack.empty() ? CallPaths::none_id : s.stack.back().callpath, region, s.defs->regions[region].name);
    Frame& f = s.stack.push_growing();
    open_frame(s, f, region, enter, callpath, correlation);
    if (correlation != 0 && !s.gpu) record_launch(s, f);
    return OTF2_CALLBACK_SUCCESS;
}

/// Every Enter from OTF2's reader that on_enter() does not handle itself.
[[gnu::noinline]] OTF2_CallbackCode enter_general(Replay& s, OTF2_TimeStamp time,
                                                  OTF2_AttributeList* attributes, OTF2_RegionRef region) {
    return enter_correlated(s, time, region,
                            attributes != nullptr && s.want_correlation ? correlation_of(s, attributes) : 0);
}

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList* attributes, OTF2_RegionRef region) {
    Replay& s = state(user);
    // The usual Enter makes no call: a call anywhere in it, even on a rare
    // path, had every Enter save and restore six registers (a fifth of its
    // instructions).  Whatever is not at hand goes to enter_general.
    const std::uint32_t r = mapped(s.region_map, region);
    Ticks enter = 0;
    std::uint32_t callpath = 0;
    if (r < s.region_flags.size() && (attributes == nullptr || !s.want_correlation) && s.stack.has_room() &&
        s.clock.correct_nearby(time, &enter) &&
        s.out->callpaths.cached(s.stack.empty() ? CallPaths::none_id : s.stack.back().callpath, r,
                                &callpath)) {
        open_frame(s, s.stack.push(), r, enter, callpath, 0);
        return OTF2_CALLBACK_SUCCESS;
    }
    return enter_general(s, time, attributes, region);
}

/// Gives the records waiting for the innermost region its X.
[[gnu::noinline]] void complete_pending(Replay& s, std::size_t from, Ticks exit) {
    for (std::size_t p = from; p < s.pending.size(); ++p) {
        const Pending& waiting = s.pending[p];
        if (waiting.kind == Pending::send) s.out->sends[waiting.index].block_exit = exit;
        if (waiting.kind == Pending::receive) s.out->receives[waiting.index].block_exit = exit;
        if (waiting.kind == Pending::collective) s.out->collectives[waiting.index].exit = exit;
    }
    s.pending.resize(from);
}

[[gnu::noinline]] void record_gpu_op(Replay& s, const Frame& f, Ticks exit) {
    s.out->gpu_ops.push_back(GpuOp{s.location, f.region, f.enter, exit, f.correlation});
}

[[gnu::noinline]] void record_key_end(Replay& s, const Frame&, Ticks exit) {
    if (s.key_ends == nullptr) s.key_ends = &s.iterations->key_ends[s.location];
    s.key_ends->push_back(exit);
}

[[gnu::noinline]] void record_op(Replay& s, const Frame& f, Ticks exit) {
    s.out->op_instances.push_back(OpInstance{s.rank, f.region, f.callpath, f.enter, exit});
}

[[gnu::noinline]] void record_finalize(Replay& s, const Frame& f, Ticks exit) {
    CollectiveCall c;
    c.comm = finalize_communicator;
    c.seq = 0;
    c.rank = s.rank;
    c.op = finalize_operation;
    c.enter = f.enter;
    c.exit = exit;
    c.callpath = f.callpath;
    c.location = s.location;
    s.out->finalize_calls.push_back(c);
}

/// trace.json's slice of the instance, under its parent (timeline_writer.hpp).
void record_slice(Replay& s, const Frame& f, Ticks exit) {
    s.timeline->slice(f.region, f.enter, exit, s.stack.size() > 1 ? s.stack[s.stack.size() - 2].region : UINT32_MAX);
}

/// An outermost MPI call's interval and rank, to cut the MPI time by iteration later.
[[gnu::noinline]] void record_mpi_interval(Replay& s, const Frame& f, Ticks exit) {
    if (!f.mpi_outermost) return;
    s.out->mpi_intervals.emplace_back(f.enter, exit);
    s.out->mpi_interval_ranks.push_back(s.rank);
}

/// What an analysis keeps of a region's instances when they close: the
/// regions it wants (decided once per region and location, a RegionFlag
/// bit) and what it records of each.  These are the callbacks of a Leave:
/// the usual Leave tests one mask for all of them, and one whose region no
/// keeper wants stays on the fast path (on_leave).  A new analysis of region
/// instances is one row.
struct RegionKeeper {
    RegionFlag flag;
    bool (*wants)(const TraceRegion& region, std::size_t index, const Replay& s);
    void (*keep)(Replay& s, const Frame& f, Ticks exit);
};

constexpr RegionKeeper kRegionKeepers[] = {
    // trace.json and report.html's timeline (timeline_writer.hpp, timeline_overview.hpp): every
    // instance, when they are written.
    {timeline_slice, [](const TraceRegion&, std::size_t, const Replay& s) { return s.timeline != nullptr; },
     record_slice},
    // The MPI time of an iteration window and the step trace (step_trace.hpp): the outermost MPI
    // calls, when an iteration range or the step trace asks for them.
    {mpi_interval,
     [](const TraceRegion& r, std::size_t, const Replay& s) {
         return s.out->keep_mpi_intervals && counts_as_mpi_time(r);
     },
     record_mpi_interval},
    // The GPU analyses (gpu_analysis.hpp, op_analysis.hpp, step_trace.hpp): kernels, copies, memsets.
    {gpu_operation,
     [](const TraceRegion& r, std::size_t, const Replay& s) { return s.gpu && is_gpu_operation(r); },
     record_gpu_op},
    // The iterations (iterations.hpp): the ends of the key region on a CPU thread.
    {key_end,
     [](const TraceRegion&, std::size_t i, const Replay& s) {
         return !s.gpu && i < s.out->key_region.size() && s.out->key_region[i] != 0;
     },
     record_key_end},
    // DLProf's ops (op_analysis.hpp): NVTX ranges and user regions on a CPU thread.
    {op_region,
     [](const TraceRegion& r, std::size_t, const Replay& s) {
         return !s.gpu && s.out->keep_op_instances && is_op_region(r);
     },
     record_op},
    // The wait in MPI_Finalize (wait_state_patterns.hpp): each rank's call, on its CPU thread.
    {finalize_call,
     [](const TraceRegion& r, std::size_t, const Replay& s) {
         return !s.gpu && r.paradigm == OTF2_PARADIGM_MPI && r.name == "MPI_Finalize";
     },
     record_finalize},
};

/// The flags of every keeper: a Leave of a region without them keeps nothing.
constexpr std::uint16_t kKeptRegions = [] {
    std::uint16_t mask = 0;
    for (const RegionKeeper& k : kRegionKeepers) mask |= k.flag;
    return mask;
}();

/// Every keeper that wants the region, in table order: unrolled, so that each
/// is a direct call, and inlined into the general Leave.  (A loop over the
/// table through pointers, in a function of its own, cost the timeline's
/// slices 29 instructions an event more than a direct call; this costs 5.)
template <std::size_t... K>
[[gnu::always_inline]] inline void keep_each(Replay& s, const Frame& f, std::uint16_t flags, Ticks exit,
                                             std::index_sequence<K...>) {
    (((flags & kRegionKeepers[K].flag) != 0 ? kRegionKeepers[K].keep(s, f, exit) : void()), ...);
}

[[gnu::always_inline]] inline void keep_region(Replay& s, const Frame& f, std::uint16_t flags, Ticks exit) {
    keep_each(s, f, flags, exit, std::make_index_sequence<std::size(kRegionKeepers)>{});
}

/// Closes the innermost region at `exit`.
/// Inlined into on_leave: a call for every Leave cost as much as its body.
[[gnu::always_inline]] inline void close_frame(Replay& s, Ticks exit) {
    Frame& f = s.stack.back();
    if (f.pending_from != s.pending.size()) complete_pending(s, f.pending_from, exit);
    const std::uint16_t flags = s.region_flags[f.region];
    if ((flags & counts_as_mpi) != 0) --s.open_mpi;
    if (f.mpi_outermost) {
        s.mpi_time += exit - f.enter;
        s.any_mpi_time = true;
    }
    if ((flags & kKeptRegions) != 0) keep_region(s, f, flags, exit);
    s.stack.pop();
}

/// Every Leave (the `region` as in the event, before mapping).
[[gnu::noinline]] OTF2_CallbackCode leave_general(Replay& s, OTF2_TimeStamp time, OTF2_RegionRef region) {
    ++s.events;
    s.last = s.clock.correct(time);
    region = mapped(s.region_map, region);
    if (s.stack.empty() || s.stack.back().region != region) {
        ++s.out->counts.unbalanced;
        return OTF2_CALLBACK_SUCCESS;
    }
    close_frame(s, s.last);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
    Replay& s = state(user);
    // The usual Leave without a call, as on_enter: close_frame() when it has
    // nothing to hand on (no records waiting, no region a keeper wants:
    // kRegionKeepers); else leave_general.
    Ticks exit = 0;
    if (!s.stack.empty() && s.stack.back().region == mapped(s.region_map, region) &&
        s.clock.correct_nearby(time, &exit)) {
        const Frame& f = s.stack.back();
        const std::uint16_t flags = s.region_flags[f.region];
        if (f.pending_from == s.pending.size() && (flags & kKeptRegions) == 0) {
            ++s.events;
            s.last = exit;
            if ((flags & counts_as_mpi) != 0) --s.open_mpi;
            if (f.mpi_outermost) {
                s.mpi_time += exit - f.enter;
                s.any_mpi_time = true;
            }
            s.stack.pop();
            return OTF2_CALLBACK_SUCCESS;
        }
    }
    return leave_general(s, time, region);
}

OTF2_CallbackCode on_clock_offset(void* user, OTF2_TimeStamp time, int64_t offset, double) {
    state(user).clock.add(time, offset);
    return OTF2_CALLBACK_SUCCESS;
}

/// A table as a vector, or false when it does not make a small dense one.
bool dense_map(const OTF2_IdMap* table, std::vector<std::uint32_t>* map) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
    OTF2_IdMap_Traverse(
        table,
        [](uint64_t local, uint64_t global, void* into) {
            static_cast<std::vector<std::pair<std::uint64_t, std::uint64_t>>*>(into)->emplace_back(local,
                                                                                                   global);
        },
        &pairs);
    constexpr std::uint64_t largest = std::uint64_t{1} << 24;
    std::uint64_t size = 0;
    for (const auto& [local, global] : pairs) {
        if (local >= largest || global > UINT32_MAX) return false;
        size = std::max(size, local + 1);
    }
    map->resize(size);
    for (std::uint64_t id = 0; id < size; ++id) (*map)[id] = static_cast<std::uint32_t>(id);
    for (const auto& [local, global] : pairs) (*map)[local] = static_cast<std::uint32_t>(global);
    return true;
}

OTF2_CallbackCode on_mapping_table(void* user, OTF2_MappingType type, const OTF2_IdMap* table) {
    Replay& s = state(user);
    // Parameters and strings appear only in events and attribute values the replay does not read.
    if (type == OTF2_MAPPING_PARAMETER || type == OTF2_MAPPING_STRING) return OTF2_CALLBACK_SUCCESS;
    std::vector<std::uint32_t>* map = type == OTF2_MAPPING_REGION ? &s.region_map
                                      : type == OTF2_MAPPING_COMM ? &s.comm_map
                                                                  : nullptr;
    // Other kinds (attributes, ...) or a second table of one kind: OTF2 applies them as it always did.
    if (map == nullptr || !map->empty() || !dense_map(table, map)) s.otf2_maps = true;
    return OTF2_CALLBACK_SUCCESS;
}

/// The measurement was switched off (the trace reached STRATA_TRACE_MAX_SIZE):
/// the location's trace ends there; noted once, for the report.
OTF2_CallbackCode on_measurement_on_off(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                                        OTF2_AttributeList*, OTF2_MeasurementMode mode) {
    Replay& s = state(user);
    if (mode == OTF2_MEASUREMENT_OFF && s.measurement_off == no_time) s.measurement_off = s.clock.correct(time);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_EvtReaderCallbacks* event_callbacks() {
    OTF2_EvtReaderCallbacks* c = OTF2_EvtReaderCallbacks_New();
    if (c == nullptr) return nullptr;
    const OTF2_ErrorCode codes[] = {
        OTF2_EvtReaderCallbacks_SetEnterCallback(c, on_enter),
        OTF2_EvtReaderCallbacks_SetLeaveCallback(c, on_leave),
        OTF2_EvtReaderCallbacks_SetMpiSendCallback(c, on_send),
        OTF2_EvtReaderCallbacks_SetMpiIsendCallback(c, on_isend),
        OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(c, on_isend_complete),
        OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(c, on_irecv_request),
        OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c, on_recv),
        OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(c, on_irecv),
        OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(c, on_cancelled),
        OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(c, on_measurement_on_off),
        OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(c, on_collective_end)};
    for (OTF2_ErrorCode code : codes) {
        if (code != OTF2_SUCCESS) {
            OTF2_EvtReaderCallbacks_Delete(c);
            return nullptr;
        }
    }
    return c;
}

/// Hands the events of the direct decoder (event_file.hpp) to the callbacks
/// OTF2's reader would call; an Enter's correlation id comes decoded.
struct DirectEvents {
    Replay& s;
    static bool ok(OTF2_CallbackCode code) { return code == OTF2_CALLBACK_SUCCESS; }
    bool enter(uint64_t time, uint64_t position, uint32_t region, uint64_t correlation) {
        if (correlation != 0) return ok(enter_correlated(s, time, region, correlation));
        return ok(on_enter(0, time, position, &s, nullptr, region));
    }
    bool leave(uint64_t time, uint64_t position, uint32_t region) {
        return ok(on_leave(0, time, position, &s, nullptr, region));
    }
    bool send(uint64_t time, uint64_t position, const MessageFields& m) {
        return ok(on_send(0, time, position, &s, nullptr, m.peer, m.comm, m.tag, m.length));
    }
    bool isend(uint64_t time, uint64_t position, const MessageFields& m) {
        return ok(on_isend(0, time, position, &s, nullptr, m.peer, m.comm, m.tag, m.length, m.request));
    }
    bool recv(uint64_t time, uint64_t position, const MessageFields& m) {
        return ok(on_recv(0, time, position, &s, nullptr, m.peer, m.comm, m.tag, m.length));
    }
    bool irecv(uint64_t time, uint64_t position, const MessageFields& m) {
        return ok(on_irecv(0, time, position, &s, nullptr, m.peer, m.comm, m.tag, m.length, m.request));
    }
    bool isend_complete(uint64_t time, uint64_t position, uint64_t request) {
        return ok(on_isend_complete(0, time, position, &s, nullptr, request));
    }
    bool irecv_request(uint64_t time, uint64_t position, uint64_t request) {
        return ok(on_irecv_request(0, time, position, &s, nullptr, request));
    }
    bool cancelled(uint64_t time, uint64_t position, uint64_t request) {
        return ok(on_cancelled(0, time, position, &s, nullptr, request));
    }
    bool measurement_on_off(uint64_t time, uint64_t position, std::uint8_t mode) {
        return ok(on_measurement_on_off(0, time, position, &s, nullptr, mode));
    }
    bool collective_end(uint64_t time, uint64_t position, const CollectiveFields& c) {
        return ok(on_collective_end(0, time, position, &s, nullptr, c.op, c.comm, c.root, c.sent, c.received));
    }
};

/// Whether the direct decoder can read the archive's event files: written by
/// OTF2 1 to 3 (whose buffer format it knows), uncompressed, POSIX; their
/// event chunk size (0: it cannot).
std::uint64_t direct_chunk_size(Otf2Reader& reader) {
    uint8_t major = 0, minor = 0, bugfix = 0;
    if (OTF2_Reader_GetVersion(reader.get(), &major, &minor, &bugfix) != OTF2_SUCCESS || major < 1 || major > 3)
        return 0;
    OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_UNDEFINED;
    OTF2_Compression compression = OTF2_COMPRESSION_UNDEFINED;
    uint64_t event_chunk = 0, definition_chunk = 0;
    if (OTF2_Reader_GetFileSubstrate(reader.get(), &substrate) != OTF2_SUCCESS ||
        substrate != OTF2_SUBSTRATE_POSIX)
        return 0;
    if (OTF2_Reader_GetCompression(reader.get(), &compression) != OTF2_SUCCESS ||
        compression != OTF2_COMPRESSION_NONE)
        return 0;
    if (OTF2_Reader_GetChunkSize(reader.get(), &event_chunk, &definition_chunk) != OTF2_SUCCESS) return 0;
    return event_chunk;
}

/// What a location's replay leaves in `records` once its events are read.
void finish_location(Replay& s, ShareRecords& records, const TraceDefinitions& definitions,
                     const std::string& where, TimelineWriter* timeline) {
    // Regions left open (a truncated file) end at the last time seen.
    if (!s.stack.empty()) records.counts.unterminated += s.stack.size();
    while (!s.stack.empty()) close_frame(s, s.last);
    records.counts.events += s.events;
    if (s.any_mpi_time) records.mpi_time[s.rank] += s.mpi_time;
    if (!s.gpu) {
        RankIterationRecords& it = *s.iterations;
        if (s.first != no_time && (it.first == no_time || s.first < it.first)) it.first = s.first;
        if (s.first != no_time && (it.last == no_time || s.last > it.last)) it.last = s.last;
        for (std::size_t r = 0; r < s.visits.size(); ++r) {
            const Visits& seen = s.visits[r];
            if (seen.calls == 0) continue;
            RegionVisits& v = it.visits[static_cast<std::uint32_t>(r)];
            if (v.calls == 0 || seen.first < v.first) v.first = seen.first;
            if (v.calls == 0 || seen.last > v.last) v.last = seen.last;
            v.calls += seen.calls;
            v.gaps += seen.calls - 1;
            v.gap_sum += static_cast<double>(seen.last - seen.first);
            v.gap_squares += seen.gap_squares;
        }
    }
    if (s.measurement_off != no_time) {
        char at[48];
        std::snprintf(at, sizeof at, "%.9g",
                      static_cast<double>(s.measurement_off - static_cast<Ticks>(definitions.global_offset)) /
                          static_cast<double>(definitions.timer_resolution));
        records.trace_stops.push_back(where + ": the trace stops at " + std::string(at) +
                                      " s (the measurement switched it off: STRATA_TRACE_MAX_SIZE)");
    }
    if (timeline != nullptr && timeline->sampled_out() > 0) {
        char window[48];
        std::snprintf(window, sizeof window, "%.6g",
                      static_cast<double>(timeline->window()) / static_cast<double>(definitions.timer_resolution));
        records.timeline_cut.push_back(where + ": trace.json holds the slices that begin in 1 of every " +
                                       std::to_string(timeline->stride()) + " time windows of " + window +
                                       " s, evenly over the run (--timeline-events); " +
                                       std::to_string(timeline->sampled_out()) + " slices in the others were left out");
    }
    if (timeline != nullptr && timeline->dropped() > 0) {
        char at[48];
        std::snprintf(
            at, sizeof at, "%.9g",
            static_cast<double>(timeline->first_dropped() - static_cast<Ticks>(definitions.global_offset)) /
                static_cast<double>(definitions.timer_resolution));
        records.timeline_cut.push_back(where + ": " + std::to_string(timeline->dropped()) +
                                       " slices ending at or after " + at + " s were left out of trace.json");
    }
}

}  // namespace

std::string event_file_path(const std::string& anchor, std::uint64_t location) {
    const std::string base = anchor.size() > 5 && anchor.compare(anchor.size() - 5, 5, ".otf2") == 0
                                 ? anchor.substr(0, anchor.size() - 5)
                                 : anchor;
    return base + "/" + std::to_string(location) + ".evt";
}

Error replay_location(Otf2Reader& reader, const TraceDefinitions& definitions, std::size_t index,
                      ShareRecords& records, TimelineWriter* timeline, const std::function<void()>& between_batches,
                      bool decode_directly, const LogicalShift* shift) {
    const TraceLocation& location = definitions.locations[index];
    Replay s;
    s.defs = &definitions;
    s.out = &records;
    s.location = static_cast<std::uint32_t>(index);
    s.rank = static_cast<std::uint32_t>(location.rank);
    s.timeline = timeline;
    s.gpu = location.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    s.want_correlation = definitions.correlation_attribute != UINT32_MAX;
    s.region_flags.assign(definitions.regions.size(), 0);
    for (std::size_t r = 0; r < definitions.regions.size(); ++r) {
        const TraceRegion& region = definitions.regions[r];
        std::uint16_t& flags = s.region_flags[r];
        if (counts_as_mpi_time(region)) flags |= counts_as_mpi;
        if (region.paradigm == OTF2_PARADIGM_MPI) flags |= mpi_call;
        if (region.paradigm == OTF2_PARADIGM_MPI &&
            (region.name == "MPI_Sendrecv" || region.name == "MPI_Sendrecv_replace"))
            flags |= send_receive;
        for (const RegionKeeper& k : kRegionKeepers)
            if (k.wants(region, r, s)) flags |= k.flag;
    }
    if (!s.gpu) {
        s.visits.assign(definitions.regions.size(), Visits{});
        s.iterations = &records.iterations[s.rank];
    }
    const std::string where =
        "rank " + std::to_string(location.rank) +
        (s.gpu ? ", GPU stream " + location.name : ", thread " + std::to_string(location.id & 0xffffffffu)) +
        " (location " + std::to_string(location.id) + ")";

    // Its ClockOffset points, and the mapping tables this replay applies itself.
    const Error local = read_local_definitions(
        reader, location.id,
        [](OTF2_DefReaderCallbacks* c) {
            OTF2_ErrorCode rc = OTF2_DefReaderCallbacks_SetClockOffsetCallback(c, on_clock_offset);
            if (rc == OTF2_SUCCESS) rc = OTF2_DefReaderCallbacks_SetMappingTableCallback(c, on_mapping_table);
            return rc;
        },
        &s);
    if (local) return where + ": " + *local;
    if (shift != nullptr) s.clock.follow(shift);

    // Streamed in batches: memory is one chunk plus the records kept.
    constexpr uint64_t batch = 1 << 16;
    EventFile direct;
    const std::uint64_t chunk_size = decode_directly && !s.otf2_maps ? direct_chunk_size(reader) : 0;
    if (chunk_size != 0 && direct.open(event_file_path(definitions.anchor, location.id), chunk_size)) {
        DirectEvents visitor{s};
        const EventFile::Status status = direct.read(visitor, batch, between_batches,
                                                     s.want_correlation ? definitions.correlation_attribute : UINT32_MAX);
        finish_location(s, records, definitions, where, timeline);
        if (!s.problem.empty()) return where + ": " + s.problem + "; the events after it were skipped";
        if (status == EventFile::Status::damaged) {
            return where + ": its event file (.evt) cannot be read to the end: " + direct.damage() +
                   "; the events after the damage were skipped";
        }
        return {};
    }

    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader.get(), location.id);
    if (events == nullptr) return where + ": its event file (.evt) cannot be opened";
    // We interpolate ourselves (clock_correction.hpp), on the raw timestamps.
    OTF2_ErrorCode rc = OTF2_EvtReader_ApplyClockOffsets(events, false);
    if (s.otf2_maps) {
        s.region_map.clear();
        s.comm_map.clear();
    } else if (rc == OTF2_SUCCESS) {
        rc = OTF2_EvtReader_ApplyMappingTables(events, false);  // region_map and comm_map instead
    }
    OTF2_EvtReaderCallbacks* callbacks = event_callbacks();
    if (callbacks == nullptr) rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_RegisterEvtCallbacks(reader.get(), events, callbacks, &s);
    if (callbacks != nullptr) OTF2_EvtReaderCallbacks_Delete(callbacks);
    while (rc == OTF2_SUCCESS) {
        uint64_t read = 0;
        rc = OTF2_Reader_ReadLocalEvents(reader.get(), events, batch, &read);
        if (read < batch) break;
        if (between_batches) between_batches();
    }
    const OTF2_ErrorCode closed = OTF2_Reader_CloseEvtReader(reader.get(), events);
    finish_location(s, records, definitions, where, timeline);
    if (!s.problem.empty()) return where + ": " + s.problem + "; the events after it were skipped";
    if (rc != OTF2_SUCCESS) {
        return where + ": its event file (.evt) cannot be read to the end: " + describe_otf2(rc) +
               "; the events after the damage were skipped";
    }
    if (closed != OTF2_SUCCESS) return where + ": its event file cannot be closed: " + describe_otf2(closed);
    return {};
}

}  // namespace strata::analysis::trace
