// SPDX-License-Identifier: BSD-3-Clause
// Reading a damaged profile.h5 without dying from it.
//
// The profile reader checks everything it reads, but bytes altered inside
// HDF5's own structures can crash HDF5 1.10 itself (seen in H5HG_read, the
// global heap of variable-length strings), before any check of ours runs.
// So the file is first read in a child process: if HDF5 crashes there, the
// tool says the file is damaged and goes on with what else it has.
#pragma once

#include <string>

#include "strata/measurement/error.hpp"

namespace strata::analysis {

/// Reads `path` completely in a child process.  No error when the child
/// finished (whether the file is valid or not: the reader in this process
/// gives the message then), else "<path>: reading it crashed the HDF5 library
/// (<signal>): the file is damaged".
Error check_profile_in_child(const std::string& path);

}  // namespace strata::analysis
