// SPDX-License-Identifier: BSD-3-Clause
// Helpers for the analysis tests (see test_support.hpp).
#include "test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace strata::analysis::test {

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-analysis-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string TempDir::file(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

std::string TempDir::write(const std::string& name, const std::string& text) const {
    const std::string path = file(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args) {
    TempDir outputs;
    const std::string out = outputs.file("stdout"), err = outputs.file("stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);  // mpirun must not wait for input
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv{const_cast<char*>(program.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot run " + program);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error("waitpid failed");
    RunResult result;
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
}

RunResult run_score(const std::vector<std::string>& args) { return run_program(STRATA_SCORE_EXE, args); }

#ifdef STRATA_ANALYZE_EXE
RunResult run_analyze(int k, const std::vector<std::string>& args) {
    if (k == 0) return run_program(STRATA_ANALYZE_EXE, args);
    std::vector<std::string> command = {"-np", std::to_string(k), "--oversubscribe", STRATA_ANALYZE_EXE};
    command.insert(command.end(), args.begin(), args.end());
    return run_program(STRATA_MPIEXEC, command);
}

void AnalyzeToolTest::SetUpTestSuite() {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
}

std::string AnalyzeToolTest::analyze_into(int k, const std::vector<std::string>& extra) {
    const std::string output = dir_.file("out" + std::to_string(k));
    std::vector<std::string> args = {"--force", "--output", output};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(experiment());
    const RunResult r = run_analyze(k, args);
    EXPECT_EQ(r.status, 0) << "K = " << k << "\n" << r.out << r.err;
    return output;
}
#endif

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
    return n;
}

}  // namespace strata::analysis::test
