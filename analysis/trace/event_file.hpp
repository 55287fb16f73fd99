// SPDX-License-Identifier: BSD-3-Clause
// A location's OTF2 event file (.evt) decoded directly, without OTF2's event
// reader.
//
// The analysis reads every event of a trace once, in file order, and uses a
// dozen record kinds.  OTF2's reader spends about 260 instructions on an
// event (a library call per field, its attribute list cleared after every
// event, a callback through a table); this decoder spends a few dozen, so the
// replay is no longer bound by the decoding.  Of attributes it reads the one
// the replay asks for (CUDA_CORRELATION_ID on an Enter).  It reads
// uncompressed archives of the POSIX substrate written on a little-endian
// machine; anything else is read by OTF2's reader as before
// (EventFile::open() says no).
//
// The layout is OTF2's buffer format, as OTF2 1.0 to 3.0 write it:
//
//   file    = chunk*                 every chunk but the last is `chunk_size` bytes
//   chunk   = header record* (end_of_chunk padding | end_of_file)
//   header  = chunk_header, endianness (0x42: little), first and last event number (8 bytes each)
//   record  = timestamp time(8 bytes)         the time of the events that follow
//           | attribute_list length count (id type value)*   attributes of the next event
//           | type fields                     the "singleton" kinds of OTF2 1.0 (one compressed field)
//           | type length fields              every other kind: a kind this decoder does not know is skipped
//   length  = byte (255: an 8-byte length follows)
//   compressed integer = byte n, then n little-endian bytes (0: zero; 255: all bits set)
//
// The record kinds and which of them are singletons are checked against
// OTF2's own writer by tests/analysis/event_file_test.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "otf2_format/otf2_records.hpp"

namespace strata::analysis::trace {

/// OTF2's record kinds, as the direct writer uses them (otf2_format/otf2_records.hpp).
namespace evt = ::strata::otf2_format;

/// A point-to-point message event (MpiSend, MpiIsend, MpiRecv, MpiIrecv).
struct MessageFields {
    std::uint32_t peer = 0, comm = 0, tag = 0;
    std::uint64_t length = 0, request = 0;
};

/// An MpiCollectiveEnd event.
struct CollectiveFields {
    std::uint8_t op = 0;
    std::uint32_t comm = 0, root = 0;
    std::uint64_t sent = 0, received = 0;
};

/// One event file, read chunk by chunk into one buffer (memory: a chunk).
class EventFile {
public:
    enum class Status { end, stopped, damaged };

    EventFile() = default;
    ~EventFile();
    EventFile(const EventFile&) = delete;
    EventFile& operator=(const EventFile&) = delete;

    /// Opens `path` (an archive whose event chunks are `chunk_size` bytes) and
    /// reads its first chunk.  False when the file cannot be decoded here (it
    /// cannot be opened, is empty, big-endian or not in this format): then
    /// OTF2's reader reads it and says what is wrong, if anything.
    bool open(const std::string& path, std::uint64_t chunk_size);

    /// Decodes the whole file, calling the visitor's functions (each returns
    /// false to stop) with the event's raw time and its position (1 for the
    /// first event, as OTF2 numbers them; every event counts, also those the
    /// visitor is not given):
    ///   enter(time, position, region, value of `attribute`, 0: none)   leave(time, position, region)
    ///   send(time, position, fields)    isend(...)   recv(...)   irecv(...)
    ///   isend_complete(time, position, request)   irecv_request(...)   cancelled(...)
    ///   collective_end(time, position, fields)
    /// and `between_batches` after every `batch` events.  damaged: the events
    /// before the damage were decoded, damage() says where and what.
    /// `attribute`: the attribute (as UINT64) whose value Enter events get
    /// from their attribute list; UINT32_MAX: none.
    template <typename Visitor>
    Status read(Visitor& visitor, std::uint64_t batch, const std::function<void()>& between_batches,
                std::uint32_t attribute = UINT32_MAX);

    const std::string& damage() const { return damage_; }

private:
    static constexpr std::size_t kHeaderSize = 18;
    /// Zeros after the data: a field is loaded as 8 bytes, and a damaged record
    /// may read a few fields past the end before its check (at most 21 bytes).
    static constexpr std::size_t kPadding = 64;

    /// Reads the next chunk; false at the end of the file (damage_ set when
    /// the file ends without its end record) or when the chunk is damaged.
    bool next_chunk();
    Status damaged(const std::uint8_t* at, const char* what);

    int fd_ = -1;
    std::uint64_t chunk_size_ = 0;
    std::uint64_t offset_ = 0;  ///< of the chunk in buffer_
    /// Not zeroed when made: a small file touches only the pages it fills.
    std::unique_ptr<std::uint8_t[]> buffer_;
    std::size_t bytes_ = 0;  ///< of the chunk in buffer_
    std::string damage_;
};

namespace evt_detail {

/// A compressed integer of up to `max_bytes` bytes at `p` (which moves past
/// it); false when its size byte is not one of those.  Reads 8 bytes after
/// the size byte: the buffer is padded.
template <unsigned max_bytes>
inline bool read_compressed(const std::uint8_t*& p, std::uint64_t* value) {
    const unsigned n = *p++;
    if (n <= max_bytes) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, 8);
        *value = n == 8 ? v : v & ((std::uint64_t{1} << (8 * n)) - 1);
        p += n;
        return true;
    }
    if (n == 0xff) {
        *value = max_bytes == 4 ? UINT32_MAX : UINT64_MAX;
        return true;
    }
    return false;
}

inline bool read_u32(const std::uint8_t*& p, std::uint32_t* value) {
    std::uint64_t v = 0;
    const bool ok = read_compressed<4>(p, &v);
    *value = static_cast<std::uint32_t>(v);
    return ok;
}

inline bool read_u64(const std::uint8_t*& p, std::uint64_t* value) {
    return read_compressed<8>(p, value);
}

/// In the attribute list at `p` (its fields up to `end`), the value of
/// attribute `wanted` if it is there as an unsigned 64-bit integer, else 0.
/// Other attributes are skipped by their type (OTF2_Type): 1, 2, 4 and 8-byte
/// values (8- and 16-bit integers, float, double) as they are, every other
/// type compressed.  A malformed list gives 0.
inline std::uint64_t find_attribute(const std::uint8_t* p, const std::uint8_t* end, std::uint32_t wanted) {
    std::uint32_t count = 0;
    if (!read_u32(p, &count)) return 0;
    for (std::uint32_t i = 0; i < count && p < end; ++i) {
        std::uint32_t id = 0;
        if (!read_u32(p, &id)) return 0;
        const std::uint8_t type = *p++;
        std::uint64_t value = 0;
        switch (type) {
            case 1:  // OTF2_TYPE_UINT8
            case 5:
                p += 1;
                break;  // INT8
            case 2:     // UINT16
            case 6:
                p += 2;
                break;  // INT16
            case 9:
                p += 4;
                break;  // FLOAT
            case 10:
                p += 8;
                break;  // DOUBLE
            default:
                if (!read_u64(p, &value)) return 0;
                break;
        }
        if (p > end) return 0;
        if (id == wanted) return type == 4 ? value : 0;  // OTF2_TYPE_UINT64
    }
    return 0;
}

inline bool read_message(const std::uint8_t*& p, bool with_request, MessageFields* m) {
    return read_u32(p, &m->peer) && read_u32(p, &m->comm) && read_u32(p, &m->tag) &&
           read_u64(p, &m->length) && (!with_request || read_u64(p, &m->request));
}

}  // namespace evt_detail

template <typename Visitor>
EventFile::Status EventFile::read(Visitor& visitor, std::uint64_t batch,
                                  const std::function<void()>& between_batches, std::uint32_t attribute) {
    using namespace evt_detail;
    std::uint64_t time = 0, position = 0, batch_end = batch;
    std::uint64_t attribute_value = 0;  // of the attribute list before the next event
    for (;;) {
        const std::uint8_t* p = buffer_.get() + kHeaderSize;
        const std::uint8_t* const end = buffer_.get() + bytes_;
        for (;;) {
            if (p >= end) return damaged(p, "the chunk ends without its end record");
            if (position == batch_end && between_batches) {
                between_batches();
                batch_end += batch;
            }
            const std::uint8_t type = *p++;
            bool ok = true;
            switch (type) {
                case evt::timestamp:
                    std::memcpy(&time, p, 8);
                    p += 8;
                    break;
                case evt::enter:
                case evt::leave: {
                    std::uint32_t region = 0;
                    if (!read_u32(p, &region) || p > end)
                        return damaged(p, "a region event is cut off or malformed");
                    ++position;
                    ok = type == evt::enter ? visitor.enter(time, position, region, attribute_value)
                                             : visitor.leave(time, position, region);
                    attribute_value = 0;
                    break;
                }
                case evt::mpi_isend_complete:
                case evt::mpi_irecv_request:
                case evt::mpi_request_test:
                case evt::mpi_request_cancelled:
                case evt::omp_task_create:
                case evt::omp_task_switch:
                case evt::omp_task_complete:
                case evt::omp_fork: {
                    std::uint64_t value = 0;
                    const bool read =
                        type == evt::omp_fork ? read_compressed<4>(p, &value) : read_compressed<8>(p, &value);
                    if (!read || p > end) return damaged(p, "an event is cut off or malformed");
                    ++position;
                    attribute_value = 0;
                    if (type == evt::mpi_isend_complete) ok = visitor.isend_complete(time, position, value);
                    if (type == evt::mpi_irecv_request) ok = visitor.irecv_request(time, position, value);
                    if (type == evt::mpi_request_cancelled) ok = visitor.cancelled(time, position, value);
                    break;
                }
                case evt::end_of_chunk:
                    if (!next_chunk()) return Status::damaged;  // damage_ says why
                    p = nullptr;                                // start over in the new chunk
                    break;
                case evt::end_of_file:
                    return Status::end;
                default: {
                    if (type < evt::first_event && type != evt::attribute_list) {
                        return damaged(p - 1, "an unknown internal record");
                    }
                    std::uint64_t length = *p++;
                    if (length == 0xff) {
                        std::memcpy(&length, p, 8);
                        p += 8;
                    }
                    if (p > end || length > static_cast<std::uint64_t>(end - p)) {
                        return damaged(p, "a record runs past the end of its chunk");
                    }
                    const std::uint8_t* const record_end = p + length;
                    if (type == evt::attribute_list) {
                        // The attributes of the next event.
                        if (attribute != UINT32_MAX)
                            attribute_value = find_attribute(p, record_end, attribute);
                        p = record_end;
                        break;
                    }
                    ++position;
                    attribute_value = 0;
                    if (type == evt::measurement_on_off) {
                        if (length < 1) return damaged(p, "a MeasurementOnOff event without its mode");
                        ok = visitor.measurement_on_off(time, position, *p);
                        p = record_end;
                    } else if (type == evt::mpi_send || type == evt::mpi_isend || type == evt::mpi_recv ||
                        type == evt::mpi_irecv) {
                        MessageFields m;
                        const bool with_request = type == evt::mpi_isend || type == evt::mpi_irecv;
                        if (!read_message(p, with_request, &m) || p > record_end) {
                            return damaged(p, "a message event's fields overrun its length");
                        }
                        if (type == evt::mpi_send) ok = visitor.send(time, position, m);
                        if (type == evt::mpi_isend) ok = visitor.isend(time, position, m);
                        if (type == evt::mpi_recv) ok = visitor.recv(time, position, m);
                        if (type == evt::mpi_irecv) ok = visitor.irecv(time, position, m);
                    } else if (type == evt::mpi_collective_end) {
                        CollectiveFields c;
                        c.op = *p++;
                        if (!read_u32(p, &c.comm) || !read_u32(p, &c.root) || !read_u64(p, &c.sent) ||
                            !read_u64(p, &c.received) || p > record_end) {
                            return damaged(p, "a collective event's fields overrun its length");
                        }
                        ok = visitor.collective_end(time, position, c);
                    }
                    p = record_end;  // past fields a later OTF2 may have added
                    break;
                }
            }
            if (!ok) return Status::stopped;
            if (p == nullptr) break;
        }
    }
}

}  // namespace strata::analysis::trace
