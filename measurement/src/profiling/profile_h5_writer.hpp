// SPDX-License-Identifier: BSD-3-Clause
// Writes a ProfileData to profile.h5 (schema: share/doc/profile-format.md).
//
// The writer never throws and never aborts: every failure (HDF5, file system,
// inconsistent input) comes back as a message naming the file and the step
// that failed, so that finalisation can warn and keep the measured program
// alive.  HDF5's own error printing is switched off while we call it; its
// error stack is folded into our message instead.
//
// Usage:
//
//     strata::profiling::ProfileData data = ...;   // from the profiling substrate
//     if (const strata::Error error = strata::profiling::write_profile_h5(data, dir + "/profile.h5"))
//         warn("%s", error->c_str());
//
// The file is written as "<path>.tmp" and renamed to "<path>" only after it
// was closed and synced, so "<path>" is either a complete profile or absent:
//
//     ProfileData --> <path>.tmp --(H5Fclose, fsync)--> rename --> <path>
//                          |
//                          +-- on any failure: removed, error returned
#pragma once

#include <cstdint>
#include <string>

#include "profiling/profile_data.hpp"
#include "strata/measurement/error.hpp"
#include "strata/measurement/process_group.hpp"

namespace strata::profiling {

/// Value of the root attribute `format`.
inline constexpr const char* profile_format_name = "strata-profile";
/// Value of the root attribute `format_version`; bumped on incompatible schema changes.
inline constexpr std::uint32_t profile_format_version = 1;

/// Writes `data` as an HDF5 profile to `path` (via `path + ".tmp"` and a
/// rename, replacing an existing file of that name).  Serial: the process
/// writes the location columns [data.location_offset,
/// data.location_offset + data.locations.size()) of matrices with
/// data.total_locations columns (0 means data.locations.size()).
/// Not thread-safe with other HDF5 users in the process (the Debian parallel
/// HDF5 build is not thread-safe); call it from the finalising thread.  The
/// error reads "<path>: <what failed>: <cause>", e.g.
/// "out/profile.h5: cannot create file: No such file or directory".
Error write_profile_h5(const ProfileData& data, const std::string& path) noexcept;

/// True when this build can write collectively (HDF5 with MPI-IO).
bool collective_write_available() noexcept;

/// Collective over `group`, whose native_communicator() must be an MPI
/// communicator: every rank passes the job's rows and its own columns
/// (align_to_job()).  Rank 0 writes the definitions and creates the datasets
/// (in memory, then to "<path>.tmp"); then every rank writes its columns with
/// MPI-IO; then rank 0 renames.  Every rank returns the same result.
Error write_profile_h5_collective(const ProfileData& data, const std::string& path,
                                  events::ProcessGroup& group) noexcept;

/// The writer as the runtime reaches it: this file is built into
/// libstrata-profile-h5.so, which the runtime loads only when it writes the
/// profile (profile_h5_module.hpp), so that a measured program does not load
/// HDF5 (and with Debian's parallel HDF5 libmpi, libcurl, gnutls, p11-kit)
/// when it starts.
struct ProfileH5Functions {
    Error (*write)(const ProfileData&, const std::string&) noexcept;
    bool (*collective_available)() noexcept;
    Error (*write_collective)(const ProfileData&, const std::string&, events::ProcessGroup&) noexcept;
};

}  // namespace strata::profiling

/// The entry point of libstrata-profile-h5.so (looked up with dlsym).
extern "C" const strata::profiling::ProfileH5Functions* strata_profile_h5_functions();
