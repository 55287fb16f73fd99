// SPDX-License-Identifier: BSD-3-Clause
// Response files (`@file`, nvcc's `-optf file`): read only to classify a command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::instrumenter {

/// Splits the text of a response file into arguments as GCC's libiberty does: white space
/// separates arguments, '...' and "..." group, a backslash takes the next character literally.
std::vector<std::string> split_response_text(std::string_view text);

/// The whole content of a file; nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

/// Replaces each readable `@file` (and, for nvcc, `-optf file`, `--options-file file` and
/// `--options-file=file`) by the arguments it holds, recursively up to a depth of 16.
/// An unreadable `@file` stays as it is, as it does for GCC.  The result is used for
/// classification only: the compiler always receives the original arguments.
std::vector<std::string> expand_response_files(const std::vector<std::string>& args, bool nvcc);

}  // namespace strata::instrumenter
