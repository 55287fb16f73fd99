// SPDX-License-Identifier: BSD-3-Clause
// Writes profile.h5 files with known content for the analysis tests, with the
// raw HDF5 C API, following share/doc/profile-format.md (not the runtime's writer).
//
// known_profile(): 2 locations (rank 0 and rank 1), call paths listed out of
// parent order on purpose:
//
//   row  call path                  visits   incl(s)    excl(s)
//   0    main                        1, 1    10, 8       2, 3
//   2    main/compute                2, 3     6, 5       3, 3
//   1    main/compute/compute        2, 1     3, 2       2, 1.5
//   4    main/compute/compute/n=4    1, 1     1, 0.5     1, 0.5   (parameter node)
//   3    main/io                     1, 0     2, 0       2, 0
//
// Every figure is exact in binary floating point, so sums compare exactly.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace strata::analysis::test {

/// The content of one profile.h5, as the schema lays it out; tests edit it
/// to make broken or unusual files.
struct FixtureProfile {
    struct Region {
        std::uint32_t name, file, line;
        std::uint8_t paradigm, role;
        std::uint32_t flags;
    };
    struct Parameter {
        std::uint32_t name;
        std::uint8_t type;
    };
    struct Location {
        std::uint64_t id;
        std::uint32_t rank, thread;
        std::uint8_t type;
        std::uint32_t name;
    };
    struct CallPath {
        std::int64_t parent;
        std::uint32_t region;
        std::int64_t parameter, int_value, string_value;
    };
    struct Matrix {
        std::string name, unit, description;
        bool integral = false;
        std::size_t rows = 0, columns = 0;
        std::vector<std::uint64_t> counts;  ///< row-major, when integral
        std::vector<double> values;         ///< row-major, otherwise
    };

    std::string format = "strata-profile";
    std::uint32_t format_version = 1;
    std::string strata_version = "0.1.0";
    std::string creation_time = "2024-05-06T07:08:09Z";
    std::string timer = "tsc";
    double timer_resolution = 2e9;
    std::uint64_t dropped_callpaths = 0;
    std::uint64_t number_of_locations = 0;

    std::vector<std::string> strings;
    std::vector<Region> regions;
    std::vector<Parameter> parameters;
    std::vector<Location> locations;
    std::vector<CallPath> callpaths;
    std::vector<Matrix> metrics;

    /// Left out of the file: "@<root attribute>", "/definitions/<table>",
    /// "/metrics", or "<table>.<field>" (e.g. "regions.flags").
    std::set<std::string> omit;
    /// Writes the compound fields in another order, adds fields, a dataset
    /// and a group the reader does not know (what a newer writer may do).
    bool newer_layout = false;

    /// The metric called `name` (it must exist).
    Matrix& metric(const std::string& name);
};

/// The profile described at the top of this file.
FixtureProfile known_profile();

/// Writes `profile` to `path`; throws std::runtime_error when HDF5 fails.
void write_fixture(const FixtureProfile& profile, const std::string& path);

}  // namespace strata::analysis::test
