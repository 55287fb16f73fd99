// SPDX-License-Identifier: BSD-3-Clause
// The per-location trace buffer: compact records in pages of the page pool.
//
// A record is a type byte, the time since the previous record as a LEB128
// varint, and its fields as varints (signed values zig-zag encoded).  An
// enter or leave within a loop takes 4-5 bytes, a third of OTF2's in-memory
// size, and costs a few stores.  Records are converted to OTF2 when the
// buffer is flushed (pool exhausted) and at the end of the run.
//
//   page 0              page 1              (pages come from PagePool)
//   [E dt r][L dt r]... [E dt r]...[free ]
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/memory_pool.hpp"
#include "strata/measurement/types.hpp"

namespace strata::tracing {

enum class RecordType : std::uint8_t {
    enter = 1,
    leave = 2,
    parameter_int = 3,
    parameter_string = 4,
};

/// Largest record: type + 3 varints of at most 10 bytes.
constexpr std::size_t kMaxRecordSize = 1 + 3 * 10;

inline std::uint8_t* put_varint(std::uint8_t* p, std::uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<std::uint8_t>(v) | 0x80;
        v >>= 7;
    }
    *p++ = static_cast<std::uint8_t>(v);
    return p;
}

inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

/// A decoded record.
struct Record {
    RecordType type;
    Ticks time;
    std::uint64_t a = 0;  ///< region or parameter
    std::uint64_t b = 0;  ///< parameter value (zig-zag for integers) or string handle
};

class EventBuffer {
public:
    explicit EventBuffer(PagePool& pool) : pool_(pool) {}
    ~EventBuffer() { release_pages(); }
    EventBuffer(const EventBuffer&) = delete;
    EventBuffer& operator=(const EventBuffer&) = delete;

    /// Room for one more record?  If not, the caller gets a page (or flushes).
    bool has_room() const { return end_ - cur_ >= static_cast<std::ptrdiff_t>(kMaxRecordSize); }

    /// Adds a page from the pool; false when the pool has none for traces.
    /// The first page of a buffer is guaranteed (see PagePool::Purpose).
    bool add_page();

    /// Appends a record.  Requires has_room().  Timestamps never go backwards:
    /// an earlier time is recorded as the previous record's time.
    inline void write(RecordType type, Ticks time, std::uint64_t a) {
        if (__builtin_expect(time < last_time_, 0)) time = last_time_;
        std::uint8_t* p = cur_;
        *p++ = static_cast<std::uint8_t>(type);
        p = put_varint(p, time - last_time_);
        p = put_varint(p, a);
        cur_ = p;
        last_time_ = time;
        ++records_;
    }
    inline void write(RecordType type, Ticks time, std::uint64_t a, std::uint64_t b) {
        write(type, time, a);
        cur_ = put_varint(cur_, b);
    }

    /// Calls `fn(const Record&)` for every record in order; returns false on a
    /// malformed record (never expected: the buffer is ours).
    template <typename Fn>
    bool for_each(Fn&& fn) const;

    /// Returns every page to the pool and starts empty (at the end).
    void release_pages();
    /// Empties the buffer but keeps its first page (after a flush), so that
    /// the location can go on recording whatever other threads hold.
    void clear_keep_first_page();

    std::uint64_t records() const { return records_; }
    std::uint64_t bytes() const;
    bool empty() const { return records_ == 0; }

private:
    struct Page {
        std::uint8_t* data;
        std::size_t used;  ///< valid for every page but the current one
    };
    PagePool& pool_;
    std::vector<Page> pages_;
    std::uint8_t* cur_ = nullptr;
    std::uint8_t* end_ = nullptr;
    Ticks last_time_ = 0;
    std::uint64_t records_ = 0;
};

template <typename Fn>
bool EventBuffer::for_each(Fn&& fn) const {
    Ticks time = 0;
    for (std::size_t i = 0; i < pages_.size(); ++i) {
        const std::uint8_t* p = pages_[i].data;
        const std::uint8_t* end = i + 1 == pages_.size() ? cur_ : p + pages_[i].used;
        while (p < end) {
            Record r{static_cast<RecordType>(*p++), 0};
            auto get = [&](std::uint64_t& out) {
                out = 0;
                for (int shift = 0; shift < 70 && p < end; shift += 7) {
                    const std::uint8_t byte = *p++;
                    out |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
                    if ((byte & 0x80) == 0) return true;
                }
                return false;
            };
            std::uint64_t dt = 0;
            if (!get(dt) || !get(r.a)) return false;
            if (r.type == RecordType::parameter_int || r.type == RecordType::parameter_string) {
                if (!get(r.b)) return false;
            }
            time += dt;
            r.time = time;
            fn(static_cast<const Record&>(r));
        }
    }
    return true;
}

}  // namespace strata::tracing
