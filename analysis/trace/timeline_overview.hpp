// SPDX-License-Identifier: BSD-3-Clause
// The timeline of report.html (timeline.json): what every lane (a rank's CPU
// thread or GPU stream, as trace.json's tracks) spends each of `bins` equal
// time bins of the whole run on, and the detailed region instances and
// messages of one time window, both made while the trace is replayed.
//
//   overview   per lane, bin and class: the time the innermost open region
//              of that class held the lane (exclusive time, so the classes
//              and the idle rest add up to the bin).  Every region instance
//              adds its time to its own class and takes it from its
//              parent's: exact, from the instances alone.  Classes are the
//              profile's time classes (time_classes.hpp), plus kernel and
//              copy on GPU streams.
//   window     the instances that overlap [window_begin, window_end) and the
//              messages sent and received in it, up to a number of instances
//              per lane (the first to end are kept; the rest are counted, and
//              where a lane's detail stops is said).
//
// The lanes are those of the ranks chosen (--timeline-ranks; by default the
// first ranks up to kDefaultLanes lanes); the window is --timeline-window or,
// by default, the whole run when its instances fit, else the stretch in the
// middle of the run that holds about as many as fit.  Each analysis rank
// records the lanes it reads; rank 0 puts them together (TraceReport::timeline).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/byte_codec.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// What a lane's time is spent on.
enum class LaneClass : std::uint8_t {
    computation,
    mpi,
    io,
    openmp,
    gpu_wait,
    cuda_api,
    measurement,
    mpi_init_finalize,
    kernel,
    copy,
};
inline constexpr std::size_t lane_class_count = 10;

/// computation, mpi, io, openmp, gpu_wait, cuda_api, measurement,
/// mpi_init_finalize (as time_classes.hpp names them), kernel, copy.
const char* lane_class_name(std::size_t lane_class);

/// The class of a region's own time on a CPU thread or, with `gpu_stream`, a GPU stream.
LaneClass lane_class(const TraceRegion& region, bool gpu_stream);

/// What the user asked of the timeline.
struct TimelineViewOptions {
    std::vector<std::uint32_t> ranks;       ///< --timeline-ranks (empty: the first, up to kDefaultLanes lanes)
    double window_begin_s = -1, window_end_s = -1;  ///< --timeline-window, seconds from the trace start (-1: chosen)
    std::size_t bins = 1000;
    std::uint64_t window_slices = 20000;  ///< region instances of the window, all lanes together
};

inline constexpr std::size_t kDefaultLanes = 128;
inline constexpr std::size_t kMaxLanes = 512;

/// The lanes and the window, the same on every analysis rank (from the definitions alone).
struct TimelinePlan {
    Ticks origin = 0;  ///< the trace start (global offset): times are given from it
    Ticks length = 1;  ///< of the run (ClockProperties' trace length), >= 1
    std::size_t bins = 1000;
    std::vector<Ticks> edges;    ///< the bins' starts, and the end of the run
    double bins_per_tick = 0;    ///< to find a time's bin quickly (then exactly, by the edges)
    std::map<std::pair<std::int64_t, std::size_t>, std::uint32_t> lane_of;  ///< (rank, track) -> lane
    std::vector<std::pair<std::int64_t, std::size_t>> lanes;               ///< by lane: (rank, track)
    std::vector<std::size_t> lane_location;                                 ///< by lane: index of its location
    std::size_t lanes_left_out = 0;  ///< of ranks not chosen, or beyond kMaxLanes
    Ticks window_begin = 0, window_end = 0;
    bool window_chosen = false;        ///< by the user (else: the whole run, or the middle)
    std::uint64_t slices_per_lane = 0;  ///< the window's cap per lane
};

/// `track`: the location's position among its rank's tracks (threads, then GPU streams), as in trace.json.
TimelinePlan plan_timeline(const TraceDefinitions& definitions,
                           const std::map<std::size_t, std::size_t>& track_of_location,
                           const TimelineViewOptions& options);

/// Feeds one share's lanes from the replay (TimelineWriter calls it).
class TimelineRecorder {
public:
    TimelineRecorder(const TimelinePlan& plan, const TraceDefinitions& definitions, ShareRecords& records);
    /// The location replayed next, at `track` of its rank.
    void begin_location(std::size_t index, std::size_t track);
    /// A region instance of it, inside `parent` (UINT32_MAX: none).
    void slice(std::uint32_t region, Ticks enter, Ticks exit, std::uint32_t parent);
    /// A message's send (start) or receive on `track` of `rank`.
    void flow(const MessageKey& key, std::int64_t rank, std::size_t track, Ticks time, bool start);

private:
    /// [enter, exit) to class `to_class`, and taken from `from_class` (lane_class_count: none).
    void add(std::size_t to_class, std::size_t from_class, Ticks enter, Ticks exit);
    const TimelinePlan& plan_;
    const TraceDefinitions& definitions_;
    ShareRecords& records_;
    TimelineLaneRecord* lane_ = nullptr;  ///< the current location's, nullptr: not a lane
    bool gpu_ = false;
    std::vector<std::uint8_t> class_of_;  ///< per region, on a CPU thread; then on a GPU stream
};

/// A share's lanes, window instances and messages in its partial result.
void put_timeline_partial(ByteWriter& out, const ShareRecords& records);

/// The timeline of the whole run (rank 0).
struct TimelineReport {
    bool present = false;  ///< recorded (with trace.json)
    std::uint64_t timer_resolution = 1;
    Ticks origin = 0, length = 1;
    std::size_t bins = 0;
    struct Lane {
        std::int64_t rank = 0;
        std::size_t track = 0;
        std::string name;
        bool gpu = false;
        std::vector<std::int64_t> ticks;  ///< bins x lane_class_count
        std::uint64_t slices = 0, slices_left_out = 0;
        Ticks detail_end = no_time;
    };
    std::vector<Lane> lanes;  ///< by (rank, track)
    std::size_t lanes_left_out = 0;
    Ticks window_begin = 0, window_end = 0;
    bool window_chosen = false;
    std::uint64_t slices_per_lane = 0;
    struct Slice {
        std::uint32_t lane = 0;  ///< index in lanes
        std::uint32_t region = 0;
        Ticks enter = 0, exit = 0;
    };
    std::vector<Slice> slices;
    struct Message {
        std::uint32_t from_lane = 0, to_lane = 0;
        Ticks sent = 0, received = 0;
    };
    std::vector<Message> messages;
    std::vector<TraceRegion> regions;           ///< by region id
    std::vector<TimelineFlowRecord> flow_ends;  ///< the shares' message ends, until they are paired
};

/// Sets up `report` from the plan, adds every share's partial, and finishes it.
void start_timeline_report(TimelineReport& report, const TimelinePlan& plan, const TraceDefinitions& definitions);
void add_timeline_partial(TimelineReport& report, ByteReader& in);
void finish_timeline_report(TimelineReport& report);

/// timeline.json, with the iterations' bounds (IterationPlan::bounds: T0, the key region's ends, T1).
std::string timeline_json(const TimelineReport& report, const std::vector<Ticks>& iteration_bounds);

/// Each CPU location's and GPU stream's track among its rank's (trace.json's
/// tid): the CPU threads in the profile's column order, then the streams.
std::map<std::size_t, std::size_t> timeline_tracks(const TraceDefinitions& definitions);

}  // namespace strata::analysis::trace
