// SPDX-License-Identifier: BSD-3-Clause
// The Chrome trace / Perfetto timeline (see timeline_writer.hpp).
#include "trace/timeline_writer.hpp"

#include <otf2/otf2.h>

#include <charconv>
#include <cstdio>

#include "analyze/report_format.hpp"
#include "trace/timeline_overview.hpp"

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

std::uint64_t flow_hash(const MessageKey& key) {
    std::uint64_t hash = 1469598103934665603ull;
    const std::uint64_t fields[] = {key.comm, key.source, key.destination, key.tag, key.seq};
    for (std::uint64_t field : fields) {
        for (int byte = 0; byte < 8; ++byte) {
            hash ^= (field >> (8 * byte)) & 0xff;
            hash *= 1099511628211ull;
        }
    }
    return hash;
}

std::string flow_id(const MessageKey& key) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(flow_hash(key)));
    return text;
}

const char* timeline_header() {
    return "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
}

const char* timeline_footer() {
    return "\n]}\n";
}

__int128 thousandths_of_microseconds(__int128 ticks, std::uint64_t resolution) {
    // |ticks| * 10^9 / resolution, rounded to the nearest (ties to even).
    const auto magnitude = static_cast<unsigned __int128>(ticks < 0 ? -ticks : ticks);
    const unsigned __int128 scaled = magnitude * 1000000000u;
    const unsigned __int128 divisor = resolution != 0 ? resolution : 1;
    unsigned __int128 units = scaled / divisor;
    const unsigned __int128 twice_rest = (scaled % divisor) * 2;
    if (twice_rest > divisor || (twice_rest == divisor && (units & 1) != 0)) ++units;
    return ticks < 0 ? -static_cast<__int128>(units) : static_cast<__int128>(units);
}

void append_thousandths(std::string& out, __int128 units) {
    if (units < 0) out += '-';
    const auto magnitude = static_cast<unsigned __int128>(units < 0 ? -units : units);
    // The whole microseconds, then three decimals.
    const auto thousandths = static_cast<unsigned>(magnitude % 1000);
    unsigned __int128 whole = magnitude / 1000;
    char digits[48];  // 2^128 has 39 digits
    char* const end = digits + sizeof digits;
    char* p = end;
    if (whole <= UINT64_MAX) {
        p = std::to_chars(digits, end, static_cast<std::uint64_t>(whole)).ptr;
        out.append(digits, p);
    } else {
        do {
            *--p = static_cast<char>('0' + static_cast<unsigned>(whole % 10));
            whole /= 10;
        } while (whole != 0);
        out.append(p, end);
    }
    const char decimals[4] = {'.', static_cast<char>('0' + thousandths / 100),
                              static_cast<char>('0' + thousandths / 10 % 10),
                              static_cast<char>('0' + thousandths % 10)};
    out.append(decimals, 4);
}

void append_microseconds(std::string& out, __int128 ticks, std::uint64_t resolution) {
    append_thousandths(out, thousandths_of_microseconds(ticks, resolution));
}

namespace {
void append_number(std::string& out, std::uint64_t value) {
    char text[24];
    const auto result = std::to_chars(text, text + sizeof text, value);
    out.append(text, result.ptr);
}

/// Appends ", \"pid\": R, \"tid\": T".
void append_where(std::string& out, std::int64_t rank, std::size_t thread) {
    out += ", \"pid\": ";
    if (rank < 0) {
        out += '-';
        append_number(out, static_cast<std::uint64_t>(-(rank + 1)) + 1);
    } else {
        append_number(out, static_cast<std::uint64_t>(rank));
    }
    out += ", \"tid\": ";
    append_number(out, thread);
}
}  // namespace

TimelineWriter::TimelineWriter(const std::string& path, const TraceDefinitions& definitions,
                               std::uint64_t slice_cap)
    : path_(path),
      out_(path),
      definitions_(definitions),
      cap_(slice_cap),
      slice_start_(definitions.regions.size()) {
    buffer_.reserve(kBuffer + 4096);
    // Two events per region instance: the largest location's instances, at most.
    std::uint64_t most = 0;
    for (const TraceLocation& l : definitions.locations) most = std::max(most, l.events / 2);
    constexpr std::uint64_t kept_windows = 64;
    if (cap_ > 0 && most > cap_ && definitions.trace_length >= kept_windows * ((most + cap_ - 1) / cap_)) {
        stride_ = (most + cap_ - 1) / cap_;
        window_ = static_cast<Ticks>(definitions.trace_length / (kept_windows * stride_));
    }
}

bool TimelineWriter::kept(Ticks t) const {
    if (stride_ <= 1) return true;
    const Ticks from = t - static_cast<Ticks>(definitions_.global_offset);
    return from < 0 || static_cast<std::uint64_t>(from / window_) % stride_ == 0;
}

void TimelineWriter::append_micros(Ticks t) {
    append_microseconds(buffer_, static_cast<__int128>(t) - definitions_.global_offset,
                        definitions_.timer_resolution);
}

void TimelineWriter::flush_if_full() {
    if (buffer_.size() < kBuffer) return;
    out_.write(buffer_.data(), buffer_.size());
    written_ += buffer_.size();
    buffer_.clear();
}

void TimelineWriter::begin_unit(std::uint64_t unit) {
    const std::uint64_t at = written_ + buffer_.size();
    if (!segments_.empty()) segments_.back().length = at - segments_.back().offset;
    segments_.push_back({unit, at, 0});
}

bool TimelineWriter::finish() {
    out_.write(buffer_.data(), buffer_.size());
    written_ += buffer_.size();
    buffer_.clear();
    const bool written = out_.close();
    if (!segments_.empty()) segments_.back().length = written_ - segments_.back().offset;
    OutputFile index(index_path(path_));
    std::string lines;
    for (const Segment& s : segments_)
        lines += std::to_string(s.unit) + ' ' + std::to_string(s.offset) + ' ' + std::to_string(s.length) + '\n';
    return written && index.write(lines) && index.close();
}

void TimelineWriter::begin_location(std::size_t index, std::size_t thread) {
    if (recorder_ != nullptr) recorder_->begin_location(index, thread);
    const TraceLocation& l = definitions_.locations[index];
    rank_ = l.rank;
    thread_ = thread;
    slices_ = dropped_ = sampled_out_ = 0;
    first_dropped_ = no_time;
    where_.clear();
    append_where(where_, rank_, thread);
    const std::string rank = std::to_string(rank_), position = std::to_string(thread);
    if (thread == 0) {
        buffer_ += ",\n{\"ph\": \"M\", \"name\": \"process_name\"" + where_ +
                   ", \"args\": {\"name\": \"rank " + rank + "\"}}";
        buffer_ += ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\"" + where_ +
                   ", \"args\": {\"sort_index\": " + rank + "}}";
    }
    buffer_ += ",\n{\"ph\": \"M\", \"name\": \"thread_name\"" + where_ +
               ", \"args\": {\"name\": " + json_string(l.name) + "}}";
    buffer_ += ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\"" + where_ +
               ", \"args\": {\"sort_index\": " + position + "}}";
    flush_if_full();
}

bool TimelineWriter::slice(std::uint32_t region, Ticks enter, Ticks exit, std::uint32_t parent) {
    if (recorder_ != nullptr) recorder_->slice(region, enter, exit, parent);  // every instance, cut or not
    if (!kept(enter)) {
        ++sampled_out_;
        return true;
    }
    if (slices_ >= cap_) {
        if (dropped_++ == 0) first_dropped_ = exit;
        return false;
    }
    ++slices_;
    std::string& start = slice_start_[region];
    if (start.empty()) {
        const TraceRegion& r = definitions_.regions[region];
        start = ",\n{\"ph\": \"X\", \"name\": " + json_string(r.name) + ", \"cat\": \"" +
                paradigm_category(r.paradigm) + "\", \"ts\": ";
    }
    buffer_ += start;
    // Both ends rounded, the duration their difference: rounding ts and dur
    // apart let a slice end 1 ns after the one around it, which viewers take
    // for overlapping slices.
    const __int128 begin_units = thousandths_of_microseconds(
        static_cast<__int128>(enter) - definitions_.global_offset, definitions_.timer_resolution);
    const __int128 end_units = thousandths_of_microseconds(
        static_cast<__int128>(exit) - definitions_.global_offset, definitions_.timer_resolution);
    append_thousandths(buffer_, begin_units);
    buffer_ += ", \"dur\": ";
    append_thousandths(buffer_, end_units - begin_units);
    buffer_ += where_;
    buffer_ += '}';
    flush_if_full();
    return true;
}

void TimelineWriter::flow(const MessageKey& key, Ticks event, bool start, std::size_t thread) {
    if (recorder_ != nullptr)
        recorder_->flow(key, start ? key.source : key.destination, thread, event, start);
    if (event == no_time || !kept(event)) return;
    buffer_ += start ? ",\n{\"ph\": \"s\", " : ",\n{\"ph\": \"f\", \"bp\": \"e\", ";
    buffer_ += "\"name\": \"message\", \"cat\": \"message\", \"id\": \"" + flow_id(key) + "\", \"ts\": ";
    append_micros(event);
    append_where(buffer_, start ? key.source : key.destination, thread);
    buffer_ += '}';
    flush_if_full();
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
    if (!kept(time)) return;
    char id[24];
    std::snprintf(id, sizeof id, "0x%016llx", static_cast<unsigned long long>(hash));
    buffer_ += start ? ",\n{\"ph\": \"s\", " : ",\n{\"ph\": \"f\", \"bp\": \"e\", ";
    buffer_ += "\"name\": \"launch\", \"cat\": \"cuda\", \"id\": \"";
    buffer_ += id;
    buffer_ += "\", \"ts\": ";
    append_micros(time);
    append_where(buffer_, rank, thread);
    buffer_ += '}';
    flush_if_full();
}

}  // namespace strata::analysis::trace
