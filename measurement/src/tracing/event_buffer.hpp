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
//
// With counters (STRATA_METRIC_*), every enter and leave is followed by a
// metric record at the same time: [M 0 n v0 .. vn-1], the counters' values.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/memory_pool.hpp"
#include "core/substrate.hpp"
#include "tracing/trace_record_spec.hpp"
#include "strata/measurement/types.hpp"

namespace strata::tracing {

// The records and their fields: trace_records.def (RecordType, record_spec()).


/// Largest record: type + time + kMaxFields fields, varints of at most 10 bytes each.
constexpr std::size_t kMaxRecordSize = 1 + 10 + kMaxFields * 10;

/// Largest metric record with `count` values.
constexpr std::size_t metric_record_size(std::size_t count) { return 1 + 10 + 10 + count * 10; }

/// The most attributes a GPU activity has, and the largest record of them.
constexpr std::uint32_t kMaxGpuAttributes = static_cast<std::uint32_t>(GpuAttribute::count);
constexpr std::size_t kMaxGpuAttributesRecordSize = 1 + 10 + 10 + kMaxGpuAttributes * 2 * 10;

inline std::uint8_t* put_varint(std::uint8_t* p, std::uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<std::uint8_t>(v) | 0x80;
        v >>= 7;
    }
    *p++ = static_cast<std::uint8_t>(v);
    return p;
}

constexpr std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
constexpr std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

/// A decoded record.  Of the arrays only what the record has is set: for_each
/// does not clear 400 bytes per record.
struct Record {
    RecordType type;
    Ticks time;
    std::uint64_t a = 0;  ///< region or parameter (first field)
    std::uint64_t b = 0;  ///< parameter value (zig-zag for integers) or string handle (second field)
    std::uint64_t field[kMaxFields];  ///< the record's fields in the order of its spec (a and b: the first two)
    std::uint32_t metric_count = 0;        ///< metric records: the number of values
    std::uint64_t metric_values[substrate::kMaxMetrics];  ///< metric records: the values
    std::uint32_t attribute_count = 0;  ///< gpu_attributes records: the number of pairs
    std::uint64_t attributes[2 * kMaxGpuAttributes];  ///< gpu_attributes records: attribute, value, ...
};

class EventBuffer {
public:
    explicit EventBuffer(PagePool& pool) : pool_(pool) {}
    ~EventBuffer() { release_pages(); }
    EventBuffer(const EventBuffer&) = delete;
    EventBuffer& operator=(const EventBuffer&) = delete;

    /// Room for one more record?  If not, the caller gets a page (or flushes).
    bool has_room() const { return end_ - cur_ >= static_cast<std::ptrdiff_t>(kMaxRecordSize); }
    /// Room for `bytes` (a record and the metric record that follows it)?
    bool has_room(std::size_t bytes) const { return end_ - cur_ >= static_cast<std::ptrdiff_t>(bytes); }

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
    /// A record with the fields of its spec, in order (MPI and thread events:
    /// not on the region hot path).
    void write_fields(RecordType type, Ticks time, const std::uint64_t* fields) {
        if (__builtin_expect(time < last_time_, 0)) time = last_time_;
        std::uint8_t* p = cur_;
        *p++ = static_cast<std::uint8_t>(type);
        p = put_varint(p, time - last_time_);
        for (int i = 0; i < record_spec(type).field_count; ++i) p = put_varint(p, fields[i]);
        cur_ = p;
        last_time_ = time;
        ++records_;
    }

    /// Appends a metric record at the time of the previous record.  Requires
    /// room for metric_record_size(count); count <= substrate::kMaxMetrics.
    inline void write_metrics(std::uint32_t count, const std::uint64_t* values) {
        std::uint8_t* p = cur_;
        *p++ = static_cast<std::uint8_t>(RecordType::metrics);
        *p++ = 0;  // same time as the region record before it
        p = put_varint(p, count);
        for (std::uint32_t k = 0; k < count; ++k) p = put_varint(p, values[k]);
        cur_ = p;
        ++records_;
    }

    /// Appends a gpu_attributes record at `time` (that of the Enter right after
    /// it).  Requires room for kMaxGpuAttributesRecordSize; count <= kMaxGpuAttributes.
    void write_gpu_attributes(Ticks time, const std::uint8_t* ids, const std::uint64_t* values,
                              std::uint32_t count) {
        write(RecordType::gpu_attributes, time, count);
        for (std::uint32_t k = 0; k < count; ++k) {
            cur_ = put_varint(cur_, ids[k]);
            cur_ = put_varint(cur_, values[k]);
        }
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
            Record r;  // (not `Record r{}`: see Record)
            r.type = static_cast<RecordType>(*p++);
            r.field[0] = r.field[1] = 0;  // a and b of a record with fewer fields
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
            if (!is_record_type(static_cast<std::uint8_t>(r.type))) return false;
            if (!get(dt)) return false;
            for (int f = 0; f < record_spec(r.type).field_count; ++f) {
                if (!get(r.field[f])) return false;
            }
            if (r.type == RecordType::metrics) {
                if (r.field[0] > static_cast<std::uint64_t>(substrate::kMaxMetrics)) return false;
                r.metric_count = static_cast<std::uint32_t>(r.field[0]);
                for (std::uint32_t k = 0; k < r.metric_count; ++k) {
                    if (!get(r.metric_values[k])) return false;
                }
            } else if (r.type == RecordType::gpu_attributes) {
                if (r.field[0] > kMaxGpuAttributes) return false;
                r.attribute_count = static_cast<std::uint32_t>(r.field[0]);
                for (std::uint32_t k = 0; k < 2 * r.attribute_count; ++k) {
                    if (!get(r.attributes[k])) return false;
                }
            }
            r.a = r.field[0];
            r.b = r.field[1];
            time += dt;
            r.time = time;
            fn(static_cast<const Record&>(r));
        }
    }
    return true;
}

}  // namespace strata::tracing
