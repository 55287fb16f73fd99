// SPDX-License-Identifier: BSD-3-Clause
// GPU metrics over time: the samples of the trace's GPU metric locations
// (experiment-format.md "GPU metrics over time"), per GPU, as the Clara GPU
// profiler's multi-GPU view and Nsight Systems' GPU metrics show them.
//
//   location   type OTF2_LOCATION_TYPE_METRIC with the property CUDA_DEVICE
//              (or named "GPU[<device>] metrics"), in its rank's location group
//   sample     the Metric events of one timestamp; their members found by
//              name (gpu_utilization, ...), never by reference number; a value
//              the board did not report is absent, not 0
//   per GPU    (rank, device): samples, first and last time, mean and max
//              utilisation, mean memory utilisation, peak memory used, mean
//              power, energy = the trapezoid rule over the samples with a
//              power value, min and max SM clock; means over the samples that
//              have the value
//
// The utilisation is NVML's: the share of each sample period in which a
// kernel ran, on the whole board (every process).  It is the sampled form of
// gpu.csv's utilisation (METRICS.md "GPU time": the union of the kernel
// intervals over a window), which counts this program's kernels only.
//
// Metric locations are few and small: the analysis rank that reads a rank's
// threads reads them too, with OTF2's reader, and sends every sample (80
// bytes) to rank 0, which sorts them by (rank, device, time, location,
// position): the same for any K.  Times are seconds from T0, the trace's
// first timestamp (as in iterations.csv), on rank 0's clock; with
// --iter-start/--iter-stop only the samples in the window count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "trace/byte_codec.hpp"
#include "trace/iterations.hpp"
#include "trace/logical_clock.hpp"
#include "trace/otf2_reader.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// The metrics by their index in GpuSample::values (the table's order).
enum GpuMetric : std::size_t {
    gpu_utilization,
    gpu_memory_utilization,
    gpu_memory_used,
    gpu_power,
    gpu_sm_clock
};

/// A GPU metric: its member name in the trace, its column in gpu_metrics.csv, the unit of its values there.
struct GpuMetricName {
    const char* member;
    const char* column;
    const char* unit;
};
const std::array<GpuMetricName, gpu_metric_count>& gpu_metric_names();

/// A GPU metric location (type METRIC with the CUDA_DEVICE property, or named "GPU[...");
/// its device: the property, else the number in its name.
bool is_gpu_metric_location(const TraceLocation& location);
std::int64_t gpu_metric_device(const TraceLocation& location);

/// Reads the samples of GPU metric location `index` through `reader` (whose
/// event and definition files are open) into `records`, its times corrected
/// with its ClockOffset points like the rank's other locations.  The error
/// says why the whole location was not read (the samples before the problem
/// are kept).  `between_batches`, when given, is called after each batch of
/// events; `shift`, when given, is the logical clock's move of the rank
/// (logical_clock.hpp).
Error read_gpu_metrics(Otf2Reader& reader, const TraceDefinitions& definitions, std::size_t index,
                       ShareRecords& records, const std::function<void()>& between_batches = {},
                       const LogicalShift* shift = nullptr);

/// One sample as it travels to rank 0 and appears in gpu_metrics.csv.
struct GpuMetricSample {
    std::uint32_t rank = 0;
    std::uint32_t sequence = 0;  ///< its place among its location's samples
    std::int64_t device = 0;
    std::uint64_t location = 0;  ///< the location's id
    Ticks time = 0;
    std::uint64_t present = 0;  ///< bit m: values[m] was recorded
    std::array<std::uint64_t, gpu_metric_count> values{};
};

/// One GPU's samples summed up (integers: the same figures for any K).
struct GpuMetricSummary {
    std::uint32_t rank = 0;
    std::int64_t device = 0;
    std::uint64_t samples = 0;
    Ticks first = 0, last = 0;
    std::array<std::uint64_t, gpu_metric_count> count{}, min{}, max{};  ///< over the samples with the value
    std::array<unsigned __int128, gpu_metric_count> sum{};
    /// Sum over neighbouring samples with power of (p_i + p_i+1)(t_i+1 - t_i), in mW ticks.
    unsigned __int128 twice_energy = 0;
};

/// The combined GPU metrics.
struct GpuMetricReport {
    std::uint64_t timer_resolution = 1;
    std::size_t locations = 0;  ///< GPU metric locations defined in the trace
    Ticks origin = 0;           ///< T0: time_s is measured from here
    bool restricted = false;    ///< cut to an iteration range
    std::int64_t first_iteration = 0, last_iteration = 0;
    std::vector<GpuMetricSample> samples;  ///< by rank, device, time, location, sequence
    std::vector<GpuMetricSummary> gpus;    ///< by rank and device
    double seconds(Ticks ticks) const {
        return static_cast<double>(ticks) / static_cast<double>(timer_resolution);
    }
};

/// Writes this share's samples to `out`.
void put_gpu_metric_partial(ByteWriter& out, const ShareRecords& records,
                            const TraceDefinitions& definitions);
/// Adds one share's samples to `report`.
void add_gpu_metric_partial(GpuMetricReport& report, ByteReader& in);
/// Sorts the samples, keeps those in the plan's window, sums them per GPU; call once all shares
/// are in.  T0 is the plan's begin; when no rank has a CPU location, report.origin as it was set.
void finish_gpu_metric_report(GpuMetricReport& report, const IterationPlan& plan);

/// gpu_metrics.csv and gpu_metrics.json.
std::vector<std::pair<std::string, std::string>> gpu_metric_files(const GpuMetricReport& report);
/// The lines of the text summary.
std::string gpu_metric_text(const GpuMetricReport& report);

}  // namespace strata::analysis::trace
