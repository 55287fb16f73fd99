// SPDX-License-Identifier: BSD-3-Clause
// Helpers for the analysis tests: a temporary directory and running a built program.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::analysis::test {

/// A fresh directory under the system's temporary directory, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// The directory's path.
    const std::string& path() const { return path_; }
    /// The path of `name` inside the directory (nothing is created).
    std::string file(const std::string& name) const;
    /// Writes `text` to `name` in the directory and returns the file's path.
    std::string write(const std::string& name, const std::string& text) const;

private:
    std::string path_;
};

/// What a finished program left behind.
struct RunResult {
    int status = -1;  ///< exit status; 128 + signal number when killed by a signal
    std::string out;  ///< standard output
    std::string err;  ///< standard error
};

/// Runs `program` with `args` (no shell) and collects its output.
RunResult run_program(const std::string& program, const std::vector<std::string>& args);

/// Runs the built strata-score with `args`.
RunResult run_score(const std::vector<std::string>& args);

/// Runs the built strata-analyze with `args`: under `mpirun -np K --oversubscribe`,
/// or directly (a singleton MPI process) when K is 0.  (The tests of strata-analyze only.)
RunResult run_analyze(int k, const std::vector<std::string>& args);

/// The bytes of the file at `path` ("" when it cannot be read).
std::string slurp(const std::string& path);

/// How often `part` occurs in `text` (not overlapping).
std::size_t count(const std::string& text, const std::string& part);

#ifdef STRATA_ANALYZE_EXE
/// The tests that run the built strata-analyze on an experiment they write.
class AnalyzeToolTest : public ::testing::Test {
protected:
    static void SetUpTestSuite();  ///< Open MPI started as root (the test machines)
    std::string experiment() const { return dir_.file("experiment"); }
    /// Runs strata-analyze on K ranks with `extra` options on experiment(), its
    /// reports into a directory of their own; returns that directory.
    std::string analyze_into(int k, const std::vector<std::string>& extra = {});
    TempDir dir_;
};
#endif

}  // namespace strata::analysis::test
