// SPDX-License-Identifier: BSD-3-Clause
// The experiment directory: naming, the never-overwrite rule, creation.
#pragma once

#include <string>

#include "strata/measurement/error.hpp"

namespace strata::experiment {

/// The default name, strata-YYYYMMDD_HHMMSS_<id>, from the local time and `id`.
std::string default_name(long id);

/// Why `path` cannot be the experiment directory, none when it can: it exists
/// and `overwrite` is not set, or `overwrite` may not replace it: it is not a
/// directory Strata made (no .strata-experiment marker) or it holds a file
/// Strata did not write.  An MPI program checks this on every rank before
/// main; create() decides the same way.
Error refusal(const std::string& path, bool overwrite);

/// Creates `path` (and its parents) and claims it: the directory itself is
/// made by one mkdir, which fails when it exists, so of several runs started
/// at once with the same directory only one gets it (the others get a
/// message).  An existing directory is refused as refusal() says; with
/// `overwrite` a Strata experiment is removed first.  The new directory gets
/// the .strata-experiment marker.
Error create(const std::string& path, bool overwrite);

/// Writes `text` to `path` atomically (temporary file + rename); the error
/// names the path and the reason.
Error write_file(const std::string& path, const std::string& text);

}  // namespace strata::experiment
