// SPDX-License-Identifier: BSD-3-Clause
// The Chrome trace / Perfetto timeline (see timeline_writer.hpp).
#include "trace/timeline_writer.hpp"

#include <otf2/otf2.h>

#include <cstdio>

#include "analyze/report_format.hpp"

namespace strata::analysis::trace {

namespace {

const char* paradigm_category(std::uint32_t paradigm) {
    switch (paradigm) {
        case OTF2_PARADIGM_USER:
            return "user";
        case OTF2_PARADIGM_COMPILER:
            return "compiler";
        case OTF2_PARADIGM_MPI:
            return "mpi";
        case OTF2_PARADIGM_OPENMP:
            return "openmp";
        case OTF2_PARADIGM_CUDA:
            return "cuda";
        case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
            return "measurement";
        default:
            return "other";
    }
}

}  // namespace

std::string flow_id(const MessageKey& key) {
    std::uint64_t hash = 1469598103934665603ull;
    const std::uint64_t fields[] = {key.comm, key.source, key.destination, key.tag, key.seq};
    for (std::uint64_t field : fields) {
        for (int byte = 0; byte < 8; ++byte) {
            hash ^= (field >> (8 * byte)) & 0xff;
            hash *= 1099511628211ull;
        }
    }
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(hash));
    return text;
}

const char* timeline_header() {
    return "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
}

const char* timeline_footer() {
    return "\n]}\n";
}

TimelineWriter::TimelineWriter(const std::string& path, const TraceDefinitions& definitions,
                               std::uint64_t slice_cap)
    : out_(path, std::ios::binary | std::ios::trunc), definitions_(definitions), cap_(slice_cap) {}

std::string TimelineWriter::micros(Ticks t) const {
    // Microseconds from the trace start; three decimals are whole ns at a 1 GHz timer.
    const long double us = static_cast<long double>(static_cast<__int128>(t) - definitions_.global_offset) *
                           1e6L / static_cast<long double>(definitions_.timer_resolution);
    char text[48];
    std::snprintf(text, sizeof text, "%.3Lf", us);
    return text;
}

std::string TimelineWriter::where(std::int64_t rank, std::size_t thread) const {
    return "\"pid\": " + std::to_string(rank) + ", \"tid\": " + std::to_string(thread);
}

void TimelineWriter::begin_location(std::size_t index, std::size_t thread) {
    const TraceLocation& l = definitions_.locations[index];
    rank_ = l.rank;
    thread_ = thread;
    slices_ = dropped_ = 0;
    first_dropped_ = no_time;
    const std::string at = where(rank_, thread);
    if (thread == 0) {
        out_ << ",\n{\"ph\": \"M\", \"name\": \"process_name\", " << at << ", \"args\": {\"name\": \"rank "
             << rank_ << "\"}}";
        out_ << ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", " << at
             << ", \"args\": {\"sort_index\": " << rank_ << "}}";
    }
    out_ << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", " << at
         << ", \"args\": {\"name\": " << json_string(l.name) << "}}";
    out_ << ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", " << at
         << ", \"args\": {\"sort_index\": " << thread << "}}";
}

bool TimelineWriter::slice(std::uint32_t region, Ticks enter, Ticks exit) {
    if (slices_ >= cap_) {
        if (dropped_++ == 0) first_dropped_ = exit;
        return false;
    }
    ++slices_;
    const TraceRegion& r = definitions_.regions[region];
    const long double duration = static_cast<long double>(exit - enter) * 1e6L /
                                 static_cast<long double>(definitions_.timer_resolution);
    char dur[48];
    std::snprintf(dur, sizeof dur, "%.3Lf", duration);
    out_ << ",\n{\"ph\": \"X\", \"name\": " << json_string(r.name) << ", \"cat\": \""
         << paradigm_category(r.paradigm) << "\", \"ts\": " << micros(enter) << ", \"dur\": " << dur << ", "
         << where(rank_, thread_) << "}";
    return true;
}

void TimelineWriter::flow(const MessageKey& key, Ticks event, bool start, std::size_t thread) {
    if (event == no_time) return;
    out_ << ",\n{\"ph\": \"" << (start ? "s" : "f") << "\", " << (start ? "" : "\"bp\": \"e\", ")
         << "\"name\": \"message\", \"cat\": \"message\", \"id\": \"" << flow_id(key)
         << "\", \"ts\": " << micros(event) << ", " << where(start ? key.source : key.destination, thread)
         << "}";
}

void TimelineWriter::launch_flow(std::uint32_t rank, std::uint64_t correlation, Ticks time,
                                 std::size_t thread, bool start) {
    // FNV-1a as for messages; a leading 0xff keeps launch ids apart from message ids.
    std::uint64_t hash = 1469598103934665603ull;
    const std::uint64_t fields[] = {0xff, rank, correlation};
    for (std::uint64_t field : fields) {
        for (int byte = 0; byte < 8; ++byte) {
            hash ^= (field >> (8 * byte)) & 0xff;
            hash *= 1099511628211ull;
        }
    }
    char id[24];
    std::snprintf(id, sizeof id, "0x%016llx", static_cast<unsigned long long>(hash));
    out_ << ",\n{\"ph\": \"" << (start ? "s" : "f") << "\", " << (start ? "" : "\"bp\": \"e\", ")
         << "\"name\": \"launch\", \"cat\": \"cuda\", \"id\": \"" << id << "\", \"ts\": " << micros(time)
         << ", " << where(rank, thread) << "}";
}

}  // namespace strata::analysis::trace
