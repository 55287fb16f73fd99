// SPDX-License-Identifier: BSD-3-Clause
// The Chrome trace / Perfetto timeline (trace.json) of one analysis rank's
// share, written as a part file while the locations are replayed; rank 0
// joins the parts in location order (METRICS.md "Chrome trace / Perfetto
// export"):
//
//   {"displayTimeUnit": "ns", "traceEvents": [
//     metadata   ph "M": process_name "rank R", process_sort_index R,
//                thread_name (the location's name), thread_sort_index
//     slices     ph "X": one per region instance, name = region, cat = paradigm,
//                ts/dur in microseconds from the trace start, after clock correction
//     messages   ph "s" at the send event, ph "f" ("bp": "e") at the receive
//                event, one flow per message, id from its matching key
//     GPU        each stream a thread after its rank's CPU threads, kernels and
//                copies as slices (cat "cuda"); launches as flows "launch" from the
//                host call to the operation, id from (rank, correlation id)
//   ]}
//
// pid = measured rank, tid = the location's position among its rank's
// locations.  A part holds the units (blocks of measured ranks) its analysis
// rank read, each a segment listed in the part's index (path + ".units", a
// line "unit offset length" each), so that they are joined in unit order.
// A location's slices stop at `slice_cap` (the rest is dropped and the
// summary says where): browser viewers struggle beyond a few hundred MB.  So
// that a long run is not seen only at its start, when a location of the
// trace has more region instances than the cap, the run is cut into time
// windows and only every k-th window is written (slices that begin in it,
// and the flows there), the same windows on every location: evenly spread
// views of the whole run, each complete (k the largest location's instances
// over the cap, 64 kept windows).
// Every line starts with ",\n" so segments can be concatenated.
//
// A million slices are written by default, so a slice costs no floating
// point and no allocation: times are formatted from integers, each region's
// escaped name is made once, and lines collect in a buffer written in large
// pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/output_file.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

class TimelineRecorder;

/// Writes one part of trace.json.
class TimelineWriter {
public:
    /// Writes to `path` (created); `slice_cap` slices at most per location.
    TimelineWriter(const std::string& path, const TraceDefinitions& definitions, std::uint64_t slice_cap);

    /// Starts the segment of unit `unit`: what follows, up to the next one, is its.
    void begin_unit(std::uint64_t unit);
    /// Starts location `index`, the `thread`-th of its rank (metadata; rank metadata for thread 0).
    void begin_location(std::size_t index, std::size_t thread);
    /// Also gives every location, instance and message to `recorder` (report.html's timeline).
    void record_into(TimelineRecorder* recorder) { recorder_ = recorder; }

    /// A region instance of the current location, inside `parent` (UINT32_MAX:
    /// none).  False once the cap is reached.
    bool slice(std::uint32_t region, Ticks enter, Ticks exit, std::uint32_t parent = UINT32_MAX);
    /// A message's start (at the sender) or end (at the receiver), `thread` as in begin_location.
    void flow(const MessageKey& key, Ticks event, bool start, std::size_t thread);
    /// A kernel or copy launch: its start at the host call, its end at the operation on the stream.
    void launch_flow(std::uint32_t rank, std::uint64_t correlation, Ticks time, std::size_t thread, bool start);

    /// The slices dropped at the current location's cap, and the end of the first
    /// (slices are written as they end, so every dropped one ends at or after it).
    std::uint64_t dropped() const { return dropped_; }
    Ticks first_dropped() const { return first_dropped_; }
    /// The current location's slices left out because they begin in a window not written.
    std::uint64_t sampled_out() const { return sampled_out_; }
    /// Every stride()-th time window of window() ticks is written (1: all of the run).
    std::uint64_t stride() const { return stride_; }
    Ticks window() const { return window_; }

    /// False when the file could not be written (so far).
    bool ok() const { return out_.ok(); }

    /// Flushes and closes the part and writes its index; false when either could not be written.
    bool finish();

    /// The index file of the part at `path`.
    static std::string index_path(const std::string& path) { return path + ".units"; }

    /// One unit's bytes in a part.
    struct Segment {
        std::uint64_t unit = 0, offset = 0, length = 0;
    };

private:
    /// Appends the time `t` on the trace's clock as microseconds from the trace start.
    void append_micros(Ticks t);
    /// Writes the buffer out once it holds kBuffer bytes.
    void flush_if_full();

    static constexpr std::size_t kBuffer = std::size_t{1} << 20;

    std::string path_;
    OutputFile out_;  ///< never through a symbolic link planted at the part's name
    std::string buffer_;
    std::uint64_t written_ = 0;      ///< bytes written to out_
    std::vector<Segment> segments_;  ///< the last one's length is set when the next begins
    const TraceDefinitions& definitions_;
    std::uint64_t cap_;
    std::int64_t rank_ = 0;
    std::size_t thread_ = 0;
    std::string where_;  ///< ", \"pid\": R, \"tid\": T" of the current location
    std::uint64_t slices_ = 0, dropped_ = 0, sampled_out_ = 0;
    Ticks first_dropped_ = no_time;
    std::uint64_t stride_ = 1;
    Ticks window_ = 1;
    /// Whether time `t` lies in a window that is written.
    bool kept(Ticks t) const;
    /// Per region, the start of its slices up to "ts": (made at its first slice; "" not yet).
    std::vector<std::string> slice_start_;
    TimelineRecorder* recorder_ = nullptr;
};

/// `ticks` / `resolution` seconds in thousandths of a microsecond, rounded to
/// the nearest (ties to even).
__int128 thousandths_of_microseconds(__int128 ticks, std::uint64_t resolution);
/// Appends thousandths of a microsecond as microseconds with three decimals.
void append_thousandths(std::string& out, __int128 units);
/// Appends `ticks` / `resolution` seconds as microseconds with three decimals,
/// rounded to the nearest (ties to even), e.g. "16199.999" or "-0.250".
void append_microseconds(std::string& out, __int128 ticks, std::uint64_t resolution);

/// FNV-1a over a message's key.
std::uint64_t flow_hash(const MessageKey& key);
/// The flow id of a message: flow_hash() as "0x" and 16 hex digits.
std::string flow_id(const MessageKey& key);

/// The header of trace.json (up to the opening of "traceEvents").
const char* timeline_header();

/// The end of trace.json.
const char* timeline_footer();

}  // namespace strata::analysis::trace
