// SPDX-License-Identifier: BSD-3-Clause
// The table of the trace's analyses (see trace_passes.hpp).
#include "trace/trace_passes.hpp"

#include <algorithm>
#include <cmath>

#include "trace/wait_state_patterns.hpp"
#include "trace/wait_state_report.hpp"

namespace strata::analysis::trace {

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

void wait_state_put(ByteWriter& out, const ShareContext& s) { put_wait_partial(out, s.waits, s.records.callpaths); }

void wait_state_add(TraceReport& report, ByteReader& in) { add_wait_partial(report.waits, in); }

void wait_state_finish(TraceReport& report, const TraceAnalysisOptions&) { finish_wait_states(report.waits); }

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

std::size_t stream_locations(const TraceDefinitions& definitions) {
    std::size_t n = 0;
    for (const TraceLocation& l : definitions.locations) n += l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM ? 1 : 0;
    return n;
}

/// `seconds` in ticks of the trace's timer.
Ticks ticks_of(double seconds, const TraceDefinitions& definitions) {
    return static_cast<Ticks>(std::llround(seconds * static_cast<double>(definitions.timer_resolution)));
}

void gpu_put(ByteWriter& out, const ShareContext& s) {
    const IterationPlan& plan = s.plan;
    // T0..T1, known alike on every analysis rank, or the iteration window the GPU times are cut to.
    const ActivityAxis axis = plan.restricted ? make_activity_axis(plan.window_begin, plan.window_end, plan.begin)
                                              : make_activity_axis(plan.begin, plan.end, plan.begin);
    put_gpu_partial(out, s.records, s.definitions, plan.window_begin, plan.window_end,
                    plan.instances > 0 ? plan.bounds : std::vector<Ticks>{},
                    ticks_of(s.options.gpu_gap_threshold_s, s.definitions), axis);
}

void gpu_start(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions& options) {
    report.gpu.timer_resolution = definitions.timer_resolution;
    report.gpu.gap_threshold_s = options.gpu_gap_threshold_s;
    report.gpu.stream_locations = stream_locations(definitions);
}

void gpu_add(TraceReport& report, ByteReader& in) { add_gpu_partial(report.gpu, in); }

void gpu_finish(TraceReport& report, const TraceAnalysisOptions& options) {
    finish_gpu_report(report.gpu, options.tensor_core_patterns);
}

Files gpu_report_files(const TraceReport& report) { return has_streams(report) ? gpu_files(report.gpu) : Files{}; }

std::vector<Finding> gpu_advice(const TraceReport& report, const TraceAdvice& advice) {
    return gpu_findings(report.gpu, advice.gpu_idle_threshold);
}

void op_put(ByteWriter& out, const ShareContext& s) {
    put_op_partial(out, s.records, s.definitions, s.plan.window_begin, s.plan.window_end);
}

void op_start(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions&) {
    report.ops.timer_resolution = definitions.timer_resolution;
    report.ops.ranks = std::max(definitions.world_size, report.ranks);
}

void op_add(TraceReport& report, ByteReader& in) { add_op_partial(report.ops, in); }

void op_finish(TraceReport& report, const TraceAnalysisOptions& options) {
    finish_op_report(report.ops, options.tensor_core_patterns, options.tc_eligible_patterns);
}

Files op_report_files(const TraceReport& report) { return has_streams(report) ? op_files(report.ops) : Files{}; }

std::vector<Finding> op_advice(const TraceReport& report, const TraceAdvice&) {
    return has_streams(report) ? op_findings(report.ops) : std::vector<Finding>{};
}

void step_put(ByteWriter& out, const ShareContext& s) {
    put_step_partial(out, s.records, s.definitions, s.plan, ticks_of(s.options.short_kernel_threshold_s, s.definitions));
}

void step_start(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions& options) {
    report.steps.timer_resolution = definitions.timer_resolution;
    report.steps.present = stream_locations(definitions) > 0;
    report.steps.short_kernel_s = options.short_kernel_threshold_s;
}

void step_add(TraceReport& report, ByteReader& in) { add_step_partial(report.steps, in); }

Files step_files(const TraceReport& report) {
    return has_streams(report) ? step_trace_files(report.steps) : Files{};
}

std::vector<Finding> step_advice(const TraceReport& report, const TraceAdvice& advice) {
    return step_trace_findings(report.steps, advice.steps);
}

void gpu_metric_put(ByteWriter& out, const ShareContext& s) { put_gpu_metric_partial(out, s.records, s.definitions); }

void gpu_metric_start(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions&) {
    report.gpu_metrics.timer_resolution = definitions.timer_resolution;
    report.gpu_metrics.origin = static_cast<Ticks>(definitions.global_offset);
    for (const TraceLocation& l : definitions.locations)
        report.gpu_metrics.locations += is_gpu_metric_location(l) ? 1 : 0;
}

void gpu_metric_add(TraceReport& report, ByteReader& in) { add_gpu_metric_partial(report.gpu_metrics, in); }

// A trace may sample GPUs whose streams were not recorded (and the other way round).
Files gpu_metric_report_files(const TraceReport& report) {
    return report.gpu_metrics.locations > 0 ? gpu_metric_files(report.gpu_metrics) : Files{};
}

std::vector<Finding> no_advice(const TraceReport&, const TraceAdvice&) { return {}; }

void timeline_put(ByteWriter& out, const ShareContext& s) { put_timeline_partial(out, s.records); }

void timeline_start(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions& options) {
    start_timeline_report(report.timeline, plan_timeline(definitions, timeline_tracks(definitions), options.timeline_view),
                          definitions);
}

void timeline_add(TraceReport& report, ByteReader& in) { add_timeline_partial(report.timeline, in); }

void timeline_finish(TraceReport& report, const TraceAnalysisOptions&) { finish_timeline_report(report.timeline); }

// Made with trace.json (not with --timeline-events 0).
Files timeline_files(const TraceReport& report) {
    if (!report.timeline.present) return {};
    const IterationPlan& plan = report.iterations.plan;
    return {{"timeline.json", timeline_json(report.timeline, plan.instances > 0 ? plan.bounds : std::vector<Ticks>{})}};
}

}  // namespace

const std::vector<TracePass>& trace_passes() {
    // Findings without a stake (the iterations') keep this order after the
    // advice has ranked the others (advice.hpp, rank_findings).
    // What every analysis shares (counts, locations, notes) is the frame of
    // the partial results that the rows' parts follow (wait_state_analysis.cpp);
    // the iterations have a phase of their own before the messages.
    static const std::vector<TracePass> passes = {
        {"wait states", wait_state_put, nullptr, wait_state_add, wait_state_finish, wait_state_files,
         wait_state_advice},
        {"iterations", nullptr, nullptr, nullptr, nullptr, iteration_files, iteration_advice},
        {"GPU utilisation", gpu_put, gpu_start, gpu_add, gpu_finish, gpu_report_files, gpu_advice},
        {"ops", op_put, op_start, op_add, op_finish, op_report_files, op_advice},
        {"step trace", step_put, step_start, step_add, nullptr, step_files, step_advice},
        {"GPU metrics", gpu_metric_put, gpu_metric_start, gpu_metric_add, nullptr, gpu_metric_report_files,
         no_advice},
        {"timeline", timeline_put, timeline_start, timeline_add, timeline_finish, timeline_files, no_advice},
    };
    return passes;
}

}  // namespace strata::analysis::trace
