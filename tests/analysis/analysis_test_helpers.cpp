// SPDX-License-Identifier: BSD-3-Clause
// strata-analyze's pipeline in one process (see analysis_test_helpers.hpp).
#include "analysis_test_helpers.hpp"

#include "analyze/advice.hpp"
#include "analyze/share_analysis.hpp"
#include "analyze/summary_report.hpp"

namespace strata::analysis::test {

AnalysisResult analyze_in_process(const std::string& path, std::size_t shares, bool include_mpi_init,
                                  bool trace_present) {
    ShareAnalysis first = analyze_share(path, 0, shares, include_mpi_init);
    // Combined in reverse order on purpose: the result must not depend on it.
    for (std::size_t k = shares; k-- > 1;)
        merge_partial(first.partial, analyze_share(path, k, shares, include_mpi_init).partial);
    AnalysisContext context;
    context.experiment = "experiment";
    context.include_mpi_init = include_mpi_init;
    context.trace_present = trace_present;
    return finish_analysis(first.profile, first.layout, first.classes, first.partial, context);
}

std::vector<ReportFile> reports_in_process(const std::string& path, std::size_t shares) {
    const AnalysisResult result = analyze_in_process(path, shares, false, false);
    ReportSettings settings;
    std::vector<Finding> findings = advise(result, settings.advice);
    settings.findings_left_out = rank_findings(findings, settings.advice.min_stake);
    return render_reports(result, findings, settings);
}

}  // namespace strata::analysis::test
