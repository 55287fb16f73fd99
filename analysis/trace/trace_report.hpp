// SPDX-License-Identifier: BSD-3-Clause
// What the trace analysis found: one member per analysis, each with its own
// report type and files (trace_passes.hpp), and what they all share (the
// timer, the ranks and locations read, what could not be used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/gpu_analysis.hpp"
#include "trace/gpu_metrics.hpp"
#include "trace/iterations.hpp"
#include "trace/op_analysis.hpp"
#include "trace/timeline_overview.hpp"
#include "trace/step_trace.hpp"
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

/// The trace analysis of an experiment, combined over its ranks (on analysis rank 0).
struct TraceReport {
    std::uint64_t timer_resolution = 1;  ///< ticks per second
    std::size_t ranks = 0;               ///< measured ranks with a CPU location
    std::size_t locations = 0, locations_read = 0;
    std::int64_t mpi_ticks = 0;  ///< time in outermost MPI calls, MPI_Init/Finalize apart, all ranks
    TraceCounts counts;
    std::vector<std::string> skipped;       ///< what could not be read, sorted
    std::vector<std::string> timeline_cut;  ///< locations whose trace.json slices were cut, sorted
    std::vector<std::string> trace_stops;   ///< locations whose trace stops early (STRATA_TRACE_MAX_SIZE), sorted

    WaitStates waits;                ///< Scalasca's wait states (wait_states.hpp)
    IterationReport iterations;      ///< the key region's iterations and the window applied
    GpuReport gpu;                   ///< from the GPU streams (empty rows: none)
    OpReport ops;                    ///< DLProf's ops and their kernels (op_analysis.hpp)
    StepTraceReport steps;           ///< MindSpore's step trace (step_trace.hpp)
    GpuMetricReport gpu_metrics;     ///< from the GPU metric locations (gpu_metrics.hpp)
    TimelineReport timeline;         ///< report.html's timeline (timeline_overview.hpp)

    /// `ticks` of the trace's timer in seconds.
    double seconds(std::int64_t ticks) const {
        return static_cast<double>(static_cast<long double>(ticks) / static_cast<long double>(timer_resolution));
    }
};

}  // namespace strata::analysis::trace
