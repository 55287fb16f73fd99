// SPDX-License-Identifier: BSD-3-Clause
// The report files and the directory they go to.  Reports are never
// overwritten silently: when one of them exists, strata-analyze refuses
// unless --force.  Each file is written as <name>.tmp and renamed, so a
// report that exists is complete.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "analyze/analysis_result.hpp"
#include "analyze/summary_report.hpp"

namespace strata::analysis {

/// The output cannot be written; what() says which file and why.
class ReportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A report file: its name in the output directory and its content.
using ReportFile = std::pair<std::string, std::string>;

/// The names of every file strata-analyze writes.
const std::vector<std::string>& report_file_names();

/// Every report of `result` as files.
std::vector<ReportFile> render_reports(const AnalysisResult& result, const std::vector<Finding>& findings,
                                       const ReportSettings& settings);

/// Throws ReportError when `directory` is not a directory, or holds a
/// report file and `force` is false.  Creates nothing.
void check_output_directory(const std::string& directory, bool force);

/// Creates `directory` (and its parents) and writes `files`.  Throws ReportError.
void write_report_files(const std::string& directory, const std::vector<ReportFile>& files);

}  // namespace strata::analysis
