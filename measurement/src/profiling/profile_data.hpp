// SPDX-License-Identifier: BSD-3-Clause
// The call-path profile of a process, ready to be written (profile.h5).
//
// Rows are call paths merged over all locations (threads, later ranks);
// columns are locations.  Every metric is a dense [call path x location]
// matrix, as in Cube: absent (call path, location) pairs are 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::profiling {

struct ProfileData {
    struct Region {
        std::uint32_t name = 0;  ///< index into strings
        std::uint32_t file = 0;  ///< index into strings ("" when unknown)
        std::uint32_t line = 0;  ///< 0 when unknown
        std::uint8_t paradigm = 0;  ///< strata::Paradigm
        std::uint8_t role = 0;      ///< strata::RegionRole
        std::uint32_t flags = 0;    ///< strata::RegionFlags (phase, ...)
    };
    struct Location {
        std::uint64_t id = 0;       ///< global location id (as in the OTF2 trace)
        std::uint32_t rank = 0;     ///< MPI rank (0 without MPI)
        std::uint32_t thread = 0;   ///< thread index within the rank, or stream index for GPUs
        std::uint8_t type = 0;      ///< strata::LocationType (cpu thread, gpu stream, ...)
        std::uint32_t name = 0;     ///< index into strings
        std::uint32_t host = 0;     ///< index into strings: the host the location ran on
    };
    /// A node of the merged call tree.  Parameter nodes ("iterations=10") have
    /// parameter != -1 and sit below the region in which the parameter was set.
    struct CallPath {
        std::int64_t parent = -1;   ///< index into callpaths, -1 for a root
        std::uint32_t region = 0;   ///< index into regions (for parameter nodes: the enclosing region)
        std::int64_t parameter = -1;  ///< index into parameters, or -1
        std::int64_t int_value = 0;   ///< value of an integer parameter
        std::int64_t string_value = -1;  ///< index into strings for a string parameter, else -1
    };
    struct Parameter {
        std::uint32_t name = 0;   ///< index into strings
        std::uint8_t type = 0;    ///< 0 = integer, 1 = string
    };
    /// A metric column set: values[callpath * locations.size() + location].
    struct Metric {
        std::string name;         ///< dataset name, e.g. "visits", "time_inclusive"
        std::string unit;         ///< "count", "s", or a counter's unit
        std::string description;
        bool integral = false;    ///< stored as uint64 (true) or float64 (false)
        std::vector<double> values;         ///< used when !integral
        std::vector<std::uint64_t> counts;  ///< used when integral
    };

    std::vector<std::string> strings;
    std::vector<Region> regions;
    std::vector<Parameter> parameters;
    std::vector<Location> locations;
    std::vector<CallPath> callpaths;
    std::vector<Metric> metrics;

    /// Process-wide facts stored as attributes of the root group.
    std::string strata_version;
    std::string creation_time;        ///< ISO 8601
    double timer_resolution = 0;      ///< ticks per second of the clock used
    std::string timer_name;
    std::uint64_t dropped_callpaths = 0;  ///< call paths not recorded for lack of memory
    /// With dropped call paths: the STRATA_TOTAL_MEMORY (bytes) that would have
    /// kept them, the largest of the processes (0: none dropped); not written to the file.
    std::uint64_t memory_needed = 0;
    bool memory_needed_at_least = false;  ///< the figure is a lower bound (too many to count)

    /// For a collective write later (one column slice per MPI rank): the first
    /// global column of this process and the global number of columns.  A
    /// serial write uses 0 and locations.size().
    std::uint64_t location_offset = 0;
    std::uint64_t total_locations = 0;
};

}  // namespace strata::profiling
