// SPDX-License-Identifier: BSD-3-Clause
// profile.h5 writer: definitions tables and per-metric [call path x location]
// matrices (schema: share/doc/profile-format.md).
//
// Serial write (now):
//
//     open <path>.tmp (POSIX)         fails fast on a bad directory
//     build_image()                   the HDF5 file, in memory (core driver)
//       make_file_access_plist()      <- parallel: H5Pset_fapl_mpio(comm, info)
//       write_content()
//         write_root_attributes()     \  one writer: HDF5 1.10 cannot write
//         write_definitions()         /  variable-length strings through MPI-IO
//         write_columns()             <- every rank its column slice of
//           /definitions/locations       [location_offset, +locations.size()),
//           /metrics/<name>              with make_transfer_plist() (parallel:
//                                        H5Pset_dxpl_mpio(H5FD_MPIO_COLLECTIVE))
//     write, fsync, close, rename     every disk error is ours to report
//
// Why in memory: when H5Fclose fails (e.g. disk full while flushing), HDF5
// before 1.14.1 frees the file but keeps its id, and the library's atexit
// clean-up then crashes the measured program (HDFFV-11052).  Building the
// image with the core driver keeps disk I/O out of HDF5; the cost is one
// copy of the (compressed) file in memory during the write.
//
// Collective write (MPI jobs, write_profile_h5_collective):
//
//     rank 0      build_image() of the job's skeleton: definitions, root
//                 attributes, every dataset in its full shape, no column data;
//                 written to <path>.tmp as above (HDF5 1.10 cannot write
//                 variable-length strings through MPI-IO)
//     every rank  H5Fopen with MPI-IO; write_column_data(): its columns of
//                 /definitions/locations and /metrics/* with collective
//                 transfers (chunked, compressed datasets need them)
//     rank 0      fsync, rename
//
// After each step the ranks agree on the outcome, so all return the same
// result.  The HDFFV-11052 caveat above applies to the MPI-IO close.
#include "profiling/profile_h5_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hdf5_errors/hdf5_errors.hpp"
#include "strata/measurement/types.hpp"

namespace strata::profiling {
namespace {

/// A step that failed; its message becomes the writer's error.
class WriteFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Owns an HDF5 id and closes it with the matching H5?close function.
class H5Id {
public:
    H5Id(hid_t id, herr_t (*closer)(hid_t)) : id_(id), close_(closer) {}
    H5Id(H5Id&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
    H5Id& operator=(H5Id&&) = delete;
    ~H5Id() { close(); }

    /// The raw id for HDF5 calls.
    hid_t get() const { return id_; }
    /// Closes now; returns the close function's status (flush errors of a
    /// file show up here).
    herr_t close() {
        herr_t status = 0;
        if (id_ >= 0 && close_ != nullptr) status = close_(id_);
        id_ = H5I_INVALID_HID;
        return status;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
    herr_t (*close_)(hid_t) = nullptr;
};

using QuietHdf5Errors = hdf5::QuietErrors;
std::string hdf5_cause() { return hdf5::error_cause(); }

/// Returns `id` wrapped in an owner, or throws "<what>: <HDF5 cause>".
H5Id checked(hid_t id, herr_t (*closer)(hid_t), const std::string& what) {
    if (id < 0) throw WriteFailure(what + ": " + hdf5_cause());
    return H5Id(id, closer);
}

/// Throws "<what>: <HDF5 cause>" when an HDF5 call failed.
void check(herr_t status, const std::string& what) {
    if (status < 0) throw WriteFailure(what + ": " + hdf5_cause());
}

/// Variable-length UTF-8 string type (memory and file alike).
H5Id string_type() {
    H5Id type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "cannot make a string type");
    check(H5Tset_size(type.get(), H5T_VARIABLE), "cannot make a string type");
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot make a string type");
    return type;
}

/// An enumeration on a one-byte base, so that memory and file agree without
/// conversion (a value missing from the type is stored unchanged).
H5Id enum_type(const std::vector<std::pair<std::uint8_t, std::string>>& members) {
    H5Id type = checked(H5Tenum_create(H5T_STD_U8LE), H5Tclose, "cannot make an enum type");
    for (const auto& [value, name] : members)
        check(H5Tenum_insert(type.get(), name.c_str(), &value), "cannot add enum member " + name);
    return type;
}

/// Members named by `to_string`: 0 and every value that has a name of its own.
template <typename Enum>
H5Id enum_type_from_names() {
    std::vector<std::pair<std::uint8_t, std::string>> members;
    for (unsigned value = 0; value <= 255; ++value) {
        std::string name = to_string(static_cast<Enum>(value));
        if (value == 0 || name != "unknown") members.emplace_back(static_cast<std::uint8_t>(value), name);
    }
    return enum_type(members);
}

/// A compound type built twice: in memory (a C++ struct) and in the file
/// (packed, little-endian), field by field.
class CompoundType {
public:
    explicit CompoundType(std::size_t memory_size) : memory_size_(memory_size) {}

    /// Adds field `name` at `memory_offset`; `file_type` is used in memory too
    /// unless `memory_type` is given (numbers: native in memory, LE in the file).
    void add(const char* name, std::size_t memory_offset, hid_t file_type, hid_t memory_type = -1) {
        fields_.push_back({name, memory_offset, file_type, memory_type < 0 ? file_type : memory_type});
    }
    H5Id memory_type() const {
        H5Id type = checked(H5Tcreate(H5T_COMPOUND, memory_size_), H5Tclose, "cannot make a compound type");
        for (const auto& field : fields_)
            check(H5Tinsert(type.get(), field.name, field.memory_offset, field.memory_type),
                  std::string("cannot add compound field ") + field.name);
        return type;
    }
    H5Id file_type() const {
        std::size_t size = 0;
        for (const auto& field : fields_) size += H5Tget_size(field.file_type);
        H5Id type = checked(H5Tcreate(H5T_COMPOUND, size), H5Tclose, "cannot make a compound type");
        std::size_t offset = 0;
        for (const auto& field : fields_) {
            check(H5Tinsert(type.get(), field.name, offset, field.file_type),
                  std::string("cannot add compound field ") + field.name);
            offset += H5Tget_size(field.file_type);
        }
        return type;
    }

private:
    struct Field {
        const char* name;
        std::size_t memory_offset;
        hid_t file_type;
        hid_t memory_type;
    };
    std::size_t memory_size_;
    std::vector<Field> fields_;
};

/// The shared types of one file, created once.
struct Types {
    H5Id string = string_type();
    H5Id paradigm = enum_type_from_names<Paradigm>();
    H5Id region_role = enum_type_from_names<RegionRole>();
    H5Id location_type = enum_type({{0, "cpu_thread"}, {1, "gpu_stream"}, {2, "metric"}});
    H5Id parameter_type = enum_type({{0, "integer"}, {1, "string"}});
};

/// File access properties: the core driver without backing store (the file
/// stays in memory, grown in 1 MiB steps).  The parallel write replaces it
/// with H5Pset_fapl_mpio.
H5Id make_file_access_plist() {
    H5Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot create file access properties");
    check(H5Pset_fapl_core(fapl.get(), 1 << 20, false), "cannot select the in-memory file driver");
    // SEMI: H5Fclose fails instead of deferring the close while objects are
    // still open, so a forgotten id shows up as an error, not as data that
    // never reached the file.
    check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), "cannot set file close degree");
    return fapl;
}

/// Raw-data transfer properties; the place for H5Pset_dxpl_mpio(COLLECTIVE).
H5Id make_transfer_plist() {
    return checked(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "cannot create transfer properties");
}

void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type, const void* value) {
    const std::string what = std::string("cannot write attribute ") + name;
    H5Id space = checked(H5Screate(H5S_SCALAR), H5Sclose, what);
    H5Id attribute = checked(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    check(H5Awrite(attribute.get(), memory_type, value), what);
}

void write_attribute(hid_t object, const char* name, const std::string& value, const Types& types) {
    const char* text = value.c_str();
    write_attribute(object, name, types.string.get(), types.string.get(), &text);
}

void write_attribute(hid_t object, const char* name, std::uint64_t value) {
    write_attribute(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

/// The number of matrix columns in the file: total_locations, or this
/// process's locations when 0 (serial write).
std::uint64_t total_columns(const ProfileData& data) {
    return data.total_locations != 0 ? data.total_locations : data.locations.size();
}

void write_root_attributes(hid_t file, const ProfileData& data, const Types& types) {
    write_attribute(file, "format", profile_format_name, types);
    const std::uint32_t version = profile_format_version;
    write_attribute(file, "format_version", H5T_STD_U32LE, H5T_NATIVE_UINT32, &version);
    write_attribute(file, "strata_version", data.strata_version, types);
    write_attribute(file, "creation_time", data.creation_time, types);
    write_attribute(file, "timer", data.timer_name, types);
    write_attribute(file, "timer_resolution", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &data.timer_resolution);
    write_attribute(file, "dropped_callpaths", data.dropped_callpaths);
    write_attribute(file, "number_of_locations", total_columns(data));
}

/// Creates the 1-D dataset `group/name` of `rows` elements and writes it whole.
void write_whole(hid_t group, const char* name, hid_t file_type, hid_t memory_type, std::size_t rows,
                 const void* buffer) {
    const std::string what = std::string("cannot write /definitions/") + name;
    const hsize_t dims[1] = {rows};
    H5Id space = checked(H5Screate_simple(1, dims, nullptr), H5Sclose, what);
    H5Id dataset =
        checked(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, what);
    if (rows > 0) check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer), what);
}

/// Writes a table of `rows` records laid out as `layout`.
void write_table(hid_t group, const char* name, const CompoundType& layout, std::size_t rows, const void* records) {
    H5Id file_type = layout.file_type();
    H5Id memory_type = layout.memory_type();
    write_whole(group, name, file_type.get(), memory_type.get(), rows, records);
}

struct RegionRecord {
    std::uint32_t name, file, line;
    std::uint8_t paradigm, role;
    std::uint32_t flags;
    const char* name_text;
    const char* file_text;
};

struct ParameterRecord {
    std::uint32_t name;
    std::uint8_t type;
    const char* name_text;
};

void write_definitions(hid_t file, const ProfileData& data, const Types& types) {
    H5Id group = checked(H5Gcreate2(file, "definitions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /definitions");
    const auto text = [&](std::uint32_t id) { return data.strings[id].c_str(); };

    std::vector<const char*> strings;
    for (const auto& s : data.strings) strings.push_back(s.c_str());
    write_whole(group.get(), "strings", types.string.get(), types.string.get(), strings.size(), strings.data());

    std::vector<RegionRecord> regions;
    for (const auto& r : data.regions)
        regions.push_back({r.name, r.file, r.line, r.paradigm, r.role, r.flags, text(r.name), text(r.file)});
    CompoundType region_layout(sizeof(RegionRecord));
    region_layout.add("name", HOFFSET(RegionRecord, name), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    region_layout.add("file", HOFFSET(RegionRecord, file), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    region_layout.add("line", HOFFSET(RegionRecord, line), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    region_layout.add("paradigm", HOFFSET(RegionRecord, paradigm), types.paradigm.get());
    region_layout.add("role", HOFFSET(RegionRecord, role), types.region_role.get());
    region_layout.add("flags", HOFFSET(RegionRecord, flags), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    region_layout.add("name_text", HOFFSET(RegionRecord, name_text), types.string.get());
    region_layout.add("file_text", HOFFSET(RegionRecord, file_text), types.string.get());
    write_table(group.get(), "regions", region_layout, regions.size(), regions.data());

    std::vector<ParameterRecord> parameters;
    for (const auto& p : data.parameters) parameters.push_back({p.name, p.type, text(p.name)});
    CompoundType parameter_layout(sizeof(ParameterRecord));
    parameter_layout.add("name", HOFFSET(ParameterRecord, name), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    parameter_layout.add("type", HOFFSET(ParameterRecord, type), types.parameter_type.get());
    parameter_layout.add("name_text", HOFFSET(ParameterRecord, name_text), types.string.get());
    write_table(group.get(), "parameters", parameter_layout, parameters.size(), parameters.data());

    using CallPath = ProfileData::CallPath;
    CompoundType callpath_layout(sizeof(CallPath));
    callpath_layout.add("parent", HOFFSET(CallPath, parent), H5T_STD_I64LE, H5T_NATIVE_INT64);
    callpath_layout.add("region", HOFFSET(CallPath, region), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    callpath_layout.add("parameter", HOFFSET(CallPath, parameter), H5T_STD_I64LE, H5T_NATIVE_INT64);
    callpath_layout.add("int_value", HOFFSET(CallPath, int_value), H5T_STD_I64LE, H5T_NATIVE_INT64);
    callpath_layout.add("string_value", HOFFSET(CallPath, string_value), H5T_STD_I64LE, H5T_NATIVE_INT64);
    write_table(group.get(), "callpaths", callpath_layout, data.callpaths.size(), data.callpaths.data());
}

/// This process's part of the location dimension.
struct ColumnSlice {
    hsize_t offset = 0;  ///< first global column (location) written here
    hsize_t count = 0;   ///< number of columns written here
    hsize_t total = 0;   ///< global number of columns
};

/// Writes this process's slice of `dataset`.  Rank 2 (a metric): `buffer` is
/// [rows x slice.count] row-major and goes to all rows of the slice's
/// columns.  Rank 1 (the location table): `buffer` holds slice.count records
/// for the slice's rows, and `rows` is unused.  An empty slice still calls
/// H5Dwrite, as a collective write requires of every rank.
void write_slice(hid_t dataset, hid_t memory_type, int rank, hsize_t rows, const ColumnSlice& slice,
                 const void* buffer, hid_t transfer, const std::string& what) {
    const hsize_t start[2] = {0, slice.offset};
    const hsize_t count[2] = {rows, slice.count};
    const hsize_t* file_start = rank == 1 ? start + 1 : start;
    const hsize_t* shape = rank == 1 ? count + 1 : count;
    H5Id file_space = checked(H5Dget_space(dataset), H5Sclose, what);
    H5Id memory_space = checked(H5Screate_simple(rank, shape, nullptr), H5Sclose, what);
    const bool empty = std::any_of(shape, shape + rank, [](hsize_t n) { return n == 0; });
    if (empty) {
        check(H5Sselect_none(file_space.get()), what);
        check(H5Sselect_none(memory_space.get()), what);
    } else {
        check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, file_start, nullptr, shape, nullptr), what);
    }
    check(H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), transfer, buffer), what);
}

/// Chunks of up to 1024 call paths x 64 locations (512 KiB of 8-byte values),
/// clipped to the matrix and never empty, compressed with shuffle + deflate.
H5Id metric_creation_plist(hsize_t rows, hsize_t columns) {
    const std::string what = "cannot set up chunked compression";
    H5Id dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    const hsize_t chunk[2] = {std::clamp<hsize_t>(rows, 1, 1024), std::clamp<hsize_t>(columns, 1, 64)};
    check(H5Pset_chunk(dcpl.get(), 2, chunk), what);
    // Without the deflate filter (a stripped HDF5) the values are still written, uncompressed.
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
        check(H5Pset_shuffle(dcpl.get()), what);
        check(H5Pset_deflate(dcpl.get(), 4), what);
    }
    return dcpl;
}

/// The compound type of /definitions/locations (a fixed-size record: every
/// rank can write its own rows in a collective write).
CompoundType location_layout(const Types& types) {
    using Location = ProfileData::Location;
    CompoundType layout(sizeof(Location));
    layout.add("id", HOFFSET(Location, id), H5T_STD_U64LE, H5T_NATIVE_UINT64);
    layout.add("rank", HOFFSET(Location, rank), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    layout.add("thread", HOFFSET(Location, thread), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    layout.add("type", HOFFSET(Location, type), types.location_type.get());
    layout.add("name", HOFFSET(Location, name), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    layout.add("host", HOFFSET(Location, host), H5T_STD_U32LE, H5T_NATIVE_UINT32);
    return layout;
}

/// This process's columns of /definitions/locations and /metrics/* into
/// datasets that exist (created by write_columns, here or on rank 0 of a
/// collective write; every rank writes in the same order).
void write_column_data(hid_t file, const ProfileData& data, const Types& types, hid_t transfer) {
    const ColumnSlice slice{data.location_offset, data.locations.size(), total_columns(data)};
    {
        const std::string what = "cannot write /definitions/locations";
        H5Id memory_type = location_layout(types).memory_type();
        H5Id dataset = checked(H5Dopen2(file, "/definitions/locations", H5P_DEFAULT), H5Dclose, what);
        write_slice(dataset.get(), memory_type.get(), 1, 0, slice, data.locations.data(), transfer, what);
    }
    const hsize_t rows = data.callpaths.size();
    for (const auto& metric : data.metrics) {
        const std::string what = "cannot write /metrics/" + metric.name;
        H5Id dataset = checked(H5Dopen2(file, ("/metrics/" + metric.name).c_str(), H5P_DEFAULT), H5Dclose, what);
        if (metric.integral)
            write_slice(dataset.get(), H5T_NATIVE_UINT64, 2, rows, slice, metric.counts.data(), transfer, what);
        else
            write_slice(dataset.get(), H5T_NATIVE_DOUBLE, 2, rows, slice, metric.values.data(), transfer, what);
    }
}

/// Creates /definitions/locations and /metrics/* in the job's full shape, then
/// writes this process's columns into them.
void write_columns(hid_t file, const ProfileData& data, const Types& types, hid_t transfer) {
    const hsize_t total = total_columns(data);
    {
        const std::string what = "cannot write /definitions/locations";
        H5Id file_type = location_layout(types).file_type();
        const hsize_t dims[1] = {total};
        H5Id space = checked(H5Screate_simple(1, dims, nullptr), H5Sclose, what);
        checked(H5Dcreate2(file, "/definitions/locations", file_type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT),
                H5Dclose, what);
    }
    H5Id group = checked(H5Gcreate2(file, "metrics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /metrics");
    const hsize_t rows = data.callpaths.size();
    H5Id dcpl = metric_creation_plist(rows, total);
    for (const auto& metric : data.metrics) {
        const std::string what = "cannot write /metrics/" + metric.name;
        const hsize_t dims[2] = {rows, total};
        H5Id space = checked(H5Screate_simple(2, dims, nullptr), H5Sclose, what);
        H5Id dataset =
            checked(H5Dcreate2(group.get(), metric.name.c_str(), metric.integral ? H5T_STD_U64LE : H5T_IEEE_F64LE,
                               space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    H5Dclose, what);
        write_attribute(dataset.get(), "unit", metric.unit, types);
        write_attribute(dataset.get(), "description", metric.description, types);
    }
    write_column_data(file, data, types, transfer);
}

/// Everything in the file; the part shared with the parallel write.
void write_content(hid_t file, const ProfileData& data) {
    Types types;
    H5Id transfer = make_transfer_plist();
    write_root_attributes(file, data, types);
    write_definitions(file, data, types);
    write_columns(file, data, types, transfer.get());
}

/// Builds the complete HDF5 file in memory and returns its bytes.
std::vector<unsigned char> build_image(const ProfileData& data) {
    QuietHdf5Errors quiet;  // declared first: outlives every id closed below
    H5Id fapl = make_file_access_plist();
    // The name is only a label: the core driver without backing store never touches the disk.
    H5Id file = checked(H5Fcreate("profile.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                        "cannot create the file in memory");
    write_content(file.get(), data);
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "cannot flush the file in memory");
    const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
    if (size < 0) throw WriteFailure("cannot get the file image: " + hdf5_cause());
    std::vector<unsigned char> image(static_cast<std::size_t>(size));
    if (H5Fget_file_image(file.get(), image.data(), image.size()) != size)
        throw WriteFailure("cannot get the file image: " + hdf5_cause());
    check(file.close(), "cannot close the file in memory");
    return image;
}

/// Owns a POSIX file descriptor.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() { close(); }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    /// The raw descriptor.
    int get() const { return fd_; }
    /// Closes now; returns ::close's result (NFS reports write errors here).
    int close() { return fd_ >= 0 ? ::close(std::exchange(fd_, -1)) : 0; }

private:
    int fd_;
};

/// Creates (or truncates) `file_path` for writing; returns the descriptor.
int create_file(const std::string& file_path) {
    const int fd = ::open(file_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw WriteFailure("cannot create file " + file_path + ": " + std::strerror(errno));
    return fd;
}

/// Writes all of `bytes`, syncs and closes: afterwards the data is on disk.
void write_and_close(FileDescriptor& file, const std::vector<unsigned char>& bytes, const std::string& file_path) {
    const auto fail = [&](const char* what) {
        throw WriteFailure(std::string(what) + " " + file_path + ": " + std::strerror(errno));
    };
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(file.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("cannot write");
        done += static_cast<std::size_t>(n);
    }
    // EINVAL/EROFS: the file system cannot sync; there is nothing to wait for.
    if (::fsync(file.get()) != 0 && errno != EINVAL && errno != EROFS) fail("cannot sync");
    if (file.close() != 0) fail("cannot close");
}

/// Checks what the writer relies on: buffer sizes (reading past them would
/// crash) and references between tables (a dangling one makes a broken file).
/// The error is the first problem.
Error validate(const ProfileData& data) {
    const auto n = [](std::size_t size) { return std::to_string(size); };
    const std::size_t strings = data.strings.size();
    if (data.total_locations != 0 && (data.location_offset > data.total_locations ||
                                      data.locations.size() > data.total_locations - data.location_offset))
        return "locations [" + n(data.location_offset) + ", +" + n(data.locations.size()) + ") exceed total_locations " +
               n(data.total_locations);
    if (data.total_locations == 0 && data.location_offset != 0) return "location_offset without total_locations";
    for (std::size_t i = 0; i < data.regions.size(); ++i)
        if (data.regions[i].name >= strings || data.regions[i].file >= strings)
            return "region " + n(i) + " refers to a string beyond the " + n(strings) + " strings";
    for (std::size_t i = 0; i < data.parameters.size(); ++i)
        if (data.parameters[i].name >= strings) return "parameter " + n(i) + " refers to a missing string";
    for (std::size_t i = 0; i < data.locations.size(); ++i)
        if (data.locations[i].name >= strings || data.locations[i].host >= strings)
            return "location " + n(i) + " refers to a missing string";
    const auto in_range = [](std::int64_t index, std::size_t size) {
        return index >= -1 && (index < 0 || static_cast<std::uint64_t>(index) < size);
    };
    for (std::size_t i = 0; i < data.callpaths.size(); ++i) {
        const auto& cp = data.callpaths[i];
        if (!in_range(cp.parent, data.callpaths.size()) || cp.parent == static_cast<std::int64_t>(i) ||
            cp.region >= data.regions.size() || !in_range(cp.parameter, data.parameters.size()) ||
            !in_range(cp.string_value, strings))
            return "call path " + n(i) + " refers to a missing parent, region, parameter or string";
    }
    const std::size_t cells = data.callpaths.size() * data.locations.size();
    for (const auto& metric : data.metrics) {
        if (metric.name.empty() || metric.name == "." || metric.name.find('/') != std::string::npos)
            return "metric name \"" + metric.name + "\" is not a valid dataset name";
        const std::size_t size = metric.integral ? metric.counts.size() : metric.values.size();
        if (size != cells)
            return "metric " + metric.name + " has " + n(size) + " values, expected " + n(data.callpaths.size()) +
                   " call paths x " + n(data.locations.size()) + " locations";
    }
    return {};
}

}  // namespace

namespace {

/// The first failing rank's message on every rank (none when none failed).
Error agree(events::ProcessGroup& group, const Error& mine) {
    const int ranks = group.size(), rank = group.rank();
    const unsigned char failed = mine ? 1 : 0;
    std::vector<unsigned char> flags(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
    group.gather(&failed, 1, flags.data(), 0);
    int first = -1;
    if (rank == 0) {
        for (int r = 0; r < ranks && first < 0; ++r)
            if (flags[r]) first = r;
    }
    group.broadcast(&first, sizeof first, 0);
    if (first < 0) return {};
    std::string message = rank == first ? *mine : std::string();
    std::uint64_t length = message.size();
    group.broadcast(&length, sizeof length, first);
    message.resize(length);
    if (length > 0) group.broadcast(&message[0], length, first);
    return first == rank ? message : "rank " + std::to_string(first) + ": " + message;
}

#ifdef H5_HAVE_PARALLEL
/// Every rank writes its columns into the file rank 0 created.
void write_columns_collectively(const ProfileData& data, const std::string& file_path, MPI_Comm communicator) {
    QuietHdf5Errors quiet;  // declared first: outlives every id closed below
    H5Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot create file access properties");
    check(H5Pset_fapl_mpio(fapl.get(), communicator, MPI_INFO_NULL), "cannot select the MPI-IO file driver");
    H5Id file = checked(H5Fopen(file_path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose,
                        "cannot open " + file_path + " with MPI-IO");
    H5Id transfer = checked(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "cannot create transfer properties");
    check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "cannot select collective transfers");
    write_column_data(file.get(), data, Types{}, transfer.get());
    check(file.close(), "cannot close " + file_path + " after the collective write");
}
#endif

/// Flushes what other processes wrote to `file_path` to the disk.
void sync_file(const std::string& file_path) {
    FileDescriptor file(::open(file_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0) throw WriteFailure("cannot open " + file_path + ": " + std::strerror(errno));
    if (::fsync(file.get()) != 0 && errno != EINVAL && errno != EROFS)
        throw WriteFailure("cannot sync " + file_path + ": " + std::strerror(errno));
}

}  // namespace

bool collective_write_available() noexcept {
#ifdef H5_HAVE_PARALLEL
    return true;
#else
    return false;
#endif
}

Error write_profile_h5_collective(const ProfileData& data, const std::string& path,
                                  events::ProcessGroup& group) noexcept {
    const std::string temporary = path + ".tmp";
    const auto attempt = [](auto&& step) -> Error {
        try {
            step();
            return {};
        } catch (const std::bad_alloc&) {
            return "out of memory while writing the profile";
        } catch (const std::exception& failure) {
            return failure.what();
        } catch (...) {
            return "unexpected failure while writing the profile";
        }
    };
#ifndef H5_HAVE_PARALLEL
    (void)data;
    (void)group;
    return path + ": this build's HDF5 cannot write with MPI-IO";
#else
    const auto* communicator = static_cast<const MPI_Comm*>(group.native_communicator());
    Error problem = communicator == nullptr ? Error("the process group has no MPI communicator") : validate(data);
    // 1. Rank 0: definitions and empty datasets of the job's shape (in memory, then to disk).
    if (group.rank() == 0 && !problem) {
        problem = attempt([&] {
            ProfileData skeleton = data;
            skeleton.locations.clear();
            skeleton.location_offset = 0;
            for (auto& metric : skeleton.metrics) {
                metric.counts.clear();
                metric.values.clear();
            }
            FileDescriptor file(create_file(temporary));
            write_and_close(file, build_image(skeleton), temporary);
        });
    }
    problem = agree(group, problem);
    // 2. Every rank: its columns, collectively.
    if (!problem) problem = agree(group, attempt([&] { write_columns_collectively(data, temporary, *communicator); }));
    // 3. Rank 0: on disk, then under its name.
    if (!problem && group.rank() == 0) {
        problem = attempt([&] {
            sync_file(temporary);
            if (std::rename(temporary.c_str(), path.c_str()) != 0)
                throw WriteFailure("cannot rename " + temporary + " to " + path + ": " + std::strerror(errno));
        });
    }
    problem = agree(group, problem);
    if (problem && group.rank() == 0) std::remove(temporary.c_str());
    if (problem) return path + ": " + *problem;
    return {};
#endif
}

Error write_profile_h5(const ProfileData& data, const std::string& path) noexcept {
    const std::string temporary = path + ".tmp";
    bool created = false;
    try {
        if (const Error problem = validate(data)) return path + ": invalid profile data: " + *problem;
        FileDescriptor file(create_file(temporary));
        created = true;  // from here on a half-written temporary file may exist
        const std::vector<unsigned char> image = build_image(data);
        write_and_close(file, image, temporary);
        if (std::rename(temporary.c_str(), path.c_str()) != 0)
            throw WriteFailure("cannot rename " + temporary + " to " + path + ": " + std::strerror(errno));
        return {};
    } catch (const std::bad_alloc&) {
        if (created) std::remove(temporary.c_str());
        return path + ": out of memory while writing the profile";
    } catch (const std::exception& failure) {
        if (created) std::remove(temporary.c_str());
        return path + ": " + failure.what();
    } catch (...) {
        if (created) std::remove(temporary.c_str());
        return path + ": unexpected failure while writing the profile";
    }
}

}  // namespace strata::profiling

extern "C" __attribute__((visibility("default"))) const strata::profiling::ProfileH5Functions*
strata_profile_h5_functions() {
    static const strata::profiling::ProfileH5Functions functions = {
        strata::profiling::write_profile_h5, strata::profiling::collective_write_available,
        strata::profiling::write_profile_h5_collective};
    return &functions;
}
