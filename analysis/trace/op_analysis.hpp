// SPDX-License-Identifier: BSD-3-Clause
// DLProf's op and kernel reports for the whole job (METRICS.md "NVTX range
// -> GPU", "Tensor Cores"; DLProf's Detailed, Kernel and Tensor Core reports).
//
//   op            a region of paradigm USER and role CODE: an NVTX range or a
//                 region of Strata's user API (share/doc/nvtx.md); ops with the
//                 same name are one op, whatever their call paths (DLProf)
//   kernel -> op  the innermost op open on the launching thread when the host
//                 region carrying the kernel's CUDA_CORRELATION_ID was entered;
//                 none (or no launch recorded): "(no op)"
//   per op        calls (instances on CPU threads), CPU time (sum of their
//                 durations), GPU time (sum of the durations of its kernels),
//                 kernels, Tensor Core kernels and their time (gpu_analysis.hpp's
//                 rules: by name, NCCL kernels never), uses Tensor Cores, eligible
//                 for them by name, eligible but using none; and the sums per
//                 rank: min, mean, max over the job's ranks and the rank of the max
//   per kernel    (op, kernel name, launching call path): count, total, min, max
//
// With an iteration window an op instance counts when it is entered in it, a
// kernel when it starts in it (as in gpu_kernels).  A rank's CPU threads and
// GPU streams are in one share, so each share sends exact sums per rank,
// keyed by names; the result is the same for any K.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/byte_codec.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// The op name of kernels launched outside every op, or whose launch was not recorded.
inline constexpr const char* no_op_name = "(no op)";

/// An op region: paradigm USER, role CODE (NVTX ranges, the user API's regions).
bool is_op_region(const TraceRegion& region);

/// Op names that may run on Tensor Cores (matrix products, convolutions);
/// --tc-eligible-patterns replaces them.
const std::vector<std::string>& default_tc_eligible_patterns();
/// True when a word of `op` (its runs of letters and digits, case-insensitive)
/// begins with one of `patterns`: "aten::addmm" and "Conv2D" match, "comm_step" does not.
bool tc_eligible(const std::string& op, const std::vector<std::string>& patterns);

/// One op's sums over the job.
struct OpRow {
    std::string name;
    std::uint64_t calls = 0;
    Ticks cpu = 0, gpu = 0, tc_gpu = 0;
    std::uint64_t kernels = 0, tc_kernels = 0;
    std::vector<std::string> tc_kernel_names, other_kernel_names;  ///< distinct, sorted
    bool eligible = false, uses_tc = false, eligible_not_using = false;
    /// Per rank (0 where it did not run): min, max and the rank of the max; mean = sum / ranks.
    Ticks gpu_rank_min = 0, gpu_rank_max = 0, cpu_rank_min = 0, cpu_rank_max = 0;
    std::uint32_t gpu_max_rank = 0, cpu_max_rank = 0;
    struct Path {
        std::string callpath;
        std::uint64_t calls = 0, kernels = 0;
        Ticks cpu = 0, gpu = 0;
    };
    std::vector<Path> callpaths;  ///< by call path name
};

/// One row of op_kernels: a kernel name launched in one op from one call path.
struct OpKernelRow {
    std::string op, kernel, callpath;
    std::uint64_t count = 0;
    Ticks total = 0, min = 0, max = 0;
    bool tensor_core = false, communication = false;
};

/// The combined op report.
struct OpReport {
    std::uint64_t timer_resolution = 1;
    std::size_t ranks = 0;  ///< the job's ranks, over which min / mean / max are taken
    bool restricted = false;
    std::int64_t first_iteration = 0, last_iteration = 0;
    std::vector<OpRow> ops;            ///< by GPU time, largest first; "(no op)" last
    std::vector<OpKernelRow> kernels;  ///< by total time, largest first
    std::vector<std::string> tc_patterns, eligible_patterns;

    /// While the shares come in: (op, op call path, rank) -> calls, CPU time, and
    /// (op, op call path, kernel, launch call path, rank) -> kernel sums.
    struct Calls {
        std::uint64_t calls = 0;
        Ticks cpu = 0;
    };
    std::map<std::tuple<std::string, std::string, std::uint32_t>, Calls> op_parts;
    std::map<std::tuple<std::string, std::string, std::string, std::string, std::uint32_t>, OpKernelRow>
        kernel_parts;

    double seconds(Ticks ticks) const {
        return static_cast<double>(ticks) / static_cast<double>(timer_resolution);
    }
};

/// Writes this share's op sums (window [begin, end)) to `out`.
void put_op_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                    Ticks begin, Ticks end);
/// Adds one share's sums to `report`.
void add_op_partial(OpReport& report, ByteReader& in);
/// Builds the rows; call once all shares are in.
void finish_op_report(OpReport& report, const std::vector<std::string>& tc_patterns,
                      const std::vector<std::string>& eligible_patterns);

/// ops.csv, ops.json, op_kernels.csv, op_kernels.json.
std::vector<std::pair<std::string, std::string>> op_files(const OpReport& report);
/// The "Ops (DLProf)" lines of the text summary; `top` ops at most.
std::string op_text(const OpReport& report, std::size_t top = 10);
/// "tc_eligible_not_used": ops eligible for Tensor Cores whose kernels use none.
std::vector<Finding> op_findings(const OpReport& report);

}  // namespace strata::analysis::trace
