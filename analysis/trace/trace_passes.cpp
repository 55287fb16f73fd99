// SPDX-License-Identifier: BSD-3-Clause
// The table of the trace's analyses (see trace_passes.hpp).
#include "trace/trace_passes.hpp"

#include "trace/wait_state_report.hpp"

namespace strata::analysis::trace {

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

Files wait_state_files(const TraceReport& report) {
    return {{"waitstates.csv", waitstates_csv(report)}, {"waitstates.json", waitstates_json(report)}};
}

std::vector<Finding> wait_state_advice(const TraceReport& report, const TraceAdvice& advice) {
    std::vector<Finding> findings = wait_state_findings(report, advice.wait_threshold);
    for (Finding& f : findings)
        if (advice.rank_seconds > 0 && f.time_s) f.stake = *f.time_s / advice.rank_seconds;
    return findings;
}

Files iteration_files(const TraceReport& report) {
    return {{"iterations.csv", iterations_csv(report.iterations)},
            {"iterations.json", iterations_json(report.iterations)}};
}

std::vector<Finding> iteration_advice(const TraceReport& report, const TraceAdvice&) {
    return iteration_findings(report.iterations);
}

// The GPU reports only for a trace with GPU streams.
bool has_streams(const TraceReport& report) { return report.gpu.stream_locations > 0; }

Files gpu_report_files(const TraceReport& report) { return has_streams(report) ? gpu_files(report.gpu) : Files{}; }

std::vector<Finding> gpu_advice(const TraceReport& report, const TraceAdvice& advice) {
    return gpu_findings(report.gpu, advice.gpu_idle_threshold);
}

Files op_report_files(const TraceReport& report) { return has_streams(report) ? op_files(report.ops) : Files{}; }

std::vector<Finding> op_advice(const TraceReport& report, const TraceAdvice&) {
    return has_streams(report) ? op_findings(report.ops) : std::vector<Finding>{};
}

Files step_files(const TraceReport& report) {
    return has_streams(report) ? step_trace_files(report.steps) : Files{};
}

std::vector<Finding> step_advice(const TraceReport& report, const TraceAdvice& advice) {
    return step_trace_findings(report.steps, advice.steps);
}

// A trace may sample GPUs whose streams were not recorded (and the other way round).
Files gpu_metric_report_files(const TraceReport& report) {
    return report.gpu_metrics.locations > 0 ? gpu_metric_files(report.gpu_metrics) : Files{};
}

std::vector<Finding> no_advice(const TraceReport&, const TraceAdvice&) { return {}; }

}  // namespace

const std::vector<TracePass>& trace_passes() {
    // Findings without a stake (the iterations') keep this order after the
    // advice has ranked the others (advice.hpp, rank_findings).
    static const std::vector<TracePass> passes = {
        {"wait states", wait_state_files, wait_state_advice},
        {"iterations", iteration_files, iteration_advice},
        {"GPU utilisation", gpu_report_files, gpu_advice},
        {"ops", op_report_files, op_advice},
        {"step trace", step_files, step_advice},
        {"GPU metrics", gpu_metric_report_files, no_advice},
    };
    return passes;
}

}  // namespace strata::analysis::trace
