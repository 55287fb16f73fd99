// SPDX-License-Identifier: BSD-3-Clause
// A file the analysis writes in its output directory: opened without
// following a symbolic link at its name (O_NOFOLLOW).  Someone who can write
// into the output directory could otherwise plant `summary.txt.tmp ->
// ~/.bashrc` and have the report written over a file elsewhere; such a link
// is refused (ELOOP) and never written through.  An existing regular file is
// truncated.
#pragma once

#include <cstddef>
#include <string>

#include "strata/measurement/error.hpp"

namespace strata::analysis {

class OutputFile {
public:
    /// Opens `path` for writing (created with mode 0644, or truncated).
    explicit OutputFile(const std::string& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// False once opening or a write failed.
    bool ok() const { return !error_; }
    /// Why the file could not be written ("a symbolic link: not written through").
    const Error& error() const { return error_; }
    /// Writes all of `bytes`; false (and error()) when it cannot.
    bool write(const void* data, std::size_t bytes);
    bool write(const std::string& text) { return write(text.data(), text.size()); }
    /// Closes the file; false when it or an earlier write failed.
    bool close();

private:
    int fd_ = -1;
    Error error_;
};

}  // namespace strata::analysis
