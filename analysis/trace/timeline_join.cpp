// SPDX-License-Identifier: BSD-3-Clause
// trace.json from the analysis ranks' part files, joined in unit order on
// rank 0 (see wait_state_analysis.hpp).
#include "trace/wait_state_analysis.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/timeline_writer.hpp"

namespace strata::analysis::trace {

std::string timeline_part(const TimelineOptions& timeline, std::size_t rank) {
    return timeline.part + "." + std::to_string(rank);
}

void remove_timeline_part(const TimelineOptions& timeline, std::size_t rank) {
    const std::string part = timeline_part(timeline, rank);
    std::remove(part.c_str());
    std::remove(TimelineWriter::index_path(part).c_str());
}

namespace {

/// A part's segments from its index; false when the index is missing or does not fit the part.
bool read_segments(const std::string& part, std::size_t index,
                   std::vector<std::pair<TimelineWriter::Segment, std::size_t>>* all) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(part, error);
    std::ifstream in(TimelineWriter::index_path(part), std::ios::binary);
    if (error || !in) return false;
    TimelineWriter::Segment s;
    while (in >> s.unit >> s.offset >> s.length) {
        if (s.offset > size || s.length > size - s.offset) return false;
        all->emplace_back(s, index);
    }
    return in.eof();
}

}  // namespace

bool join_timeline(const TimelineOptions& timeline, std::size_t ranks, const std::string& path) {
    bool ok = true;
    {
        std::vector<std::pair<TimelineWriter::Segment, std::size_t>> segments;  // and the part's rank
        for (std::size_t r = 0; r < ranks; ++r)
            ok = read_segments(timeline_part(timeline, r), r, &segments) && ok;
        std::sort(segments.begin(), segments.end(),
                  [](const auto& a, const auto& b) { return a.first.unit < b.first.unit; });
        std::vector<std::ifstream> parts;
        for (std::size_t r = 0; r < ranks; ++r)
            parts.emplace_back(timeline_part(timeline, r), std::ios::binary);
        OutputFile out(path);  // never through a symbolic link at its name
        out.write(std::string(timeline_header()));
        bool first = true;
        std::string piece;
        for (const auto& [segment, r] : segments) {
            std::uint64_t offset = segment.offset, length = segment.length;
            if (first && length >= 2) {  // the first event's ",\n"
                offset += 2;
                length -= 2;
                first = false;
            }
            std::ifstream& in = parts[r];
            in.seekg(static_cast<std::streamoff>(offset));
            while (length > 0 && in) {
                piece.resize(
                    static_cast<std::size_t>(std::min<std::uint64_t>(length, std::uint64_t{1} << 20)));
                in.read(&piece[0], static_cast<std::streamsize>(piece.size()));
                out.write(piece.data(), static_cast<std::size_t>(in.gcount()));
                length -= static_cast<std::uint64_t>(in.gcount());
            }
            ok = ok && length == 0;
        }
        out.write(std::string(timeline_footer()));
        ok = out.close() && ok;
    }
    for (std::size_t r = 0; r < ranks; ++r) remove_timeline_part(timeline, r);
    return ok;
}

}  // namespace strata::analysis::trace
