// SPDX-License-Identifier: BSD-3-Clause
// The trace analysis of one analysis rank, as bulk-synchronous phases
// around two exchanges, so that no rank ever holds the whole trace:
//
//   read             replay the units this rank is handed (UnitDispenser:
//                    blocks of measured ranks, whichever rank asks first; a
//                    rank's GPU streams and GPU metric locations go with it);
//                    number messages and collective calls per measured rank
//   ownership        which analysis rank read which units, to every rank
//   iterations       every rank's key-region ends go to every analysis rank,
//                    which all compute the same plan (iterations.hpp) and the
//                    window of --iter-start/--iter-stop
//   messages         every send's post time goes to the analysis rank of its
//                    receiver, every receive's post time to that of its sender
//                    (keyed by communicator, source, destination, tag, seq);
//                    each side joins them with its own records and hands
//                    each blocking call to the patterns (derived_events.hpp):
//                    receiver -> late_sender,  sender -> late_receiver
//   collectives      each call's E goes to the owner of its instance
//                    (communicator, seq; every rank's MPI_Finalize is one
//                    instance of all ranks); the owner answers every member
//                    with max E, the last rank and E_root; each member
//                    computes its own wait with its own X
//   logical clock    where any of them found a clock condition violated:
//                    rounds of the controlled logical clock to a fixpoint
//                    (logical_clock.hpp), every rank's move to every analysis
//                    rank, and the phases from the read on once more, on the
//                    moved times (counts say what the trace had and what is left)
//   partial          rows, totals and counts, the GPU sums of the share's
//                    streams (gpu_analysis.hpp) and its GPU metric samples
//                    (gpu_metrics.hpp), gathered on rank 0 and combined
//                    (exact integer sums, sorted): identical for any K
//
// Wait states count when the waiting call entered inside the window.
//
//   run_trace_analysis() drives the phases over an Exchange (MPI in
//   strata-analyze); analyze_trace_in_process() runs K shares in one process.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "analyze/rank_layout.hpp"
#include "trace/derived_events.hpp"
#include "trace/gpu_analysis.hpp"
#include "trace/iterations.hpp"
#include "trace/location_replay.hpp"
#include "trace/logical_clock.hpp"
#include "trace/message_exchange.hpp"
#include "trace/op_analysis.hpp"
#include "trace/timeline_overview.hpp"
#include "trace/timeline_writer.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_passes.hpp"
#include "trace/trace_records.hpp"
#include "trace/trace_report.hpp"

namespace strata::analysis::trace {

/// Where one analysis rank writes its part of trace.json ("" : no timeline).
struct TimelineOptions {
    std::string part;          ///< this rank's part file
    std::uint64_t events = 0;  ///< slices in the whole timeline at most (split evenly over the locations)
};

/// One analysis rank's part of the trace analysis.
class TraceShareAnalysis {
public:
    TraceShareAnalysis(const TraceDefinitions& definitions, std::size_t analysis_rank,
                       std::size_t analysis_ranks, const TraceAnalysisOptions& options = {});

    /// Also writes this share's part of trace.json during read().
    void write_timeline(const TimelineOptions& options) { timeline_ = options; }

    /// The units of the read phase (blocks of measured ranks, in rank order).
    std::size_t unit_count() const { return units_.size(); }
    /// The units largest first, by the bytes of their event files (ties in
    /// rank order): handed out in this order, the last units read are small
    /// ones and the analysis ranks finish close together.  One stat() per
    /// location: only the rank that hands the units out asks.
    std::vector<std::int64_t> unit_order() const;

    /// Replays the units `units` hands this rank; unreadable locations are noted and skipped.
    void read(UnitDispenser& units);

    /// Phase "ownership": the units read here, to every rank; who read each measured rank.
    std::vector<std::string> ownership_outbox() const;
    void ownership_inbox(const std::vector<std::string>& inbox);

    /// Phase "iterations": every rank's key-region ends (and, to rank 0, the
    /// visit counts); the plan every rank then agrees on, and its window.
    std::vector<std::string> iteration_outbox() const;
    void iteration_inbox(const std::vector<std::string>& inbox);
    const IterationPlan& plan() const { return plan_; }

    /// Phase "messages": what goes to each analysis rank, then what came back.
    std::vector<std::string> message_outbox() const;
    void message_inbox(const std::vector<std::string>& inbox);

    /// Phase "collectives": calls to the instance owners; the owners' answers; their use.
    std::vector<std::string> collective_outbox() const;
    std::vector<std::string> collective_answers(const std::vector<std::string>& inbox);
    void collective_inbox(const std::vector<std::string>& inbox);

    /// Phase "logical clock" (logical_clock.hpp): whether this rank's records
    /// violate a clock condition (after the collective phase); then rounds of
    /// clock_outbox() to every rank, clock_answers() from the instance owners,
    /// clock_enforce() (true: it moved a time), while any rank moved one.
    bool clock_violated() const;
    std::vector<std::string> clock_outbox();
    std::vector<std::string> clock_answers(const std::vector<std::string>& inbox);
    bool clock_enforce(const std::vector<std::string>& inbox);
    std::uint64_t clock_rounds() const;
    /// This rank's moves, for every analysis rank.
    std::string clock_shifts() const;
    /// Takes every rank's moves and forgets the first read; true when a time
    /// moves: then read() and the phases after it run again on the moved times.
    bool move_clocks(const std::vector<std::string>& inbox);

    /// This rank's rows, totals and counts.
    std::string partial() const;

private:
    /// One unit of the read phase.
    struct Unit {
        std::vector<std::uint32_t> ranks;    ///< measured (world) ranks
        std::vector<std::size_t> locations;  ///< by rank, then thread, GPU stream, GPU metric location
    };
    void replay_share(UnitDispenser& units);
    /// The logical clock's move of measured rank `rank`, nullptr none.
    const LogicalShift* shift_of(std::int64_t rank) const;
    LogicalClock& logical_clock();
    /// Launch flows in trace.json for the records of one rank (since `from`).
    void launch_flows(TimelineWriter& timeline, const RecordMarks& from) const;
    /// What the callbacks on the derived events of one exchange share (derived_events.hpp).
    DerivedContext derived_context() {
        return DerivedContext{records_, waits_, counts_, plan_.window_begin, plan_.window_end, {}};
    }

    const TraceDefinitions& definitions_;
    std::size_t me_, k_;
    TraceAnalysisOptions options_;
    KeyChoice key_;
    IterationPlan plan_;
    std::vector<Unit> units_;
    std::vector<std::int64_t> taken_;          ///< the units this rank was handed (read or not), ascending
    std::vector<std::int64_t> owner_of_rank_;  ///< world rank -> analysis rank, -1 none (after ownership)
    std::map<std::size_t, std::size_t> thread_of_;  ///< location -> its position among its rank's locations
    TimelineOptions timeline_;
    TimelinePlan timeline_plan_;  ///< report.html's timeline: its lanes and window
    ShareRecords records_;
    ChargedWaits waits_;  ///< what the wait-state patterns charged
    TraceCounts counts_;
    std::size_t locations_read_ = 0;
    std::unique_ptr<LogicalClock> clock_;           ///< during the logical clock's rounds
    std::map<std::uint32_t, LogicalShift> shifts_;  ///< every measured rank's move, once known
    /// Once the logical clock moved the times: what it did, and the clock
    /// violations (messages, collectives) of the trace as written.
    LogicalClockSummary clock_done_;
    std::array<std::uint64_t, 2> measured_violations_{};
    bool moved_ = false;
};

/// A collective call, travelling to its instance's owner (the collective
/// phase, and the logical clock's rounds).
struct CallNote {
    std::uint32_t comm = 0;
    std::uint64_t seq = 0;
    std::uint32_t rank = 0;
    std::uint32_t op = 0;
    std::int64_t root = -1;
    Ticks enter = 0;
};

/// The owner's answer to one member of an instance.
struct CallAnswer {
    std::uint32_t comm = 0;
    std::uint64_t seq = 0;
    std::uint32_t rank = 0;
    std::uint8_t complete = 0;
    Ticks latest = 0;             ///< max over members of E
    std::int64_t last_rank = -1;  ///< the member with that E (lowest rank on ties)
    Ticks root_enter = no_time;
};

/// The analysis rank that owns collective instance (comm, seq) among `k`.
std::size_t collective_owner(std::uint32_t comm, std::uint64_t seq, std::size_t k);

/// Combines every rank's partial() into the report.
TraceReport combine_partials(const std::vector<std::string>& partials,
                                 const TraceDefinitions& definitions,
                                 const TraceAnalysisOptions& options = {});

/// The iteration report from a plan, placed in `report` with the GPU range.
void add_iterations(TraceReport& report, const IterationPlan& plan);

/// Runs every phase over `exchange`; the report on rank 0 (empty elsewhere).
/// With `timeline.part` set, each rank writes its part of trace.json there
/// (rank r: part + "." + r); join them with join_timeline().
TraceReport run_trace_analysis(const TraceDefinitions& definitions, Exchange& exchange,
                                   const TimelineOptions& timeline = {},
                                   const TraceAnalysisOptions& options = {});

/// The same for `shares` shares in one process (the tests' form of K ranks).
TraceReport analyze_trace_in_process(const TraceDefinitions& definitions, std::size_t shares,
                                         const TimelineOptions& timeline = {},
                                         const TraceAnalysisOptions& options = {});

/// The part file of analysis rank `rank` for `timeline` (and, beside it,
/// the index of its units: TimelineWriter::begin_unit()).
std::string timeline_part(const TimelineOptions& timeline, std::size_t rank);

/// Removes the part of analysis rank `rank` and its index.
void remove_timeline_part(const TimelineOptions& timeline, std::size_t rank);

/// Writes trace.json at `path` from the parts of `ranks` analysis ranks, unit
/// by unit in unit order (so in rank order, whoever read them), and removes
/// them.  False (and the parts removed) when a part or its index is missing or
/// damaged, or the file cannot be written.
bool join_timeline(const TimelineOptions& timeline, std::size_t ranks, const std::string& path);

}  // namespace strata::analysis::trace
