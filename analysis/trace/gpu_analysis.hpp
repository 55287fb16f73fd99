// SPDX-License-Identifier: BSD-3-Clause
// GPU time from the trace's GPU streams (METRICS.md "GPU time"; the layout
// is share/doc/experiment-format.md "GPU streams").
//
//   per stream     kernels, busy = |union of its kernel intervals|,
//                  accumulated = sum of kernel durations, copy time per direction
//   per device     busy = |union of the kernels of all its streams| (flattened,
//                  NVML's utilisation), accumulated (may exceed the span),
//                  span = its first operation's start to its last's end,
//                  idle = span - busy, utilisation = busy / span
//   gaps           idle stretches (no kernel) longer than --gpu-gap-threshold
//                  within the span (Nsight's default 0.5 s)
//   per rank       the sums over its devices
//   per iteration  each device's busy time in each iteration (the whole
//                  intervals, not cut to the window), for the GPU imbalance per
//                  iteration in iterations.csv
//   across GPUs    imbalance = mean / max of the devices' busy time
//   activity       each device's busy share per time bin (the Clara profiler's "GPU % activity"):
//                  the axis T0..T1 (the iteration window when restricted) cut into at most
//                  200 bins of equal length (up to a tick), busy = |union of kernels ∩ bin|
//   kernels        per kernel name and launching call path (the host region
//                  holding the same CUDA_CORRELATION_ID): count, total, mean,
//                  min, max (DLProf's accumulated time); Tensor Core kernels by name
//   communication  NCCL kernels (name starting with "nccl") are GPU communication:
//                  comm = |union of their intervals|, compute busy = |union of the
//                  others|; busy (and utilisation) stays the union of all kernels
//   launch latency per operation joined to its launch (the host region with its
//                  CUDA_CORRELATION_ID): its start - that region's Enter (Nsight
//                  Systems, DLProf); per stream, device, rank and kernel row: how
//                  many, mean, max; an operation starting before its launch's Enter
//                  (clocks disagree) is counted apart, never as a negative latency
//
// With an iteration window (--iter-start/--iter-stop) every interval is cut
// to it, and a kernel counts in the kernel report when it starts in it.
// A device belongs to one rank, and a rank's streams are in its analysis
// rank's share, so every union is computed where the intervals are: the
// shares send only their sums, and the result is the same for any K.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyze/advice.hpp"
#include "trace/byte_codec.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// Copy directions, by the region name (experiment-format.md).
enum class CopyKind : std::uint8_t { htod, dtoh, dtod, htoh, ptop, memset, other };
inline constexpr std::size_t copy_kind_count = 7;
const char* copy_kind_name(CopyKind kind);  ///< "HtoD", ...
/// The kind of a DATA_TRANSFER region from its name.
CopyKind copy_kind_of(const std::string& region_name);

/// DLProf's Tensor Core kernel name patterns (METRICS.md), matched as
/// case-insensitive substrings; --tensor-core-patterns replaces them.
const std::vector<std::string>& default_tensor_core_patterns();
bool uses_tensor_cores(const std::string& kernel, const std::vector<std::string>& patterns);

/// NCCL's kernels (ncclDevKernel_..., older ncclKernel_...): GPU communication, not computation.
bool is_communication_kernel(const std::string& kernel);

/// Launch latencies of GPU operations joined to their launch (ticks).
struct LaunchLatency {
    std::uint64_t joined = 0;  ///< operations with a latency (starting at or after their launch's Enter)
    std::uint64_t early = 0;   ///< operations starting before their launch's Enter: no latency
    Ticks sum = 0, max = 0;

    /// One operation starting at `start`, launched by the host region entered at `launch`.
    void add(Ticks launch, Ticks start) {
        if (start < launch) {
            ++early;
            return;
        }
        max = joined == 0 ? start - launch : std::max(max, start - launch);
        sum += start - launch;
        ++joined;
    }
    void add(const LaunchLatency& other) {
        if (other.joined > 0) max = joined == 0 ? other.max : std::max(max, other.max);
        joined += other.joined;
        early += other.early;
        sum += other.sum;
    }
};

/// Times of a stream, a device or a rank.
struct GpuTimes {
    std::uint64_t kernels = 0;
    Ticks busy = 0;         ///< union of kernel intervals (per rank: sum over its devices)
    Ticks accumulated = 0;  ///< sum of kernel durations
    Ticks span = 0;         ///< first operation's start to last operation's end
    std::array<Ticks, copy_kind_count> copy{};
    std::uint64_t copies = 0;
    std::uint64_t gaps = 0;  ///< idle stretches longer than the gap threshold
    Ticks gap_time = 0;      ///< their length
    Ticks compute_busy = 0;  ///< union of the kernel intervals but NCCL's (per rank: sum over its devices)
    Ticks comm = 0;          ///< union of NCCL kernel intervals (per rank: sum over its devices)
    LaunchLatency latency;   ///< of its kernels and copies
};

/// A device's busy time per iteration.
struct DeviceIterations {
    std::uint32_t rank = 0;
    std::int64_t device = 0;
    std::vector<Ticks> busy;  ///< per iteration
};

/// The activity series' time axis: [begin, end) in `bins` bins, bin i from edge(i) to edge(i + 1);
/// no bins when end <= begin. `origin` (T0) is where the report's times count from.
struct ActivityAxis {
    Ticks begin = 0, end = 0, origin = 0;
    std::uint64_t bins = 0;
    Ticks edge(std::uint64_t i) const {
        // 128 bits: a span of 10^18 ticks times 200 bins would overflow.
        return begin + static_cast<Ticks>(static_cast<__int128>(end - begin) * static_cast<__int128>(i) /
                                          static_cast<__int128>(bins));
    }
};
/// Bins of the activity series: 200, fewer for a span of fewer ticks, so that no bin is empty.
inline constexpr std::uint64_t gpu_activity_bins = 200;
/// The axis over [begin, end) with the report's times from `origin`.
ActivityAxis make_activity_axis(Ticks begin, Ticks end, Ticks origin);

/// A device's busy time (union of its kernels) per bin of the activity axis.
struct DeviceActivity {
    std::uint32_t rank = 0;
    std::int64_t device = 0;
    std::vector<Ticks> busy;  ///< per bin
};

/// One row of gpu.csv.
struct GpuRow {
    std::string scope;  ///< "device", "stream", "rank"
    std::uint32_t rank = 0;
    std::int64_t device = -1;  ///< -1 for a rank row
    std::string stream;        ///< the stream location's name (stream rows)
    std::uint64_t location = 0;
    std::uint32_t streams = 0, devices = 0;
    GpuTimes times;
};

/// One row of gpu_kernels.csv.
struct KernelRow {
    std::string name, callpath;
    std::uint64_t count = 0;
    Ticks total = 0, min = 0, max = 0;
    LaunchLatency latency;
    bool tensor_core = false;    ///< never for a communication kernel
    bool communication = false;  ///< an NCCL kernel
};

/// The combined GPU report.
struct GpuReport {
    std::uint64_t timer_resolution = 1;
    std::size_t stream_locations = 0;  ///< GPU streams defined in the trace
    bool restricted = false;           ///< cut to an iteration range
    std::int64_t first_iteration = 0, last_iteration = 0;
    std::vector<GpuRow> rows;        ///< devices, then streams, then ranks; each by rank, device, location
    std::vector<KernelRow> kernels;  ///< by total time, largest first
    std::vector<std::string> patterns;
    double gap_threshold_s = 0.5;
    std::vector<DeviceIterations> iterations;  ///< by rank and device; empty without iterations
    ActivityAxis activity_axis;
    std::vector<DeviceActivity> activity;  ///< by rank and device; empty without bins
    double seconds(Ticks ticks) const {
        return static_cast<double>(ticks) / static_cast<double>(timer_resolution);
    }
};

/// Writes this share's GPU sums (window [begin, end)) to `out`.
/// `bounds`: the iteration bounds (IterationPlan::bounds) when there are
/// iterations, else empty; `gap`: the gap threshold in ticks; `axis`: the activity series' axis,
/// the same on every analysis rank (the window when there is one: kernels are cut to it).
void put_gpu_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                     Ticks begin, Ticks end, const std::vector<Ticks>& bounds, Ticks gap,
                     const ActivityAxis& axis);
/// Adds one share's sums to `report`.
void add_gpu_partial(GpuReport& report, ByteReader& in);
/// Sorts the rows and kernels and marks communication and Tensor Core kernels; call once all shares are in.
void finish_gpu_report(GpuReport& report, const std::vector<std::string>& patterns);

/// gpu.csv, gpu.json, gpu_kernels.csv, gpu_kernels.json.
std::vector<std::pair<std::string, std::string>> gpu_files(const GpuReport& report);
/// The lines of the text summary and of summary.csv.
std::string gpu_text(const GpuReport& report);
std::string gpu_summary_csv(const GpuReport& report);
/// GPU idle and GPU imbalance findings: a device idle more than `idle_threshold` of its span.
std::vector<Finding> gpu_findings(const GpuReport& report, double idle_threshold);

}  // namespace strata::analysis::trace
