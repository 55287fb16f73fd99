// SPDX-License-Identifier: BSD-3-Clause
// The wait-state report (see wait_state_report.hpp).
#include "trace/wait_state_report.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "analyze/report_format.hpp"

namespace strata::analysis::trace {

namespace {

WaitMetric metric_at(std::size_t i) {
    return static_cast<WaitMetric>(i);
}

std::string seconds_text(const TraceReport& r, std::int64_t ticks) {
    return format_number(r.seconds(ticks));
}

/// Per call path and per partner, the ticks of one metric, largest first (ties by name / rank).
struct Breakdown {
    std::vector<std::pair<std::string, std::int64_t>> callpaths;
    std::vector<std::pair<std::int64_t, std::int64_t>> partners;
};

Breakdown breakdown(const TraceReport& r, WaitMetric metric) {
    std::map<std::string, std::int64_t> paths;
    std::map<std::int64_t, std::int64_t> partners;
    for (const WaitStateRow& row : r.waits.rows) {
        if (row.metric != metric) continue;
        paths[row.callpath] += row.ticks;
        partners[row.partner] += row.ticks;
    }
    Breakdown b;
    b.callpaths.assign(paths.begin(), paths.end());
    b.partners.assign(partners.begin(), partners.end());
    std::stable_sort(b.callpaths.begin(), b.callpaths.end(),
                     [](const auto& a, const auto& c) { return a.second > c.second; });
    std::stable_sort(b.partners.begin(), b.partners.end(),
                     [](const auto& a, const auto& c) { return a.second > c.second; });
    return b;
}

std::string counts_json(const TraceReport& r) {
    const TraceCounts& c = r.counts;
    return "{\"events\": " + std::to_string(c.events) +
           ", \"messages_matched\": " + std::to_string(c.messages_matched) +
           ", \"sends_unmatched\": " + std::to_string(c.sends_unmatched) +
           ", \"receives_unmatched\": " + std::to_string(c.receives_unmatched) +
           ", \"clock_violations\": " + std::to_string(c.clock_violations) +
           ", \"collective_clock_violations\": " + std::to_string(c.collective_clock_violations) +
           ", \"collectives_matched\": " + std::to_string(c.collectives_matched) +
           ", \"collectives_incomplete\": " + std::to_string(c.collectives_incomplete) +
           ", \"unresolved_events\": " + std::to_string(c.unresolved) +
           ", \"unbalanced_leaves\": " + std::to_string(c.unbalanced) +
           ", \"unterminated_regions\": " + std::to_string(c.unterminated) + "}";
}

std::string logical_clock_json(const TraceReport& r) {
    const TraceCounts& c = r.counts;
    return "{\"rounds\": " + std::to_string(c.clock_rounds) +
           ", \"conditions_violated\": " + std::to_string(c.clock_conditions_violated) +
           ", \"ranks_moved\": " + std::to_string(c.clock_ranks_moved) +
           ", \"mpi_times\": " + std::to_string(c.clock_times_checked) +
           ", \"mpi_times_moved\": " + std::to_string(c.clock_times_moved) +
           ", \"largest_move_s\": " + seconds_text(r, c.clock_largest_move) +
           ", \"mean_move_s\": " +
           (c.clock_times_moved == 0 ? std::string("0")
                                     : seconds_text(r, c.clock_move_sum / static_cast<std::int64_t>(c.clock_times_moved))) +
           ", \"clock_violations_left\": " + std::to_string(c.clock_violations_left) +
           ", \"collective_clock_violations_left\": " + std::to_string(c.collective_clock_violations_left) + "}";
}

std::string skipped_json(const TraceReport& r) {
    std::string t = "[";
    for (std::size_t i = 0; i < r.skipped.size(); ++i) t += (i > 0 ? ", " : "") + json_string(r.skipped[i]);
    return t + "]";
}

}  // namespace

std::string waitstates_csv(const TraceReport& r) {
    std::string t = "metric,callpath,rank,partner,time_s,instances\n";
    for (const WaitStateRow& row : r.waits.rows) {
        t += std::string(metric_name(row.metric)) + "," + csv_field(row.callpath) + "," +
             std::to_string(row.rank) + "," + (row.partner >= 0 ? std::to_string(row.partner) : "") + "," +
             seconds_text(r, row.ticks) + "," + std::to_string(row.instances) + "\n";
    }
    return t;
}

std::string waitstates_summary_json(const TraceReport& r) {
    std::string t = "{\"mpi_time_s\": " + seconds_text(r, r.mpi_ticks) +
                    ", \"locations\": " + std::to_string(r.locations) +
                    ", \"locations_read\": " + std::to_string(r.locations_read) + ", \"totals\": {";
    for (std::size_t m = 0; m < wait_metric_count; ++m) {
        t += std::string(m > 0 ? ", " : "") + json_string(metric_name(metric_at(m))) +
             ": {\"time_s\": " + seconds_text(r, r.waits.total_ticks[m]) +
             ", \"instances\": " + std::to_string(r.waits.total_instances[m]) +
             ", \"definition\": " + json_string(metric_definition(metric_at(m))) + "}";
    }
    std::string cut = "[", stops = "[";
    for (std::size_t i = 0; i < r.timeline_cut.size(); ++i)
        cut += (i > 0 ? ", " : "") + json_string(r.timeline_cut[i]);
    for (std::size_t i = 0; i < r.trace_stops.size(); ++i)
        stops += (i > 0 ? ", " : "") + json_string(r.trace_stops[i]);
    return t + "}, \"counts\": " + counts_json(r) + ", \"logical_clock\": " + logical_clock_json(r) +
           ", \"skipped\": " + skipped_json(r) +
           ", \"timeline_cut\": " + cut + "], \"trace_stops\": " + stops + "]}";
}

std::string waitstates_json(const TraceReport& r) {
    std::string t = "{\n  \"report\": \"waitstates\",\n";
    t +=
        "  \"definitions\": {\"times\": \"seconds on rank 0's clock: each location's timestamps corrected by "
        "linear interpolation between its ClockOffset points, then, where a clock condition was violated, moved "
        "later by the controlled logical clock (summary.logical_clock; counts.clock_violations and "
        "collective_clock_violations are those of the trace as written)\", \"mpi_time\": \"time in outermost MPI calls "
        "summed over all ranks, MPI_Init/MPI_Init_thread/MPI_Finalize apart\"},\n";
    t += "  \"timer_resolution\": " + std::to_string(r.timer_resolution) + ",\n";
    t += "  \"ranks\": " + std::to_string(r.ranks) + ",\n";
    t += "  \"summary\": " + waitstates_summary_json(r) + ",\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.waits.rows.size(); ++i) {
        const WaitStateRow& row = r.waits.rows[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"metric\": " + json_string(metric_name(row.metric)) +
             ", \"callpath\": " + json_string(row.callpath) + ", \"rank\": " + std::to_string(row.rank) +
             ", \"partner\": " + (row.partner >= 0 ? std::to_string(row.partner) : "null") +
             ", \"time_s\": " + seconds_text(r, row.ticks) +
             ", \"instances\": " + std::to_string(row.instances) + "}";
    }
    t += r.waits.rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

std::string waitstates_summary_csv(const TraceReport& r) {
    std::string t = "wait_states,mpi_time," + seconds_text(r, r.mpi_ticks) +
                    ",s,time in outermost MPI calls summed over all ranks (MPI_Init/Finalize apart)\n";
    for (std::size_t m = 0; m < wait_metric_count; ++m) {
        t += std::string("wait_states,") + metric_name(metric_at(m)) + "," +
             seconds_text(r, r.waits.total_ticks[m]) + ",s," + csv_field(metric_definition(metric_at(m))) + "\n";
    }
    return t;
}

namespace {

/// The locations read, and what of the trace was skipped, cut or stopped.
std::string what_was_read(const TraceReport& r) {
    std::string t = "  Locations read " + std::to_string(r.locations_read) + " of " + std::to_string(r.locations) + "\n";
    for (const std::string& s : r.skipped) t += "  Skipped: " + s + "\n";
    for (const std::string& s : r.timeline_cut) t += "  Timeline cut: " + s + "\n";
    for (const std::string& s : r.trace_stops) t += "  Trace stops: " + s + "\n";
    return t;
}

/// No MPI time and no message or collective: nothing for the patterns to look at.
bool trace_without_mpi(const TraceReport& r) {
    const TraceCounts& c = r.counts;
    std::uint64_t waits = 0;  // MPI_Finalize's, in a program that calls MPI for nothing else
    for (const std::uint64_t n : r.waits.total_instances) waits += n;
    return r.mpi_ticks <= 0 && waits == 0 &&
           c.messages_matched + c.sends_unmatched + c.receives_unmatched + c.collectives_matched +
                   c.collectives_incomplete ==
               0;
}

}  // namespace

std::string waitstates_text(const TraceReport& r) {
    if (trace_without_mpi(r)) {
        std::string t = "Wait states: none to look for: the trace holds no MPI call (the patterns need messages "
                        "or collectives; waitstates.csv has their zeros)\n";
        return t + what_was_read(r);
    }
    std::string t = "Wait states (from the trace; times on rank 0's clock, summed over all ranks; MPI time " +
                    text_seconds(r.seconds(r.mpi_ticks)) + "):\n";
    for (std::size_t m = 0; m < wait_metric_count; ++m) {
        const WaitMetric metric = metric_at(m);
        std::string line = "  " + std::string(metric_name(metric));
        line.append(line.size() < 20 ? 20 - line.size() : 1, ' ');
        std::string value = text_seconds(r.seconds(r.waits.total_ticks[m]));
        value.insert(0, value.size() < 14 ? 14 - value.size() : 0, ' ');
        t += line + value + "  in " + std::to_string(r.waits.total_instances[m]) +
             (r.waits.total_instances[m] == 1 ? " call\n" : " calls\n");
        t += "      " + std::string(metric_definition(metric)) + "\n";
    }
    const TraceCounts& c = r.counts;
    t += "  Messages matched " + std::to_string(c.messages_matched) +
         " (unmatched: " + std::to_string(c.sends_unmatched) + " sends, " +
         std::to_string(c.receives_unmatched) + " receives); clock-condition violations " +
         std::to_string(c.clock_violations) + " in messages, " + std::to_string(c.collective_clock_violations) +
         " in collectives; collectives matched " +
         std::to_string(c.collectives_matched) + " (incomplete " + std::to_string(c.collectives_incomplete) +
         ")\n";
    if (c.clock_rounds > 0) {
        t += "  Controlled logical clock: " + std::to_string(c.clock_conditions_violated) +
             " violated clock conditions corrected in " + std::to_string(c.clock_rounds) +
             (c.clock_rounds == 1 ? " round: " : " rounds: ") + std::to_string(c.clock_times_moved) + " of " +
             std::to_string(c.clock_times_checked) + " MPI times on " + std::to_string(c.clock_ranks_moved) +
             (c.clock_ranks_moved == 1 ? " rank" : " ranks") + " moved later, by at most " +
             text_seconds(r.seconds(c.clock_largest_move)) + " (mean " +
             text_seconds(c.clock_times_moved == 0
                              ? 0.0
                              : r.seconds(c.clock_move_sum) / static_cast<double>(c.clock_times_moved)) +
             "); violations left: " + std::to_string(c.clock_violations_left) + " in messages, " +
             std::to_string(c.collective_clock_violations_left) + " in collectives\n";
    } else if (c.clock_violations + c.collective_clock_violations > 0) {
        t += "  The times were not corrected (--no-logical-clock): the wait states of the calls that violate "
             "the clock condition are not reliable\n";
    }
    return t + what_was_read(r);
}

std::vector<Finding> wait_state_findings(const TraceReport& r, double threshold) {
    std::vector<Finding> findings;
    for (std::size_t m = 0; m < wait_metric_count; ++m) {
        const WaitMetric metric = metric_at(m);
        if (r.waits.total_ticks[m] <= 0) continue;
        const double total_s = r.seconds(r.waits.total_ticks[m]);
        // The MPI time leaves MPI_Finalize out: its wait is compared with the MPI time and itself.
        const bool finalize = info(metric).call == WaitCall::init_exit;
        const double mpi_s = r.seconds(r.mpi_ticks) + (finalize ? total_s : 0.0);
        if (mpi_s <= 0) continue;
        const double share = total_s / mpi_s;
        if (share < threshold) continue;
        const Breakdown b = breakdown(r, metric);
        Finding f;
        f.kind = metric_name(metric);
        f.callpath = b.callpaths.front().first;
        const auto slash = f.callpath.rfind('/');
        f.region = slash == std::string::npos ? f.callpath : f.callpath.substr(slash + 1);
        f.metric = "share_of_mpi_time";
        f.value = share;
        f.threshold = threshold;
        f.time_s = total_s;
        std::string partners;
        for (std::size_t i = 0; i < b.partners.size() && i < 3; ++i) {
            if (b.partners[i].first < 0) continue;
            f.ranks.push_back(b.partners[i].first);
            partners += std::string(partners.empty() ? "" : ", ") + "rank " +
                        std::to_string(b.partners[i].first) + " (" +
                        text_seconds(r.seconds(b.partners[i].second)) + ")";
        }
        const bool dominant =
            std::max_element(r.waits.total_ticks.begin(), r.waits.total_ticks.end()) - r.waits.total_ticks.begin() ==
            static_cast<std::ptrdiff_t>(m);
        const std::string blame = "; " + std::string(info(metric).blamed) + ": " + partners;
        // "dominate" only for half of the MPI time or more; the largest below that is said to be the largest.
        const bool plural = info(metric).plural;
        std::string verb = plural ? " cost " : " costs ";
        if (share >= 0.5) {
            verb = plural ? " dominate MPI time: " : " dominates MPI time: ";
        } else if (dominant) {
            verb = plural ? " are the largest wait state: " : " is the largest wait state: ";
        }
        std::string subject = metric_words(metric);
        // Capitalised: the finding begins with it.
        subject[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(subject[0])));
        f.message = subject + verb + text_seconds(total_s) + " of " + text_seconds(mpi_s) +
                    (finalize ? " MPI time with this wait (" : " MPI time (") + text_percent(share) +
                    "), mostly in call path " + display_name(f.callpath) + " (" +
                    text_seconds(r.seconds(b.callpaths.front().second)) + ")" + blame + " [" +
                    metric_definition(metric) + "]";
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace strata::analysis::trace
