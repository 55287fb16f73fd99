// SPDX-License-Identifier: BSD-3-Clause
// The trace part of the reports (see trace_summary.hpp).
#include "trace/trace_summary.hpp"

#include "trace/wait_state_report.hpp"

namespace strata::analysis::trace {

namespace {

std::string note_for(const WaitStateReport& report, bool timeline) {
    std::string note = "The trace (traces.otf2) was analysed: " + std::to_string(report.locations_read) +
                       " of " + std::to_string(report.locations) + " locations read completely";
    if (!report.skipped.empty())
        note += "; " + std::to_string(report.skipped.size()) + " problems, listed below";
    note += ". The wait states follow Scalasca's definitions (each is printed with its figure).";
    if (timeline) {
        note += " The timeline is in trace.json (Perfetto, chrome://tracing)";
        note += report.timeline_cut.empty()
                    ? "."
                    : "; it was cut at " + std::to_string(report.timeline_cut.size()) +
                          " locations (--timeline-events), listed below.";
    }
    return note;
}

}  // namespace

TraceSummary summarize(const WaitStateReport& report, bool timeline) {
    TraceSummary s;
    s.analysed = true;
    s.note = note_for(report, timeline);
    s.text = waitstates_text(report);
    s.json = waitstates_summary_json(report);
    s.csv = waitstates_summary_csv(report);
    return s;
}

TraceSummary unreadable(const std::string& problem) {
    TraceSummary s;
    s.note = "The trace cannot be read (" + problem +
             "), so the wait states were not computed. Everything above comes from profile.h5.";
    return s;
}

std::vector<std::pair<std::string, std::string>> waitstate_files(const WaitStateReport& report) {
    return {{"waitstates.csv", waitstates_csv(report)}, {"waitstates.json", waitstates_json(report)}};
}

std::string trace_only_summary(const std::string& experiment, const std::string& profile_problem,
                               const WaitStateReport& report, const std::vector<Finding>& findings,
                               bool timeline) {
    std::string t = "Strata analysis of " + experiment + "\n\n";
    t += "Profile: " + profile_problem +
         "; the profile reports (load balance, POP efficiencies) were not made. What follows comes from the "
         "trace.\n\n";
    t += "Trace: " + note_for(report, timeline) + "\n\n";
    t += waitstates_text(report);
    t += "\nAdvice:\n";
    if (findings.empty()) t += "  No findings: no wait state reaches its threshold of the MPI time.\n";
    for (std::size_t i = 0; i < findings.size(); ++i)
        t += "  " + std::to_string(i + 1) + ". " + findings[i].message + "\n";
    return t;
}

}  // namespace strata::analysis::trace
