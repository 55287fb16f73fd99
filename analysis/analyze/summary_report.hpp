// SPDX-License-Identifier: BSD-3-Clause
// The summary report: summary.txt (also printed), summary.csv, summary.json.
// Every figure is printed with the definition it follows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyze/advice.hpp"
#include "analyze/analysis_result.hpp"

namespace strata::analysis {

/// What the reports print besides the figures.
struct ReportSettings {
    std::size_t top = 10;  ///< regions in the summary, findings per kind in summary.txt
    AdviceOptions advice;
    std::size_t findings_left_out = 0;  ///< below AdviceOptions::min_stake (rank_findings())
};

/// summary.txt: the readable summary, with the advice.
std::string summary_text(const AnalysisResult& result, const std::vector<Finding>& findings,
                         const ReportSettings& settings);

/// summary.csv: section,name,value,unit,definition.
std::string summary_csv(const AnalysisResult& result, const ReportSettings& settings);

/// summary.json.
std::string summary_json(const AnalysisResult& result, const std::vector<Finding>& findings,
                         const ReportSettings& settings);

/// What summary.txt says about the trace when the trace analysis left no
/// note: there is none (wait states need STRATA_ENABLE_TRACING=true), or it
/// was not analysed.
std::string trace_note(bool trace_present);

}  // namespace strata::analysis
