// SPDX-License-Identifier: BSD-3-Clause
// Reads a profile.h5 into a Profile (schema: share/doc/profile-format.md).
//
//   open_file()            stat, H5Fis_hdf5, H5Fopen: missing, directory, not HDF5
//   read_root_attributes() format first (is it ours?), then format_version, then the rest
//   read_strings()         variable- or fixed-length strings
//   read_table<Record>()   compound rows, fields looked up by name
//   check_references()     every index in range, sizes consistent
//   check_tree()           no cycles in the parent links
//   read_metrics()         every dataset in /metrics, each [callpaths x locations]
//
// Every failure throws ProfileError "<file>: <what is wrong>" at the point
// where it is found; the HDF5 ids are owned, so nothing leaks on the way out.
#include "profile/profile_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "profile/hdf5_handle.hpp"

namespace strata::analysis {
namespace {

/// How a compound field is read into memory.
enum class FieldKind { u32, u64, i64, enum8 };

/// One field of a compound table: its name in the file, where it goes in
/// the record, and (for enums) where the file's member names go.
struct Field {
    const char* name;
    std::size_t offset;
    FieldKind kind;
    EnumNames* names = nullptr;
    bool optional = false;  ///< a field newer files have: the record's default when absent
};

/// A number in a message.
std::string str(std::uint64_t n) { return std::to_string(n); }

/// Reads one file; every method that finds a problem throws ProfileError.
class Reader {
public:
    Reader(std::string path, ProfileReadOptions options) : path_(std::move(path)), options_(std::move(options)) {}

    Profile read() {
        Profile profile;
        profile.path = path_;
        open_file();
        read_root_attributes(profile);
        profile.strings = read_strings();
        profile.regions = read_table<Region>("/definitions/regions",
                                             {{"name", offsetof(Region, name), FieldKind::u32},
                                              {"file", offsetof(Region, file), FieldKind::u32},
                                              {"line", offsetof(Region, line), FieldKind::u32},
                                              {"paradigm", offsetof(Region, paradigm), FieldKind::enum8,
                                               &profile.paradigm_names},
                                              {"role", offsetof(Region, role), FieldKind::enum8, &profile.role_names},
                                              {"flags", offsetof(Region, flags), FieldKind::u32}});
        profile.parameters = read_table<Parameter>("/definitions/parameters",
                                                   {{"name", offsetof(Parameter, name), FieldKind::u32},
                                                    {"type", offsetof(Parameter, type), FieldKind::enum8}});
        profile.locations = read_table<Location>("/definitions/locations",
                                                 {{"id", offsetof(Location, id), FieldKind::u64},
                                                  {"rank", offsetof(Location, rank), FieldKind::u32},
                                                  {"thread", offsetof(Location, thread), FieldKind::u32},
                                                  {"type", offsetof(Location, type), FieldKind::enum8},
                                                  {"name", offsetof(Location, name), FieldKind::u32},
                                                  {"host", offsetof(Location, host), FieldKind::u32, nullptr, true}});
        profile.callpaths = read_table<CallPath>("/definitions/callpaths",
                                                 {{"parent", offsetof(CallPath, parent), FieldKind::i64},
                                                  {"region", offsetof(CallPath, region), FieldKind::u32},
                                                  {"parameter", offsetof(CallPath, parameter), FieldKind::i64},
                                                  {"int_value", offsetof(CallPath, int_value), FieldKind::i64},
                                                  {"string_value", offsetof(CallPath, string_value), FieldKind::i64}});
        check_references(profile);
        check_tree(profile);
        choose_columns(profile);
        read_metrics(profile);
        return profile;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw ProfileError(path_ + ": " + what); }
    [[noreturn]] void fail_hdf5(const std::string& what) const { fail(what + ": " + hdf5_cause()); }

    void open_file() {
        struct stat status {};
        if (::stat(path_.c_str(), &status) != 0) fail(std::string("cannot open: ") + std::strerror(errno));
        if (S_ISDIR(status.st_mode)) fail("is a directory, not a profile file");
        // A FIFO or a device would block HDF5 (it waits for a writer): only a file is read.
        if (!S_ISREG(status.st_mode)) fail("is not a regular file (a FIFO or a device), not a profile file");
        if (::access(path_.c_str(), R_OK) != 0) fail(std::string("cannot open: ") + std::strerror(errno));
        const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
        if (is_hdf5 == 0) fail("not an HDF5 file");
        if (is_hdf5 < 0) fail_hdf5("cannot open as an HDF5 file");
        file_ = H5Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        if (!file_.valid()) fail_hdf5("cannot open as an HDF5 file");
    }

    // ---- attributes -------------------------------------------------------

    /// Opens attribute `name` of `object`; `where` names the object in messages.
    H5Handle open_attribute(hid_t object, const char* name, const std::string& where) const {
        const htri_t exists = H5Aexists(object, name);
        if (exists < 0) fail_hdf5("cannot look up attribute " + where + name);
        if (exists == 0) fail("missing attribute " + where + name);
        H5Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
        if (!attribute.valid()) fail_hdf5("cannot open attribute " + where + name);
        H5Handle space(H5Aget_space(attribute.get()), H5Sclose);
        if (H5Sget_simple_extent_npoints(space.get()) != 1)
            fail("attribute " + where + name + " is not a single value");
        return attribute;
    }

    std::string read_string_attribute(hid_t object, const char* name, const std::string& where) const {
        const std::string what = "attribute " + where + name;
        H5Handle attribute = open_attribute(object, name, where);
        H5Handle type(H5Aget_type(attribute.get()), H5Tclose);
        if (H5Tget_class(type.get()) != H5T_STRING) fail(what + " is not a string");
        H5Handle memory = string_memory_type(type.get());
        std::string value;
        if (H5Tis_variable_str(type.get()) > 0) {
            char* text = nullptr;
            if (H5Aread(attribute.get(), memory.get(), &text) < 0) fail_hdf5("cannot read " + what);
            value = text != nullptr ? text : "";
            H5free_memory(text);
        } else {
            std::vector<char> buffer(H5Tget_size(type.get()) + 1, '\0');
            if (H5Aread(attribute.get(), memory.get(), buffer.data()) < 0) fail_hdf5("cannot read " + what);
            value = buffer.data();  // up to the first NUL
        }
        return value;
    }

    /// Reads an integer attribute of the root group (as uint64).
    std::uint64_t read_unsigned_attribute(const char* name) const {
        H5Handle attribute = open_attribute(file_.get(), name, "/");
        H5Handle type(H5Aget_type(attribute.get()), H5Tclose);
        if (H5Tget_class(type.get()) != H5T_INTEGER) fail(std::string("attribute /") + name + " is not an integer");
        std::uint64_t value = 0;
        if (H5Aread(attribute.get(), H5T_NATIVE_UINT64, &value) < 0)
            fail_hdf5(std::string("cannot read attribute /") + name);
        return value;
    }

    /// Reads a number attribute of the root group (as double).
    double read_float_attribute(const char* name) const {
        H5Handle attribute = open_attribute(file_.get(), name, "/");
        H5Handle type(H5Aget_type(attribute.get()), H5Tclose);
        const H5T_class_t type_class = H5Tget_class(type.get());
        if (type_class != H5T_FLOAT && type_class != H5T_INTEGER)
            fail(std::string("attribute /") + name + " is not a number");
        double value = 0.0;
        if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0)
            fail_hdf5(std::string("cannot read attribute /") + name);
        return value;
    }

    void read_root_attributes(Profile& profile) {
        // `format` first: a file that is not ours gets that message, not a
        // complaint about some other attribute.
        if (H5Aexists(file_.get(), "format") <= 0) fail("not a Strata profile (no root attribute 'format')");
        const std::string format = read_string_attribute(file_.get(), "format", "/");
        if (format != profile_format_name)
            fail("not a Strata profile (attribute format is \"" + format + "\", expected \"" + profile_format_name +
                 "\")");
        const std::uint64_t version = read_unsigned_attribute("format_version");
        if (version == 0) fail("invalid format_version 0");
        if (version > supported_profile_format_version)
            fail("format_version " + str(version) + " is newer than this reader understands (" +
                 str(supported_profile_format_version) + "); read it with a newer Strata");
        profile.format_version = static_cast<std::uint32_t>(version);
        profile.strata_version = read_string_attribute(file_.get(), "strata_version", "/");
        profile.creation_time = read_string_attribute(file_.get(), "creation_time", "/");
        profile.timer = read_string_attribute(file_.get(), "timer", "/");
        profile.timer_resolution = read_float_attribute("timer_resolution");
        profile.dropped_callpaths = read_unsigned_attribute("dropped_callpaths");
        number_of_locations_ = read_unsigned_attribute("number_of_locations");
    }

    // ---- datasets ---------------------------------------------------------

    /// True when every link on `name` ("/a/b/c") exists.
    bool exists(const std::string& name) const {
        for (std::size_t slash = name.find('/', 1);; slash = name.find('/', slash + 1)) {
            const std::string prefix = name.substr(0, slash);
            if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) {
                H5Eclear2(H5E_DEFAULT);
                return false;
            }
            if (slash == std::string::npos) return true;
        }
    }

    H5Handle open_dataset(const std::string& name) const {
        if (!exists(name)) fail("missing dataset " + name);
        H5Handle dataset(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
        if (!dataset.valid()) fail_hdf5("cannot open dataset " + name);
        return dataset;
    }

    /// The extent of a dataset that must have `rank` dimensions.
    std::vector<hsize_t> extent(hid_t dataset, int rank, const std::string& name) const {
        H5Handle space(H5Dget_space(dataset), H5Sclose);
        const int ndims = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
        if (ndims < 0) fail_hdf5("cannot get the shape of " + name);
        if (ndims != rank)
            fail(name + " has " + str(static_cast<unsigned>(ndims)) + " dimensions, expected " + str(rank));
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
        return dims;
    }

    /// A memory string type matching `file_type`'s character set (HDF5
    /// does not convert between ASCII and UTF-8) and length kind.
    H5Handle string_memory_type(hid_t file_type) const {
        H5Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
        const bool variable = H5Tis_variable_str(file_type) > 0;
        if (!memory.valid() || H5Tset_size(memory.get(), variable ? H5T_VARIABLE : H5Tget_size(file_type) + 1) < 0 ||
            H5Tset_cset(memory.get(), H5Tget_cset(file_type)) < 0 ||
            H5Tset_strpad(memory.get(), H5T_STR_NULLTERM) < 0)
            fail_hdf5("cannot make a string type");
        return memory;
    }

    std::vector<std::string> read_strings() const {
        const std::string name = "/definitions/strings";
        H5Handle dataset = open_dataset(name);
        const std::size_t rows = extent(dataset.get(), 1, name)[0];
        H5Handle type(H5Dget_type(dataset.get()), H5Tclose);
        if (H5Tget_class(type.get()) != H5T_STRING) fail(name + " is not a string dataset");
        H5Handle memory = string_memory_type(type.get());
        std::vector<std::string> strings(rows);
        if (rows == 0) return strings;
        if (H5Tis_variable_str(type.get()) > 0) {
            std::vector<char*> texts(rows, nullptr);
            if (H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0)
                fail_hdf5("cannot read " + name);
            for (std::size_t i = 0; i < rows; ++i)
                if (texts[i] != nullptr) strings[i] = texts[i];
            H5Handle space(H5Dget_space(dataset.get()), H5Sclose);
            H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, texts.data());
        } else {
            const std::size_t width = H5Tget_size(memory.get());
            std::vector<char> buffer(rows * width, '\0');
            if (H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
                fail_hdf5("cannot read " + name);
            for (std::size_t i = 0; i < rows; ++i) strings[i] = &buffer[i * width];  // NUL-terminated
        }
        return strings;
    }

    /// The member names of an enum type (one-byte values).
    static EnumNames enum_names(hid_t type) {
        EnumNames names;
        const int members = H5Tget_nmembers(type);
        for (int i = 0; i < members; ++i) {
            std::uint8_t value = 0;
            char* member = H5Tget_member_name(type, static_cast<unsigned>(i));
            if (member != nullptr && H5Tget_member_value(type, static_cast<unsigned>(i), &value) >= 0)
                names.by_value[value] = member;
            H5free_memory(member);
        }
        H5Eclear2(H5E_DEFAULT);
        return names;
    }

    /// Reads the compound dataset `name` into records; each field is found
    /// by name, fields the reader does not know are skipped.
    template <typename Record>
    std::vector<Record> read_table(const std::string& name, const std::vector<Field>& fields) const {
        H5Handle dataset = open_dataset(name);
        const std::size_t rows = extent(dataset.get(), 1, name)[0];
        H5Handle file_type(H5Dget_type(dataset.get()), H5Tclose);
        if (H5Tget_class(file_type.get()) != H5T_COMPOUND) fail(name + " is not a compound table");
        H5Handle memory(H5Tcreate(H5T_COMPOUND, sizeof(Record)), H5Tclose);
        if (!memory.valid()) fail_hdf5("cannot make a compound type");
        for (const Field& field : fields) {
            const std::string what = name + " field '" + field.name + "'";
            const int index = H5Tget_member_index(file_type.get(), field.name);
            if (index < 0) {
                H5Eclear2(H5E_DEFAULT);
                if (field.optional) continue;
                fail(name + " has no field '" + field.name + "'");
            }
            H5Handle member(H5Tget_member_type(file_type.get(), static_cast<unsigned>(index)), H5Tclose);
            const H5T_class_t member_class = H5Tget_class(member.get());
            H5Handle enum_copy;
            hid_t memory_field = H5I_INVALID_HID;
            switch (field.kind) {
                case FieldKind::u32: memory_field = H5T_NATIVE_UINT32; break;
                case FieldKind::u64: memory_field = H5T_NATIVE_UINT64; break;
                case FieldKind::i64: memory_field = H5T_NATIVE_INT64; break;
                case FieldKind::enum8: memory_field = H5T_NATIVE_UINT8; break;
            }
            if (field.kind == FieldKind::enum8 && member_class == H5T_ENUM) {
                // Read the enum as itself: no conversion, so a value that has
                // no member name (written by a newer Strata) arrives unchanged.
                if (H5Tget_size(member.get()) != 1) fail(what + " is not a one-byte enum");
                enum_copy = H5Handle(H5Tcopy(member.get()), H5Tclose);
                memory_field = enum_copy.get();
                if (field.names != nullptr) *field.names = enum_names(member.get());
            } else if (member_class != H5T_INTEGER) {
                fail(what + " is not an integer");
            }
            if (H5Tinsert(memory.get(), field.name, field.offset, memory_field) < 0)
                fail_hdf5("cannot make a compound type");
        }
        std::vector<Record> records(rows);
        if (rows > 0 && H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, records.data()) < 0)
            fail_hdf5("cannot read " + name);
        return records;
    }

    // ---- checks -----------------------------------------------------------

    /// "<table> row <i>: <field> <value> is out of range (<size> <what>)".
    [[noreturn]] void out_of_range(const char* table, std::size_t row, const char* field, std::int64_t value,
                                   std::size_t size, const char* what) const {
        fail(std::string("/definitions/") + table + " row " + str(row) + ": " + field + " " + std::to_string(value) +
             " is out of range (" + str(size) + " " + what + ")");
    }

    void check_references(const Profile& p) const {
        const std::size_t strings = p.strings.size();
        const auto valid = [](std::int64_t index, std::size_t size, bool none_allowed) {
            return (none_allowed && index == -1) || (index >= 0 && static_cast<std::uint64_t>(index) < size);
        };
        for (std::size_t i = 0; i < p.regions.size(); ++i) {
            if (p.regions[i].name >= strings) out_of_range("regions", i, "name", p.regions[i].name, strings, "strings");
            if (p.regions[i].file >= strings) out_of_range("regions", i, "file", p.regions[i].file, strings, "strings");
        }
        for (std::size_t i = 0; i < p.parameters.size(); ++i)
            if (p.parameters[i].name >= strings)
                out_of_range("parameters", i, "name", p.parameters[i].name, strings, "strings");
        if (p.locations.size() != number_of_locations_)
            fail("/definitions/locations has " + str(p.locations.size()) + " rows, but number_of_locations is " +
                 str(number_of_locations_));
        for (std::size_t i = 0; i < p.locations.size(); ++i)
            if (p.locations[i].name >= strings)
                out_of_range("locations", i, "name", p.locations[i].name, strings, "strings");
        for (std::size_t i = 0; i < p.locations.size(); ++i)
            if (p.locations[i].host >= strings)
                out_of_range("locations", i, "host", p.locations[i].host, strings, "strings");
        const std::size_t callpaths = p.callpaths.size();
        for (std::size_t i = 0; i < callpaths; ++i) {
            const CallPath& cp = p.callpaths[i];
            if (!valid(cp.parent, callpaths, true))
                out_of_range("callpaths", i, "parent", cp.parent, callpaths, "call paths");
            if (cp.region >= p.regions.size())
                out_of_range("callpaths", i, "region", cp.region, p.regions.size(), "regions");
            if (!valid(cp.parameter, p.parameters.size(), true))
                out_of_range("callpaths", i, "parameter", cp.parameter, p.parameters.size(), "parameters");
            if (!valid(cp.string_value, strings, true))
                out_of_range("callpaths", i, "string_value", cp.string_value, strings, "strings");
        }
    }

    /// Every parent chain must end at a root: a cycle would make every walk
    /// up the tree endless.
    void check_tree(const Profile& p) const {
        enum : std::uint8_t { unseen, on_walk, done };
        std::vector<std::uint8_t> state(p.callpaths.size(), unseen);
        std::vector<std::size_t> walk;
        for (std::size_t start = 0; start < p.callpaths.size(); ++start) {
            walk.clear();
            for (std::int64_t i = static_cast<std::int64_t>(start); i >= 0 && state[i] != done;
                 i = p.callpaths[i].parent) {
                if (state[i] == on_walk)
                    fail("/definitions/callpaths row " + str(static_cast<std::uint64_t>(i)) +
                         ": the parent links form a cycle");
                state[i] = on_walk;
                walk.push_back(static_cast<std::size_t>(i));
            }
            for (std::size_t i : walk) state[i] = done;
        }
    }

    // ---- metrics ----------------------------------------------------------

    /// The column slice of ProfileReadOptions, checked against the locations.
    void choose_columns(const Profile& profile) {
        const std::size_t locations = profile.locations.size();
        std::size_t first = options_.first_column, count = options_.column_count;
        if (options_.choose_columns) std::tie(first, count) = options_.choose_columns(profile);
        if (first > locations)
            fail("columns from " + str(first) + " on requested, but the profile has " + str(locations) +
                 " locations");
        first_column_ = first;
        column_count_ = std::min(count, locations - first_column_);
    }

    bool wanted(const std::string& name) const {
        return options_.metrics.empty() ||
               std::find(options_.metrics.begin(), options_.metrics.end(), name) != options_.metrics.end();
    }

    static herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* names) {
        static_cast<std::vector<std::string>*>(names)->emplace_back(name);
        return 0;
    }

    void read_metrics(Profile& profile) const {
        if (!exists("/metrics")) fail("missing group /metrics");
        H5Handle group(H5Gopen2(file_.get(), "/metrics", H5P_DEFAULT), H5Gclose);
        if (!group.valid()) fail_hdf5("cannot open group /metrics");
        std::vector<std::string> names;
        if (H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names) < 0)
            fail_hdf5("cannot list /metrics");
        std::sort(names.begin(), names.end());
        for (const std::string& name : names) {
            if (!wanted(name)) continue;
            H5Handle object(H5Oopen(group.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
            if (!object.valid()) fail_hdf5("cannot open /metrics/" + name);
            // Only datasets are metrics; anything else is for a newer reader.
            if (H5Iget_type(object.get()) != H5I_DATASET) continue;
            profile.metrics.push_back(read_metric(object.get(), name, profile));
        }
    }

    Metric read_metric(hid_t dataset, const std::string& name, const Profile& profile) const {
        const std::string what = "/metrics/" + name;
        Metric metric;
        metric.name = name;
        const std::vector<hsize_t> dims = extent(dataset, 2, what);
        metric.rows = profile.callpaths.size();
        if (dims[0] != metric.rows || dims[1] != profile.locations.size())
            fail(what + " is [" + str(dims[0]) + " x " + str(dims[1]) + "], expected [" + str(metric.rows) + " x " +
                 str(profile.locations.size()) + "] (call paths x locations)");
        metric.first_column = first_column_;
        metric.columns = column_count_;
        if (metric.columns != 0 && metric.rows > std::numeric_limits<std::size_t>::max() / 8 / metric.columns)
            fail(what + " is too large for this machine");
        const std::size_t cells = metric.rows * metric.columns;
        H5Handle type(H5Dget_type(dataset), H5Tclose);
        const H5T_class_t type_class = H5Tget_class(type.get());
        if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) fail(what + " is not a matrix of numbers");
        metric.integral = type_class == H5T_INTEGER;
        // The whole matrix, or the hyperslab [0, first_column] + [rows x columns].
        H5Handle file_space, memory_space;
        hid_t file_selection = H5S_ALL, memory_selection = H5S_ALL;
        if (cells > 0 && !metric.whole(profile.locations.size())) {
            const hsize_t start[2] = {0, metric.first_column};
            const hsize_t count[2] = {metric.rows, metric.columns};
            file_space = H5Handle(H5Dget_space(dataset), H5Sclose);
            memory_space = H5Handle(H5Screate_simple(2, count, nullptr), H5Sclose);
            if (!file_space.valid() || !memory_space.valid() ||
                H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0)
                fail_hdf5("cannot select columns of " + what);
            file_selection = file_space.get();
            memory_selection = memory_space.get();
        }
        herr_t status = 0;
        if (metric.integral) {
            metric.counts.resize(cells);
            if (cells > 0)
                status = H5Dread(dataset, H5T_NATIVE_UINT64, memory_selection, file_selection, H5P_DEFAULT,
                                 metric.counts.data());
        } else {
            metric.values.resize(cells);
            if (cells > 0)
                status = H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_selection, file_selection, H5P_DEFAULT,
                                 metric.values.data());
        }
        if (status < 0) fail_hdf5("cannot read " + what);
        // Strata writes times and derived values from finite counts: inf or NaN is damage,
        // and would otherwise reach the reports as "inf" or an empty cell.
        for (std::size_t i = 0; i < metric.values.size(); ++i) {
            if (std::isfinite(metric.values[i])) continue;
            const std::size_t row = i / metric.columns, location = metric.first_column + i % metric.columns;
            fail(what + " row " + str(row) + ", location " + str(location) + ": " +
                 (std::isnan(metric.values[i]) ? std::string("NaN") : std::string("infinity")) +
                 " is not a finite number");
        }
        const std::string where = what + "/";
        if (H5Aexists(dataset, "unit") > 0) metric.unit = read_string_attribute(dataset, "unit", where);
        if (H5Aexists(dataset, "description") > 0)
            metric.description = read_string_attribute(dataset, "description", where);
        H5Eclear2(H5E_DEFAULT);
        return metric;
    }

    std::string path_;
    ProfileReadOptions options_;
    H5Handle file_;
    std::uint64_t number_of_locations_ = 0;
    std::size_t first_column_ = 0;  ///< the column slice actually read
    std::size_t column_count_ = 0;
};

}  // namespace

std::string profile_path_of(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) return (std::filesystem::path(path) / "profile.h5").string();
    return path;
}

Profile read_profile(const std::string& file_path) { return read_profile(file_path, ProfileReadOptions{}); }

Profile read_profile(const std::string& file_path, const ProfileReadOptions& options) {
    QuietHdf5Errors quiet;  // outlives the reader and every id it owns
    try {
        return Reader(file_path, options).read();
    } catch (const ProfileError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw ProfileError(file_path + ": out of memory while reading the profile");
    } catch (const std::length_error&) {
        throw ProfileError(file_path + ": out of memory while reading the profile");
    }
}

}  // namespace strata::analysis
