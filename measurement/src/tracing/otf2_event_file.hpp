// SPDX-License-Identifier: BSD-3-Clause
// A location's OTF2 event file (<archive>/<id>.evt), encoded directly from
// the trace buffer's records instead of through OTF2's event writer.
//
// OTF2's writer costs a library call per record and per field, and holds a
// chunk per location and a 4 MiB file buffer per open file; converting a
// buffer took longer than the run that filled it.  This writer encodes a
// record in a few dozen instructions into a scratch buffer of about 1 MiB,
// writes it with one pwrite when it is full, and holds nothing between
// conversions but the state of the current chunk (its bytes are on disk).
//
// The layout is OTF2's buffer format as OTF2 1.0 to 3.0 write it (the
// analysis decodes the same, analysis/trace/event_file.hpp):
//
//   file    = chunk* end             every chunk but the last is `chunk_size` bytes
//   chunk   = header record* 0 padding (the last chunk: no padding)
//   header  = 3, 0x42 (little endian), first and last event number (8 bytes each)
//   record  = 5 time(8 bytes)        the time of the events that follow; written when
//                                    it changes and first in every chunk
//           | 6 length count (id type value)*   attributes of the next event
//           | kind field             Enter, Leave and the request events: one field
//           | kind length fields     every other kind (a Metric's values: (type value)*)
//   end     = 2 1                    end of file, end of buffer
//   length  = byte (255: an 8-byte length follows)
//   compressed integer = byte n, then n little-endian bytes (0: zero; 255: all bits set)
//
// tests/tracing/otf2_event_file_test.cpp checks every record kind byte for
// byte against OTF2's own writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "otf2_format/otf2_records.hpp"
#include "strata/measurement/types.hpp"

namespace strata::tracing {

/// OTF2's record kinds (otf2_format/otf2_records.hpp, which the analysis'
/// decoder reads with), and `none` for a trace-buffer record that is not an
/// OTF2 event of its own (trace_records.def).
namespace otf2_kind {
using namespace ::strata::otf2_format;
inline constexpr std::uint8_t none = 0;
}  // namespace otf2_kind

namespace otf2_encoding {
constexpr std::uint8_t kTimestamp = otf2_format::timestamp;
constexpr std::size_t kTimestampSize = 9;

inline std::uint8_t* put_u64(std::uint8_t* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);  // little-endian machines only, as the analysis reads
    return p + 8;
}

/// OTF2's compressed integer: the number of bytes, then those bytes; all bits
/// set (OTF2's "undefined") is the single byte 255, except in an int64.
inline std::uint8_t* put_compressed(std::uint8_t* p, std::uint64_t v, bool wide, bool signed_64 = false) {
    if (!signed_64 && v == (wide ? UINT64_MAX : UINT32_MAX)) {
        *p++ = 0xff;
        return p;
    }
    const int n = v == 0 ? 0 : (71 - __builtin_clzll(v)) / 8;
    *p++ = static_cast<std::uint8_t>(n);
    std::memcpy(p, &v, 8);
    return p + n;
}
}  // namespace otf2_encoding

/// One attribute of an event's attribute list, as a UINT64.
struct Otf2Attribute {
    std::uint32_t id;
    std::uint64_t value;
};

class Otf2EventFile {
public:
    /// The file at `path`, in chunks of `chunk_size` bytes (the archive's).
    /// Nothing is created before the first write_out().
    Otf2EventFile(std::string path, std::uint64_t chunk_size);

    // The events, in file order; times must not decrease.  `fields` are the
    // record's fields as OTF2 orders them, each of `layout` (below).
    void enter(Ticks time, std::uint32_t region) { singleton(time, otf2_kind::enter, region); }
    void leave(Ticks time, std::uint32_t region) { singleton(time, otf2_kind::leave, region); }
    /// A one-field record: Enter, Leave, and the request kinds (MpiIsendComplete, ...).
    void singleton(Ticks time, std::uint8_t kind, std::uint64_t field) {
        std::uint8_t* p = begin_record(time, 1 + 9);
        if (p == nullptr) return;
        *p++ = kind;
        // Enter and Leave carry a region (uint32); the request events a request id (uint64).
        const bool wide = kind != otf2_kind::enter && kind != otf2_kind::leave;
        end_record(otf2_encoding::put_compressed(p, field, wide));
    }
    /// Enter with an attribute list (count <= 16).
    void enter_with_attributes(Ticks time, std::uint32_t region, const Otf2Attribute* attributes,
                               std::uint32_t count);
    /// A record with a length: `layout` names each field's encoding, 'c' a
    /// compressed uint32, 'w' a compressed uint64, 'i' an int64 (its bits
    /// compressed), 'b' one byte ("bccww" for MpiCollectiveEnd).
    void record(Ticks time, std::uint8_t kind, const char* layout, const std::uint64_t* fields);
    /// A Metric event of `metric_class` with `count` UINT64 values (count <= 255).
    void metric(Ticks time, std::uint32_t metric_class, std::uint32_t count, const std::uint64_t* values);

    /// Writes everything encoded so far to the file and releases the scratch
    /// memory; the current chunk goes on from there at the next event.
    /// The error says why the file could not be written (then nothing more is).
    Error write_out();
    /// Ends the file (its end records) and writes it out; nothing may follow.
    Error finish();
    /// Goes on in the file at `path`: what was written so far moves there (a
    /// rename, so within one file system).  The error names both paths.
    Error move_to(const std::string& path);

    std::uint64_t events() const { return events_; }
    /// The file's size once written out.
    std::uint64_t bytes() const { return file_offset_ + used_; }
    bool failed() const { return static_cast<bool>(error_); }

    /// Largest record (its timestamp included) any of the functions above writes.
    static constexpr std::size_t kMaxRecord = 9 + 1 + 1 + 9 + 16 * 15 + 1 + 255 * 10;

private:
    /// Room for a record of at most `size` bytes (its timestamp not counted)
    /// in the current chunk (a new chunk when it does not fit) and in the
    /// scratch buffer; writes the timestamp when `time` is new in the chunk.
    /// Returns where the record goes; nullptr after a failure.  Inline: it is
    /// most of the cost of an event.
    std::uint8_t* begin_record(Ticks time, std::size_t size) {
        using namespace otf2_encoding;
        if (__builtin_expect(used_ + kTimestampSize + size > limit_, 0)) return begin_record_slow(time, size);
        std::uint8_t* p = buffer_.get() + used_;
        if (time != chunk_time_ || !chunk_has_time_) {
            *p++ = kTimestamp;
            p = put_u64(p, time);
            chunk_time_ = time;
            chunk_has_time_ = true;
        }
        return p;
    }
    /// The same when the fast path's room is used up (or not set up).
    std::uint8_t* begin_record_slow(Ticks time, std::size_t size);
    /// How far used_ may grow before begin_record must look again: the end of
    /// the chunk (less its end bytes) or of the scratch buffer; 0: look now.
    void update_limit();
    void end_record(std::uint8_t* end) {
        used_ = static_cast<std::size_t>(end - buffer_.get());
        ++events_;
    }
    void start_chunk();
    void end_chunk();
    /// Puts the event count into the current chunk's header (in the scratch
    /// buffer, or on disk when the header was written out already).
    void patch_last_event();
    /// Writes the scratch buffer at file_offset_; false (and error_) on failure.
    bool write_scratch();

    std::string path_;
    std::uint64_t chunk_size_;
    std::unique_ptr<std::uint8_t[]> buffer_;  ///< encoded bytes not yet written: the file from file_offset_
    std::size_t used_ = 0;
    std::size_t limit_ = 0;  ///< see update_limit()
    std::uint64_t file_offset_ = 0;  ///< bytes of the file written
    std::uint64_t chunk_start_ = 0;  ///< file offset of the current chunk
    bool in_chunk_ = false;
    bool chunk_has_time_ = false;
    Ticks chunk_time_ = 0;           ///< the time of the chunk's last timestamp record
    std::uint64_t events_ = 0;
    bool created_ = false;           ///< the file exists (made, truncated, by the first write)
    Error error_;
};

}  // namespace strata::tracing
