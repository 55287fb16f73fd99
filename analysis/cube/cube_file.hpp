// SPDX-License-Identifier: BSD-3-Clause
// A CUBE4 report (the `.cubex` files of Score-P and Scalasca, read by Cube,
// cube_stat, cube_diff, cube_merge) and its encoding.
//
//   profile.cubex            an uncompressed tar archive
//    ├─ anchor.xml           metric tree, regions, call tree (cnodes), system tree
//    ├─ <metric id>.index    "CUBEX.INDEX", u32 endian mark 1, u16 version 0, u8 format 1
//    │                       (sparse), u32 n, n x u32: the cnodes that have a row, ascending
//    └─ <metric id>.data     "CUBEX.DATA", then one row per listed cnode: one value per
//                            location, in location id order (f64 or i64, little-endian)
//
// Every metric here is EXCLUSIVE in Cube's sense: a cnode's value leaves out
// its callees (Cube sums subtrees itself), and a metric's value includes its
// children in the metric tree (mpi includes mpi_latesender).  Cube numbers the
// rows of an exclusive metric by a depth-first walk of the call tree, so the
// cnodes and metrics here are kept in depth-first order: id i is the i-th node met.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::analysis::cube {

/// A metric of the metric tree.
struct CubeMetric {
    std::string unique_name;   ///< "time", "mpi_latesender", ...: what cube_stat -m takes
    std::string display_name;  ///< "Time", "Late Sender", ...
    std::string unit;          ///< "sec", "occ", "bytes", ...
    std::string description;
    bool integer = false;      ///< INTEGER (i64) values, else FLOAT (f64)
    std::int64_t parent = -1;  ///< index of the parent metric, -1 for a root; parents come first

    /// Rows with a nonzero value, by cnode, ascending; each holds one value per location.
    struct Row {
        std::uint32_t cnode = 0;
        std::vector<double> values;        ///< when !integer
        std::vector<std::int64_t> counts;  ///< when integer
    };
    std::vector<Row> rows;
};

/// A region: a function, an MPI call, a loop...
struct CubeRegion {
    std::string name;
    std::string file;        ///< "MPI" for MPI calls, as Score-P writes them
    std::int64_t line = -1;  ///< -1 when unknown
    std::string paradigm;    ///< "mpi", "openmp", "compiler", "user", ...
    std::string role;        ///< "function", "barrier", ...
};

/// A call-tree node.
struct CubeCnode {
    std::int64_t parent = -1;  ///< index of the parent cnode, -1 for a root; parents come first
    std::uint32_t region = 0;  ///< the callee
    /// A parameter node (Score-P's "region [name=value]"): the parameter, else empty.
    std::string parameter;
    std::string parameter_value;
    bool numeric = false;  ///< an integer parameter, else a string one
};

/// A location: a CPU thread or a GPU stream of one process.
struct CubeLocation {
    std::string name;
    std::uint32_t rank = 0;    ///< its process (MPI rank)
    std::uint32_t thread = 0;  ///< its number within the process
    std::string type;          ///< "thread", "gpu" or "metric"
    std::uint32_t node = 0;    ///< index into CubeReport::nodes: its host
};

/// One `.cubex` report.  Locations are in the order of the values of every
/// row; the system tree is one machine holding the nodes (hosts), each a
/// process per rank (in rank order) with its locations in the order given.
struct CubeReport {
    std::vector<std::pair<std::string, std::string>> attributes;  ///< key, value (e.g. the creator)
    std::vector<CubeMetric> metrics;
    std::vector<CubeRegion> regions;
    std::vector<CubeCnode> cnodes;
    std::vector<CubeLocation> locations;  ///< grouped by node (ascending), then by rank (ascending)
    std::string machine = "machine";
    std::vector<std::string> nodes = {"node"};
};

/// `text` as XML character data or attribute value: markup characters as
/// entities, control characters and bytes that are not UTF-8 as \xNN
/// (XML 1.0 forbids them, and a Cube reader would refuse the file).
std::string xml_text(const std::string& text);

/// anchor.xml of `report`.
std::string anchor_xml(const CubeReport& report);

/// The `<id>.index` member of metric `metric`.
std::string index_member(const CubeMetric& metric);

/// The `<id>.data` member of metric `metric` (`locations` values per row).
std::string data_member(const CubeMetric& metric, std::size_t locations);

/// A POSIX tar (ustar) archive of `members` (name, content), in order.
std::string tar_archive(const std::vector<std::pair<std::string, std::string>>& members);

/// The whole `.cubex` file.  Checks that parents come before their children
/// and that every row has one value per location; throws std::logic_error if not.
std::string cubex_file(const CubeReport& report);

}  // namespace strata::analysis::cube
