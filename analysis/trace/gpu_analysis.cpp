// SPDX-License-Identifier: BSD-3-Clause
// GPU time from the trace's GPU streams (see gpu_analysis.hpp).
#include "trace/gpu_analysis.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "analyze/report_format.hpp"

namespace strata::analysis::trace {

namespace {

constexpr const char* copy_names[copy_kind_count] = {"HtoD", "DtoH",   "DtoD", "HtoH",
                                                     "PtoP", "memset", "other"};
constexpr const char* copy_columns[copy_kind_count] = {
    "copy_htod_s", "copy_dtoh_s", "copy_dtod_s", "copy_htoh_s", "copy_ptop_s", "memset_s", "copy_other_s"};

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

using Interval = std::pair<Ticks, Ticks>;

/// The union of `intervals` as sorted disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end());
    std::vector<Interval> out;
    for (const Interval& i : intervals) {
        if (!out.empty() && i.first <= out.back().second) {
            out.back().second = std::max(out.back().second, i.second);
        } else {
            out.push_back(i);
        }
    }
    return out;
}

/// |union ∩ [from, to)| for each consecutive pair of `bounds` (the last interval includes its end).
std::vector<Ticks> busy_per_interval(const std::vector<Interval>& unions, const std::vector<Ticks>& bounds) {
    std::vector<Ticks> busy;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
        const Ticks from = bounds[i], to = i + 2 == bounds.size() ? bounds[i + 1] + 1 : bounds[i + 1];
        Ticks t = 0;
        // Few kernels per device and iteration in a share: a scan from the first that can overlap.
        auto it = std::lower_bound(unions.begin(), unions.end(), Interval{from, from},
                                   [](const Interval& a, const Interval& b) { return a.second < b.first; });
        for (; it != unions.end() && it->first < to; ++it) {
            const Ticks s = std::max(it->first, from), e = std::min(it->second, to);
            if (e > s) t += e - s;
        }
        busy.push_back(t);
    }
    return busy;
}

/// |unions ∩ bin| for each bin of `axis`; `unions` sorted and disjoint.
std::vector<Ticks> busy_per_bin(const std::vector<Interval>& unions, const ActivityAxis& axis) {
    std::vector<Ticks> busy(axis.bins, 0);
    std::uint64_t bin = 0;
    for (const Interval& i : unions) {
        const Ticks s = std::max(i.first, axis.begin), e = std::min(i.second, axis.end);
        if (e <= s) continue;
        while (axis.edge(bin + 1) <= s) ++bin;  // the unions are sorted: bins only move forward
        // An interval over several bins gives each its part.
        for (std::uint64_t b = bin; b < axis.bins && axis.edge(b) < e; ++b)
            busy[b] += std::min(e, axis.edge(b + 1)) - std::max(s, axis.edge(b));
    }
    return busy;
}

Ticks length(const std::vector<Interval>& unions) {
    Ticks t = 0;
    for (const Interval& i : unions) t += i.second - i.first;
    return t;
}

/// Intervals and extent of a stream or a device while its share is summed.
struct Accumulator {
    GpuTimes times;
    std::vector<Interval> compute, comm;  ///< kernel intervals: NCCL's in comm
    std::vector<Interval> unions;         ///< after finish(): the union of all of them, sorted
    Ticks first = no_time, last = no_time;
    std::uint32_t streams = 0;

    void add(bool kernel, bool communication, CopyKind kind, Ticks s, Ticks e) {
        first = first == no_time ? s : std::min(first, s);
        last = last == no_time ? e : std::max(last, e);
        if (kernel) {
            ++times.kernels;
            times.accumulated += e - s;
            (communication ? comm : compute).emplace_back(s, e);
        } else {
            ++times.copies;
            times.copy[static_cast<std::size_t>(kind)] += e - s;
        }
    }
    GpuTimes finish(Ticks gap) {
        unions = merged(std::move(compute));
        times.compute_busy = length(unions);
        const std::vector<Interval> comm_unions = merged(std::move(comm));
        times.comm = length(comm_unions);
        if (!comm_unions.empty()) {
            unions.insert(unions.end(), comm_unions.begin(), comm_unions.end());
            unions = merged(std::move(unions));
        }
        compute.clear();
        comm.clear();
        times.busy = 0;
        Ticks idle_from = first;  // the idle stretches between the span's ends and the kernels
        for (const Interval& i : unions) {
            times.busy += i.second - i.first;
            add_gap(i.first - idle_from, gap);
            idle_from = i.second;
        }
        if (first != no_time) add_gap(last - idle_from, gap);
        times.span = first == no_time ? 0 : last - first;
        return times;
    }
    void add_gap(Ticks length, Ticks gap) {
        if (length <= gap) return;
        ++times.gaps;
        times.gap_time += length;
    }
};

void put_row(ByteWriter& out, const GpuRow& row) {
    out.put_string(row.scope);
    out.put(row.rank);
    out.put(row.device);
    out.put_string(row.stream);
    out.put(row.location);
    out.put(row.streams);
    out.put(row.times);
}

std::string seconds(const GpuReport& r, Ticks t) {
    return format_number(r.seconds(t));
}

std::string share_or_empty(Ticks part, Ticks whole) {
    return whole > 0 ? format_number(static_cast<double>(part) / static_cast<double>(whole)) : "";
}

std::string json_share(Ticks part, Ticks whole) {
    return whole > 0 ? format_number(static_cast<double>(part) / static_cast<double>(whole)) : "null";
}

/// Mean and max of `l` in seconds; `none` without a joined operation.
std::string latency_mean(const GpuReport& r, const LaunchLatency& l, const char* none) {
    return l.joined > 0 ? format_number(r.seconds(l.sum) / static_cast<double>(l.joined)) : none;
}

std::string latency_max(const GpuReport& r, const LaunchLatency& l, const char* none) {
    return l.joined > 0 ? seconds(r, l.max) : none;
}

std::string gpu_name(const GpuRow& row) {
    return "GPU " + std::to_string(row.device) + " of rank " + std::to_string(row.rank);
}

constexpr const char* flattened_definition =
    "utilisation = |union of kernel intervals| / span (flattened, NVML's GPU utilisation); span = the "
    "device's first operation's start to its last operation's end";

}  // namespace

ActivityAxis make_activity_axis(Ticks begin, Ticks end, Ticks origin) {
    ActivityAxis axis;
    axis.origin = origin;
    if (end <= begin) return axis;
    axis.begin = begin;
    axis.end = end;
    axis.bins = std::min<std::uint64_t>(gpu_activity_bins, static_cast<std::uint64_t>(end - begin));
    return axis;
}

const char* copy_kind_name(CopyKind kind) {
    return copy_names[static_cast<std::size_t>(kind)];
}

CopyKind copy_kind_of(const std::string& name) {
    const std::string l = lower(name);
    if (l.find("htod") != std::string::npos) return CopyKind::htod;
    if (l.find("dtoh") != std::string::npos) return CopyKind::dtoh;
    if (l.find("dtod") != std::string::npos) return CopyKind::dtod;
    if (l.find("htoh") != std::string::npos) return CopyKind::htoh;
    if (l.find("ptop") != std::string::npos) return CopyKind::ptop;
    if (l.find("memset") != std::string::npos) return CopyKind::memset;
    return CopyKind::other;
}

const std::vector<std::string>& default_tensor_core_patterns() {
    static const std::vector<std::string> patterns = {"h884",
                                                      "s884",
                                                      "h1688",
                                                      "s1688",
                                                      "c1688",
                                                      "hmma",
                                                      "i8816",
                                                      "16816",
                                                      "xmma_gemm",
                                                      "xmma_implicit_gemm",
                                                      "xmma_sparse_gemm",
                                                      "xmma_sparse_conv",
                                                      "xmma_warp_specialized_implicit_gemm",
                                                      "conv1x1",
                                                      "16832",
                                                      "wgmma",
                                                      "hgmma",
                                                      "gmma",
                                                      "tensorop",
                                                      // Hopper: cuBLAS's own GEMMs, CUTLASS 3
                                                      "nvjet",
                                                      "sm90_xmma",
                                                      "cutlass3x"};
    return patterns;
}

bool uses_tensor_cores(const std::string& kernel, const std::vector<std::string>& patterns) {
    const std::string l = lower(kernel);
    // Names that say the FMA units do the work (cuBLAS's fp32 "..._ffma_...",
    // CUTLASS "simt" kernels) use no Tensor Cores, whatever else matches.
    if (l.find("_ffma_") != std::string::npos || l.find("simt") != std::string::npos) return false;
    for (const std::string& p : patterns) {
        if (!p.empty() && l.find(lower(p)) != std::string::npos) return true;
    }
    return false;
}

bool is_communication_kernel(const std::string& kernel) {
    // A demangled template kernel's name starts with its return type.
    const std::size_t from = kernel.rfind("void ", 0) == 0 ? 5 : 0;
    return kernel.compare(from, 4, "nccl") == 0;
}

void put_gpu_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                     Ticks begin, Ticks end, const std::vector<Ticks>& bounds, Ticks gap,
                     const ActivityAxis& axis) {
    using DeviceKey = std::pair<std::uint32_t, std::int64_t>;
    std::map<std::size_t, Accumulator> streams;  // by location index
    std::map<DeviceKey, Accumulator> devices;
    std::map<DeviceKey, std::vector<Interval>> whole;                      // not cut: per iteration
    std::map<std::pair<std::uint32_t, std::uint32_t>, KernelRow> kernels;  // (region, call path)
    constexpr std::uint32_t no_launch = UINT32_MAX;
    // Looked up per operation: sorted once; directions once per region.
    std::vector<LaunchRecord> launches = records.launches;
    const auto launch_order = [](const LaunchRecord& a, const LaunchRecord& b) {
        return std::tie(a.rank, a.correlation) < std::tie(b.rank, b.correlation);
    };
    std::sort(launches.begin(), launches.end(), launch_order);
    std::vector<std::int8_t> kinds(definitions.regions.size(), -1);
    std::vector<std::int8_t> nccl(definitions.regions.size(), -1);
    // Operations come stream by stream: keep the current stream's accumulators at hand.
    std::size_t current = SIZE_MAX;
    Accumulator* stream = nullptr;
    Accumulator* device = nullptr;
    std::vector<Interval>* device_whole = nullptr;
    for (const GpuOp& op : records.gpu_ops) {
        const TraceLocation& l = definitions.locations[op.location];
        const TraceRegion& region = definitions.regions[op.region];
        const bool kernel = region.role != OTF2_REGION_ROLE_DATA_TRANSFER;
        const auto rank = static_cast<std::uint32_t>(l.rank);
        if (op.location != current) {
            current = op.location;
            const DeviceKey key{rank, std::max<std::int64_t>(l.device, 0)};
            stream = &streams[op.location];  // a stream with nothing in the window still gets its row
            device = &devices[key];
            device_whole = &whole[key];
        }
        const LaunchRecord* launch = nullptr;
        if (op.correlation != 0) {
            const LaunchRecord wanted{rank, 0, op.correlation};
            const auto it = std::lower_bound(launches.begin(), launches.end(), wanted, launch_order);
            if (it != launches.end() && it->rank == rank && it->correlation == op.correlation) launch = &*it;
        }
        if (kernel && op.start >= begin && op.start < end) {
            KernelRow& k = kernels[{op.region, launch != nullptr ? launch->callpath : no_launch}];
            const Ticks d = op.end - op.start;
            k.min = k.count == 0 ? d : std::min(k.min, d);
            k.max = k.count == 0 ? d : std::max(k.max, d);
            k.total += d;
            ++k.count;
            if (launch != nullptr) k.latency.add(launch->time, op.start);
        }
        if (kernel && bounds.size() > 2) device_whole->emplace_back(op.start, op.end);
        const Ticks s = std::max(op.start, begin), e = std::min(op.end, end);
        // Outside the window; an operation of zero length counts where it starts.
        const bool inside = op.end > op.start ? e > s : (op.start >= begin && op.start < end);
        if (!inside) continue;
        if (!kernel && kinds[op.region] < 0)
            kinds[op.region] = static_cast<std::int8_t>(copy_kind_of(region.name));
        const CopyKind kind = kernel ? CopyKind::other : static_cast<CopyKind>(kinds[op.region]);
        if (kernel && nccl[op.region] < 0) nccl[op.region] = is_communication_kernel(region.name) ? 1 : 0;
        const bool communication = kernel && nccl[op.region] == 1;
        stream->add(kernel, communication, kind, s, e);
        device->add(kernel, communication, kind, s, e);
        if (launch != nullptr) {
            stream->times.latency.add(launch->time, op.start);
            device->times.latency.add(launch->time, op.start);
        }
    }
    for (const auto& [location, acc] : streams) {
        const TraceLocation& l = definitions.locations[location];
        ++devices[{static_cast<std::uint32_t>(l.rank), std::max<std::int64_t>(l.device, 0)}].streams;
    }
    out.put<std::uint64_t>(streams.size() + devices.size());
    for (auto& [location, acc] : streams) {
        const TraceLocation& l = definitions.locations[location];
        GpuRow row;
        row.scope = "stream";
        row.rank = static_cast<std::uint32_t>(l.rank);
        row.device = std::max<std::int64_t>(l.device, 0);
        row.stream = l.name;
        row.location = l.id;
        row.streams = 1;
        row.times = acc.finish(gap);
        std::vector<Interval>().swap(acc.unions);  // only the devices' unions are binned
        put_row(out, row);
    }
    for (auto& [key, acc] : devices) {
        GpuRow row;
        row.scope = "device";
        row.rank = key.first;
        row.device = key.second;
        row.streams = acc.streams;
        row.times = acc.finish(gap);
        put_row(out, row);
    }
    // A device is in one share only (its rank's), so its union and bins are complete here.
    out.put(axis);
    out.put<std::uint64_t>(axis.bins > 0 ? devices.size() : 0);
    for (const auto& [key, acc] : devices) {
        if (axis.bins == 0) break;
        out.put(key.first);
        out.put(key.second);
        for (Ticks t : busy_per_bin(acc.unions, axis)) out.put(t);
    }
    // Every device has a value per iteration, also one without kernels there.
    const std::uint64_t iterations = bounds.size() > 2 ? bounds.size() - 1 : 0;
    out.put(iterations);
    out.put<std::uint64_t>(iterations > 0 ? devices.size() : 0);
    for (const auto& [key, acc] : devices) {
        if (iterations == 0) break;
        out.put(key.first);
        out.put(key.second);
        for (Ticks t : busy_per_interval(merged(whole[key]), bounds)) out.put(t);
    }
    out.put<std::uint64_t>(kernels.size());
    for (const auto& [key, k] : kernels) {
        out.put_string(definitions.regions[key.first].name);
        out.put_string(key.second == no_launch ? std::string("(launch not recorded)")
                                               : records.callpaths.name(key.second));
        out.put(k.count);
        out.put(k.total);
        out.put(k.min);
        out.put(k.max);
        out.put(k.latency);
    }
}

void add_gpu_partial(GpuReport& report, ByteReader& in) {
    const auto rows = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < rows; ++i) {
        GpuRow row;
        row.scope = in.get_string();
        row.rank = in.get<std::uint32_t>();
        row.device = in.get<std::int64_t>();
        row.stream = in.get_string();
        row.location = in.get<std::uint64_t>();
        row.streams = in.get<std::uint32_t>();
        row.times = in.get<GpuTimes>();
        report.rows.push_back(std::move(row));
    }
    report.activity_axis = in.get<ActivityAxis>();  // the same in every share
    const auto active = in.get<std::uint64_t>();
    for (std::uint64_t d = 0; d < active; ++d) {
        DeviceActivity row;
        row.rank = in.get<std::uint32_t>();
        row.device = in.get<std::int64_t>();
        for (std::uint64_t b = 0; b < report.activity_axis.bins; ++b) row.busy.push_back(in.get<Ticks>());
        report.activity.push_back(std::move(row));
    }
    const auto iterations = in.get<std::uint64_t>();
    const auto devices = in.get<std::uint64_t>();
    for (std::uint64_t d = 0; d < devices; ++d) {
        DeviceIterations row;
        row.rank = in.get<std::uint32_t>();
        row.device = in.get<std::int64_t>();
        for (std::uint64_t i = 0; i < iterations; ++i) row.busy.push_back(in.get<Ticks>());
        report.iterations.push_back(std::move(row));
    }
    const auto kernels = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < kernels; ++i) {
        KernelRow k;
        k.name = in.get_string();
        k.callpath = in.get_string();
        k.count = in.get<std::uint64_t>();
        k.total = in.get<Ticks>();
        k.min = in.get<Ticks>();
        k.max = in.get<Ticks>();
        k.latency = in.get<LaunchLatency>();
        report.kernels.push_back(std::move(k));  // merged in finish_gpu_report()
    }
}

void finish_gpu_report(GpuReport& report, const std::vector<std::string>& patterns) {
    report.patterns = patterns;
    const auto scope_order = [](const std::string& s) { return s == "device" ? 0 : s == "stream" ? 1 : 2; };
    // Per rank: the sums over its devices.
    std::map<std::uint32_t, GpuRow> ranks;
    for (const GpuRow& row : report.rows) {
        if (row.scope != "device") continue;
        GpuRow& r = ranks[row.rank];
        r.scope = "rank";
        r.rank = row.rank;
        ++r.devices;
        r.streams += row.streams;
        r.times.kernels += row.times.kernels;
        r.times.busy += row.times.busy;
        r.times.accumulated += row.times.accumulated;
        r.times.span += row.times.span;
        r.times.copies += row.times.copies;
        r.times.gaps += row.times.gaps;
        r.times.gap_time += row.times.gap_time;
        r.times.compute_busy += row.times.compute_busy;
        r.times.comm += row.times.comm;
        r.times.latency.add(row.times.latency);
        for (std::size_t c = 0; c < copy_kind_count; ++c) r.times.copy[c] += row.times.copy[c];
    }
    for (auto& [rank, row] : ranks) report.rows.push_back(row);
    std::sort(report.rows.begin(), report.rows.end(), [&](const GpuRow& a, const GpuRow& b) {
        return std::make_tuple(scope_order(a.scope), a.rank, a.device, a.location) <
               std::make_tuple(scope_order(b.scope), b.rank, b.device, b.location);
    });
    // One call path can launch a kernel on many ranks, and so in many shares: merge them.
    std::sort(report.kernels.begin(), report.kernels.end(), [](const KernelRow& a, const KernelRow& b) {
        return std::tie(a.name, a.callpath) < std::tie(b.name, b.callpath);
    });
    std::vector<KernelRow> kernels;
    for (KernelRow& k : report.kernels) {
        if (kernels.empty() || kernels.back().name != k.name || kernels.back().callpath != k.callpath) {
            kernels.push_back(std::move(k));
            continue;
        }
        KernelRow& same = kernels.back();
        same.min = std::min(same.min, k.min);
        same.max = std::max(same.max, k.max);
        same.total += k.total;
        same.count += k.count;
        same.latency.add(k.latency);
    }
    report.kernels = std::move(kernels);
    for (KernelRow& k : report.kernels) {
        k.communication = is_communication_kernel(k.name);
        k.tensor_core = !k.communication && uses_tensor_cores(k.name, patterns);
    }
    std::sort(report.iterations.begin(), report.iterations.end(),
              [](const DeviceIterations& a, const DeviceIterations& b) {
                  return std::tie(a.rank, a.device) < std::tie(b.rank, b.device);
              });
    std::sort(report.activity.begin(), report.activity.end(),
              [](const DeviceActivity& a, const DeviceActivity& b) {
                  return std::tie(a.rank, a.device) < std::tie(b.rank, b.device);
              });
    std::sort(report.kernels.begin(), report.kernels.end(), [](const KernelRow& a, const KernelRow& b) {
        if (a.total != b.total) return a.total > b.total;
        return std::tie(a.name, a.callpath) < std::tie(b.name, b.callpath);
    });
}

namespace {

std::string rows_csv(const GpuReport& r) {
    std::string t =
        "scope,rank,device,stream,devices,streams,kernels,busy_s,accumulated_s,span_s,idle_s,"
        "utilisation,concurrency";
    for (const char* c : copy_columns) t += std::string(",") + c;
    t += ",copies,gaps,gap_s,compute_busy_s,comm_s,launches_joined,launch_latency_mean_s,"
         "launch_latency_max_s,starts_before_launch\n";
    for (const GpuRow& row : r.rows) {
        const GpuTimes& g = row.times;
        t += row.scope + "," + std::to_string(row.rank) + "," +
             (row.device >= 0 ? std::to_string(row.device) : "") + "," + csv_field(row.stream) + "," +
             (row.scope == "rank" ? std::to_string(row.devices) : "1") + "," + std::to_string(row.streams) +
             "," + std::to_string(g.kernels) + "," + seconds(r, g.busy) + "," + seconds(r, g.accumulated) +
             "," + seconds(r, g.span) + "," + seconds(r, g.span - g.busy) + "," +
             share_or_empty(g.busy, g.span) + "," + share_or_empty(g.accumulated, g.span);
        for (Ticks c : g.copy) t += "," + seconds(r, c);
        t += "," + std::to_string(g.copies) + "," + std::to_string(g.gaps) + "," + seconds(r, g.gap_time) +
             "," + seconds(r, g.compute_busy) + "," + seconds(r, g.comm) + "," +
             std::to_string(g.latency.joined) + "," + latency_mean(r, g.latency, "") + "," +
             latency_max(r, g.latency, "") + "," + std::to_string(g.latency.early) + "\n";
    }
    return t;
}

/// Mean / max of the devices' busy time, the least and most busy device; false without devices.
struct Balance {
    double mean = 0, max = 0, ratio = 0;
    const GpuRow* least = nullptr;
    const GpuRow* most = nullptr;
    std::size_t devices = 0;
    Ticks busy = 0, span = 0;
};

Balance balance(const GpuReport& r) {
    Balance b;
    for (const GpuRow& row : r.rows) {
        if (row.scope != "device") continue;
        ++b.devices;
        b.busy += row.times.busy;
        b.span += row.times.span;
        if (b.least == nullptr || row.times.busy < b.least->times.busy) b.least = &row;
        if (b.most == nullptr || row.times.busy > b.most->times.busy) b.most = &row;
    }
    if (b.devices == 0) return b;
    b.mean = r.seconds(b.busy) / static_cast<double>(b.devices);
    b.max = r.seconds(b.most->times.busy);
    b.ratio = b.max > 0 ? b.mean / b.max : 0;
    return b;
}

/// gpu.json's "activity": the axis and each device's busy share per bin; null without bins.
std::string activity_json(const GpuReport& r) {
    const ActivityAxis& a = r.activity_axis;
    if (a.bins == 0 || r.activity.empty()) return "null";
    std::string t =
        "{\"bins\": " + std::to_string(a.bins) +
        ", \"bin_s\": " + format_number(r.seconds(a.end - a.begin) / static_cast<double>(a.bins)) +
        ", \"begin_s\": " + seconds(r, a.begin - a.origin) + ", \"end_s\": " + seconds(r, a.end - a.origin) +
        ", \"gpus\": [";
    for (std::size_t d = 0; d < r.activity.size(); ++d) {
        const DeviceActivity& device = r.activity[d];
        Ticks busy = 0;
        for (Ticks b : device.busy) busy += b;
        t += std::string(d > 0 ? "," : "") + "\n    {\"rank\": " + std::to_string(device.rank) +
             ", \"device\": " + std::to_string(device.device) + ", \"busy_s\": " + seconds(r, busy) +
             ", \"busy_share\": [";
        for (std::uint64_t b = 0; b < a.bins; ++b)
            t += (b > 0 ? ", " : "") + json_share(device.busy[b], a.edge(b + 1) - a.edge(b));
        t += "]}";
    }
    return t + "\n  ]}";
}

std::string rows_json(const GpuReport& r) {
    std::string t = "{\n  \"report\": \"gpu\",\n";
    t += "  \"definitions\": {\"busy\": \"|union of kernel intervals| (flattened: overlapping kernels count "
         "once)\", \"accumulated\": \"sum of kernel durations (may exceed the span)\", \"span\": \"the "
         "device's "
         "or stream's first operation's start to its last operation's end\", \"utilisation\": \"busy / span "
         "(NVML's GPU utilisation)\", \"concurrency\": \"accumulated / span\", \"idle\": \"span - busy\", "
         "\"gaps\": \"idle stretches (no kernel) within the span longer than " +
         format_number(r.gap_threshold_s) +
         " s (Nsight)\", "
         "\"copies\": \"sum of copy and memset durations by direction, apart from the kernels\", "
         "\"imbalance\": \"mean / max of the devices' busy time\", \"rank\": \"sums over the rank's "
         "devices\", "
         "\"compute_busy\": \"|union of the intervals of the kernels that are not NCCL's| (computation)\", "
         "\"comm\": \"|union of the intervals of NCCL kernels (name starting with nccl)| (GPU "
         "communication)\", \"launch_latency\": \"an operation's start - the Enter of the host region "
         "carrying its CUDA_CORRELATION_ID (Nsight Systems, DLProf); mean and max over the launches_joined "
         "operations\", \"starts_before_launch\": \"operations joined to a launch whose Enter is after their "
         "start (clock trouble): no latency\", "
         "\"activity\": \"per device, busy_share[i] = |union of its kernel intervals within bin i| / the "
         "bin's "
         "length; the bins cut begin_s..end_s (T0..T1, the first and last CPU timestamps, or the iteration "
         "window) into equal parts (up to a tick) of bin_s; kernels outside it are left out\", "
         "\"times\": \"seconds on rank 0's clock\"},\n";
    t += "  \"restricted_to_iterations\": " +
         (r.restricted ? "{\"start\": " + std::to_string(r.first_iteration) +
                             ", \"stop\": " + std::to_string(r.last_iteration) + "}"
                       : std::string("null")) +
         ",\n";
    const Balance b = balance(r);
    t += "  \"imbalance\": ";
    if (b.devices == 0) {
        t += "null,\n";
    } else {
        t += "{\"devices\": " + std::to_string(b.devices) + ", \"mean_busy_s\": " + format_number(b.mean) +
             ", \"max_busy_s\": " + format_number(b.max) + ", \"mean_over_max\": " + format_number(b.ratio) +
             ", \"max_over_mean\": " + (b.mean > 0 ? format_number(b.max / b.mean) : std::string("null")) +
             ", \"least_busy\": {\"rank\": " + std::to_string(b.least->rank) +
             ", \"device\": " + std::to_string(b.least->device) +
             "}, \"most_busy\": {\"rank\": " + std::to_string(b.most->rank) +
             ", \"device\": " + std::to_string(b.most->device) + "}},\n";
    }
    t += "  \"activity\": " + activity_json(r) + ",\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const GpuRow& row = r.rows[i];
        const GpuTimes& g = row.times;
        t += std::string(i > 0 ? "," : "") + "\n    {\"scope\": " + json_string(row.scope) +
             ", \"rank\": " + std::to_string(row.rank) +
             ", \"device\": " + (row.device >= 0 ? std::to_string(row.device) : "null") +
             ", \"stream\": " + (row.stream.empty() ? std::string("null") : json_string(row.stream)) +
             ", \"devices\": " + (row.scope == "rank" ? std::to_string(row.devices) : "1") +
             ", \"streams\": " + std::to_string(row.streams) + ", \"kernels\": " + std::to_string(g.kernels) +
             ", \"busy_s\": " + seconds(r, g.busy) + ", \"accumulated_s\": " + seconds(r, g.accumulated) +
             ", \"span_s\": " + seconds(r, g.span) + ", \"idle_s\": " + seconds(r, g.span - g.busy) +
             ", \"utilisation\": " + json_share(g.busy, g.span) +
             ", \"concurrency\": " + json_share(g.accumulated, g.span);
        for (std::size_t c = 0; c < copy_kind_count; ++c)
            t += ", \"" + std::string(copy_columns[c]) + "\": " + seconds(r, g.copy[c]);
        t += ", \"copies\": " + std::to_string(g.copies) + ", \"gaps\": " + std::to_string(g.gaps) +
             ", \"gap_s\": " + seconds(r, g.gap_time) +
             ", \"compute_busy_s\": " + seconds(r, g.compute_busy) + ", \"comm_s\": " + seconds(r, g.comm) +
             ", \"launches_joined\": " + std::to_string(g.latency.joined) +
             ", \"launch_latency_mean_s\": " + latency_mean(r, g.latency, "null") +
             ", \"launch_latency_max_s\": " + latency_max(r, g.latency, "null") +
             ", \"starts_before_launch\": " + std::to_string(g.latency.early) + "}";
    }
    t += r.rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

std::string kernels_csv(const GpuReport& r) {
    std::string t =
        "kernel,callpath,tensor_core,count,total_s,mean_s,min_s,max_s,launch_latency_mean_s,"
        "launch_latency_max_s,communication\n";
    for (const KernelRow& k : r.kernels) {
        t += csv_field(k.name) + "," + csv_field(k.callpath) + "," + (k.tensor_core ? "1" : "0") + "," +
             std::to_string(k.count) + "," + seconds(r, k.total) + "," +
             format_number(r.seconds(k.total) / static_cast<double>(k.count)) + "," + seconds(r, k.min) +
             "," + seconds(r, k.max) + "," + latency_mean(r, k.latency, "") + "," +
             latency_max(r, k.latency, "") + "," + (k.communication ? "1" : "0") + "\n";
    }
    return t;
}

std::string kernels_json(const GpuReport& r) {
    std::string t = "{\n  \"report\": \"gpu_kernels\",\n";
    t +=
        "  \"definitions\": {\"time\": \"accumulated per kernel name and launching call path (DLProf): "
        "count, total, mean, min, max of the kernels' durations\", \"callpath\": \"the host call path of the "
        "region whose Enter carries the kernel's CUDA_CORRELATION_ID\", \"tensor_core\": \"the name contains "
        "one of the patterns (DLProf's method, case-insensitive) and neither _ffma_ nor simt, and it is no "
        "communication kernel\", \"communication\": \"an NCCL kernel (name starting with nccl): GPU "
        "communication, not computation\", \"launch_latency\": \"a kernel's start - the Enter of the host "
        "region carrying its CUDA_CORRELATION_ID, mean and max over the kernels of the row joined to their "
        "launch (null: none; a kernel starting before that Enter has none)\"},\n";
    t += "  \"tensor_core_patterns\": [";
    for (std::size_t i = 0; i < r.patterns.size(); ++i) t += (i > 0 ? ", " : "") + json_string(r.patterns[i]);
    t += "],\n  \"rows\": [";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
        const KernelRow& k = r.kernels[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"kernel\": " + json_string(k.name) +
             ", \"callpath\": " + json_string(k.callpath) +
             ", \"tensor_core\": " + (k.tensor_core ? "true" : "false") +
             ", \"count\": " + std::to_string(k.count) + ", \"total_s\": " + seconds(r, k.total) +
             ", \"mean_s\": " + format_number(r.seconds(k.total) / static_cast<double>(k.count)) +
             ", \"min_s\": " + seconds(r, k.min) + ", \"max_s\": " + seconds(r, k.max) +
             ", \"launch_latency_mean_s\": " + latency_mean(r, k.latency, "null") +
             ", \"launch_latency_max_s\": " + latency_max(r, k.latency, "null") +
             ", \"communication\": " + (k.communication ? "true" : "false") + "}";
    }
    t += r.kernels.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gpu_files(const GpuReport& report) {
    return {{"gpu.csv", rows_csv(report)},
            {"gpu.json", rows_json(report)},
            {"gpu_kernels.csv", kernels_csv(report)},
            {"gpu_kernels.json", kernels_json(report)}};
}

std::string gpu_text(const GpuReport& r) {
    const Balance b = balance(r);
    std::string t = "GPUs (from the trace's GPU streams; " + std::string(flattened_definition) + "):\n";
    std::size_t ranks = 0, streams = 0;
    Ticks kernel_time = 0, tensor_time = 0, comm_time = 0, compute_busy = 0, comm_busy = 0;
    LaunchLatency latency;
    for (const GpuRow& row : r.rows) {
        ranks += row.scope == "rank" ? 1 : 0;
        streams += row.scope == "stream" ? 1 : 0;
        if (row.scope != "device") continue;
        compute_busy += row.times.compute_busy;
        comm_busy += row.times.comm;
        latency.add(row.times.latency);
    }
    const KernelRow* slowest = nullptr;  // the largest mean launch latency
    const auto mean = [](const LaunchLatency& l) {
        return static_cast<double>(l.sum) / static_cast<double>(l.joined);
    };
    for (const KernelRow& k : r.kernels) {
        (k.communication ? comm_time : kernel_time) += k.total;
        if (k.tensor_core) tensor_time += k.total;
        if (k.latency.joined > 0 && (slowest == nullptr || mean(k.latency) > mean(slowest->latency)))
            slowest = &k;
    }
    t += "  " + std::to_string(b.devices) + (b.devices == 1 ? " GPU" : " GPUs") + " on " +
         std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + ", " + std::to_string(streams) +
         (streams == 1 ? " stream" : " streams") +
         (r.restricted ? "; restricted to iterations " + std::to_string(r.first_iteration) + " to " +
                             std::to_string(r.last_iteration)
                       : "") +
         "\n";
    if (b.devices == 0) return t;
    t += "  GPU busy share " +
         text_percent(b.span > 0 ? static_cast<double>(b.busy) / static_cast<double>(b.span) : 0) +
         " (busy " + text_seconds(r.seconds(b.busy)) + " of " + text_seconds(r.seconds(b.span)) +
         " GPU span, summed over the GPUs)\n";
    for (const GpuRow& row : r.rows) {
        if (row.scope != "device") continue;
        t += "    " + gpu_name(row) + ": busy " + text_seconds(r.seconds(row.times.busy)) + ", utilisation " +
             text_percent(row.times.span > 0
                              ? static_cast<double>(row.times.busy) / static_cast<double>(row.times.span)
                              : 0) +
             ", accumulated " + text_seconds(r.seconds(row.times.accumulated)) + ", " +
             std::to_string(row.times.kernels) + (row.times.kernels == 1 ? " kernel on " : " kernels on ") +
             std::to_string(row.streams) + (row.streams == 1 ? " stream" : " streams") + "\n";
    }
    t += "  GPU imbalance (mean / max of busy time): " + format_number(b.ratio) + "; least busy " +
         gpu_name(*b.least) + ", most busy " + gpu_name(*b.most) + "\n";
    if (comm_busy > 0) {
        t += "  GPU communication (NCCL kernels): " + text_seconds(r.seconds(comm_busy)) +
             "; computation (the other kernels): " + text_seconds(r.seconds(compute_busy)) +
             " (each the union of its kernel intervals, summed over the GPUs)\n";
    }
    const std::string comm_left_out =
        comm_time > 0 ? " (NCCL communication kernels, " + text_seconds(r.seconds(comm_time)) + ", left out)"
                      : "";
    t += "  Tensor Core kernels (by name, DLProf's method): " + text_seconds(r.seconds(tensor_time)) +
         " of " + text_seconds(r.seconds(kernel_time)) + " kernel time" + comm_left_out + "\n";
    if (latency.joined > 0) {
        t += "  Launch latency (operation start - its launch's Enter, " + std::to_string(latency.joined) +
             (latency.joined == 1 ? " operation" : " operations") + "): mean " +
             text_seconds(r.seconds(latency.sum) / static_cast<double>(latency.joined)) + ", max " +
             text_seconds(r.seconds(latency.max));
        // Only copies joined (or none of the kernels starts in the window): no kernel to name.
        if (slowest != nullptr) {
            // Names for people: a templated kernel's name runs to thousands of characters.
            t += "; largest mean: " + display_name(slowest->name) + " launched from " +
                 display_name(slowest->callpath) + " (" +
                 text_seconds(r.seconds(slowest->latency.sum) / static_cast<double>(slowest->latency.joined));
            t += ")";
        }
        t += "\n";
    }
    if (latency.early > 0) {
        t += "  Operations starting before their launch: " + std::to_string(latency.early) +
             " (the host's and the GPU's clocks disagree; no latency counted for them)\n";
    }
    return t;
}

std::string gpu_summary_csv(const GpuReport& r) {
    const Balance b = balance(r);
    std::string t =
        "gpu,devices," + std::to_string(b.devices) + ",count,GPUs seen in the trace's GPU streams\n";
    t += "gpu,busy_share," +
         (b.span > 0 ? format_number(static_cast<double>(b.busy) / static_cast<double>(b.span)) : "") +
         ",fraction,busy (union of kernel intervals) / span summed over the GPUs\n";
    t += "gpu,imbalance," + (b.devices > 0 ? format_number(b.ratio) : "") +
         ",fraction,mean / max of the GPUs' busy time\n";
    Ticks comm = 0;
    LaunchLatency latency;
    for (const GpuRow& row : r.rows) {
        if (row.scope != "device") continue;
        comm += row.times.comm;
        latency.add(row.times.latency);
    }
    t += "gpu,comm_share," +
         (b.span > 0 ? format_number(static_cast<double>(comm) / static_cast<double>(b.span)) : "") +
         ",fraction,union of NCCL kernel intervals / span summed over the GPUs (GPU communication)\n";
    t += "gpu,launch_latency_mean," + latency_mean(r, latency, "") +
         ",s,operation start - its launch's Enter over the operations joined to their launch\n";
    t += "gpu,launch_latency_max," + latency_max(r, latency, "") + ",s,the largest of those\n";
    t += "gpu,starts_before_launch," + std::to_string(latency.early) +
         ",count,operations starting before their launch's Enter (clock trouble; no latency)\n";
    return t;
}

std::vector<Finding> gpu_findings(const GpuReport& r, double idle_threshold) {
    std::vector<Finding> findings;
    const Balance b = balance(r);
    if (b.devices == 0) return findings;
    std::vector<const GpuRow*> idle;
    for (const GpuRow& row : r.rows) {
        if (row.scope != "device" || row.times.span <= 0) continue;
        const double share = 1.0 - static_cast<double>(row.times.busy) / static_cast<double>(row.times.span);
        if (share > idle_threshold) idle.push_back(&row);
    }
    std::stable_sort(idle.begin(), idle.end(), [](const GpuRow* a, const GpuRow* c) {
        return (a->times.span - a->times.busy) > (c->times.span - c->times.busy);
    });
    const GpuRow& most = *b.most;
    const double most_util =
        most.times.span > 0 ? static_cast<double>(most.times.busy) / static_cast<double>(most.times.span) : 0;
    for (const GpuRow* row : idle) {
        Finding f;
        f.kind = "gpu_idle";
        f.ranks = {static_cast<std::int64_t>(row->rank)};
        f.metric = "idle_share";
        f.value = 1.0 - static_cast<double>(row->times.busy) / static_cast<double>(row->times.span);
        f.stake = f.value;  // of that GPU's time
        f.threshold = idle_threshold;
        f.time_s = r.seconds(row->times.span - row->times.busy);
        f.message = gpu_name(*row) + " idle " + text_percent(f.value) + " of the time (" +
                    text_seconds(*f.time_s) + " of " + text_seconds(r.seconds(row->times.span)) + ")";
        if (row != &most) f.message += " while " + gpu_name(most) + " is busy " + text_percent(most_util);
        f.message += "; give it more work or overlap its copies and launches [" +
                     std::string(flattened_definition) + "]";
        findings.push_back(std::move(f));
    }
    if (b.devices > 1 && b.ratio < 1.0 - idle_threshold) {
        Finding f;
        f.kind = "gpu_imbalance";
        f.ranks = {static_cast<std::int64_t>(b.least->rank), static_cast<std::int64_t>(most.rank)};
        f.metric = "mean_over_max_busy";
        f.value = b.ratio;
        f.stake = 1.0 - b.ratio;  // (max - mean) / max of the GPUs' busy time
        f.threshold = 1.0 - idle_threshold;
        f.time_s = b.max - b.mean;
        f.message = "GPUs are unequally loaded: mean / max of busy time " + format_number(b.ratio) +
                    " (mean " + text_seconds(b.mean) + ", max " + text_seconds(b.max) + " on " +
                    gpu_name(most) + "); least busy " + gpu_name(*b.least) + " (" +
                    text_seconds(r.seconds(b.least->times.busy)) +
                    ") [GPU imbalance = mean / max of flattened "
                    "busy time]";
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace strata::analysis::trace
