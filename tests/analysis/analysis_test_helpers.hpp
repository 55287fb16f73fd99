// SPDX-License-Identifier: BSD-3-Clause
// strata-analyze's pipeline run in one process: K shares analysed one after
// the other and combined with merge_partial(), as K MPI ranks would.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyze/analysis_result.hpp"
#include "analyze/report_files.hpp"

namespace strata::analysis::test {

/// The figures of the profile at `path` analysed as `shares` shares.
AnalysisResult analyze_in_process(const std::string& path, std::size_t shares, bool include_mpi_init,
                                  bool trace_present);

/// Every report file of the profile at `path` analysed as `shares` shares,
/// with the default settings; the experiment is named "experiment".
std::vector<ReportFile> reports_in_process(const std::string& path, std::size_t shares);

}  // namespace strata::analysis::test
