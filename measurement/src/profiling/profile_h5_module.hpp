// SPDX-License-Identifier: BSD-3-Clause
// The profile.h5 writer, loaded when the profile is written.
//
// HDF5 is the runtime's heaviest dependency: Debian's parallel build brings
// libmpi, libcurl, gnutls and p11-kit into every process that loads it, and
// their start-up and exit code then run in every measured program (under
// AddressSanitizer with PAPI, p11-kit's destructor even hung at exit).  The
// writer (profile_h5_writer.cpp, which alone calls HDF5) is therefore a
// library of its own, libstrata-profile-h5.so, loaded with dlopen at the
// first profile write, found beside libstrata-measurement.so (or where the
// build put it, for the unit tests that link the runtime's objects).
#pragma once

#include <string>

#include "profiling/profile_h5_writer.hpp"

namespace strata::profiling {

/// Sets `functions` to the writer's, loaded at the first call; the error names
/// the library and why it cannot be loaded (e.g. "cannot load
/// libstrata-profile-h5.so: ...").  Thread-safe.
Error load_profile_h5(const ProfileH5Functions** functions);

}  // namespace strata::profiling
