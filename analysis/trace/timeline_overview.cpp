// SPDX-License-Identifier: BSD-3-Clause
// report.html's timeline: the lanes' time per bin and class and the window's
// detail (see timeline_overview.hpp).
#include "trace/timeline_overview.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

#include "analyze/rank_layout.hpp"
#include "analyze/report_format.hpp"
#include "analyze/time_classes.hpp"
#include "trace/timeline_writer.hpp"

namespace strata::analysis::trace {

namespace {

/// OpenMP regions in which a thread waits or the runtime works for it (as
/// time_classes.cpp, in OTF2's roles: a lock is a wrapper there).
bool openmp_synchronisation(std::uint32_t role) {
    switch (role) {
        case OTF2_REGION_ROLE_BARRIER:
        case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
        case OTF2_REGION_ROLE_TASK_WAIT:
        case OTF2_REGION_ROLE_CRITICAL:
        case OTF2_REGION_ROLE_ORDERED:
        case OTF2_REGION_ROLE_ATOMIC:
        case OTF2_REGION_ROLE_WRAPPER:
        case OTF2_REGION_ROLE_TASK_CREATE:
            return true;
        default:
            return false;
    }
}

/// The start of bin `b` of the plan's axis.
Ticks bin_edge(Ticks origin, Ticks length, std::size_t bins, std::size_t b) {
    return origin + static_cast<Ticks>(static_cast<__int128>(length) * static_cast<__int128>(b) /
                                       static_cast<__int128>(bins));
}

std::string microseconds(__int128 ticks, std::uint64_t resolution) {
    std::string text;
    append_microseconds(text, ticks, resolution);
    return text;
}

}  // namespace

const char* lane_class_name(std::size_t lane_class) {
    static const char* const names[lane_class_count] = {
        "computation", "mpi", "io", "openmp", "gpu_wait", "cuda_api", "measurement", "mpi_init_finalize",
        "kernel",      "copy"};
    return lane_class < lane_class_count ? names[lane_class] : "computation";
}

LaneClass lane_class(const TraceRegion& region, bool gpu_stream) {
    if (gpu_stream) return region.role == OTF2_REGION_ROLE_DATA_TRANSFER ? LaneClass::copy : LaneClass::kernel;
    if (region.role == OTF2_REGION_ROLE_FILE_IO ||
        (region.paradigm == OTF2_PARADIGM_MPI && region.name.rfind("MPI_File_", 0) == 0))
        return LaneClass::io;
    switch (region.paradigm) {
        case OTF2_PARADIGM_MPI:
            return region.name == "MPI_Init" || region.name == "MPI_Init_thread" || region.name == "MPI_Finalize"
                       ? LaneClass::mpi_init_finalize
                       : LaneClass::mpi;
        case OTF2_PARADIGM_OPENMP:
            return openmp_synchronisation(region.role) ? LaneClass::openmp : LaneClass::computation;
        case OTF2_PARADIGM_CUDA:
            return is_gpu_wait_call(region.name) ? LaneClass::gpu_wait : LaneClass::cuda_api;
        case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
            return LaneClass::measurement;
        default:
            return LaneClass::computation;
    }
}

std::map<std::size_t, std::size_t> timeline_tracks(const TraceDefinitions& definitions) {
    std::map<std::int64_t, std::vector<std::size_t>> streams;
    for (std::size_t i = 0; i < definitions.locations.size(); ++i) {
        const TraceLocation& l = definitions.locations[i];
        if (l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM && l.rank >= 0) streams[l.rank].push_back(i);
    }
    std::map<std::size_t, std::size_t> tracks;
    for (const MeasuredRank& r : trace_rank_layout(definitions).ranks) {
        for (std::size_t t = 0; t < r.columns.size(); ++t) tracks[r.columns[t]] = t;
        std::size_t position = r.columns.size();
        for (const std::size_t s : streams[r.rank]) tracks[s] = position++;
    }
    return tracks;
}

TimelinePlan plan_timeline(const TraceDefinitions& definitions,
                           const std::map<std::size_t, std::size_t>& track_of_location,
                           const TimelineViewOptions& options) {
    TimelinePlan plan;
    plan.origin = static_cast<Ticks>(definitions.global_offset);
    plan.length = std::max<Ticks>(1, static_cast<Ticks>(definitions.trace_length));
    plan.bins = std::max<std::size_t>(1, options.bins);
    for (std::size_t b = 0; b <= plan.bins; ++b) plan.edges.push_back(bin_edge(plan.origin, plan.length, plan.bins, b));
    plan.bins_per_tick = static_cast<double>(plan.bins) / static_cast<double>(plan.length);
    // Every track, by (rank, track); then the ranks chosen.
    std::map<std::pair<std::int64_t, std::size_t>, std::size_t> tracks;
    for (const auto& [location, track] : track_of_location)
        tracks[{definitions.locations[location].rank, track}] = location;
    std::map<std::int64_t, std::size_t> per_rank;
    for (const auto& [key, location] : tracks) ++per_rank[key.first];
    std::set<std::int64_t> chosen;
    if (!options.ranks.empty()) {
        chosen.insert(options.ranks.begin(), options.ranks.end());
    } else {
        std::size_t lanes = 0;
        for (const auto& [rank, n] : per_rank) {
            if (!chosen.empty() && lanes + n > kDefaultLanes) break;
            chosen.insert(rank);
            lanes += n;
        }
    }
    std::uint64_t events = 0;
    for (const auto& [key, location] : tracks) {
        if (chosen.count(key.first) == 0 || plan.lanes.size() >= kMaxLanes) {
            ++plan.lanes_left_out;
            continue;
        }
        plan.lane_of[key] = static_cast<std::uint32_t>(plan.lanes.size());
        plan.lanes.push_back(key);
        plan.lane_location.push_back(location);
        events += definitions.locations[location].events;
    }
    const double resolution = static_cast<double>(definitions.timer_resolution);
    if (options.window_begin_s >= 0 && options.window_end_s > options.window_begin_s) {
        plan.window_begin = plan.origin + static_cast<Ticks>(std::llround(options.window_begin_s * resolution));
        plan.window_end = plan.origin + static_cast<Ticks>(std::llround(options.window_end_s * resolution));
        plan.window_chosen = true;
    } else if (events / 2 <= options.window_slices) {  // two events per region instance
        plan.window_begin = plan.origin;
        plan.window_end = plan.origin + plan.length;
    } else {  // the middle of the run: steady, past the start-up
        const Ticks width = std::max<Ticks>(
            1, static_cast<Ticks>(static_cast<__int128>(plan.length) * options.window_slices / (events / 2)));
        plan.window_begin = plan.origin + (plan.length - width) / 2;
        plan.window_end = plan.window_begin + width;
    }
    plan.slices_per_lane =
        plan.lanes.empty() ? 0 : std::max<std::uint64_t>(1, options.window_slices / plan.lanes.size());
    return plan;
}

TimelineRecorder::TimelineRecorder(const TimelinePlan& plan, const TraceDefinitions& definitions,
                                   ShareRecords& records)
    : plan_(plan), definitions_(definitions), records_(records) {
    records.timeline_recorded = true;
    const std::size_t n = definitions.regions.size();
    class_of_.resize(2 * n);
    for (std::size_t r = 0; r < n; ++r) {
        class_of_[r] = static_cast<std::uint8_t>(lane_class(definitions.regions[r], false));
        class_of_[n + r] = static_cast<std::uint8_t>(lane_class(definitions.regions[r], true));
    }
}

void TimelineRecorder::begin_location(std::size_t index, std::size_t track) {
    const TraceLocation& l = definitions_.locations[index];
    const auto it = plan_.lane_of.find({l.rank, track});
    lane_ = nullptr;
    if (it == plan_.lane_of.end()) return;
    gpu_ = l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    TimelineLaneRecord lane;
    lane.lane = it->second;
    lane.ticks.assign(plan_.bins * lane_class_count, 0);
    records_.timeline_lanes.push_back(std::move(lane));
    lane_ = &records_.timeline_lanes.back();
}

void TimelineRecorder::add(std::size_t to_class, std::size_t from_class, Ticks enter, Ticks exit) {
    const std::vector<Ticks>& edges = plan_.edges;
    enter = std::max(enter, edges.front());
    exit = std::min(exit, edges.back());
    if (exit <= enter) return;
    // The bin of `enter`: estimated in floating point, then made exact by the edges.
    auto b = static_cast<std::size_t>(static_cast<double>(enter - edges.front()) * plan_.bins_per_tick);
    b = std::min(b, plan_.bins - 1);
    while (b > 0 && edges[b] > enter) --b;
    while (b + 1 < plan_.bins && edges[b + 1] <= enter) ++b;
    for (; b < plan_.bins && edges[b] < exit; ++b) {
        const Ticks overlap = std::min(exit, edges[b + 1]) - std::max(enter, edges[b]);
        if (overlap <= 0) continue;
        std::int64_t* bin = &lane_->ticks[b * lane_class_count];
        bin[to_class] += overlap;
        if (from_class < lane_class_count) bin[from_class] -= overlap;
    }
}

void TimelineRecorder::slice(std::uint32_t region, Ticks enter, Ticks exit, std::uint32_t parent) {
    if (lane_ == nullptr || region >= definitions_.regions.size()) return;
    const std::size_t gpu = gpu_ ? definitions_.regions.size() : 0;
    // Exclusive time from instances alone: an instance's time is its class's, less its parent's
    // (nothing to do when both are of one class, as most nested regions are).
    const std::size_t own = class_of_[gpu + region];
    const std::size_t outer = parent < definitions_.regions.size() ? class_of_[gpu + parent] : lane_class_count;
    if (own != outer) add(own, outer, enter, exit);
    const bool inside = enter < plan_.window_end && (exit > plan_.window_begin || enter >= plan_.window_begin);
    if (!inside) return;
    if (lane_->slices >= plan_.slices_per_lane) {
        if (lane_->slices_left_out++ == 0) lane_->detail_end = exit;
        return;
    }
    ++lane_->slices;
    records_.timeline_slices.push_back({lane_->lane, region, enter, exit});
}

void TimelineRecorder::flow(const MessageKey& key, std::int64_t rank, std::size_t track, Ticks time, bool start) {
    if (time == no_time || time < plan_.window_begin || time >= plan_.window_end) return;
    const auto it = plan_.lane_of.find({rank, track});
    if (it == plan_.lane_of.end()) return;
    records_.timeline_flows.push_back({flow_hash(key), it->second, start ? 1u : 0u, time});
}

void put_timeline_partial(ByteWriter& out, const ShareRecords& records) {
    out.put<std::uint8_t>(records.timeline_recorded ? 1 : 0);
    out.put<std::uint64_t>(records.timeline_lanes.size());
    for (const TimelineLaneRecord& lane : records.timeline_lanes) {
        out.put(lane.lane);
        out.put<std::uint64_t>(lane.ticks.size());
        out.put_array(lane.ticks.data(), lane.ticks.size());
        out.put(lane.slices);
        out.put(lane.slices_left_out);
        out.put(lane.detail_end);
    }
    out.put<std::uint64_t>(records.timeline_slices.size());
    out.put_array(records.timeline_slices.data(), records.timeline_slices.size());
    out.put<std::uint64_t>(records.timeline_flows.size());
    out.put_array(records.timeline_flows.data(), records.timeline_flows.size());
}

void start_timeline_report(TimelineReport& report, const TimelinePlan& plan, const TraceDefinitions& definitions) {
    report.present = false;
    report.timer_resolution = definitions.timer_resolution;
    report.origin = plan.origin;
    report.length = plan.length;
    report.bins = plan.bins;
    report.lanes.clear();
    for (std::size_t i = 0; i < plan.lanes.size(); ++i) {
        const TraceLocation& l = definitions.locations[plan.lane_location[i]];
        TimelineReport::Lane lane;
        lane.rank = plan.lanes[i].first;
        lane.track = plan.lanes[i].second;
        lane.name = l.name;
        lane.gpu = l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
        lane.ticks.assign(plan.bins * lane_class_count, 0);
        report.lanes.push_back(std::move(lane));
    }
    report.lanes_left_out = plan.lanes_left_out;
    report.window_begin = plan.window_begin;
    report.window_end = plan.window_end;
    report.window_chosen = plan.window_chosen;
    report.slices_per_lane = plan.slices_per_lane;
    report.regions = definitions.regions;
}

void add_timeline_partial(TimelineReport& report, ByteReader& in) {
    report.present = in.get<std::uint8_t>() != 0 || report.present;
    const auto lanes = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < lanes; ++i) {
        const auto lane = in.get<std::uint32_t>();
        const auto n = in.get<std::uint64_t>();
        if (lane >= report.lanes.size() || n != report.lanes[lane].ticks.size())
            throw std::runtime_error("timeline: a lane out of range");
        TimelineReport::Lane& l = report.lanes[lane];
        for (std::uint64_t k = 0; k < n; ++k) l.ticks[k] += in.get<std::int64_t>();
        l.slices += in.get<std::uint64_t>();
        l.slices_left_out += in.get<std::uint64_t>();
        const auto end = in.get<Ticks>();
        if (end != no_time && (l.detail_end == no_time || end < l.detail_end)) l.detail_end = end;
    }
    const auto slices = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < slices; ++i) {
        const auto s = in.get<TimelineSliceRecord>();
        if (s.lane >= report.lanes.size() || s.region >= report.regions.size())
            throw std::runtime_error("timeline: an instance out of range");
        report.slices.push_back({s.lane, s.region, s.enter, s.exit});
    }
    const auto flows = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < flows; ++i) report.flow_ends.push_back(in.get<TimelineFlowRecord>());
}

void finish_timeline_report(TimelineReport& report) {
    // Who read what must not change a byte: instances by lane and time, outer ones first.
    std::sort(report.slices.begin(), report.slices.end(), [](const auto& a, const auto& b) {
        return std::tie(a.lane, a.enter, b.exit, a.region) < std::tie(b.lane, b.enter, a.exit, b.region);
    });
    std::sort(report.flow_ends.begin(), report.flow_ends.end(), [](const auto& a, const auto& b) {
        return std::tie(a.id, a.start, a.time, a.lane) < std::tie(b.id, b.start, b.time, b.lane);
    });
    // A message whose send and receive are both in the window: one receive (start 0) then one send (1) per id.
    for (std::size_t i = 0; i + 1 < report.flow_ends.size(); ++i) {
        const TimelineFlowRecord& received = report.flow_ends[i];
        const TimelineFlowRecord& sent = report.flow_ends[i + 1];
        if (received.id != sent.id || received.start != 0 || sent.start != 1) continue;
        report.messages.push_back({sent.lane, received.lane, sent.time, received.time});
        ++i;
    }
    report.flow_ends.clear();
    std::sort(report.messages.begin(), report.messages.end(), [](const auto& a, const auto& b) {
        return std::tie(a.sent, a.from_lane, a.received, a.to_lane) <
               std::tie(b.sent, b.from_lane, b.received, b.to_lane);
    });
}

std::string timeline_json(const TimelineReport& r, const std::vector<Ticks>& iteration_bounds) {
    const std::uint64_t res = r.timer_resolution;
    const auto us = [&](Ticks t) { return microseconds(static_cast<__int128>(t) - r.origin, res); };
    // As trace.json: both ends rounded, the duration their difference, so instances nest exactly.
    const auto duration = [&](Ticks enter, Ticks exit) {
        std::string text;
        append_thousandths(text, thousandths_of_microseconds(static_cast<__int128>(exit) - r.origin, res) -
                                     thousandths_of_microseconds(static_cast<__int128>(enter) - r.origin, res));
        return text;
    };
    std::string t = "{\n  \"report\": \"timeline\",\n";
    t += "  \"definitions\": {\"times\": \"microseconds from the trace start, on rank 0's clock (as trace.json)\", "
         "\"lanes\": \"a rank's CPU threads, then its GPU streams (trace.json's tracks)\", \"shares\": \"per "
         "class, the percentage of each of the bins equal parts of the run that the innermost region of that "
         "class held the lane (exclusive time; 0 < x < 0.5 % shows as 1); the rest is idle\", \"slices\": \"[lane, "
         "region, class, begin, duration]: the region instances of the window, outer before inner\", \"messages\": "
         "\"[sending lane, send, receiving lane, receive]: messages sent and received in the window\"},\n";
    t += "  \"length_us\": " + us(r.origin + r.length) + ",\n";
    t += "  \"bins\": " + std::to_string(r.bins) + ",\n";
    t += "  \"classes\": [";
    for (std::size_t c = 0; c < lane_class_count; ++c)
        t += std::string(c > 0 ? ", " : "") + "\"" + lane_class_name(c) + "\"";
    t += "],\n  \"lanes\": [";
    for (std::size_t i = 0; i < r.lanes.size(); ++i) {
        const TimelineReport::Lane& lane = r.lanes[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"rank\": " + std::to_string(lane.rank) +
             ", \"track\": " + std::to_string(lane.track) + ", \"name\": " + json_string(lane.name) +
             ", \"gpu\": " + (lane.gpu ? "true" : "false") + ", \"shares\": {";
        bool first = true;
        for (std::size_t c = 0; c < lane_class_count; ++c) {
            bool any = false;
            for (std::size_t b = 0; b < r.bins && !any; ++b) any = lane.ticks[b * lane_class_count + c] > 0;
            if (!any) continue;
            t += std::string(first ? "" : ", ") + "\"" + lane_class_name(c) + "\": [";
            first = false;
            for (std::size_t b = 0; b < r.bins; ++b) {
                const Ticks width = bin_edge(r.origin, r.length, r.bins, b + 1) - bin_edge(r.origin, r.length, r.bins, b);
                const std::int64_t ticks = std::max<std::int64_t>(0, lane.ticks[b * lane_class_count + c]);
                std::int64_t percent = width > 0 ? (ticks * 200 + width) / (2 * width) : 0;
                if (ticks > 0 && percent == 0) percent = 1;
                t += (b > 0 ? "," : "") + std::to_string(std::min<std::int64_t>(percent, 100));
            }
            t += "]";
        }
        t += "}, \"detail_slices\": " + std::to_string(lane.slices) +
             ", \"detail_left_out\": " + std::to_string(lane.slices_left_out) +
             ", \"detail_ends_us\": " + (lane.detail_end == no_time ? std::string("null") : us(lane.detail_end)) + "}";
    }
    t += r.lanes.empty() ? "],\n" : "\n  ],\n";
    t += "  \"lanes_left_out\": " + std::to_string(r.lanes_left_out) + ",\n";
    t += "  \"window\": {\"begin_us\": " + us(r.window_begin) + ", \"end_us\": " + us(r.window_end) +
         ", \"chosen\": \"" +
         (r.window_chosen                                                 ? "--timeline-window"
          : r.window_begin <= r.origin && r.window_end >= r.origin + r.length ? "the whole run"
                                                                              : "the middle of the run") +
         "\", \"slices_per_lane\": " + std::to_string(r.slices_per_lane) + "},\n";
    // Only the regions the window's instances name, numbered in their order of first use.
    std::vector<std::int64_t> index(r.regions.size(), -1);
    std::vector<std::uint32_t> used;
    for (const TimelineReport::Slice& s : r.slices) {
        if (index[s.region] >= 0) continue;
        index[s.region] = static_cast<std::int64_t>(used.size());
        used.push_back(s.region);
    }
    t += "  \"regions\": [";
    for (std::size_t i = 0; i < used.size(); ++i) t += (i > 0 ? ", " : "") + json_string(r.regions[used[i]].name);
    t += "],\n  \"slices\": [";
    for (std::size_t i = 0; i < r.slices.size(); ++i) {
        const TimelineReport::Slice& s = r.slices[i];
        const auto lane_class_of = lane_class(r.regions[s.region], r.lanes[s.lane].gpu);
        t += std::string(i > 0 ? "," : "") + (i % 8 == 0 ? "\n    " : " ") + "[" + std::to_string(s.lane) + "," +
             std::to_string(index[s.region]) + "," + std::to_string(static_cast<int>(lane_class_of)) + "," +
             us(s.enter) + "," + duration(s.enter, s.exit) + "]";
    }
    t += r.slices.empty() ? "],\n" : "\n  ],\n";
    t += "  \"messages\": [";
    for (std::size_t i = 0; i < r.messages.size(); ++i) {
        const TimelineReport::Message& m = r.messages[i];
        t += std::string(i > 0 ? "," : "") + (i % 8 == 0 ? "\n    " : " ") + "[" + std::to_string(m.from_lane) +
             "," + us(m.sent) + "," + std::to_string(m.to_lane) + "," + us(m.received) + "]";
    }
    t += r.messages.empty() ? "],\n" : "\n  ],\n";
    t += "  \"iterations_us\": [";  // the key region's ends: T0 and T1 are the run's ends
    for (std::size_t i = 1; i + 1 < iteration_bounds.size(); ++i)
        t += (i > 1 ? ", " : "") + us(iteration_bounds[i]);
    t += "]\n}\n";
    return t;
}

}  // namespace strata::analysis::trace
