// SPDX-License-Identifier: BSD-3-Clause
// Writes profile.h5 test files with the raw HDF5 C API (see profile_fixture.hpp).
#include "profile_fixture.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace strata::analysis::test {
namespace {

/// Owns an HDF5 id.
class Id {
public:
    Id(hid_t id, herr_t (*closer)(hid_t), const std::string& what) : id_(id), close_(closer) {
        if (id < 0) throw std::runtime_error("fixture: " + what);
    }
    Id(Id&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    ~Id() {
        if (id_ >= 0) close_(id_);
    }
    operator hid_t() const { return id_; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
    if (status < 0) throw std::runtime_error("fixture: " + what);
}

Id string_type() {
    Id type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(type, H5T_VARIABLE), "string size");
    check(H5Tset_cset(type, H5T_CSET_UTF8), "string cset");
    return type;
}

Id enum_type(const std::vector<std::string>& names) {
    Id type(H5Tenum_create(H5T_STD_U8LE), H5Tclose, "enum type");
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto value = static_cast<std::uint8_t>(i);
        check(H5Tenum_insert(type, names[i].c_str(), &value), "enum member");
    }
    return type;
}

/// One field of a compound table, with its value in every row.
struct Column {
    enum Kind { u8_enum, u16, u32, u64, i64, text };
    Column(std::string column_name, Kind column_kind, hid_t column_enum = H5I_INVALID_HID)
        : name(std::move(column_name)), kind(column_kind), enum_type(column_enum) {}

    std::string name;
    Kind kind;
    hid_t enum_type;  ///< for u8_enum
    std::vector<std::uint64_t> numbers;
    std::vector<std::string> texts;

    std::size_t size() const {
        switch (kind) {
            case u8_enum: return 1;
            case u16: return 2;
            case u32: return 4;
            case u64:
            case i64: return 8;
            case text: return sizeof(char*);
        }
        return 0;
    }
};

/// Writes a 1-D compound dataset, fields packed in the order given; the
/// file uses little-endian types, memory the native ones.
void write_table(hid_t group, const char* name, const std::vector<Column>& columns, std::size_t rows) {
    const std::string what = std::string("table ") + name;
    std::size_t record = 0;
    for (const Column& c : columns) record += c.size();
    Id strings = string_type();
    Id file_type(H5Tcreate(H5T_COMPOUND, record), H5Tclose, what);
    Id memory_type(H5Tcreate(H5T_COMPOUND, record), H5Tclose, what);
    std::vector<unsigned char> buffer(std::max<std::size_t>(1, rows * record));
    std::size_t offset = 0;
    for (const Column& c : columns) {
        hid_t file_field = H5I_INVALID_HID, memory_field = H5I_INVALID_HID;
        switch (c.kind) {
            case Column::u8_enum: file_field = memory_field = c.enum_type; break;
            case Column::u16: file_field = H5T_STD_U16LE, memory_field = H5T_NATIVE_UINT16; break;
            case Column::u32: file_field = H5T_STD_U32LE, memory_field = H5T_NATIVE_UINT32; break;
            case Column::u64: file_field = H5T_STD_U64LE, memory_field = H5T_NATIVE_UINT64; break;
            case Column::i64: file_field = H5T_STD_I64LE, memory_field = H5T_NATIVE_INT64; break;
            case Column::text: file_field = memory_field = strings; break;
        }
        check(H5Tinsert(file_type, c.name.c_str(), offset, file_field), what);
        check(H5Tinsert(memory_type, c.name.c_str(), offset, memory_field), what);
        for (std::size_t row = 0; row < rows; ++row) {
            unsigned char* cell = buffer.data() + row * record + offset;
            if (c.kind == Column::text) {
                const char* pointer = c.texts[row].c_str();
                std::memcpy(cell, &pointer, sizeof pointer);
            } else {
                const std::uint64_t v = c.numbers[row];
                const auto u8 = static_cast<std::uint8_t>(v);
                const auto u16 = static_cast<std::uint16_t>(v);
                const auto u32 = static_cast<std::uint32_t>(v);
                if (c.size() == 1) std::memcpy(cell, &u8, 1);
                if (c.size() == 2) std::memcpy(cell, &u16, 2);
                if (c.size() == 4) std::memcpy(cell, &u32, 4);
                if (c.size() == 8) std::memcpy(cell, &v, 8);
            }
        }
        offset += c.size();
    }
    const hsize_t dims[1] = {rows};
    Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, what);
    Id dataset(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, what);
    if (rows > 0) check(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), what);
}

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
    Id type = string_type();
    Id space(H5Screate(H5S_SCALAR), H5Sclose, name);
    Id attribute(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
    const char* text = value.c_str();
    check(H5Awrite(attribute, type, &text), name);
}

void write_number_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type, const void* value) {
    Id space(H5Screate(H5S_SCALAR), H5Sclose, name);
    Id attribute(H5Acreate2(object, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
    check(H5Awrite(attribute, memory_type, value), name);
}

/// Drops the columns listed as "<table>.<field>" in `omit`; with
/// `newer_layout`, reverses the order and puts an unknown field first.
std::vector<Column> arrange(const FixtureProfile& p, const std::string& table, std::vector<Column> columns,
                            std::size_t rows) {
    columns.erase(std::remove_if(columns.begin(), columns.end(),
                                 [&](const Column& c) { return p.omit.count(table + "." + c.name) > 0; }),
                  columns.end());
    if (p.newer_layout) {
        std::reverse(columns.begin(), columns.end());
        Column extra{"color", Column::u16};
        extra.numbers.assign(rows, 0xBEEF);
        columns.insert(columns.begin(), extra);
    }
    return columns;
}

void write_root_attributes(hid_t file, const FixtureProfile& p) {
    const auto keep = [&](const char* name) { return p.omit.count(std::string("@") + name) == 0; };
    if (keep("format")) write_string_attribute(file, "format", p.format);
    if (keep("format_version"))
        write_number_attribute(file, "format_version", H5T_STD_U32LE, H5T_NATIVE_UINT32, &p.format_version);
    if (keep("strata_version")) write_string_attribute(file, "strata_version", p.strata_version);
    if (keep("creation_time")) write_string_attribute(file, "creation_time", p.creation_time);
    if (keep("timer")) write_string_attribute(file, "timer", p.timer);
    if (keep("timer_resolution"))
        write_number_attribute(file, "timer_resolution", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &p.timer_resolution);
    if (keep("dropped_callpaths"))
        write_number_attribute(file, "dropped_callpaths", H5T_STD_U64LE, H5T_NATIVE_UINT64, &p.dropped_callpaths);
    if (keep("number_of_locations"))
        write_number_attribute(file, "number_of_locations", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                               &p.number_of_locations);
    if (p.newer_layout) write_string_attribute(file, "host", "node17");
}

void write_definitions(hid_t file, const FixtureProfile& p) {
    Id group(H5Gcreate2(file, "definitions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "group");
    const auto keep = [&](const char* table) { return p.omit.count(std::string("/definitions/") + table) == 0; };
    const auto text = [&](std::uint32_t i) { return i < p.strings.size() ? p.strings[i] : std::string("?"); };

    if (keep("strings")) {
        Id type = string_type();
        std::vector<const char*> texts;
        for (const auto& s : p.strings) texts.push_back(s.c_str());
        const hsize_t dims[1] = {texts.size()};
        Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, "strings");
        Id dataset(H5Dcreate2(group, "strings", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                   "strings");
        if (!texts.empty()) check(H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), "strings");
    }

    Id paradigm = enum_type({"unknown", "user", "compiler", "mpi", "openmp", "cuda", "measurement"});
    Id role = enum_type({"unknown", "function", "code", "loop", "wrapper", "parallel", "barrier", "implicit_barrier",
                         "point_to_point", "coll_one2all", "coll_all2one", "coll_all2all", "coll_other", "artificial"});
    Id location_type = enum_type({"cpu_thread", "gpu_stream", "metric"});
    Id parameter_type = enum_type({"integer", "string"});

    if (keep("regions")) {
        std::vector<Column> c = {{"name", Column::u32},
                                 {"file", Column::u32},
                                 {"line", Column::u32},
                                 {"paradigm", Column::u8_enum, paradigm},
                                 {"role", Column::u8_enum, role},
                                 {"flags", Column::u32},
                                 {"name_text", Column::text},
                                 {"file_text", Column::text}};
        for (const auto& r : p.regions) {
            const std::uint64_t row[] = {r.name, r.file, r.line, r.paradigm, r.role, r.flags};
            for (std::size_t i = 0; i < 6; ++i) c[i].numbers.push_back(row[i]);
            c[6].texts.push_back(text(r.name));
            c[7].texts.push_back(text(r.file));
        }
        write_table(group, "regions", arrange(p, "regions", c, p.regions.size()), p.regions.size());
    }
    if (keep("parameters")) {
        std::vector<Column> c = {
            {"name", Column::u32}, {"type", Column::u8_enum, parameter_type}, {"name_text", Column::text}};
        for (const auto& q : p.parameters) {
            c[0].numbers.push_back(q.name);
            c[1].numbers.push_back(q.type);
            c[2].texts.push_back(text(q.name));
        }
        write_table(group, "parameters", arrange(p, "parameters", c, p.parameters.size()), p.parameters.size());
    }
    if (keep("locations")) {
        std::vector<Column> c = {{"id", Column::u64},
                                 {"rank", Column::u32},
                                 {"thread", Column::u32},
                                 {"type", Column::u8_enum, location_type},
                                 {"name", Column::u32}};
        for (const auto& l : p.locations) {
            const std::uint64_t row[] = {l.id, l.rank, l.thread, l.type, l.name};
            for (std::size_t i = 0; i < 5; ++i) c[i].numbers.push_back(row[i]);
        }
        write_table(group, "locations", arrange(p, "locations", c, p.locations.size()), p.locations.size());
    }
    if (keep("callpaths")) {
        std::vector<Column> c = {{"parent", Column::i64},
                                 {"region", Column::u32},
                                 {"parameter", Column::i64},
                                 {"int_value", Column::i64},
                                 {"string_value", Column::i64}};
        for (const auto& cp : p.callpaths) {
            const std::int64_t row[] = {cp.parent, cp.region, cp.parameter, cp.int_value, cp.string_value};
            for (std::size_t i = 0; i < 5; ++i) c[i].numbers.push_back(static_cast<std::uint64_t>(row[i]));
        }
        write_table(group, "callpaths", arrange(p, "callpaths", c, p.callpaths.size()), p.callpaths.size());
    }
    if (p.newer_layout) {  // a table this reader does not know
        const hsize_t dims[1] = {3};
        const std::uint32_t values[3] = {7, 8, 9};
        Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, "communicators");
        Id dataset(H5Dcreate2(group, "communicators", H5T_STD_U32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, "communicators");
        check(H5Dwrite(dataset, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), "communicators");
    }
}

/// Chunked, shuffle + deflate, as the format describes.
void write_metric(hid_t group, const FixtureProfile::Matrix& m) {
    const hsize_t dims[2] = {m.rows, m.columns};
    Id space(H5Screate_simple(2, dims, nullptr), H5Sclose, m.name);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, m.name);
    const hsize_t chunk[2] = {std::clamp<hsize_t>(m.rows, 1, 1024), std::clamp<hsize_t>(m.columns, 1, 64)};
    check(H5Pset_chunk(dcpl, 2, chunk), m.name);
    check(H5Pset_shuffle(dcpl), m.name);
    check(H5Pset_deflate(dcpl, 4), m.name);
    Id dataset(H5Dcreate2(group, m.name.c_str(), m.integral ? H5T_STD_U64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT),
               H5Dclose, m.name);
    if (m.rows * m.columns > 0) {
        if (m.integral)
            check(H5Dwrite(dataset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.counts.data()), m.name);
        else
            check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.values.data()), m.name);
    }
    write_string_attribute(dataset, "unit", m.unit);
    write_string_attribute(dataset, "description", m.description);
}

}  // namespace

FixtureProfile::Matrix& FixtureProfile::metric(const std::string& name) {
    for (Matrix& m : metrics)
        if (m.name == name) return m;
    throw std::runtime_error("fixture: no metric " + name);
}

FixtureProfile known_profile() {
    FixtureProfile p;
    p.number_of_locations = 2;
    p.strings = {"", "main", "compute", "io", "main.c", "rank 0 thread 0", "rank 1 thread 0", "n", "unused"};
    // paradigm: 1 user, 2 compiler; role: 1 function, 2 code.
    p.regions = {
        {0, 0, 0, 0, 0, 0}, {1, 4, 10, 2, 1, 0}, {2, 4, 20, 2, 1, 1}, {3, 4, 30, 1, 2, 0}, {8, 4, 40, 1, 2, 0}};
    p.parameters = {{7, 0}};
    p.locations = {{0, 0, 0, 0, 5}, {1, 1, 0, 0, 6}};
    p.callpaths = {{-1, 1, -1, 0, -1}, {2, 2, -1, 0, -1}, {0, 2, -1, 0, -1}, {0, 3, -1, 0, -1}, {1, 2, 0, 4, -1}};
    FixtureProfile::Matrix visits{"visits", "count", "number of times the call path was entered", true, 5, 2,
                                  {1, 1, 2, 1, 2, 3, 1, 0, 1, 1}, {}};
    FixtureProfile::Matrix inclusive{"time_inclusive", "s", "time in the call path including its callees", false, 5, 2,
                                     {}, {10, 8, 3, 2, 6, 5, 2, 0, 1, 0.5}};
    FixtureProfile::Matrix exclusive{"time_exclusive", "s", "time in the call path without its callees", false, 5, 2,
                                     {}, {2, 3, 2, 1.5, 3, 3, 2, 0, 1, 0.5}};
    p.metrics = {visits, inclusive, exclusive};
    return p;
}

void write_fixture(const FixtureProfile& p, const std::string& path) {
    Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create " + path);
    write_root_attributes(file, p);
    write_definitions(file, p);
    if (p.omit.count("/metrics") > 0) return;
    Id group(H5Gcreate2(file, "metrics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "metrics");
    for (const auto& m : p.metrics) write_metric(group, m);
    if (p.newer_layout) {  // a group inside /metrics is not a metric
        Id derived(H5Gcreate2(group, "derived", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "derived");
    }
}

}  // namespace strata::analysis::test
