// SPDX-License-Identifier: BSD-3-Clause
// The in-memory model of a profile.h5 (schema: share/doc/profile-format.md).
//
//   Profile
//    ├─ root attributes         format_version, strata_version, timer, dropped_callpaths, ...
//    ├─ strings  [S]            every name, file and string value points here
//    ├─ regions  [R]            name, file, line, paradigm, role, flags
//    ├─ parameters [P]          name, type
//    ├─ locations [L]           column j of every metric
//    ├─ callpaths [C]           row i of every metric; parent links form the call tree
//    └─ metrics                 by name, each a dense [C x L] matrix, row-major
//
// The model is plain data: read_profile() fills it and checks every index, so
// code that walks it may index the tables without further checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace strata::analysis {

/// A profile that cannot be read or lacks what a caller needs; what() is
/// "<file>: <what is wrong>".
class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Where a region comes from; the stable numbers of the format (a file may
/// hold values this list does not name, written by a newer Strata).
enum class Paradigm : std::uint8_t {
    unknown = 0,
    user = 1,
    compiler = 2,
    mpi = 3,
    openmp = 4,
    cuda = 5,
    measurement = 6,  ///< Strata's own activity, e.g. buffer flushes
};

/// What a region does; the stable numbers of the format.
enum class RegionRole : std::uint8_t {
    unknown = 0,
    function = 1,
    code = 2,
    loop = 3,
    wrapper = 4,
    parallel = 5,
    barrier = 6,
    implicit_barrier = 7,
    point_to_point = 8,
    coll_one2all = 9,
    coll_all2one = 10,
    coll_all2all = 11,
    coll_other = 12,
    artificial = 13,
    sections = 14,
    section = 15,
    single = 16,
    single_sblock = 17,
    master = 18,
    critical = 19,
    critical_sblock = 20,
    atomic = 21,
    ordered = 22,
    ordered_sblock = 23,
    task = 24,
    task_create = 25,
    task_wait = 26,
    workshare = 27,
    lock = 28,
    file_io = 29,  ///< reads or writes files (MPI_File_*)
    data_transfer = 30,  ///< a CUDA copy or memset on a GPU stream
};

/// The kind of a location (a metric column).
enum class LocationType : std::uint8_t { cpu_thread = 0, gpu_stream = 1, metric = 2 };

/// The value type of a parameter.
enum class ParameterType : std::uint8_t { integer = 0, string = 1 };

/// Bit 0 of Region::flags: an iteration or phase region.
inline constexpr std::uint32_t region_flag_phase = 1u << 0;

/// The member names of one HDF5 enum type of the file, by value, so that a
/// value added by a newer Strata still prints with its name.
struct EnumNames {
    std::map<std::uint8_t, std::string> by_value;

    /// The member name of `value`, or its number when the file names none.
    std::string name(std::uint8_t value) const;
};

/// A row of /definitions/regions.
struct Region {
    std::uint32_t name = 0;  ///< index into strings
    std::uint32_t file = 0;  ///< index into strings ("" when unknown)
    std::uint32_t line = 0;  ///< 0 when unknown
    Paradigm paradigm = Paradigm::unknown;
    RegionRole role = RegionRole::unknown;
    std::uint32_t flags = 0;

    /// True for an iteration or phase region (flag bit 0).
    bool is_phase() const { return (flags & region_flag_phase) != 0; }
};

/// A row of /definitions/parameters.
struct Parameter {
    std::uint32_t name = 0;  ///< index into strings
    ParameterType type = ParameterType::integer;
};

/// A row of /definitions/locations.
struct Location {
    std::uint64_t id = 0;  ///< global location id (the OTF2 location id)
    std::uint32_t rank = 0;
    std::uint32_t thread = 0;  ///< thread index, or stream index of a GPU stream
    LocationType type = LocationType::cpu_thread;
    std::uint32_t name = 0;  ///< index into strings
    std::uint32_t host = 0;  ///< index into strings: its host ("" in files written before hosts were)
};

/// A row of /definitions/callpaths.
struct CallPath {
    std::int64_t parent = -1;        ///< call path index, -1 for a root
    std::uint32_t region = 0;        ///< region index (for a parameter node: the enclosing region)
    std::int64_t parameter = -1;     ///< parameter index, -1 for an ordinary call path
    std::int64_t int_value = 0;      ///< value of an integer parameter
    std::int64_t string_value = -1;  ///< string index of a string parameter's value, else -1

    /// True for a root of the call tree.
    bool is_root() const { return parent < 0; }
    /// True for a parameter node (e.g. `iterations=10`).
    bool is_parameter() const { return parameter >= 0; }
};

/// One matrix of /metrics: row i is call path i, column j is location j.
struct Metric {
    std::string name;
    std::string unit;         ///< the `unit` attribute ("" when absent)
    std::string description;  ///< the `description` attribute ("" when absent)
    bool integral = false;    ///< stored as integers: `counts` is filled, else `values`
    std::size_t rows = 0;          ///< number of call paths
    std::size_t columns = 0;       ///< number of locations held: all, unless a column slice was read
    std::size_t first_column = 0;  ///< the location of column 0 (not 0 only for a column slice)
    std::vector<std::uint64_t> counts;  ///< row-major, when integral
    std::vector<double> values;         ///< row-major, when not integral

    /// The value at (call path, location) as a double, whatever the storage;
    /// `location` counts from first_column.
    double at(std::size_t callpath, std::size_t location) const {
        const std::size_t i = callpath * columns + location;
        return integral ? static_cast<double>(counts[i]) : values[i];
    }
    /// True when every location's column is held (no column slice).
    bool whole(std::size_t locations) const { return first_column == 0 && columns == locations; }
    /// The value at (call path, location) as a count: exact for integer
    /// storage; a floating-point value is rounded (negative or NaN gives 0).
    std::uint64_t count_at(std::size_t callpath, std::size_t location) const;
};

/// Everything in one profile.h5.
struct Profile {
    std::string path;  ///< the file it was read from, for messages

    std::uint32_t format_version = 0;
    std::string strata_version;
    std::string creation_time;
    std::string timer;
    double timer_resolution = 0.0;  ///< ticks per second
    std::uint64_t dropped_callpaths = 0;

    std::vector<std::string> strings;
    std::vector<Region> regions;
    std::vector<Parameter> parameters;
    std::vector<Location> locations;
    std::vector<CallPath> callpaths;
    std::vector<Metric> metrics;  ///< sorted by name

    EnumNames paradigm_names;  ///< from the file's `paradigm` enum type
    EnumNames role_names;      ///< from the file's `role` enum type

    /// The metric called `name`, or nullptr.
    const Metric* find_metric(std::string_view name) const;
    /// The metric called `name`; throws ProfileError naming the file when absent.
    const Metric& metric(std::string_view name) const;

    /// The name of region `region`.
    const std::string& region_name(std::uint32_t region) const { return strings[regions[region].name]; }
    /// The display name of location `location` (e.g. "thread 0").
    const std::string& location_name(std::size_t location) const { return strings[locations[location].name]; }
};

}  // namespace strata::analysis
