// SPDX-License-Identifier: BSD-3-Clause
// Score-P filter files: parsing, syntax errors, and conversion to GCC's exclude lists.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "command_builder.hpp"
#include "filter_file.hpp"
#include "test_support.hpp"

namespace strata::instrumenter::test {
namespace {

/// The message of the FilterError that parsing `text` throws, or "no error".
std::string parse_error(const std::string& text) {
    try {
        parse_filter_text(text, "f.filter");
    } catch (const FilterError& error) {
        return error.what();
    }
    return "no error";
}

TEST(FilterParsing, RulesInFileOrderWithLinesAndMangled) {
    const auto filter = parse_filter_text(
        "# a comment line\n"
        "SCOREP_REGION_NAMES_BEGIN\n"
        "  EXCLUDE *   # everything\n"
        "  INCLUDE main solve_*\n"
        "          bar\n"
        "  EXCLUDE MANGLED _Z4leafv\n"
        "SCOREP_REGION_NAMES_END\n"
        "SCOREP_FILE_NAMES_BEGIN\n"
        "  EXCLUDE */third_party/*\n"
        "SCOREP_FILE_NAMES_END\n",
        "f.filter");
    ASSERT_EQ(filter.rules.size(), 6u);
    const auto check = [&](std::size_t i, FilterTarget target, FilterAction action, bool mangled,
                           const std::string& pattern, int line) {
        EXPECT_EQ(filter.rules[i].target, target) << i;
        EXPECT_EQ(filter.rules[i].action, action) << i;
        EXPECT_EQ(filter.rules[i].mangled, mangled) << i;
        EXPECT_EQ(filter.rules[i].pattern, pattern) << i;
        EXPECT_EQ(filter.rules[i].line, line) << i;
    };
    check(0, FilterTarget::region, FilterAction::exclude, false, "*", 3);
    check(1, FilterTarget::region, FilterAction::include, false, "main", 4);
    check(2, FilterTarget::region, FilterAction::include, false, "solve_*", 4);
    check(3, FilterTarget::region, FilterAction::include, false, "bar", 5);
    check(4, FilterTarget::region, FilterAction::exclude, true, "_Z4leafv", 6);
    check(5, FilterTarget::file, FilterAction::exclude, false, "*/third_party/*", 9);
}

TEST(FilterParsing, EscapedSpaceAndHashStayInThePattern) {
    const auto filter = parse_filter_text(
        "SCOREP_REGION_NAMES_BEGIN\r\n EXCLUDE void\\ foo(int) a\\#b\r\nSCOREP_REGION_NAMES_END\r\n",
        "f.filter");
    ASSERT_EQ(filter.rules.size(), 2u);
    EXPECT_EQ(filter.rules[0].pattern, "void\\ foo(int)");
    EXPECT_EQ(filter.rules[1].pattern, "a\\#b");
    EXPECT_EQ(literal_pattern(filter.rules[0].pattern), "void foo(int)");
}

TEST(FilterSyntaxErrors, NameFileLineAndWhatWasExpected) {
    EXPECT_EQ(parse_error("EXCLUDE foo\n"),
              "f.filter:1: expected SCOREP_REGION_NAMES_BEGIN or SCOREP_FILE_NAMES_BEGIN, found 'EXCLUDE'");
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_BEGIN\n\n  foo\n"),
              "f.filter:3: expected EXCLUDE or INCLUDE before the pattern 'foo'");
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a\nSCOREP_FILE_NAMES_END\n"),
              "f.filter:3: expected SCOREP_REGION_NAMES_END (to close the block opened at line 1), "
              "found 'SCOREP_FILE_NAMES_END'");
    EXPECT_EQ(parse_error("SCOREP_FILE_NAMES_BEGIN\n SCOREP_REGION_NAMES_BEGIN\n"),
              "f.filter:2: expected SCOREP_FILE_NAMES_END (to close the block opened at line 1), "
              "found 'SCOREP_REGION_NAMES_BEGIN'");
    EXPECT_EQ(parse_error("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END\n"),
              "f.filter:2: expected EXCLUDE, INCLUDE or a file name pattern, found 'MANGLED' "
              "(MANGLED applies to region names only)");
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_BEGIN\n MANGLED x\n"),
              "f.filter:2: expected EXCLUDE or INCLUDE before 'MANGLED'");
    EXPECT_EQ(parse_error("\nSCOREP_REGION_NAMES_BEGIN\n EXCLUDE foo\n"),
              "f.filter:2: expected SCOREP_REGION_NAMES_END before the end of the file to close the "
              "block opened here");
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE foo \\\n bar\nSCOREP_REGION_NAMES_END\n"),
              "f.filter:2: expected a pattern or a keyword, found '\\' at the end of the line "
              "(escaped line breaks are not supported)");
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_END\n"),
              "f.filter:1: expected SCOREP_REGION_NAMES_BEGIN or SCOREP_FILE_NAMES_BEGIN, found "
              "'SCOREP_REGION_NAMES_END'");
}

TEST(FilterSyntaxErrors, UnreadableFile) {
    FilterFile filter;
    EXPECT_EQ(read_filter_file("/nonexistent/strata.filter", &filter).message(),
              "cannot read filter file '/nonexistent/strata.filter': No such file or directory");
    // A FIFO would block the reader: refused at once, as a directory is.
    char dir[] = "/tmp/strata-filter-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string fifo = std::string(dir) + "/rules.filter";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& path : {fifo, std::string(dir)}) {
        EXPECT_EQ(read_filter_file(path, &filter).message(), "cannot read filter file '" + path + "': not a regular file");
    }
    unlink(fifo.c_str());
    rmdir(dir);
}

TEST(FilterSyntaxErrors, AByteOrderMarkIsNoPartOfTheRules) {
    char path[] = "/tmp/strata-filter-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    const std::string text = "\xEF\xBB\xBFSCOREP_REGION_NAMES_BEGIN\n  EXCLUDE leaf\nSCOREP_REGION_NAMES_END\n";
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    FilterFile filter;
    ASSERT_FALSE(read_filter_file(path, &filter));
    ASSERT_EQ(filter.rules.size(), 1u);
    EXPECT_EQ(filter.rules[0].pattern, "leaf");
    unlink(path);
}

TEST(FilterSyntaxErrors, ASetThatNoBracketClosesIsRefused) {
    const auto in_block = [](const std::string& pattern) {
        return parse_error("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE " + pattern + "\nSCOREP_REGION_NAMES_END\n");
    };
    // fnmatch(3) matches "f[a-" against nothing, not even "f[a-": the rule would do nothing.
    EXPECT_EQ(in_block("f[a-"),
              "f.filter:2: the pattern 'f[a-' opens a set with '[' that no ']' closes; write '\\[' for a "
              "literal bracket, as in 'operator\\[\\]'");
    for (const char* unclosed : {"*operator[]*", "v[1", "[!]", "x[\\]", "[[:digit:]"})
        EXPECT_NE(in_block(unclosed).find("no ']' closes"), std::string::npos) << unclosed;
    for (const char* closed : {"[ab]x", "[]]", "[!]]", "*operator\\[\\]*", "v[[:digit:]]", "[\\]]", "a\\[b"})
        EXPECT_EQ(in_block(closed), "no error") << closed;
}

TEST(FilterSyntaxErrors, ControlCharactersOfTheFileAreShownEscaped) {
    // An ESC sequence quoted raw would act on the terminal that shows the message.
    EXPECT_EQ(parse_error("SCOREP_REGION_NAMES_BEGIN\n  \x1b[2Jx\n"),
              "f.filter:2: expected EXCLUDE or INCLUDE before the pattern '\\x1b[2Jx'");
}

TEST(FilterPatterns, SubstringAndLiteralForms) {
    EXPECT_EQ(substring_pattern("*leaf*"), "leaf");
    EXPECT_EQ(substring_pattern("**std::**"), "std::");
    EXPECT_EQ(substring_pattern("*a\\*b*"), "a*b");
    EXPECT_EQ(substring_pattern("leaf"), std::nullopt);
    EXPECT_EQ(substring_pattern("leaf*"), std::nullopt);
    EXPECT_EQ(substring_pattern("*leaf"), std::nullopt);
    EXPECT_EQ(substring_pattern("*le?f*"), std::nullopt);
    EXPECT_EQ(substring_pattern("*[ab]*"), std::nullopt);
    EXPECT_EQ(substring_pattern("*"), std::nullopt);
    EXPECT_EQ(literal_pattern("main"), "main");
    EXPECT_EQ(literal_pattern("ma*"), std::nullopt);
}

TEST(FilterToGcc, OnlyExactSubstringRulesAreAppliedAtCompileTime) {
    const auto filter = parse_filter_text(
        "SCOREP_REGION_NAMES_BEGIN\n"
        "  EXCLUDE *tmp*            # a later INCLUDE may give such names back\n"
        "  INCLUDE *tmp_keep*\n"
        "  EXCLUDE *helper* *a,b*   # exact substrings\n"
        "  EXCLUDE leaf             # GCC would also drop leaf2 and myleaf\n"
        "  EXCLUDE MANGLED *_Z4*    # mangled names are a run-time matter\n"
        "  EXCLUDE *debug*          # the later INCLUDE cannot match a name with 'debug'\n"
        "  INCLUDE main\n"
        "SCOREP_REGION_NAMES_END\n"
        "SCOREP_FILE_NAMES_BEGIN\n"
        "  EXCLUDE */bits/* /usr/include/*\n"
        "SCOREP_FILE_NAMES_END\n",
        "f.filter");
    const auto gcc = compile_time_filter(filter, false);
    EXPECT_EQ(gcc.functions, (Args{"helper", "a,b", "debug"}));
    EXPECT_EQ(gcc.files, (Args{"/bits/"}));
    EXPECT_EQ(gcc.run_time_only,
              (Args{"f.filter:2: EXCLUDE *tmp*: the later rule 'INCLUDE *tmp_keep*' (line 3) may "
                    "include such names back",
                    "f.filter:5: EXCLUDE leaf: GCC matches substrings, so only patterns of the form "
                    "*text* are exact",
                    "f.filter:6: EXCLUDE MANGLED *_Z4*: MANGLED names are known only at run time",
                    "f.filter:11: EXCLUDE /usr/include/*: GCC matches substrings, so only patterns "
                    "of the form *text* are exact"}));
    EXPECT_EQ(gcc_exclude_flags(gcc, false),
              (Args{"-finstrument-functions-exclude-function-list=helper,a\\,b,debug",
                    "-finstrument-functions-exclude-file-list=/bits/"}));

    const auto nvcc = compile_time_filter(filter, true);
    EXPECT_EQ(nvcc.functions, (Args{"helper", "debug"}));
    EXPECT_EQ(gcc_exclude_flags(nvcc, true),
              (Args{"-Xcompiler", "-finstrument-functions-exclude-function-list=helper", "-Xcompiler",
                    "-finstrument-functions-exclude-function-list=debug", "-Xcompiler",
                    "-finstrument-functions-exclude-file-list=/bits/"}));
}

/// Builds `command` with --instrument-filter=f.filter holding `filter_text`, for `family`.
BuiltCommand build_with_filter(const Args& command, const std::string& filter_text, CompilerFamily family,
                               bool verbose = false) {
    WrapperOptions options;
    options.compiler_command = command;
    options.instrument_filter = "f.filter";
    options.verbose = verbose;
    BuildContext context;
    context.layout = fixed_layout();
    context.host_family = family;
    context.filter = parse_filter_text(filter_text, "f.filter");
    return build_command(options, classify(command[0], Args(command.begin() + 1, command.end())), context);
}

const char* const helper_filter =
    "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *helper* leaf\nSCOREP_REGION_NAMES_END\n";

TEST(FilterInCommand, GccGetsTheExcludeListAfterTheInstrumentationFlag) {
    const auto built = build_with_filter({"gcc", "-c", "a.c"}, helper_filter, CompilerFamily::gnu);
    EXPECT_EQ(built.argv, (Args{"gcc", "-c", "a.c", "-finstrument-functions",
                                "-finstrument-functions-exclude-function-list=helper", "-DSTRATA_USER_ENABLE",
                                "-I/prefix/include"}));
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_EQ(built.messages[0],
              "note: 1 EXCLUDE pattern(s) of f.filter cannot be applied exactly at compile time; set "
              "STRATA_FILTERING_FILE=f.filter when running the program (--verbose lists them)");
    ASSERT_EQ(built.verbose_messages.size(), 1u);
    EXPECT_EQ(built.verbose_messages[0],
              "note: run time only: f.filter:2: EXCLUDE leaf: GCC matches substrings, so only "
              "patterns of the form *text* are exact");
}

TEST(FilterInCommand, OtherCompilersAreToldTheRunTimeFilterApplies) {
    const auto built = build_with_filter({"clang", "-c", "a.c"}, helper_filter, CompilerFamily::clang);
    EXPECT_EQ(built.argv, Args({"clang", "-c", "a.c"}) + compile_additions());
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_EQ(built.messages[0],
              "note: compile-time filtering (--instrument-filter) is not supported for 'clang'; the "
              "run-time filter applies: set STRATA_FILTERING_FILE=f.filter when running the program");
}

TEST(FilterInCommand, NothingIsAddedToALinkOfObjects) {
    const auto built = build_with_filter({"gcc", "a.o", "-o", "app"}, helper_filter, CompilerFamily::gnu);
    EXPECT_EQ(built.argv, Args({"gcc", "a.o", "-o", "app"}) + link_additions());
    EXPECT_TRUE(built.messages.empty());
}

/// The functions of `source` that call __cyg_profile_func_enter when compiled by gcc with `flags`.
std::string instrumented_functions(const std::string& source, const Args& flags) {
    TempDir dir;
    const auto c_file = dir.write("t.c", source);
    std::string command = "gcc -S -O0 -finstrument-functions -o " + dir.path() + "/t.s " + c_file;
    for (const auto& flag : flags) command += " '" + flag + "'";
    if (std::system(command.c_str()) != 0) return "gcc failed";
    std::ifstream in(dir.path() + "/t.s");
    std::string line, current, result;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == ':' && line[0] != '.' && line[0] != '\t') {
            current = line.substr(0, line.size() - 1);
        } else if (line.find("__cyg_profile_func_enter") != std::string::npos) {
            result += current + " ";
        }
    }
    return result;
}

TEST(FilterWithRealGcc, ExcludedSubstringsAreNotInstrumentedAndOthersAre) {
    if (std::system("gcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gcc not available";
    const auto filter =
        compile_time_filter(parse_filter_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *helper* leaf\n"
                                              "SCOREP_REGION_NAMES_END\n",
                                              "f.filter"),
                            false);
    const std::string source =
        "int leaf(int x) { return x + 1; }\n"
        "int leaf2(int x) { return x + 2; }\n"
        "int my_helper(int x) { return x * 2; }\n"
        "int main(void) { return leaf(1) + leaf2(2) + my_helper(3); }\n";
    // leaf stays instrumented: GCC's substring "leaf" would also have dropped leaf2.
    EXPECT_EQ(instrumented_functions(source, gcc_exclude_flags(filter, false)), "leaf leaf2 main ");
    EXPECT_EQ(instrumented_functions(source, {}), "leaf leaf2 my_helper main ");
}

}  // namespace
}  // namespace strata::instrumenter::test
