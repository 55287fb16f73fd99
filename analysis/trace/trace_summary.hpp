// SPDX-License-Identifier: BSD-3-Clause
// What the trace analysis adds to the reports: the trace part of the
// summary, the waitstates files, and the summary of an experiment that has
// a trace but no profile.h5.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "analyze/analysis_result.hpp"
#include "trace/trace_report.hpp"

namespace strata::analysis::trace {

/// The thresholds of the trace findings.
struct TraceAdvice {
    double wait_threshold = 0.1;      ///< a wait state's share of the MPI time
    double gpu_idle_threshold = 0.2;  ///< a GPU's idle share of its span
    /// The ranks' time summed (s), what a wait state's stake is a share of
    /// (advice.hpp): the run time R times the ranks, or without a profile the
    /// trace's span times the ranks (trace_rank_seconds()); 0: no stake.
    double rank_seconds = 0;
    StepTraceThresholds steps;  ///< the step-trace findings' (step_trace.hpp)
};

/// The trace's span (T0 to its last event, s) times its measured ranks.
double trace_rank_seconds(const TraceReport& report);

/// Wait-state, GPU, op (op_analysis.hpp) and iteration findings, in that order.
std::vector<Finding> trace_findings(const TraceReport& report, const TraceAdvice& advice);

/// Unstable iterations (warm-up, outliers) and a missing key region.
std::vector<Finding> iteration_findings(const IterationReport& report);

/// The trace part of the summary for an analysed trace; `timeline`: trace.json was written.
TraceSummary summarize(const TraceReport& report, bool timeline);

/// The trace part when the trace could not be read at all: `problem` says why.
TraceSummary unreadable(const std::string& problem);

/// The note for an experiment whose trace was begun (traces/ exists) but not finished (no traces.otf2).
TraceSummary unfinished();

/// waitstates, iterations, (with GPU streams) gpu, gpu_kernels, ops, op_kernels and step_trace, and
/// (with GPU metric locations) gpu_metrics, as .csv and .json.
std::vector<std::pair<std::string, std::string>> waitstate_files(const TraceReport& report);

/// summary.txt of an experiment without profile.h5: the wait states and the findings.
std::string trace_only_summary(const std::string& experiment, const std::string& profile_problem,
                               const TraceReport& report, const std::vector<Finding>& findings,
                               bool timeline);

}  // namespace strata::analysis::trace
