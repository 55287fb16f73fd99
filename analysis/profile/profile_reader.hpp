// SPDX-License-Identifier: BSD-3-Clause
// Reads a profile.h5 into a Profile, checking everything it relies on.
//
//   Profile p = read_profile(profile_path_of("strata-20261122_101500_1234"));
//   const Metric& visits = p.metric("visits");
//   for (std::size_t cp = 0; cp < p.callpaths.size(); ++cp)
//       std::cout << callpath_name(p, cp) << ' ' << visits.at(cp, 0) << '\n';
//
// Fields of the compound tables are looked up by name (a newer writer may
// add fields or reorder them); datasets the reader does not know are
// ignored.  Anything the model promises is checked before it is returned:
// every index in range, every metric [callpaths x locations], no cycles in
// the parent links.  Any problem -- a missing file, a file that is not HDF5
// or not a Strata profile, a newer format_version, a missing dataset, field
// or attribute, inconsistent sizes, an out-of-range index -- is a
// ProfileError "<file>: <what is wrong>".  HDF5's own error printing is off
// while reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "profile/profile.hpp"

namespace strata::analysis {

/// The newest `format_version` this reader understands.
inline constexpr std::uint32_t supported_profile_format_version = 1;

/// The value of the root attribute `format` of every Strata profile.
inline constexpr const char* profile_format_name = "strata-profile";

/// The profile file of an experiment: `<path>/profile.h5` when `path` is a
/// directory, otherwise `path` itself.
std::string profile_path_of(const std::string& path);

/// Reads and checks the profile at `file_path`.  Throws ProfileError.
Profile read_profile(const std::string& file_path);

/// What read_profile() reads of the metric matrices; the definitions are
/// always read whole.  A column slice serves a parallel reader: each reader
/// takes the locations [first_column, first_column + column_count) with an
/// HDF5 hyperslab, and only the chunks of those columns are read.
struct ProfileReadOptions {
    static constexpr std::size_t all_columns = std::numeric_limits<std::size_t>::max();

    std::size_t first_column = 0;            ///< first location (column) to read
    std::size_t column_count = all_columns;  ///< clipped at the last location
    std::vector<std::string> metrics;        ///< metrics to read, by name; empty: every metric
    /// When set, chooses {first_column, column_count} from the definitions,
    /// which are read and checked before any metric (for a reader whose
    /// share depends on the locations table).
    std::function<std::pair<std::size_t, std::size_t>(const Profile&)> choose_columns;
};

/// Reads and checks the profile at `file_path`, the metrics as `options`
/// says: each Metric then holds `columns` columns from `first_column` on.
/// A first_column past the last location is a ProfileError; a metric named
/// in `options.metrics` that the file lacks is simply absent (Profile::metric
/// reports it).  Every size is still checked against the whole file.
Profile read_profile(const std::string& file_path, const ProfileReadOptions& options);

}  // namespace strata::analysis
