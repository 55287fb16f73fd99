// SPDX-License-Identifier: BSD-3-Clause
// The experiment directory: naming, the never-overwrite rule, creation.
#pragma once

#include <string>

namespace strata::experiment {

/// The default name, strata-YYYYMMDD_HHMMSS_<id>, from the local time and `id`.
std::string default_name(long id);

/// Creates `path` (and its parents).  An existing directory is an error unless
/// `overwrite` is set and it holds a Strata experiment (a strata.cfg file),
/// in which case its contents are removed first.  Returns "" or the message.
std::string create(const std::string& path, bool overwrite);

/// Writes `text` to `path` atomically (temporary file + rename).  Returns "" or
/// the message naming the path and the reason.
std::string write_file(const std::string& path, const std::string& text);

}  // namespace strata::experiment
