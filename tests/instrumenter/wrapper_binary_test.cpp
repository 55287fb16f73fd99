// SPDX-License-Identifier: BSD-3-Clause
// The built `strata` executable run as a subprocess: output, messages and exit status.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "response_file.hpp"
#include "test_support.hpp"

#ifndef STRATA_WRAPPER_EXE
#error "STRATA_WRAPPER_EXE must name the built strata executable"
#endif
#ifndef STRATA_SOURCE_DIR
#error "STRATA_SOURCE_DIR must name the project's source directory"
#endif

namespace strata::instrumenter::test {
namespace {

struct RunResult {
    int status = -1;  ///< exit status, or 128 + signal
    std::string out;
    std::string err;
};

/// Runs the wrapper with `args` in directory `cwd`, with `env` ("NAME=value") added.
RunResult run_strata(const Args& args, const std::string& cwd, const Args& env = {}) {
    const auto out_file = cwd + "/.strata-test.out";
    const auto err_file = cwd + "/.strata-test.err";
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(cwd.c_str()) != 0) ::_exit(200);
        const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(out, STDOUT_FILENO);
        ::dup2(err, STDERR_FILENO);
        for (const auto& assignment : env) ::putenv(const_cast<char*>(assignment.c_str()));
        std::vector<char*> argv{const_cast<char*>(STRATA_WRAPPER_EXE)};
        for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        ::execv(STRATA_WRAPPER_EXE, argv.data());
        ::_exit(201);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    RunResult result;
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_text_file(out_file).value_or("");
    result.err = read_text_file(err_file).value_or("");
    std::filesystem::remove(out_file);
    std::filesystem::remove(err_file);
    return result;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::string source_include = std::string("-I") + STRATA_SOURCE_DIR + "/measurement/include";

#ifndef STRATA_GCC_PLUGIN
#define STRATA_GCC_PLUGIN ""
#endif
/// The build-tree GCC plugin ("" when Strata is built without it): the `gcc` of the tests is
/// the GCC it was built for, so the wrapper loads it instead of using -finstrument-functions.
const std::string gcc_plugin = STRATA_GCC_PLUGIN;
const std::string gcc_instrumentation =
    gcc_plugin.empty() ? "-finstrument-functions" : "-fplugin=" + gcc_plugin;

class WrapperBinary : public ::testing::Test {
protected:
    TempDir dir_;
};

TEST_F(WrapperBinary, HelpAndVersion) {
    const auto help = run_strata({"--help"}, dir_.path());
    EXPECT_EQ(help.status, 0);
    EXPECT_TRUE(starts_with(help.out, "Usage: strata [options] <compiler>")) << help.out;
    EXPECT_NE(help.out.find("--instrument-filter=FILE"), std::string::npos);
    EXPECT_NE(help.out.find("STRATA_WRAPPER_DISABLE"), std::string::npos);
    EXPECT_EQ(help.err, "");
    const auto version = run_strata({"--version"}, dir_.path());
    EXPECT_EQ(version.status, 0);
    EXPECT_TRUE(starts_with(version.out, "strata (Strata) ")) << version.out;
}

TEST_F(WrapperBinary, UnknownOptionExitsWithStatus2) {
    const auto r = run_strata({"--fast", "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err,
              "strata: unknown option '--fast' (strata's options go before the compiler; see "
              "'strata --help')\n");
    EXPECT_EQ(r.out, "");
}

TEST_F(WrapperBinary, MissingCompilerExitsWithStatus127) {
    const auto r = run_strata({"nosuchcc-strata-test", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 127);
    EXPECT_EQ(r.err, "strata: compiler 'nosuchcc-strata-test' not found in PATH\n");
    const auto with_path = run_strata({"/nonexistent/bin/cc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(with_path.status, 127);
    EXPECT_EQ(with_path.err, "strata: compiler '/nonexistent/bin/cc' not found\n");
}

TEST_F(WrapperBinary, NoCompilerExitsWithStatus127) {
    for (const Args& args : {Args{}, Args{"--verbose"}}) {
        const auto r = run_strata(args, dir_.path());
        EXPECT_EQ(r.status, 127);
        EXPECT_TRUE(starts_with(r.err, "strata: no compiler given: usage: strata [options] <compiler>"))
            << r.err;
    }
}

TEST_F(WrapperBinary, TheWrapperCannotWrapItself) {
    const auto r = run_strata({"strata", "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("cannot be strata itself"), std::string::npos) << r.err;
}

TEST_F(WrapperBinary, DryRunPrintsTheCompileCommandAndRunsNothing) {
    dir_.write("a.c", "int main(void) { return 0; }\n");
    const auto r = run_strata({"--dry-run", "gcc", "-O2", "-c", "a.c", "-o", "a.o"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(starts_with(
        r.out, "gcc -O2 -c a.c -o a.o " + gcc_instrumentation + " -DSTRATA_USER_ENABLE " + source_include))
        << r.out;
    EXPECT_TRUE(ends_with(r.out, "\n"));
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line";
    EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/a.o"));
}

TEST_F(WrapperBinary, DryRunOfALink) {
    const auto r = run_strata({"--dry-run", "gcc", "a.o", "-o", "app"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(starts_with(r.out, "gcc a.o -o app ")) << r.out;
    EXPECT_NE(r.out.find(" -Wl,--no-as-needed -lstrata-compiler "), std::string::npos) << r.out;
    EXPECT_TRUE(ends_with(r.out, " -lstrata-user -lstrata-measurement\n")) << r.out;
    EXPECT_EQ(r.out.find("-lstrata-mpi"), std::string::npos) << r.out;
}

TEST_F(WrapperBinary, DryRunOfAQueryIsUntouched) {
    const auto r = run_strata({"--dry-run", "gcc", "-print-file-name=libgomp.so"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "gcc -print-file-name=libgomp.so\n");
}

TEST_F(WrapperBinary, VerboseNamesTheStepAndFeatures) {
    const auto r = run_strata({"--verbose", "--dry-run", "--no-user", "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.err.find("strata: compile step; user off, compiler on, mpi off, openmp off, cuda off\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("STRATA_USER_ENABLE"), std::string::npos) << r.out;
}

TEST_F(WrapperBinary, DisabledByTheEnvironment) {
    const auto r = run_strata({"--dry-run", "gcc", "-c", "a.c"}, dir_.path(), {"STRATA_WRAPPER_DISABLE=1"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "gcc -c a.c\n");
    const auto bad =
        run_strata({"--dry-run", "gcc", "-c", "a.c"}, dir_.path(), {"STRATA_WRAPPER_DISABLE=maybe"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_TRUE(starts_with(bad.err, "strata: STRATA_WRAPPER_DISABLE='maybe' is not understood")) << bad.err;
}

TEST_F(WrapperBinary, FilterSyntaxErrorNamesFileAndLine) {
    const auto filter =
        dir_.write("bad.filter", "SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n");
    const auto r =
        run_strata({"--dry-run", "--instrument-filter=" + filter, "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "strata: " + filter + ":2: expected EXCLUDE or INCLUDE before the pattern 'foo'\n");
    EXPECT_EQ(r.out, "");
}

TEST_F(WrapperBinary, FilterBecomesGccExcludeList) {
    const auto filter =
        dir_.write("f.filter", "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *helper*\nSCOREP_REGION_NAMES_END\n");
    const auto r =
        run_strata({"--dry-run", "--instrument-filter=" + filter, "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    const std::string exclude = gcc_plugin.empty() ? "-finstrument-functions-exclude-function-list=helper"
                                                   : "-fplugin-arg-strata_gcc-filter=" + filter;
    EXPECT_TRUE(
        starts_with(r.out, "gcc -c a.c " + gcc_instrumentation + " " + exclude + " -DSTRATA_USER_ENABLE"))
        << r.out;
    const auto old = run_strata(
        {"--dry-run", "--no-plugin", "--instrument-filter=" + filter, "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_TRUE(starts_with(old.out,
                            "gcc -c a.c -finstrument-functions "
                            "-finstrument-functions-exclude-function-list=helper -DSTRATA_USER_ENABLE"))
        << old.out;
}

TEST_F(WrapperBinary, NoPluginMeansFinstrumentFunctions) {
    const auto r = run_strata({"--verbose", "--dry-run", "--no-plugin", "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(starts_with(r.out, "gcc -c a.c -finstrument-functions -DSTRATA_USER_ENABLE")) << r.out;
    EXPECT_NE(r.err.find("strata: note: --no-plugin: instrumenting with -finstrument-functions\n"),
              std::string::npos)
        << r.err;
}

TEST_F(WrapperBinary, VerboseSaysWhichInstrumentation) {
    const auto r = run_strata({"--verbose", "--dry-run", "gcc", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    const std::string note =
        gcc_plugin.empty() ? "strata: note: Strata was built without its GCC plugin; instrumenting with "
                             "-finstrument-functions\n"
                           : "strata: note: instrumenting with Strata's GCC plugin (" + gcc_plugin + ")\n";
    EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
}

TEST_F(WrapperBinary, ClangKeepsFinstrumentFunctions) {
    if (std::system("clang --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "clang not available";
    const auto r = run_strata({"--dry-run", "clang", "-c", "a.c"}, dir_.path());
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(starts_with(r.out, "clang -c a.c -finstrument-functions -DSTRATA_USER_ENABLE")) << r.out;
}

TEST_F(WrapperBinary, StaticLinkIsRefused) {
    const auto r = run_strata({"--dry-run", "gcc", "-static", "a.o", "-o", "app"}, dir_.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("static linking (-static) is not supported"), std::string::npos) << r.err;
}

TEST_F(WrapperBinary, RealCompileIsInstrumented) {
    if (std::system("gcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gcc not available";
    dir_.write("t.c", "int twice(int x) { return 2 * x; }\n");
    // The plugin's code calls strata_plugin_enter, -finstrument-functions' the cyg hooks.
    const auto r = run_strata({"--verbose", "gcc", "-c", "t.c", "-o", "t.o"}, dir_.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("strata: gcc -c t.c -o t.o " + gcc_instrumentation), std::string::npos) << r.err;
    const std::string hook = gcc_plugin.empty() ? "__cyg_profile_func_enter" : "strata_plugin_enter";
    const std::string nm = "nm " + dir_.path() + "/t.o | grep -q " + hook;
    EXPECT_EQ(std::system(nm.c_str()), 0);
    const auto old = run_strata({"--no-plugin", "gcc", "-c", "t.c", "-o", "old.o"}, dir_.path());
    EXPECT_EQ(old.status, 0) << old.err;
    const std::string nm_old = "nm " + dir_.path() + "/old.o | grep -q __cyg_profile_func_enter";
    EXPECT_EQ(std::system(nm_old.c_str()), 0);
}

TEST_F(WrapperBinary, TheCompilersExitStatusIsReturned) {
    if (std::system("gcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gcc not available";
    const auto r = run_strata({"gcc", "-c", "missing.c"}, dir_.path());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("missing.c"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace strata::instrumenter::test
