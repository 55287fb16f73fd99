// SPDX-License-Identifier: BSD-3-Clause
// The wait-state report: waitstates.csv and .json, the wait-state part of
// the summary, and the findings of the advice.  Times are exact tick sums
// converted to seconds once, printed "%.9g", rows in a fixed order, so the
// same trace gives the same bytes for any number of analysis ranks.
//
//   finding kind      when
//   late_sender ...   (one kind per metric, in metric order) the metric's
//                     total is at least --wait-threshold of the MPI time of
//                     the trace; ranks = the partners most waited for
#pragma once

#include <string>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/trace_report.hpp"

namespace strata::analysis::trace {

/// waitstates.csv: metric,callpath,rank,partner,time_s,instances.
std::string waitstates_csv(const TraceReport& report);

/// waitstates.json: definitions, totals, counts, skipped parts and rows.
std::string waitstates_json(const TraceReport& report);

/// The lines of summary.txt about the wait states (with their definitions).
std::string waitstates_text(const TraceReport& report);

/// The summary.json object "wait_states": totals with definitions and counts.
std::string waitstates_summary_json(const TraceReport& report);

/// summary.csv rows (section wait_states).
std::string waitstates_summary_csv(const TraceReport& report);

/// The findings: one per metric whose total reaches `threshold` of the MPI time.
std::vector<Finding> wait_state_findings(const TraceReport& report, double threshold);

}  // namespace strata::analysis::trace
