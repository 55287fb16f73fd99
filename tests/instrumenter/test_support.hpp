// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by the wrapper's tests: argument vectors, a fixed layout, temporary files.
#pragma once

#include <string>
#include <vector>

#include "layout.hpp"

namespace strata::instrumenter::test {

using Args = std::vector<std::string>;

/// `a` followed by `b`.
Args operator+(Args a, const Args& b);

/// An install tree at the fictional prefix "/prefix" with every Strata library present.
Layout fixed_layout();

/// The additions for a compile step with the defaults (instrumentation, user API) and fixed_layout().
Args compile_additions();

/// The additions for a link step with fixed_layout(): -L, rpath, --no-as-needed,
/// -lstrata-compiler, `adapters` (e.g. "-lstrata-mpi"), -lstrata-user, -lstrata-measurement.
Args link_additions(const Args& adapters = {});

/// A fresh directory under the system's temporary directory, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// The directory's path.
    const std::string& path() const { return path_; }
    /// Writes `text` to `name` in the directory and returns the file's path.
    std::string write(const std::string& name, const std::string& text) const;

private:
    std::string path_;
};

}  // namespace strata::instrumenter::test
