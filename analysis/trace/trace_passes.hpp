// SPDX-License-Identifier: BSD-3-Clause
// The analyses of a trace as the reports see them, declared in one table
// (trace_passes.cpp): each owns its part of TraceReport, its files and its
// findings.  The reports and the advice walk the table; a new analysis of
// the combined trace is its own file and one row (analysis/README.md,
// "Adding an analysis").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_summary.hpp"

namespace strata::analysis::trace {

struct TracePass {
    const char* name;  ///< "wait states", ...
    /// Its report files (name, content), in the order they are listed;
    /// none when the trace has nothing for it (no GPU stream, say).
    std::vector<std::pair<std::string, std::string>> (*files)(const TraceReport& report);
    /// Its findings, before the advice ranks them by what is at stake (advice.hpp).
    std::vector<Finding> (*findings)(const TraceReport& report, const TraceAdvice& advice);
};

/// Every analysis, in the order of its files.
const std::vector<TracePass>& trace_passes();

}  // namespace strata::analysis::trace
