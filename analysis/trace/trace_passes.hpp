// SPDX-License-Identifier: BSD-3-Clause
// The analyses of a trace, declared in one table (trace_passes.cpp): each
// owns its part of an analysis rank's partial result, its member of
// TraceReport (set up, summed over the partials, finished on rank 0), its
// files and its findings.  The phases (wait_state_analysis.cpp), the
// reports and the advice walk the table; a new analysis is its own file and
// one row (analysis/README.md, "Adding an analysis").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/byte_codec.hpp"
#include "trace/derived_events.hpp"
#include "trace/iterations.hpp"
#include "trace/timeline_overview.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_summary.hpp"

namespace strata::analysis::trace {

/// What the trace analysis is asked for beyond the wait states.
struct TraceAnalysisOptions {
    IterationOptions iterations;
    std::vector<std::string> tensor_core_patterns = default_tensor_core_patterns();
    /// Op names that may use Tensor Cores (op_analysis.hpp).
    std::vector<std::string> tc_eligible_patterns = default_tc_eligible_patterns();
    double gpu_gap_threshold_s = 0.5;  ///< idle stretches longer than this are gaps (Nsight's default)
    double short_kernel_threshold_s = 10e-6;  ///< shorter kernels are short (step_trace.hpp)
    bool decode_directly = true;       ///< false: event files through OTF2's reader (--event-reader otf2)
    /// Remove clock-condition violations with the controlled logical clock
    /// (logical_clock.hpp) before measuring; false: --no-logical-clock.
    bool logical_clock = true;
    TimelineViewOptions timeline_view;  ///< report.html's timeline (with trace.json)
};

/// What an analysis rank hands each analysis for its partial result.
struct ShareContext {
    const ShareRecords& records;  ///< what the replay of the rank's units kept
    const ChargedWaits& waits;    ///< what the wait-state patterns charged (wait_state_patterns.hpp)
    const TraceDefinitions& definitions;
    const IterationPlan& plan;  ///< the same on every analysis rank
    const TraceAnalysisOptions& options;
};

/// One analysis; a function it does not need is nullptr.
struct TracePass {
    const char* name;  ///< "wait states", ...
    /// On every analysis rank: its part of the rank's partial result.
    void (*put_partial)(ByteWriter& out, const ShareContext& share);
    /// On rank 0: its member of TraceReport set up from the definitions, then
    /// each analysis rank's part added (in rank order), then finished.
    void (*start)(TraceReport& report, const TraceDefinitions& definitions, const TraceAnalysisOptions& options);
    void (*add_partial)(TraceReport& report, ByteReader& in);
    void (*finish)(TraceReport& report, const TraceAnalysisOptions& options);
    /// Its report files (name, content), in the order they are listed;
    /// none when the trace has nothing for it (no GPU stream, say).
    std::vector<std::pair<std::string, std::string>> (*files)(const TraceReport& report);
    /// Its findings, before the advice ranks them by what is at stake (advice.hpp).
    std::vector<Finding> (*findings)(const TraceReport& report, const TraceAdvice& advice);
};

/// Every analysis, in the order of its files.
const std::vector<TracePass>& trace_passes();

}  // namespace strata::analysis::trace
