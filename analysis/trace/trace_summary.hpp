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
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

/// The trace part of the summary for an analysed trace; `timeline`: trace.json was written.
TraceSummary summarize(const WaitStateReport& report, bool timeline);

/// The trace part when the trace could not be read at all: `problem` says why.
TraceSummary unreadable(const std::string& problem);

/// waitstates.csv and waitstates.json.
std::vector<std::pair<std::string, std::string>> waitstate_files(const WaitStateReport& report);

/// summary.txt of an experiment without profile.h5: the wait states and the findings.
std::string trace_only_summary(const std::string& experiment, const std::string& profile_problem,
                               const WaitStateReport& report, const std::vector<Finding>& findings,
                               bool timeline);

}  // namespace strata::analysis::trace
