// SPDX-License-Identifier: BSD-3-Clause
// The partial results of the analysis ranks combined on rank 0 into the
// TraceReport (exact sums, sorted: the same for any number of analysis ranks),
// and what the iteration plan adds to it (see wait_state_analysis.hpp).
#include "trace/wait_state_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <tuple>

#include "trace/byte_codec.hpp"

namespace strata::analysis::trace {

namespace {

/// Text order with digit runs compared as numbers ("rank 2" before "rank 10").
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) &&
            std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ei = i, ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
            const std::string_view x = std::string_view(a).substr(i, ei - i),
                                   y = std::string_view(b).substr(j, ej - j);
            const auto trim = [](std::string_view v) {
                return v.substr(std::min(v.find_first_not_of('0'), v.size()));
            };
            const std::string_view tx = trim(x), ty = trim(y);
            if (tx.size() != ty.size()) return tx.size() < ty.size();
            if (tx != ty) return tx < ty;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

}  // namespace

TraceReport combine_partials(const std::vector<std::string>& partials,
                                 const TraceDefinitions& definitions, const TraceAnalysisOptions& options) {
    TraceReport report;
    report.timer_resolution = definitions.timer_resolution;
    report.ranks = trace_rank_layout(definitions).ranks.size();
    for (const TracePass& pass : trace_passes())
        if (pass.start) pass.start(report, definitions, options);
    for (const std::string& p : partials) {
        ByteReader in(p);
        const auto c = in.get<TraceCounts>();
        TraceCounts& t = report.counts;
        t.events += c.events;
        t.messages_matched += c.messages_matched;
        t.sends_unmatched += c.sends_unmatched;
        t.receives_unmatched += c.receives_unmatched;
        t.clock_violations += c.clock_violations;
        t.collective_clock_violations += c.collective_clock_violations;
        t.collectives_matched += c.collectives_matched;
        t.collectives_incomplete += c.collectives_incomplete;
        t.unresolved += c.unresolved;
        t.unbalanced += c.unbalanced;
        t.unterminated += c.unterminated;
        t.clock_rounds = std::max(t.clock_rounds, c.clock_rounds);
        t.clock_conditions_violated += c.clock_conditions_violated;
        t.clock_violations_left += c.clock_violations_left;
        t.collective_clock_violations_left += c.collective_clock_violations_left;
        t.clock_ranks_moved += c.clock_ranks_moved;
        t.clock_times_checked += c.clock_times_checked;
        t.clock_times_moved += c.clock_times_moved;
        t.clock_largest_move = std::max(t.clock_largest_move, c.clock_largest_move);
        t.clock_move_sum += c.clock_move_sum;
        report.locations += in.get<std::uint64_t>();
        report.locations_read += in.get<std::uint64_t>();
        report.mpi_ticks += in.get<std::int64_t>();
        for (auto* notes : {&report.skipped, &report.timeline_cut, &report.trace_stops}) {
            const auto n_notes = in.get<std::uint64_t>();
            for (std::uint64_t i = 0; i < n_notes; ++i) notes->push_back(in.get_string());
        }
        for (const TracePass& pass : trace_passes())
            if (pass.add_partial) pass.add_partial(report, in);
    }
    for (const TracePass& pass : trace_passes())
        if (pass.finish) pass.finish(report, options);
    std::sort(report.skipped.begin(), report.skipped.end(), natural_less);
    std::sort(report.timeline_cut.begin(), report.timeline_cut.end(), natural_less);
    std::sort(report.trace_stops.begin(), report.trace_stops.end(), natural_less);
    return report;
}

void add_iterations(TraceReport& report, const IterationPlan& plan) {
    report.iterations = iteration_report(plan, report.timer_resolution);
    add_gpu_iterations(report.iterations, report.gpu.iterations);
    report.gpu.restricted = plan.restricted;
    report.gpu.first_iteration = plan.first;
    report.gpu.last_iteration = plan.last;
    report.ops.restricted = plan.restricted;
    report.ops.first_iteration = plan.first;
    report.ops.last_iteration = plan.last;
    finish_step_trace(report.steps, report.iterations);
    finish_gpu_metric_report(report.gpu_metrics, plan);
}

}  // namespace strata::analysis::trace
