// SPDX-License-Identifier: BSD-3-Clause
// GPU metrics over time (see gpu_metrics.hpp).
#include "trace/gpu_metrics.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "analyze/report_format.hpp"
#include "score/trace_estimate.hpp"
#include "trace/clock_correction.hpp"

namespace strata::analysis::trace {

namespace {

/// The state of one metric location's read, passed to OTF2 as user data.
struct MetricRead {
    ShareRecords* out = nullptr;
    std::uint32_t location = 0;
    ClockCorrection clock;
    /// Per metric class, per member: the GpuMetric it carries, or -1.
    std::vector<std::vector<std::int8_t>> metric_of;
    bool open = false;            ///< `current` has a value
    OTF2_TimeStamp raw_time = 0;  ///< its time as written
    GpuSample current;
    std::uint32_t next_sequence = 0;

    void close() {
        if (open) out->gpu_samples.push_back(current);
        open = false;
    }
};

MetricRead& state(void* user) {
    return *static_cast<MetricRead*>(user);
}

OTF2_CallbackCode on_clock_offset(void* user, OTF2_TimeStamp time, int64_t offset, double) {
    state(user).clock.add(time, offset);
    return OTF2_CALLBACK_SUCCESS;
}

/// A value as an unsigned integer; false for a negative or non-numeric one (left absent).
bool unsigned_value(OTF2_Type type, const OTF2_MetricValue& value, std::uint64_t* out) {
    switch (type) {
        case OTF2_TYPE_UINT64:
            *out = value.unsigned_int;
            return true;
        case OTF2_TYPE_INT64:
            if (value.signed_int < 0) return false;
            *out = static_cast<std::uint64_t>(value.signed_int);
            return true;
        case OTF2_TYPE_DOUBLE:
            // The format says UINT64; a writer that chose double still means the same figure.
            if (!(value.floating_point >= 0.0 && value.floating_point < 1.8e19)) return false;
            *out = static_cast<std::uint64_t>(std::llround(value.floating_point));
            return true;
        default:
            return false;
    }
}

OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user, OTF2_AttributeList*,
                            OTF2_MetricRef metric, uint8_t count, const OTF2_Type* types,
                            const OTF2_MetricValue* values) {
    MetricRead& r = state(user);
    if (metric >= r.metric_of.size()) return OTF2_CALLBACK_SUCCESS;
    const std::vector<std::int8_t>& members = r.metric_of[metric];
    for (std::size_t i = 0; i < count && i < members.size(); ++i) {
        std::uint64_t v = 0;
        if (members[i] < 0 || !unsigned_value(types[i], values[i], &v)) continue;
        const auto m = static_cast<std::size_t>(members[i]);
        // A sample is the events of one timestamp; a value that comes twice starts another.
        if (r.open && (time != r.raw_time || (r.current.present & (1u << m)) != 0)) r.close();
        if (!r.open) {
            r.current = GpuSample{};
            r.current.location = r.location;
            r.current.sequence = r.next_sequence++;
            r.current.time = r.clock.correct(time);
            r.raw_time = time;
            r.open = true;
        }
        r.current.values[m] = v;
        r.current.present = static_cast<std::uint8_t>(r.current.present | (1u << m));
    }
    return OTF2_CALLBACK_SUCCESS;
}

constexpr std::array<GpuMetricName, gpu_metric_count> names = {{
    {"gpu_utilization", "utilization_pct", "%"},
    {"gpu_memory_utilization", "memory_utilization_pct", "%"},
    {"gpu_memory_used", "memory_used_bytes", "bytes"},
    {"gpu_power", "power_w", "mW"},
    {"gpu_sm_clock", "sm_clock_mhz", "MHz"},
}};

}  // namespace

const std::array<GpuMetricName, gpu_metric_count>& gpu_metric_names() {
    return names;
}

bool is_gpu_metric_location(const TraceLocation& location) {
    return location.type == OTF2_LOCATION_TYPE_METRIC &&
           (location.device >= 0 || location.name.rfind("GPU[", 0) == 0);
}

std::int64_t gpu_metric_device(const TraceLocation& location) {
    if (location.device >= 0) return location.device;
    // "GPU[3] metrics" without the property (the property is what the format promises).
    std::int64_t device = 0;
    for (std::size_t i = 4; i < location.name.size() && i < 12; ++i) {
        const char c = location.name[i];
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        device = device * 10 + (c - '0');
    }
    return device;
}

Error read_gpu_metrics(Otf2Reader& reader, const TraceDefinitions& definitions, std::size_t index,
                       ShareRecords& records, const std::function<void()>& between_batches,
                       const LogicalShift* shift) {
    const TraceLocation& location = definitions.locations[index];
    const std::string where = "rank " + std::to_string(location.rank) + ", " + location.name + " (location " +
                              std::to_string(location.id) + ")";
    MetricRead r;
    r.out = &records;
    r.location = static_cast<std::uint32_t>(index);
    // By name: the member references differ from trace to trace (counters are numbered first).
    std::vector<std::int8_t> metric_of_member(definitions.metric_members.size(), -1);
    for (std::size_t m = 0; m < definitions.metric_members.size(); ++m) {
        for (std::size_t g = 0; g < gpu_metric_count; ++g) {
            if (definitions.metric_members[m] == names[g].member)
                metric_of_member[m] = static_cast<std::int8_t>(g);
        }
    }
    for (const std::vector<std::uint32_t>& members : definitions.metric_classes) {
        r.metric_of.emplace_back();
        for (std::uint32_t member : members)
            r.metric_of.back().push_back(member < metric_of_member.size() ? metric_of_member[member] : -1);
    }
    const Error local = read_local_definitions(
        reader, location.id,
        [](OTF2_DefReaderCallbacks* c) {
            return OTF2_DefReaderCallbacks_SetClockOffsetCallback(c, on_clock_offset);  // the times only
        },
        &r);
    if (local) return where + ": " + *local;
    if (shift != nullptr) r.clock.follow(shift);

    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader.get(), location.id);
    if (events == nullptr) return where + ": its event file (.evt) cannot be opened";
    // Times corrected here, as every location's (clock_correction.hpp); OTF2 applies the mapping tables.
    OTF2_ErrorCode rc = OTF2_EvtReader_ApplyClockOffsets(events, false);
    OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
    if (callbacks == nullptr) rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (rc == OTF2_SUCCESS) rc = OTF2_EvtReaderCallbacks_SetMetricCallback(callbacks, on_metric);
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_RegisterEvtCallbacks(reader.get(), events, callbacks, &r);
    if (callbacks != nullptr) OTF2_EvtReaderCallbacks_Delete(callbacks);
    // In batches, as the other locations: between them rank 0 answers the requests for units.
    constexpr uint64_t batch = 1 << 16;
    while (rc == OTF2_SUCCESS) {
        uint64_t read = 0;
        rc = OTF2_Reader_ReadLocalEvents(reader.get(), events, batch, &read);
        if (read < batch) break;
        if (between_batches) between_batches();
    }
    r.close();
    const OTF2_ErrorCode closed = OTF2_Reader_CloseEvtReader(reader.get(), events);
    if (rc != OTF2_SUCCESS) {
        return where + ": its event file (.evt) cannot be read to the end: " + describe_otf2(rc) +
               "; the samples after the damage were skipped";
    }
    if (closed != OTF2_SUCCESS) return where + ": its event file cannot be closed: " + describe_otf2(closed);
    return {};
}

void put_gpu_metric_partial(ByteWriter& out, const ShareRecords& records,
                            const TraceDefinitions& definitions) {
    out.put<std::uint64_t>(records.gpu_samples.size());
    for (const GpuSample& s : records.gpu_samples) {
        const TraceLocation& l = definitions.locations[s.location];
        GpuMetricSample sample;
        sample.rank = static_cast<std::uint32_t>(l.rank);
        sample.sequence = s.sequence;
        sample.device = gpu_metric_device(l);
        sample.location = l.id;
        sample.time = s.time;
        sample.present = s.present;
        sample.values = s.values;
        out.put(sample);
    }
}

void add_gpu_metric_partial(GpuMetricReport& report, ByteReader& in) {
    const auto n = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < n; ++i) report.samples.push_back(in.get<GpuMetricSample>());
}

void finish_gpu_metric_report(GpuMetricReport& report, const IterationPlan& plan) {
    if (!plan.ranks.empty()) report.origin = plan.begin;
    report.restricted = plan.restricted;
    report.first_iteration = plan.first;
    report.last_iteration = plan.last;
    std::vector<GpuMetricSample>& samples = report.samples;
    samples.erase(std::remove_if(samples.begin(), samples.end(),
                                 [&](const GpuMetricSample& s) {
                                     return s.time < plan.window_begin || s.time >= plan.window_end;
                                 }),
                  samples.end());
    std::sort(samples.begin(), samples.end(), [](const GpuMetricSample& a, const GpuMetricSample& b) {
        return std::tie(a.rank, a.device, a.time, a.location, a.sequence) <
               std::tie(b.rank, b.device, b.time, b.location, b.sequence);
    });
    report.gpus.clear();
    const GpuMetricSample* last_power = nullptr;  // the GPU's previous sample with power
    for (const GpuMetricSample& s : samples) {
        if (report.gpus.empty() || report.gpus.back().rank != s.rank ||
            report.gpus.back().device != s.device) {
            GpuMetricSummary g;
            g.rank = s.rank;
            g.device = s.device;
            g.first = s.time;
            report.gpus.push_back(g);
            last_power = nullptr;
        }
        GpuMetricSummary& g = report.gpus.back();
        ++g.samples;
        g.last = s.time;
        for (std::size_t m = 0; m < gpu_metric_count; ++m) {
            if ((s.present & (1u << m)) == 0) continue;
            const std::uint64_t v = s.values[m];
            g.min[m] = g.count[m] == 0 ? v : std::min(g.min[m], v);
            g.max[m] = g.count[m] == 0 ? v : std::max(g.max[m], v);
            g.sum[m] += v;
            ++g.count[m];
        }
        if ((s.present & (1u << gpu_power)) == 0) continue;
        // A sample without power is skipped: the trapezoid joins its neighbours.
        if (last_power != nullptr) {
            g.twice_energy +=
                (static_cast<unsigned __int128>(last_power->values[gpu_power]) + s.values[gpu_power]) *
                static_cast<unsigned __int128>(s.time - last_power->time);
        }
        last_power = &s;
    }
}

namespace {

/// A recorded value as gpu_metrics.csv writes it: power in W, the others as
/// recorded, every digit (memory in bytes goes beyond format_number's 9).
std::string value_text(std::size_t metric, std::uint64_t value) {
    return metric == gpu_power ? format_number(static_cast<double>(value) / 1000.0) : std::to_string(value);
}

std::string mean_or(const GpuMetricSummary& g, std::size_t metric, const char* none) {
    if (g.count[metric] == 0) return none;
    const double mean = static_cast<double>(g.sum[metric]) / static_cast<double>(g.count[metric]);
    return format_number(metric == gpu_power ? mean / 1000.0 : mean);
}

std::string max_or(const GpuMetricSummary& g, std::size_t metric, const char* none) {
    return g.count[metric] == 0 ? none : value_text(metric, g.max[metric]);
}

std::string min_or(const GpuMetricSummary& g, std::size_t metric, const char* none) {
    return g.count[metric] == 0 ? none : value_text(metric, g.min[metric]);
}

/// Joules: the trapezoids' sum is in mW ticks, twice over.
std::string energy_or(const GpuMetricReport& r, const GpuMetricSummary& g, const char* none) {
    if (g.count[gpu_power] < 2) return none;
    return format_number(static_cast<double>(g.twice_energy) /
                         (2000.0 * static_cast<double>(r.timer_resolution)));
}

std::string gpu_name(const GpuMetricSummary& g) {
    return "GPU " + std::to_string(g.device) + " of rank " + std::to_string(g.rank);
}

std::string samples_csv(const GpuMetricReport& r) {
    std::string t = "rank,device,time_s";
    for (const GpuMetricName& n : names) t += std::string(",") + n.column;
    t += "\n";
    for (const GpuMetricSample& s : r.samples) {
        t += std::to_string(s.rank) + "," + std::to_string(s.device) + "," +
             format_number(r.seconds(s.time - r.origin));
        for (std::size_t m = 0; m < gpu_metric_count; ++m)
            t += "," + ((s.present & (1u << m)) != 0 ? value_text(m, s.values[m]) : "");
        t += "\n";
    }
    return t;
}

std::string summary_json(const GpuMetricReport& r) {
    std::string t = "{\n  \"report\": \"gpu_metrics\",\n";
    t +=
        "  \"definitions\": {\"sample\": \"the Metric events of one GPU metric location at one time (NVML, "
        "every STRATA_CUDA_SAMPLING_INTERVAL); a value the board did not report is absent (empty in "
        "gpu_metrics.csv)\", \"time\": \"seconds from T0, the trace's first timestamp, on rank 0's clock (as "
        "iterations.json)\", \"utilization\": \"gpu_utilization (%): NVML's GPU utilisation, the share of "
        "the sample period in which a kernel ran on the board, any process's (the sampled form of gpu.json's "
        "utilisation, the union of this program's kernel intervals / span; METRICS.md)\", "
        "\"memory_utilization\": \"gpu_memory_utilization (%): the share of the sample period in which "
        "device memory was read or written\", \"memory_used\": \"gpu_memory_used (bytes): device memory in "
        "use, all processes\", \"power\": \"gpu_power (mW in the trace, W here): board power draw\", "
        "\"sm_clock\": \"gpu_sm_clock (MHz)\", \"means\": \"over the GPU's samples that have the value "
        "(not weighted by time)\", \"energy\": \"the trapezoid rule over the GPU's consecutive samples with "
        "a power value (those without one are skipped), in J; null with fewer than two\", \"gpu\": \"(rank, "
        "CUDA_DEVICE), as in gpu.json\"},\n";
    t += "  \"restricted_to_iterations\": " +
         (r.restricted ? "{\"start\": " + std::to_string(r.first_iteration) +
                             ", \"stop\": " + std::to_string(r.last_iteration) + "}"
                       : std::string("null")) +
         ",\n";
    t += "  \"locations\": " + std::to_string(r.locations) + ",\n";
    t += "  \"samples\": " + std::to_string(r.samples.size()) + ",\n";
    t += "  \"gpus\": [";
    for (std::size_t i = 0; i < r.gpus.size(); ++i) {
        const GpuMetricSummary& g = r.gpus[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"rank\": " + std::to_string(g.rank) +
             ", \"device\": " + std::to_string(g.device) + ", \"samples\": " + std::to_string(g.samples) +
             ", \"first_s\": " + format_number(r.seconds(g.first - r.origin)) +
             ", \"last_s\": " + format_number(r.seconds(g.last - r.origin)) +
             ", \"utilization_mean_pct\": " + mean_or(g, gpu_utilization, "null") +
             ", \"utilization_max_pct\": " + max_or(g, gpu_utilization, "null") +
             ", \"memory_utilization_mean_pct\": " + mean_or(g, gpu_memory_utilization, "null") +
             ", \"memory_used_max_bytes\": " + max_or(g, gpu_memory_used, "null") +
             ", \"power_mean_w\": " + mean_or(g, gpu_power, "null") +
             ", \"energy_j\": " + energy_or(r, g, "null") +
             ", \"sm_clock_min_mhz\": " + min_or(g, gpu_sm_clock, "null") +
             ", \"sm_clock_max_mhz\": " + max_or(g, gpu_sm_clock, "null") + "}";
    }
    t += r.gpus.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

/// "mean 62.5%, max 90.0%" of a metric in %.
std::string percent_text(const GpuMetricSummary& g, std::size_t metric) {
    return text_percent(static_cast<double>(g.sum[metric]) / static_cast<double>(g.count[metric]) / 100.0);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gpu_metric_files(const GpuMetricReport& report) {
    return {{"gpu_metrics.csv", samples_csv(report)}, {"gpu_metrics.json", summary_json(report)}};
}

std::string gpu_metric_text(const GpuMetricReport& r) {
    std::string t =
        "GPU metrics over time (NVML's samples, in gpu_metrics.csv; utilisation = the share of each "
        "sample period in which a kernel ran on the board, any process):\n";
    t += "  " + std::to_string(r.gpus.size()) + (r.gpus.size() == 1 ? " GPU, " : " GPUs, ") +
         std::to_string(r.samples.size()) + (r.samples.size() == 1 ? " sample" : " samples") +
         (r.restricted ? "; restricted to iterations " + std::to_string(r.first_iteration) + " to " +
                             std::to_string(r.last_iteration)
                       : "") +
         "\n";
    for (const GpuMetricSummary& g : r.gpus) {
        std::string line = "    " + gpu_name(g) + ": " + std::to_string(g.samples) +
                           (g.samples == 1 ? " sample" : " samples") + " from " +
                           text_seconds(r.seconds(g.first - r.origin)) + " to " +
                           text_seconds(r.seconds(g.last - r.origin));
        if (g.count[gpu_utilization] > 0) {
            line += "; utilisation mean " + percent_text(g, gpu_utilization) + ", max " +
                    text_percent(static_cast<double>(g.max[gpu_utilization]) / 100.0);
        }
        if (g.count[gpu_memory_utilization] > 0)
            line += "; memory utilisation mean " + percent_text(g, gpu_memory_utilization);
        if (g.count[gpu_memory_used] > 0) {
            line += "; memory used peak " + std::to_string(g.max[gpu_memory_used]) + " bytes (" +
                    format_bytes(static_cast<double>(g.max[gpu_memory_used])) + ")";
        }
        if (g.count[gpu_power] > 0) {
            line += "; power mean " + mean_or(g, gpu_power, "") + " W";
            if (g.count[gpu_power] > 1) line += ", energy " + energy_or(r, g, "") + " J";
        } else {
            line += "; power not reported";
        }
        if (g.count[gpu_sm_clock] > 0) {
            line +=
                "; SM clock " + min_or(g, gpu_sm_clock, "") + " to " + max_or(g, gpu_sm_clock, "") + " MHz";
        }
        t += line + "\n";
    }
    return t;
}

}  // namespace strata::analysis::trace
