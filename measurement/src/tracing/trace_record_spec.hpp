// SPDX-License-Identifier: BSD-3-Clause
// What trace_records.def says, as C++: the record types, their fields, the
// substrate events they come from and how they become OTF2.  Everything here
// is constexpr and made from the .def file alone, so that adding a record is
// one row there (measurement/README.md, "Adding an event").
#pragma once

#include <cstdint>
#include <initializer_list>

#include "core/substrate.hpp"
#include "tracing/otf2_event_file.hpp"

namespace strata::tracing {

/// A field of a record: how the buffer encodes it (zig-zag for signed ones)
/// and how OTF2 stores it (trace_record_spec.hpp: otf2_layout, otf2_value in otf2_archive.cpp).
enum class FieldType : std::uint8_t {
    region,          ///< RegionHandle; OTF2: RegionRef (handle - 1)
    parameter,       ///< ParameterHandle; OTF2: ParameterRef (handle - 1)
    string,          ///< StringHandle; OTF2: StringRef (the same number)
    communicator,    ///< CommunicatorHandle (or a team's); OTF2: CommRef (handle - 1)
    rank,            ///< a peer's rank in the communicator (uint32)
    tag,             ///< int32 zig-zag in the buffer; OTF2: uint32
    root,            ///< a collective's root, int32 zig-zag; OTF2: uint32, undefined when negative
    bytes,           ///< a message's bytes
    bytes_sent,      ///< a collective's bytes sent
    bytes_received,  ///< a collective's bytes received
    request,         ///< a request id (uint64)
    collective_op,   ///< events::CollectiveOp (OTF2's numbering)
    paradigm,        ///< Paradigm; OTF2: OTF2_Paradigm
    threads,         ///< threads requested by a fork (uint32)
    thread_number,   ///< a task's creating thread in its team (uint32)
    generation,      ///< that thread's count of the tasks it created (uint32)
    int_value,       ///< int64 zig-zag in the buffer
    count,           ///< how many values follow the record's fields
    correlation,     ///< CUDA_CORRELATION_ID (uint64, 0: none)
    device_metric,   ///< DeviceMetric
    value,           ///< a sample's value (uint64)
};

/// How a record becomes OTF2 (trace_records.def).
enum class Conversion : std::uint8_t { fields, singleton, special };

/// Where a record comes from (trace_records.def: MPI(k), THREAD(k), OTHER).
enum class Source : std::uint8_t { other, mpi, thread };

enum class RecordType : std::uint8_t {
#define STRATA_TRACE_RECORD(name, number, otf2, conversion, source, fields) name = number,
#include "tracing/trace_records.def"
#undef STRATA_TRACE_RECORD
};

constexpr int kMaxFields = 6;

/// How Otf2EventFile::record encodes a field of a `fields` row: 'c' a
/// compressed uint32, 'w' a compressed uint64, 'b' a byte, 'i' an int64.
constexpr char otf2_layout(FieldType f) {
    switch (f) {
        case FieldType::bytes:
        case FieldType::bytes_sent:
        case FieldType::bytes_received:
        case FieldType::request:
        case FieldType::correlation:
        case FieldType::value: return 'w';
        case FieldType::collective_op:
        case FieldType::paradigm: return 'b';
        case FieldType::int_value: return 'i';
        default: return 'c';
    }
}

/// One row of trace_records.def.
struct RecordSpec {
    const char* name = nullptr;  ///< nullptr: no record has this number
    std::uint8_t otf2_kind = 0;  ///< otf2_kind::*, 0: none (gpu_attributes)
    Conversion conversion = Conversion::special;
    Source source = Source::other;
    std::uint8_t event = 0;  ///< substrate::MpiEvent::Kind or ThreadEvent::Kind, by `source`
    std::uint8_t field_count = 0;
    FieldType fields[kMaxFields] = {};
    /// A `fields` row's OTF2 encoding, a letter per field (otf2_layout).
    char layout[kMaxFields + 1] = {};
};

namespace spec_detail {
struct SourceOf {
    Source source;
    std::uint8_t event;
};

constexpr RecordSpec make(const char* name, std::uint8_t otf2_kind, Conversion conversion, SourceOf source,
                          std::initializer_list<FieldType> fields) {
    RecordSpec s{};
    s.name = name;
    s.otf2_kind = otf2_kind;
    s.conversion = conversion;
    s.source = source.source;
    s.event = source.event;
    for (const FieldType f : fields) {
        if (s.field_count < kMaxFields) {
            s.fields[s.field_count] = f;
            s.layout[s.field_count] = otf2_layout(f);
        }
        ++s.field_count;  // more than kMaxFields: refused by check_table
    }
    return s;
}

/// Every row, at its number.
struct Table {
    static constexpr int kSize = 32;
    RecordSpec rows[kSize];
};

constexpr Table make_table() {
    Table t{};
    // The .def file's field names, unqualified.
    using F = FieldType;
    [[maybe_unused]] constexpr F region = F::region, parameter = F::parameter, string = F::string,
                                 communicator = F::communicator, rank = F::rank, tag = F::tag, root = F::root,
                                 bytes = F::bytes, bytes_sent = F::bytes_sent, bytes_received = F::bytes_received,
                                 request = F::request, collective_op = F::collective_op, paradigm = F::paradigm,
                                 threads = F::threads, thread_number = F::thread_number,
                                 generation = F::generation, int_value = F::int_value, count = F::count,
                                 correlation = F::correlation, device_metric = F::device_metric, value = F::value;
    // Its source column.
#define MPI(kind) SourceOf{Source::mpi, static_cast<std::uint8_t>(substrate::MpiEvent::kind)}
#define THREAD(kind) SourceOf{Source::thread, static_cast<std::uint8_t>(substrate::ThreadEvent::kind)}
#define OTHER SourceOf{Source::other, 0}
#define STRATA_FIELD_LIST(...) {__VA_ARGS__}
#define STRATA_TRACE_RECORD(name, number, otf2, conversion, source, fields) \
    t.rows[number] = make(#name, otf2_kind::otf2, Conversion::conversion, source, STRATA_FIELD_LIST fields);
#include "tracing/trace_records.def"
#undef STRATA_TRACE_RECORD
#undef STRATA_FIELD_LIST
#undef OTHER
#undef THREAD
#undef MPI
    return t;
}

/// The fields an MPI event (substrate::MpiEvent) has.
constexpr bool is_mpi_field(FieldType f) {
    switch (f) {
        case FieldType::rank:
        case FieldType::communicator:
        case FieldType::tag:
        case FieldType::root:
        case FieldType::bytes:
        case FieldType::bytes_sent:
        case FieldType::bytes_received:
        case FieldType::request:
        case FieldType::collective_op: return true;
        default: return false;
    }
}

/// Whether a thread event of `kind` carries what field `f` of its record
/// holds (substrate::kThreadEventFields, from thread_events.def); the values
/// are field_of's (tracing_substrate.cpp).
constexpr bool thread_event_carries(std::uint8_t kind, FieldType f) {
    using substrate::ThreadField;
    ThreadField from = ThreadField::model;
    switch (f) {
        case FieldType::paradigm: from = ThreadField::model; break;
        case FieldType::threads: from = ThreadField::requested_threads; break;
        case FieldType::communicator: from = ThreadField::team; break;
        case FieldType::thread_number:  // a task's creator: its thread number in the team
        case FieldType::generation: from = ThreadField::task; break;
        default: return false;
    }
    return (substrate::kThreadEventFields.of[kind] & substrate::bit(from)) != 0;
}

/// What the rows must agree on; false stops the build (the static_assert below).
constexpr bool check_table(const Table& t) {
    int mpi_rows[32] = {}, thread_rows[32] = {};
    for (const RecordSpec& s : t.rows) {
        if (s.name == nullptr) continue;
        if (s.field_count > kMaxFields) return false;
        if (s.conversion == Conversion::singleton && s.field_count != 1) return false;
        // A singleton row is an OTF2 singleton record, and a record of fields is not.
        if (s.conversion == Conversion::singleton && !otf2_format::is_singleton(s.otf2_kind)) return false;
        if (s.conversion == Conversion::fields && otf2_format::is_singleton(s.otf2_kind)) return false;
        if (s.conversion != Conversion::special && s.otf2_kind == otf2_kind::none) return false;
        if (s.source == Source::mpi) ++mpi_rows[s.event];
        if (s.source == Source::thread) ++thread_rows[s.event];
        for (int i = 0; i < s.field_count; ++i) {
            if (s.source == Source::mpi && !is_mpi_field(s.fields[i])) return false;
            if (s.source == Source::thread && !thread_event_carries(s.event, s.fields[i])) return false;
        }
    }
    // Every MPI and thread event of the substrate interface is exactly one record.
    for (int k = 0; k < substrate::MpiEvent::kind_count; ++k) {
        if (mpi_rows[k] != 1) return false;
    }
    for (int k = 0; k < substrate::ThreadEvent::kind_count; ++k) {
        if (thread_rows[k] != 1) return false;
    }
    return true;
}
}  // namespace spec_detail

inline constexpr spec_detail::Table kRecordSpecs = spec_detail::make_table();
static_assert(spec_detail::check_table(kRecordSpecs),
              "trace_records.def: a row has too many fields, a singleton not one field or not OTF2's "
              "singleton record (or a row of fields one), a converted row no OTF2 record, an MPI row a field no MPI event has, a thread row a field its event does not carry (thread_events.def), or an MPI or thread "
              "event of substrate.hpp has no record or two");

/// The row of `type`.
constexpr const RecordSpec& record_spec(RecordType type) {
    return kRecordSpecs.rows[static_cast<std::uint8_t>(type)];
}

/// True when `byte` is the number of a record (the buffer's decoder checks each).
constexpr bool is_record_type(std::uint8_t byte) {
    return byte < spec_detail::Table::kSize && kRecordSpecs.rows[byte].name != nullptr;
}

namespace spec_detail {
template <Source source, int kinds>
struct RecordOf {
    RecordType of[kinds] = {};
    constexpr RecordOf() {
        for (int n = 0; n < Table::kSize; ++n) {
            const RecordSpec& s = kRecordSpecs.rows[n];
            if (s.name != nullptr && s.source == source) of[s.event] = static_cast<RecordType>(n);
        }
    }
};
inline constexpr RecordOf<Source::mpi, substrate::MpiEvent::kind_count> kMpiRecords{};
inline constexpr RecordOf<Source::thread, substrate::ThreadEvent::kind_count> kThreadRecords{};
}  // namespace spec_detail

/// The record an MPI event of the substrate interface becomes.
constexpr RecordType record_of(substrate::MpiEvent::Kind kind) { return spec_detail::kMpiRecords.of[kind]; }
/// The record a thread event becomes.
constexpr RecordType record_of(substrate::ThreadEvent::Kind kind) { return spec_detail::kThreadRecords.of[kind]; }


}  // namespace strata::tracing
