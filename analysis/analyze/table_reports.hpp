// SPDX-License-Identifier: BSD-3-Clause
// The table reports: loadbalance, loadbalance_ranks and advice, each as CSV
// (one header line, one row per entry) and JSON (the same fields by name).
// Columns are documented in analysis/REPORTS.md.
#pragma once

#include <string>
#include <vector>

#include "analyze/advice.hpp"
#include "analyze/analysis_result.hpp"

namespace strata::analysis {

/// loadbalance.csv: the region rows, then the call-path rows.
std::string loadbalance_csv(const AnalysisResult& result);
/// loadbalance.json.
std::string loadbalance_json(const AnalysisResult& result);

/// loadbalance_ranks.csv: the measured ranks by useful time, largest first.
std::string ranks_csv(const AnalysisResult& result);
/// loadbalance_ranks.json.
std::string ranks_json(const AnalysisResult& result);

/// advice.csv: every finding (the text summary shows at most --top per kind).
std::string advice_csv(const std::vector<Finding>& findings);
/// advice.json.
std::string advice_json(const std::vector<Finding>& findings, const AdviceOptions& options);

}  // namespace strata::analysis
