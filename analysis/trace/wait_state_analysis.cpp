// SPDX-License-Identifier: BSD-3-Clause
// The phases of the trace analysis (see wait_state_analysis.hpp): the read,
// the ownership, iteration and logical clock phases and the partial; the
// message and collective phases, which find the wait states, are
// wait_state_matching.cpp's.
#include "trace/wait_state_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <stdexcept>
#include <tuple>

#include "trace/byte_codec.hpp"
#include "trace/location_replay.hpp"
#include "trace/otf2_reader.hpp"
#include "trace/timeline_writer.hpp"

namespace strata::analysis::trace {

TraceShareAnalysis::TraceShareAnalysis(const TraceDefinitions& definitions, std::size_t analysis_rank,
                                       std::size_t analysis_ranks, const TraceAnalysisOptions& options)
    : definitions_(definitions),
      me_(analysis_rank),
      k_(analysis_ranks),
      options_(options),
      key_(choose_key_region(definitions, options.iterations)) {
    const RankLayout layout = trace_rank_layout(definitions);
    // Streams follow the rank's threads in trace.json too.
    thread_of_ = timeline_tracks(definitions);
    timeline_plan_ = plan_timeline(definitions, thread_of_, options.timeline_view);
    // A rank's GPU streams are read after its CPU threads, so the launches are known;
    // its GPU metric locations last (they need nothing of the others).
    std::map<std::int64_t, std::vector<std::size_t>> streams, metrics;
    for (std::size_t i = 0; i < definitions.locations.size(); ++i) {
        const TraceLocation& l = definitions.locations[i];
        if (l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM && l.rank >= 0) streams[l.rank].push_back(i);
        if (is_gpu_metric_location(l) && l.rank >= 0) metrics[l.rank].push_back(i);
    }
    std::size_t world = definitions.world_size;
    for (const MeasuredRank& r : layout.ranks) world = std::max<std::size_t>(world, r.rank + 1);
    owner_of_rank_.assign(world, -1);
    // Units: blocks of measured ranks, split as analysis_share() splits them among
    // ranks, 16 per analysis rank, so that handing them out on request evens out
    // the ranks' speeds, while a request (which waits for up to one batch of
    // events on rank 0) stays rare.
    const std::size_t unit_count = std::min(layout.ranks.size(), 16 * std::max<std::size_t>(1, k_));
    for (std::size_t u = 0; u < unit_count; ++u) {
        const AnalysisShare share = analysis_share(layout, u, unit_count);
        Unit unit;
        for (std::size_t i = share.first_rank; i < share.first_rank + share.rank_count; ++i) {
            const MeasuredRank& r = layout.ranks[i];
            unit.ranks.push_back(r.rank);
            for (std::size_t t = 0; t < r.columns.size(); ++t) unit.locations.push_back(r.columns[t]);
            for (std::size_t s : streams[r.rank]) unit.locations.push_back(s);
            // No track in trace.json: samples are no slices.
            for (std::size_t m : metrics[r.rank]) unit.locations.push_back(m);
        }
        if (!unit.ranks.empty()) units_.push_back(std::move(unit));
    }
}

void TraceShareAnalysis::read(UnitDispenser& units) {
    // Nothing may escape: the other analysis ranks are about to wait for this one in an exchange.
    std::string problem;
    try {
        replay_share(units);
    } catch (const std::bad_alloc&) {
        problem = "out of memory while replaying its locations";
    } catch (const std::exception& error) {
        problem = error.what();
    }
    if (!problem.empty()) {
        records_ = ShareRecords{};
        locations_read_ = 0;
        records_.skipped.push_back("analysis rank " + std::to_string(me_) + ": " + problem +
                                   "; its locations were skipped (use more analysis ranks)");
    }
    // After a failure: no more units for this rank; those nobody took stay here, unread.
    for (const std::int64_t unit : units.stop()) taken_.push_back(unit);
}

void TraceShareAnalysis::replay_share(UnitDispenser& units) {
    records_.key_region = key_.is_key;
    records_.keep_mpi_intervals = options_.iterations.start >= 0 || options_.iterations.stop >= 0;
    // The step trace cuts each rank's MPI time per iteration (16 + 4 bytes per outermost MPI call).
    // So do the ops (op_analysis.hpp): only a trace with GPU streams has an ops report.
    for (const TraceLocation& l : definitions_.locations) {
        if (l.type != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) continue;
        records_.keep_mpi_intervals = true;
        records_.keep_op_instances = true;
    }
    // Every rank writes its part, empty or not, so rank 0 finds all K.
    std::unique_ptr<TimelineRecorder> recorder;  // report.html's timeline, fed by the writer
    std::unique_ptr<TimelineWriter> timeline;
    if (!timeline_.part.empty()) {
        std::size_t cpu_locations = 0;  // and GPU streams of ranks with a CPU location: the timeline's tracks
        for (const Unit& u : units_)
            for (std::size_t i : u.locations) cpu_locations += thread_of_.count(i);
        const std::uint64_t cap =
            std::max<std::uint64_t>(1, timeline_.events / std::max<std::size_t>(1, cpu_locations));
        recorder = std::make_unique<TimelineRecorder>(timeline_plan_, definitions_, records_);
        timeline = std::make_unique<TimelineWriter>(timeline_.part, definitions_, cap);
        timeline->record_into(recorder.get());
        if (!timeline->ok()) records_.timeline_cut.push_back(timeline_.part + ": cannot be written");
    }
    struct Finish {  // on every way out, also when an exception leaves
        std::unique_ptr<TimelineWriter>& timeline;
        ShareRecords& records;
        const std::string& part;
        ~Finish() {
            try {
                if (timeline && !timeline->finish())
                    records.timeline_cut.push_back(part + ": cannot be written");
            } catch (const std::exception&) {  // out of memory: read() says so already
            }
        }
    } finish{timeline, records_, timeline_.part};
    std::int64_t unit = units.next();
    if (unit < 0) return;
    Otf2Reader reader(definitions_.anchor);
    if (!reader.ok()) {
        taken_.push_back(unit);
        records_.skipped.push_back(*reader.error() + " (analysis rank " + std::to_string(me_) +
                                   ": its locations were skipped)");
        return;
    }
    // Every location may come to this rank: all are selected (their files are opened when read).
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (const Unit& u : units_) {
        for (std::size_t i : u.locations) {
            if (rc == OTF2_SUCCESS)
                rc = OTF2_Reader_SelectLocation(reader.get(), definitions_.locations[i].id);
        }
    }
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_OpenEvtFiles(reader.get());
    const OTF2_ErrorCode defs = rc == OTF2_SUCCESS ? OTF2_Reader_OpenDefFiles(reader.get()) : rc;
    if (rc != OTF2_SUCCESS || defs != OTF2_SUCCESS) {
        taken_.push_back(unit);
        records_.skipped.push_back(definitions_.anchor + ": cannot open the event or definition files: " +
                                   describe_otf2(rc != OTF2_SUCCESS ? rc : defs));
        return;
    }
    const std::function<void()> serve = [&units] { units.serve(); };
    for (; unit >= 0; unit = units.next()) {
        taken_.push_back(unit);
        const Unit& u = units_[static_cast<std::size_t>(unit)];
        if (timeline) timeline->begin_unit(static_cast<std::uint64_t>(unit));
        // One measured rank at a time (its locations are consecutive): replay,
        // number, then its messages' flows.
        for (std::size_t next = 0; next < u.locations.size();) {
            const RecordMarks marks = record_marks(records_);
            const std::int64_t rank = definitions_.locations[u.locations[next]].rank;
            for (; next < u.locations.size() && definitions_.locations[u.locations[next]].rank == rank;
                 ++next) {
                const std::size_t i = u.locations[next];
                if (timeline && thread_of_.count(i) != 0) timeline->begin_location(i, thread_of_[i]);
                const LogicalShift* shift = shift_of(rank);
                const Error problem =
                    is_gpu_metric_location(definitions_.locations[i])
                        ? read_gpu_metrics(reader, definitions_, i, records_, serve, shift)
                        : replay_location(reader, definitions_, i, records_, timeline.get(), serve,
                                          options_.decode_directly, shift);
                if (!problem) {
                    ++locations_read_;
                } else {
                    records_.skipped.push_back(*problem);
                }
            }
            number_records(records_, marks);
            if (!timeline) continue;
            for (std::size_t m = marks.sends; m < records_.sends.size(); ++m) {
                const MessageSide& send = records_.sends[m];
                if (!send.cancelled)
                    timeline->flow(message_key(records_, send, true), send.event, true,
                                   thread_of_[send.location]);
            }
            for (std::size_t m = marks.receives; m < records_.receives.size(); ++m) {
                const MessageSide& receive = records_.receives[m];
                timeline->flow(message_key(records_, receive, false), receive.event, false,
                               thread_of_[receive.location]);
            }
            launch_flows(*timeline, marks);
        }
    }
    const OTF2_ErrorCode closed_defs = OTF2_Reader_CloseDefFiles(reader.get());
    const OTF2_ErrorCode closed_events = OTF2_Reader_CloseEvtFiles(reader.get());
    if (closed_defs != OTF2_SUCCESS || closed_events != OTF2_SUCCESS) {
        records_.skipped.push_back(definitions_.anchor + ": cannot close the event or definition files: " +
                                   describe_otf2(closed_defs != OTF2_SUCCESS ? closed_defs : closed_events));
    }
}

std::vector<std::int64_t> TraceShareAnalysis::unit_order() const {
    std::vector<std::uintmax_t> bytes(units_.size(), 0);
    for (std::size_t u = 0; u < units_.size(); ++u) {
        for (const std::size_t i : units_[u].locations) {
            std::error_code missing;  // a missing file is reported when the unit is read
            const std::uintmax_t size = std::filesystem::file_size(
                event_file_path(definitions_.anchor, definitions_.locations[i].id), missing);
            if (!missing) bytes[u] += size;
        }
    }
    std::vector<std::int64_t> order(units_.size());
    for (std::size_t u = 0; u < order.size(); ++u) order[u] = static_cast<std::int64_t>(u);
    std::stable_sort(order.begin(), order.end(), [&bytes](std::int64_t a, std::int64_t b) {
        return bytes[static_cast<std::size_t>(a)] > bytes[static_cast<std::size_t>(b)];
    });
    return order;
}

std::vector<std::string> TraceShareAnalysis::ownership_outbox() const {
    ByteWriter w;
    w.put<std::uint64_t>(taken_.size());
    for (const std::int64_t unit : taken_) w.put<std::uint64_t>(static_cast<std::uint64_t>(unit));
    return std::vector<std::string>(k_, w.bytes());
}

void TraceShareAnalysis::ownership_inbox(const std::vector<std::string>& inbox) {
    for (std::size_t a = 0; a < inbox.size(); ++a) {
        ByteReader in(inbox[a]);
        const auto n = in.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto unit = in.get<std::uint64_t>();
            if (unit >= units_.size()) throw std::runtime_error("ownership: unit out of range");
            for (const std::uint32_t rank : units_[unit].ranks)
                owner_of_rank_[rank] = static_cast<std::int64_t>(a);
        }
    }
}

void TraceShareAnalysis::launch_flows(TimelineWriter& timeline, const RecordMarks& from) const {
    // A flow from each launch on the host thread to its operation on the stream.
    std::map<std::uint64_t, const LaunchRecord*> launches;
    for (std::size_t i = from.launches; i < records_.launches.size(); ++i)
        launches.emplace(records_.launches[i].correlation, &records_.launches[i]);
    for (std::size_t i = from.gpu_ops; i < records_.gpu_ops.size(); ++i) {
        const GpuOp& op = records_.gpu_ops[i];
        const auto it = launches.find(op.correlation);
        if (op.correlation == 0 || it == launches.end()) continue;
        const auto rank = static_cast<std::uint32_t>(it->second->rank);
        timeline.launch_flow(rank, op.correlation, it->second->time, thread_of_.at(it->second->location),
                             true);
        timeline.launch_flow(rank, op.correlation, op.start, thread_of_.at(op.location), false);
    }
}

std::vector<std::string> TraceShareAnalysis::iteration_outbox() const {
    std::vector<std::string> boxes;
    for (std::size_t a = 0; a < k_; ++a) boxes.push_back(iteration_box(records_, a == 0));
    return boxes;
}

void TraceShareAnalysis::iteration_inbox(const std::vector<std::string>& inbox) {
    plan_ = make_plan(key_, inbox, definitions_, options_.iterations);
}

const LogicalShift* TraceShareAnalysis::shift_of(std::int64_t rank) const {
    const auto it = rank < 0 ? shifts_.end() : shifts_.find(static_cast<std::uint32_t>(rank));
    return it == shifts_.end() || it->second.empty() ? nullptr : &it->second;
}

bool TraceShareAnalysis::clock_violated() const {
    return counts_.clock_violations + counts_.collective_clock_violations > 0;
}

LogicalClock& TraceShareAnalysis::logical_clock() {
    if (!clock_) clock_ = std::make_unique<LogicalClock>(records_, definitions_, owner_of_rank_, k_);
    return *clock_;
}

std::vector<std::string> TraceShareAnalysis::clock_outbox() {
    return logical_clock().outbox();
}

std::vector<std::string> TraceShareAnalysis::clock_answers(const std::vector<std::string>& inbox) {
    return logical_clock().answers(inbox);
}

bool TraceShareAnalysis::clock_enforce(const std::vector<std::string>& inbox) {
    return logical_clock().enforce(inbox);
}

std::uint64_t TraceShareAnalysis::clock_rounds() const {
    return clock_ ? clock_->rounds() : 0;
}

std::string TraceShareAnalysis::clock_shifts() const {
    return clock_ ? clock_->shifts() : std::string();
}

bool TraceShareAnalysis::move_clocks(const std::vector<std::string>& inbox) {
    shifts_ = read_shifts(inbox);
    clock_done_ = clock_ ? clock_->summary() : LogicalClockSummary{};
    clock_.reset();
    measured_violations_ = {counts_.clock_violations, counts_.collective_clock_violations};
    moved_ = true;
    bool any = false;
    for (const auto& [rank, shift] : shifts_) any = any || !shift.empty();
    if (!any) return false;  // the counts of this read stand, with the rounds said
    // What the first read found goes; the read and the phases after it come again.
    records_ = ShareRecords{};
    waits_.clear();
    counts_ = TraceCounts{};
    locations_read_ = 0;
    taken_.clear();
    owner_of_rank_.assign(owner_of_rank_.size(), -1);
    plan_ = IterationPlan{};
    return true;
}

std::string TraceShareAnalysis::partial() const {
    ByteWriter w;
    TraceCounts counts = counts_;
    counts.events = records_.counts.events;
    counts.unresolved = records_.counts.unresolved;
    counts.unbalanced = records_.counts.unbalanced;
    counts.unterminated = records_.counts.unterminated;
    if (moved_) {  // the trace's own violations, what is left of them, and what moved
        counts.clock_violations_left = counts_.clock_violations;
        counts.collective_clock_violations_left = counts_.collective_clock_violations;
        counts.clock_violations = measured_violations_[0];
        counts.collective_clock_violations = measured_violations_[1];
        counts.clock_rounds = clock_done_.rounds;
        counts.clock_conditions_violated = clock_done_.conditions_violated;
        counts.clock_ranks_moved = clock_done_.ranks_moved;
        counts.clock_times_checked = clock_done_.times_checked;
        counts.clock_times_moved = clock_done_.times_moved;
        counts.clock_largest_move = clock_done_.largest_move;
        counts.clock_move_sum = clock_done_.move_sum;
    }
    w.put(counts);
    std::uint64_t locations = 0;  // of the units taken, read or not
    for (const std::int64_t unit : taken_)
        locations += units_[static_cast<std::size_t>(unit)].locations.size();
    w.put<std::uint64_t>(locations);
    w.put<std::uint64_t>(locations_read_);
    std::int64_t mpi = 0;
    if (plan_.restricted) {
        // The MPI time inside the iteration window, so that wait shares compare like with like.
        for (const auto& [enter, exit] : records_.mpi_intervals) {
            const Ticks from = std::max(enter, plan_.window_begin), to = std::min(exit, plan_.window_end);
            if (to > from) mpi += to - from;
        }
    } else {
        for (const auto& [rank, ticks] : records_.mpi_time) mpi += ticks;
    }
    w.put(mpi);
    for (const auto* notes : {&records_.skipped, &records_.timeline_cut, &records_.trace_stops}) {
        w.put<std::uint64_t>(notes->size());
        for (const std::string& s : *notes) w.put_string(s);
    }
    const ShareContext share{records_, waits_, definitions_, plan_, options_};
    for (const TracePass& pass : trace_passes())
        if (pass.put_partial) pass.put_partial(w, share);
    return std::move(w.bytes());
}

}  // namespace strata::analysis::trace
