// SPDX-License-Identifier: BSD-3-Clause
// Finding and running programs: PATH lookup, a captured --version probe, and exec.
#pragma once

#include <string>
#include <vector>

namespace strata::instrumenter {

/// The path execvp would run for `program`: `program` itself when it contains a '/', else the
/// first executable regular file in the directories of `path_variable` (PATH).  Empty when none.
std::string find_program(const std::string& program, const std::string& path_variable);

/// Runs `argv` without a shell, with stdin from /dev/null, and returns what it printed on stdout
/// and stderr; empty when it cannot be run.  Used to ask `mpicc --version` which compiler it is.
std::string capture_output(const std::vector<std::string>& argv);

/// Replaces this process with `argv` (execvp: no shell, arguments passed as they are).
/// Returns only on failure, with errno set.
void exec_program(const std::vector<std::string>& argv);

}  // namespace strata::instrumenter
