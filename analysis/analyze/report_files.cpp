// SPDX-License-Identifier: BSD-3-Clause
// The report files (see report_files.hpp).
#include "analyze/report_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "analyze/output_file.hpp"
#include "analyze/table_reports.hpp"

namespace strata::analysis {

const std::vector<std::string>& report_file_names() {
    static const std::vector<std::string> names = {
        "summary.txt",      "summary.csv",           "summary.json",           "loadbalance.csv",
        "loadbalance.json", "loadbalance_ranks.csv", "loadbalance_ranks.json", "advice.csv",
        "advice.json",      "waitstates.csv",        "waitstates.json",        "trace.json",
        "iterations.csv",   "iterations.json",       "gpu.csv",                "gpu.json",
        "gpu_kernels.csv",  "gpu_kernels.json",      "ops.csv",                "ops.json",
        "op_kernels.csv",   "op_kernels.json",       "step_trace.csv",         "step_trace.json",
        "gpu_metrics.csv",  "gpu_metrics.json",      "calltree.json",          "report.html",
        "profile.cubex"};
    return names;
}

std::vector<ReportFile> render_reports(const AnalysisResult& result, const std::vector<Finding>& findings,
                                       const ReportSettings& settings) {
    return {{"summary.txt", summary_text(result, findings, settings)},
            {"summary.csv", summary_csv(result, settings)},
            {"summary.json", summary_json(result, findings, settings)},
            {"loadbalance.csv", loadbalance_csv(result)},
            {"loadbalance.json", loadbalance_json(result)},
            {"loadbalance_ranks.csv", ranks_csv(result)},
            {"loadbalance_ranks.json", ranks_json(result)},
            {"advice.csv", advice_csv(findings)},
            {"advice.json", advice_json(findings, settings.advice)}};
}

void check_output_directory(const std::string& directory, bool force) {
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::file_status status = fs::status(directory, error);
    if (!fs::exists(status)) return;
    if (!fs::is_directory(status)) throw ReportError(directory + ": exists and is not a directory");
    if (force) return;
    for (const std::string& name : report_file_names()) {
        const fs::path file = fs::path(directory) / name;
        if (fs::exists(fs::symlink_status(file, error)))
            throw ReportError(
                file.string() +
                ": exists; strata-analyze does not overwrite reports (use --force to replace them, "
                "or --output DIR to write elsewhere)");
    }
}

void write_report_files(const std::string& directory, const std::vector<ReportFile>& files) {
    namespace fs = std::filesystem;
    std::error_code error;
    fs::create_directories(directory, error);
    if (error) throw ReportError(directory + ": cannot create the directory: " + error.message());
    for (const auto& [name, content] : files) {
        const std::string path = (fs::path(directory) / name).string();
        const std::string temporary = path + ".tmp";
        {
            OutputFile out(temporary);
            if (!out.ok()) throw ReportError(temporary + ": cannot write: " + *out.error());
            if (!out.write(content) || !out.close()) {
                std::remove(temporary.c_str());
                throw ReportError(temporary + ": cannot write: " + *out.error());
            }
        }
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            std::string message = path + ": cannot write: ";
            message += std::strerror(errno);
            std::remove(temporary.c_str());
            throw ReportError(message);
        }
    }
}

}  // namespace strata::analysis
