// SPDX-License-Identifier: BSD-3-Clause
// MindSpore's step trace for the whole MPI job: each iteration of each rank
// split into iteration gap, GPU computation, communication and GPU idle
// (share/doc/analysis-reports.md "Step trace"), with DLProf-style findings.
//
//   iteration      rank r's own iteration i, as iterations.csv cuts it: from its
//                  (i-1)-th to its i-th key-region end (T0, T1 at the ends)
//   its operations the kernels, copies and memsets of r's GPU streams whose launch
//                  (the host region carrying their CUDA_CORRELATION_ID) was entered
//                  in the iteration, or, without a recorded launch, that start in
//                  it (METRICS.md "NVTX range -> GPU"): whole intervals, not cut
//   gap            first kernel's start - the end of iteration i-1's last operation
//                  (for i = 0, or i-1 without operations: the iteration's start);
//                  0 without a kernel or when the first kernel starts earlier
//                  (MindSpore's iteration gap: host and data loading time)
//   gpu span       first kernel's start to the last operation's end
//   busy           |union of the operations|; idle = span - |union ∩ span|
//   compute        |union of the non-NCCL kernels|; nccl = |union of the NCCL kernels|
//   mpi            |union of r's outermost MPI calls (all its threads) ∩ iteration|
//   comm           |union of the NCCL kernels and those MPI calls|: a collective
//                  seen on both sides counts once (comm <= nccl + mpi)
//   copy           |union of the copies and memsets|; host_copy: of HtoD and DtoH
//   slowest        per iteration, the rank with the largest rank time (iterations.csv)
//
// Unions over all devices of the rank.  A rank's streams and threads are in
// one analysis rank's share: every figure is computed there in integer ticks
// and only the rows go to rank 0, so the result is the same for any K.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/byte_codec.hpp"
#include "trace/iterations.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// Host time one kernel launch costs (cudaLaunchKernel, a few microseconds): the estimate
/// of the short_kernels finding.  A CUDA graph launches all its kernels with one call.
inline constexpr double launch_overhead_estimate_s = 5e-6;

/// The thresholds of the step-trace findings (strata-analyze's options).
struct StepTraceThresholds {
    double gap_share = 0.2;           ///< --step-gap-threshold: gap / iteration time of a rank
    double short_kernel_s = 10e-6;    ///< --short-kernel-threshold: a kernel shorter is short
    double short_kernel_share = 0.5;  ///< --short-kernel-share: short kernels / all kernels
    double copy_share = 0.2;          ///< --copy-share-threshold: HtoD + DtoH / GPU busy time
    double comm_share = 0.3;          ///< --step-comm-threshold: comm / iteration time of a rank
};

/// One rank's figures in one iteration (ticks).
struct StepTimes {
    Ticks iteration = 0;  ///< the rank's iteration time
    Ticks gap = 0, span = 0, busy = 0, idle = 0;
    Ticks compute = 0, nccl = 0, mpi = 0, comm = 0, copy = 0, host_copy = 0;
    Ticks short_kernel_time = 0;
    std::uint64_t kernels = 0, short_kernels = 0, copies = 0;

    void add(const StepTimes& o);
};

/// One row of step_trace.csv.
struct StepRow {
    std::size_t iteration = 0;
    std::uint32_t rank = 0;
    bool slowest = false;  ///< the iteration's slowest rank (a copy of its rank row)
    bool used = false;     ///< in the iterations the means and findings are over
    StepTimes times;
};

/// The combined step trace (analysis rank 0).
struct StepTraceReport {
    bool present = false;  ///< the trace has GPU streams
    std::uint64_t timer_resolution = 1;
    double short_kernel_s = 10e-6;
    std::vector<StepRow> rows;  ///< per iteration: its ranks in rank order, then the slowest
    std::string used;           ///< which iterations the means are over, in words
    std::int64_t used_first = 0, used_last = -1;
    double seconds(Ticks ticks) const {
        return static_cast<double>(ticks) / static_cast<double>(timer_resolution);
    }
};

/// Writes this share's rows (its ranks, every iteration of the plan) to `out`;
/// nothing but a count of 0 without GPU streams.  `short_kernel`: the threshold in ticks.
void put_step_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                      const IterationPlan& plan, Ticks short_kernel);
/// Adds one share's rows to `report`.
void add_step_partial(StepTraceReport& report, ByteReader& in);
/// Sorts the rows, adds the slowest rank's and marks the iterations used; call once all shares are in.
void finish_step_trace(StepTraceReport& report, const IterationReport& iterations);

/// step_trace.csv and step_trace.json (none without GPU streams).
std::vector<std::pair<std::string, std::string>> step_trace_files(const StepTraceReport& report);
/// The "Step trace" part of summary.txt and the rows of summary.csv ("" without GPU streams).
std::string step_trace_text(const StepTraceReport& report);
std::string step_trace_summary_csv(const StepTraceReport& report);
/// step_gap, short_kernels, host_copies, step_communication.
std::vector<Finding> step_trace_findings(const StepTraceReport& report,
                                         const StepTraceThresholds& thresholds);

}  // namespace strata::analysis::trace
