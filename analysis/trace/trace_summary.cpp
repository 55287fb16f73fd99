// SPDX-License-Identifier: BSD-3-Clause
// The trace part of the reports (see trace_summary.hpp).
#include "trace/trace_summary.hpp"
#include "trace/trace_passes.hpp"

#include "analyze/report_format.hpp"
#include "trace/wait_state_report.hpp"

namespace strata::analysis::trace {

namespace {

/// The wait states, the iterations, (with GPU streams) the GPUs, (with GPU metric locations) their samples.
std::string trace_text(const TraceReport& report) {
    std::string t = waitstates_text(report) + "\n" + iterations_text(report.iterations);
    if (report.gpu.stream_locations > 0) t += "\n" + gpu_text(report.gpu);
    if (report.gpu.stream_locations > 0) t += "\n" + op_text(report.ops);
    if (report.steps.present) t += "\n" + step_trace_text(report.steps);
    if (report.gpu_metrics.locations > 0) t += "\n" + gpu_metric_text(report.gpu_metrics);
    return t;
}

std::string note_for(const TraceReport& report, bool timeline) {
    std::string note = "The trace (traces.otf2) was analysed: " + std::to_string(report.locations_read) +
                       " of " + std::to_string(report.locations) + " locations read completely";
    if (!report.skipped.empty())
        note += "; " + std::to_string(report.skipped.size()) + " problems, listed below";
    if (!report.trace_stops.empty())
        note += "; the trace stops early on " + std::to_string(report.trace_stops.size()) +
                " locations (STRATA_TRACE_MAX_SIZE, listed below): the wait states, iterations and timeline "
                "cover the time before, the profile the whole run";
    note += ". The wait states follow Scalasca's definitions (each is printed with its figure)";
    const IterationPlan& plan = report.iterations.plan;
    note += plan.restricted
                ? ", counted in iterations " + std::to_string(plan.first) + " to " +
                      std::to_string(plan.last) +
                      " only (--iter-start/--iter-stop; what comes from profile.h5 covers the whole run)."
                : ".";
    if (timeline) {
        note += " The timeline is in report.html (what each lane spends the run on, and a window in detail: "
                "timeline.json) and in trace.json (Perfetto, chrome://tracing)";
        note += report.timeline_cut.empty()
                    ? "."
                    : "; it was cut at " + std::to_string(report.timeline_cut.size()) +
                          " locations (--timeline-events), listed below.";
    }
    return note;
}

}  // namespace

std::vector<Finding> iteration_findings(const IterationReport& report) {
    std::vector<Finding> findings;
    const IterationPlan& p = report.plan;
    if (p.key.name.empty() || p.instances == 0) {
        Finding f;
        f.kind = "no_iterations";
        f.region = p.key.name;
        f.metric = "iterations";
        std::string candidates;
        for (std::size_t i = 0; i < p.candidates.size() && i < 5; ++i)
            candidates += (i > 0 ? ", " : "") + p.candidates[i].name + " (" +
                          std::to_string(p.candidates[i].max_calls) + " calls per rank)";
        f.message = "0 iterations found (" +
                    (p.key.name.empty() ? std::string("no --key-region and no region marked as a phase")
                                        : "the key region " + p.key.name + " is missing on some rank") +
                    "): the whole run is one iteration. Choose a region called once per step, early in it, "
                    "and pass it with --key-region NAME" +
                    (!candidates.empty() ? "; candidates, the most regularly recurring first: " + candidates
                     : p.instrumented    ? std::string(". No function or region other than MPI and CUDA API calls is "
                                                       "called twice or more: mark the step with "
                                                       "STRATA_PHASE_BEGIN/STRATA_PHASE_END.")
                                         : std::string(". No region other than MPI and CUDA API calls is called twice "
                                                       "or more: mark the step with STRATA_PHASE_BEGIN/STRATA_PHASE_END "
                                                       "or build with the strata compiler wrapper.")) +
                    " [DLProf's key node]";
        findings.push_back(std::move(f));
        return findings;
    }
    std::string flagged;
    std::size_t count = 0;
    for (const IterationRow& row : report.rows) {
        if (!row.outlier) continue;
        ++count;
        flagged += (flagged.empty() ? "" : ", ") + std::to_string(row.index) +
                   (row.warmup ? " (warm-up, " : " (") + text_seconds(report.seconds(row.end - row.begin)) +
                   ")";
    }
    if (count == 0) return findings;
    Finding f;
    f.kind = "unstable_iterations";
    f.region = p.key.name;
    f.metric = "unstable_iterations";
    f.value = static_cast<double>(count);
    f.threshold = outlier_tolerance;
    f.message = std::string(count == 1 ? "Iteration " : "Iterations ") + flagged +
                (count == 1 ? " differs" : " differ") + " from the median iteration (" +
                text_seconds(report.median_s) + ") by more than " + text_percent(outlier_tolerance) + "; ";
    if (report.stable_first >= 0) {
        f.message += "aggregate over the stable range with --iter-start " +
                     std::to_string(report.stable_first) + " --iter-stop " +
                     std::to_string(report.stable_last);
    } else {
        f.message += "no stable range was found";
    }
    f.message += " [DLProf's iterations cut at the ends of " + p.key.name + "]";
    findings.push_back(std::move(f));
    return findings;
}

TraceSummary summarize(const TraceReport& report, bool timeline) {
    TraceSummary s;
    s.analysed = true;
    s.note = note_for(report, timeline);
    s.text = trace_text(report);
    s.json = waitstates_summary_json(report);
    s.csv = waitstates_summary_csv(report) + iterations_summary_csv(report.iterations);
    if (report.gpu.stream_locations > 0) s.csv += gpu_summary_csv(report.gpu);
    s.csv += step_trace_summary_csv(report.steps);
    return s;
}

TraceSummary unfinished() {
    TraceSummary s;
    s.note = "The trace of this experiment is incomplete: traces/ holds event files, but traces.otf2, which the "
             "measurement writes last, is missing (the measurement could not finish the trace: its messages say "
             "why, such as a full disk; or the job was killed while writing it). The wait states need a complete "
             "trace. Everything above comes from profile.h5.";
    return s;
}

TraceSummary unreadable(const std::string& problem) {
    TraceSummary s;
    s.note = "The trace cannot be read (" + problem +
             "), so the wait states were not computed. Everything above comes from profile.h5.";
    return s;
}

std::vector<std::pair<std::string, std::string>> waitstate_files(const TraceReport& report) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const TracePass& pass : trace_passes())
        for (auto& file : pass.files(report)) files.push_back(std::move(file));
    return files;
}

double trace_rank_seconds(const TraceReport& report) {
    const std::vector<IterationRow>& rows = report.iterations.rows;
    if (rows.empty()) return 0;
    return report.iterations.seconds(rows.back().end - rows.front().begin) * static_cast<double>(report.ranks);
}

std::vector<Finding> trace_findings(const TraceReport& report, const TraceAdvice& advice) {
    std::vector<Finding> findings;
    for (const TracePass& pass : trace_passes())
        for (Finding& f : pass.findings(report, advice)) findings.push_back(std::move(f));
    return findings;
}

std::string trace_only_summary(const std::string& experiment, const std::string& profile_problem,
                               const TraceReport& report, const std::vector<Finding>& findings,
                               bool timeline) {
    std::string t = "Strata analysis of " + experiment + "\n\n";
    t += "Profile: " + profile_problem +
         "; the profile reports (load balance, POP efficiencies) were not made. What follows comes from the "
         "trace.\n\n";
    t += "Trace: " + note_for(report, timeline) + "\n\n";
    t += trace_text(report);
    t += "\nAdvice:\n";
    if (findings.empty()) t += "  No findings: no wait state reaches its threshold of the MPI time.\n";
    for (std::size_t i = 0; i < findings.size(); ++i)
        t += "  " + std::to_string(i + 1) + ". " +
             (findings[i].stake ? "[" + text_percent(*findings[i].stake) + " at stake] " : "[note] ") +
             findings[i].message + "\n";
    return t;
}

}  // namespace strata::analysis::trace
