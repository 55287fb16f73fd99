// SPDX-License-Identifier: BSD-3-Clause
// The conversion of a location's trace buffer into its OTF2 event file: the
// records the spec converts by their fields (trace_records.def), and those
// converted here by hand (regions keep a stack, attributes and counters go
// with an Enter, GPU metrics into their metric classes).
#include <algorithm>
#include <vector>

#include <sys/stat.h>

#include "metrics/metrics.hpp"
#include "tracing/otf2_archive.hpp"
#include "tracing/otf2_event_file.hpp"

namespace strata::tracing {

namespace {

// OTF2 references are dense from 0; our handles start at 1 (0 = none).
// Strings are the exception: string 0 of the archive is "", so handle = reference.
inline OTF2_RegionRef region_ref(std::uint64_t handle) { return static_cast<OTF2_RegionRef>(handle - 1); }
inline OTF2_ParameterRef parameter_ref(std::uint64_t handle) { return static_cast<OTF2_ParameterRef>(handle - 1); }

inline OTF2_CommRef comm_ref(std::uint64_t handle) { return static_cast<OTF2_CommRef>(handle - 1); }

/// A Metric event of the local metric class 0: this process's counters in their
/// configured order (the global class 0, see write_global_definitions).
void write_metrics(Otf2EventFile& file, Ticks time, const std::vector<std::uint64_t>& counters) {
    const std::size_t n = std::min<std::size_t>(counters.size(), substrate::kMaxMetrics);
    file.metric(time, 0, static_cast<std::uint32_t>(n), counters.data());
}

/// The OTF2 value of a field as the buffer holds it (trace_record_spec.hpp).
std::uint64_t otf2_value(FieldType type, std::uint64_t v) {
    switch (type) {
        case FieldType::region: return region_ref(v);
        case FieldType::parameter: return parameter_ref(v);
        case FieldType::communicator: return comm_ref(v);
        case FieldType::rank:
        case FieldType::threads:
        case FieldType::thread_number:
        case FieldType::generation: return static_cast<uint32_t>(v);
        case FieldType::tag: return static_cast<uint32_t>(unzigzag(v));
        case FieldType::root: {
            const std::int64_t root = unzigzag(v);
            return root < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<uint32_t>(root);
        }
        case FieldType::int_value: return static_cast<std::uint64_t>(unzigzag(v));
        case FieldType::paradigm: return to_otf2(static_cast<Paradigm>(v));
        default: return v;
    }
}

/// A record whose row in trace_records.def converts it by its fields alone.
void convert_by_spec(Otf2EventFile& file, const Record& r) {
    const RecordSpec& spec = record_spec(r.type);
    if (spec.conversion == Conversion::singleton) {
        return file.singleton(r.time, spec.otf2_kind, otf2_value(spec.fields[0], r.field[0]));
    }
    if (spec.conversion != Conversion::fields) return;  // (Otf2Archive::convert has every special row)
    std::uint64_t fields[kMaxFields];
    for (int i = 0; i < spec.field_count; ++i) fields[i] = otf2_value(spec.fields[i], r.field[i]);
    file.record(r.time, spec.otf2_kind, spec.layout, fields);
}

}  // namespace

Error Otf2Archive::convert(Otf2LocationState& state, const EventBuffer& buffer, std::uint64_t max_records,
                           std::uint64_t* converted) {
    std::uint64_t records = 0;
    if (converted != nullptr) *converted = 0;
    if (archive_ == nullptr) return open_error_ ? open_error_ : Error("the OTF2 archive is not open");
    if (write_failed_.load(std::memory_order_acquire)) return earlier_failure();
    Otf2EventFile& file = event_file(state);
    buffer.for_each([&](const Record& r) {
        if (file.failed() || records == max_records) return;
        ++records;
        state.last_time = r.time;
        switch (r.type) {
            case RecordType::enter:
                file.enter(r.time, region_ref(r.a));
                state.open.push_back(r.a);
                break;
            case RecordType::gpu_attributes:
                state.pending_attributes.clear();
                for (std::uint32_t k = 0; k < r.attribute_count; ++k) {
                    const std::uint64_t attribute = r.attributes[2 * k];
                    if (attribute < kMaxGpuAttributes) {
                        state.pending_attributes.emplace_back(static_cast<std::uint32_t>(attribute),
                                                              r.attributes[2 * k + 1]);
                    }
                }
                break;
            case RecordType::enter_correlated: {
                Otf2Attribute attributes[1 + kMaxGpuAttributes];
                std::uint32_t count = 0, used = 0;
                if (r.b != 0) {
                    attributes[count++] = {kCorrelationAttribute, r.b};
                    used |= 1u;
                }
                for (const auto& [attribute, value] : state.pending_attributes) {
                    if (count == 1 + kMaxGpuAttributes) break;
                    attributes[count++] = {gpu_attribute_ref(attribute), value};
                    used |= 2u << attribute;
                }
                state.pending_attributes.clear();
                file.enter_with_attributes(r.time, region_ref(r.a), attributes, count);
                state.open.push_back(r.a);
                if (used != 0) attributes_used_.fetch_or(used, std::memory_order_relaxed);
                break;
            }
            case RecordType::leave:
                if (state.open.empty() || state.open.back() != r.a) {
                    ++state.skipped_leaves;
                    return;
                }
                state.open.pop_back();
                file.leave(r.time, region_ref(r.a));
                break;
            case RecordType::metrics:
                state.last_metrics.assign(r.metric_values, r.metric_values + r.metric_count);
                write_metrics(file, r.time, state.last_metrics);
                break;
            case RecordType::device_metric: {
                if (r.a >= static_cast<std::uint64_t>(DeviceMetric::count)) break;
                const bool counters = !metrics::configured().empty();
                file.metric(r.time, device_metric_class(counters, static_cast<std::uint32_t>(r.a)), 1, &r.b);
                break;
            }
            default:  // MPI, threads, parameters
                convert_by_spec(file, r);
                break;
        }
    });
    if (converted != nullptr) *converted = records;
    return written_out(state);
}

Error Otf2Archive::written_out(Otf2LocationState& state) {
    state.events = state.file->events();
    const Error error = state.file->write_out();
    return error ? failed(*error) : error;
}

Otf2EventFile& Otf2Archive::event_file(Otf2LocationState& state) {
    if (state.file == nullptr) {
        const std::string traces = directory_ + "/traces";
        ::mkdir(traces.c_str(), 0755);  // OTF2 made it at open; a missing one is made again
        state.file = std::make_unique<Otf2EventFile>(
            traces + "/" + std::to_string(location_id(state.location_index)) + ".evt", chunk_size_);
    }
    return *state.file;
}

Error Otf2Archive::adopt(Otf2LocationState& state) {
    if (state.file == nullptr) return {};
    const std::string traces = directory_ + "/traces";
    ::mkdir(traces.c_str(), 0755);  // as event_file() does
    return state.file->move_to(traces + "/" + std::to_string(location_id(state.location_index)) + ".evt");
}

Error Otf2Archive::stop(Otf2LocationState& state) {
    if (archive_ == nullptr) return open_error_ ? open_error_ : Error("the OTF2 archive is not open");
    if (write_failed_.load(std::memory_order_acquire)) return earlier_failure();
    const std::uint64_t off[] = {OTF2_MEASUREMENT_OFF};
    event_file(state).record(state.last_time, otf2_kind::measurement_on_off, "b", off);
    return close_open_regions(state, state.last_time);
}

std::uint64_t Otf2Archive::event_file_bytes(const Otf2LocationState& state) const {
    return state.file != nullptr ? state.file->bytes() : 0;
}

Error Otf2Archive::close_open_regions(Otf2LocationState& state, Ticks end) {
    if (state.file == nullptr) return {};
    if (write_failed_.load(std::memory_order_acquire)) return earlier_failure();
    end = std::max(end, state.last_time);
    while (!state.open.empty()) {
        state.file->leave(end, region_ref(state.open.back()));
        state.open.pop_back();
        // Every leave of a location with counters has its Metric event (the
        // class is SYNCHRONOUS_STRICT): the last values known.
        if (!state.last_metrics.empty()) write_metrics(*state.file, end, state.last_metrics);
    }
    return written_out(state);
}

Error Otf2Archive::close_writer(Otf2LocationState& state) {
    if (state.file == nullptr) return {};
    if (write_failed_.load(std::memory_order_acquire)) return earlier_failure();  // see finish()
    const Error error = state.file->finish();
    state.events = state.file->events();
    state.file.reset();
    return error ? failed(*error) : error;
}

}  // namespace strata::tracing
