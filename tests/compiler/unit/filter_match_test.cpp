// SPDX-License-Identifier: BSD-3-Clause
// Score-P's matching of filter rules: wildcards, rule order, include back, file rules, MANGLED.
#include <gtest/gtest.h>

#include "filter/filter_rules.hpp"

namespace strata::filter {
namespace {

FilterFile regions(const std::string& body) {
    return parse_filter_text("SCOREP_REGION_NAMES_BEGIN\n" + body + "\nSCOREP_REGION_NAMES_END\n",
                             "t.filter");
}

FilterFile files(const std::string& body) {
    return parse_filter_text("SCOREP_FILE_NAMES_BEGIN\n" + body + "\nSCOREP_FILE_NAMES_END\n", "t.filter");
}

TEST(FilterPatternMatching, WildcardsAsInFnmatch) {
    EXPECT_TRUE(pattern_matches("leaf", "leaf"));
    EXPECT_FALSE(pattern_matches("leaf", "leaf2"));  // whole names, not substrings
    EXPECT_FALSE(pattern_matches("leaf", "myleaf"));
    EXPECT_TRUE(pattern_matches("le?f", "leaf"));
    EXPECT_FALSE(pattern_matches("le?f", "lef"));
    EXPECT_TRUE(pattern_matches("*", ""));
    EXPECT_TRUE(pattern_matches("solve_*", "solve_"));
    EXPECT_TRUE(pattern_matches("*::get*", "ns::Box<double>::get() const"));
    EXPECT_TRUE(pattern_matches("*/src/*", "/home/u/src/a/b.c"));  // '*' also matches '/'
    EXPECT_TRUE(pattern_matches("[ab]x", "bx"));
    EXPECT_FALSE(pattern_matches("[ab]x", "cx"));
    EXPECT_TRUE(pattern_matches("void\\ foo(int)", "void foo(int)"));  // escaped blank
    EXPECT_TRUE(pattern_matches("a\\*b", "a*b"));
    EXPECT_FALSE(pattern_matches("a\\*b", "axxb"));
}

TEST(FilterRegionRules, NothingIsExcludedWithoutRules) {
    const FilterFile empty = parse_filter_text("", "t.filter");
    EXPECT_FALSE(empty.excluded("main", "", "/src/a.c"));
    EXPECT_FALSE(regions("").excluded("main", "", ""));
}

TEST(FilterRegionRules, ExcludeByWildcard) {
    const auto filter = regions("EXCLUDE lib_* *::helper*");
    EXPECT_TRUE(filter.excluded("lib_square", "", ""));
    EXPECT_TRUE(filter.excluded("geo::helper(int)", "_ZN3geo6helperEi", ""));
    EXPECT_FALSE(filter.excluded("main", "", ""));
    EXPECT_FALSE(filter.excluded("my_lib_square", "", ""));
}

TEST(FilterRegionRules, IncludeBackAndLaterRulesOverrideEarlierOnes) {
    const auto filter = regions("EXCLUDE *\nINCLUDE main solve_*\nEXCLUDE solve_slow");
    EXPECT_FALSE(filter.excluded("main", "", ""));
    EXPECT_FALSE(filter.excluded("solve_fast", "", ""));
    EXPECT_TRUE(filter.excluded("solve_slow", "", ""));  // the last matching rule decides
    EXPECT_TRUE(filter.excluded("leaf", "", ""));

    const auto back = regions("EXCLUDE fact\nINCLUDE fact");
    EXPECT_FALSE(back.excluded("fact", "", ""));
    const auto again = regions("INCLUDE fact\nEXCLUDE fact");
    EXPECT_TRUE(again.excluded("fact", "", ""));
}

TEST(FilterRegionRules, IncludeOnlyRulesExcludeNothing) {
    // Score-P starts from "included": an INCLUDE alone changes nothing.
    EXPECT_FALSE(regions("INCLUDE main").excluded("leaf", "", ""));
}

TEST(FilterRegionRules, MangledRulesMatchTheSymbol) {
    const auto filter = regions("EXCLUDE MANGLED _ZN3geo5twice*\nINCLUDE MANGLED _ZN3geo5twiceIiEET_S1_");
    EXPECT_TRUE(filter.excluded("double geo::twice<double>(double)", "_ZN3geo5twiceIdEET_S1_", ""));
    EXPECT_FALSE(filter.excluded("int geo::twice<int>(int)", "_ZN3geo5twiceIiEET_S1_", ""));
    // The demangled name does not match a MANGLED pattern ...
    EXPECT_FALSE(regions("EXCLUDE MANGLED twice*").excluded("twice", "_Z5twicei", ""));
    // ... and a plain pattern does not see the symbol.
    EXPECT_FALSE(regions("EXCLUDE _Z5twicei").excluded("twice(int)", "_Z5twicei", ""));
    // Without a symbol (C functions), MANGLED rules match the name, as in Score-P.
    EXPECT_TRUE(regions("EXCLUDE MANGLED leaf").excluded("leaf", "", ""));
}

TEST(FilterFileRules, MatchTheSourcePath) {
    const auto filter = files("EXCLUDE */third_party/*\nINCLUDE */third_party/keep.c");
    EXPECT_TRUE(filter.excluded("f", "", "/src/third_party/lib.c"));
    EXPECT_FALSE(filter.excluded("f", "", "/src/third_party/keep.c"));
    EXPECT_FALSE(filter.excluded("f", "", "/src/main.c"));
    EXPECT_FALSE(filter.excluded("f", "", ""));  // unknown file: the file rules do not apply
    EXPECT_TRUE(filter.file_excluded("/x/third_party/y.h"));
    EXPECT_FALSE(filter.region_excluded("f", ""));
}

TEST(FilterFileRules, AnExcludedFileCannotBeIncludedBackByARegionRule) {
    const auto filter = parse_filter_text(
        "SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */mathlib.c\nSCOREP_FILE_NAMES_END\n"
        "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *\n INCLUDE lib_square main\nSCOREP_REGION_NAMES_END\n",
        "t.filter");
    EXPECT_TRUE(filter.excluded("lib_square", "", "/src/mathlib.c"));
    EXPECT_FALSE(filter.excluded("main", "", "/src/main.c"));
    EXPECT_TRUE(filter.excluded("work", "", "/src/main.c"));
    // Region and file rules are evaluated separately, whatever their order in the file.
    EXPECT_FALSE(filter.region_excluded("lib_square", ""));
}

TEST(FilterFileRules, BlocksAreCombinedInFileOrder) {
    const auto filter = parse_filter_text(
        "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a*\nSCOREP_REGION_NAMES_END\n"
        "SCOREP_REGION_NAMES_BEGIN\n INCLUDE ab\nSCOREP_REGION_NAMES_END\n",
        "t.filter");
    EXPECT_TRUE(filter.excluded("ac", "", ""));
    EXPECT_FALSE(filter.excluded("ab", "", ""));
}

TEST(TextHelpers, ValidUtf8KeepsUtf8AndWritesOtherBytesAsHex) {
    EXPECT_EQ(valid_utf8("plain"), "plain");
    EXPECT_EQ(valid_utf8("\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80"), "\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80");
    EXPECT_EQ(valid_utf8("caf\xe9"), "caf\\xe9");                // Latin-1
    EXPECT_EQ(valid_utf8("\x80x"), "\\x80x");                    // a stray continuation byte
    EXPECT_EQ(valid_utf8("\xc0\xaf"), "\\xc0\\xaf");              // overlong '/'
    EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");      // a surrogate
    EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
    EXPECT_EQ(valid_utf8("end\xe2\x82"), "end\\xe2\\x82");        // truncated
    EXPECT_EQ(valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));  // NUL is UTF-8
    EXPECT_EQ(utf8_sequence_length("\xe2\x82\xac", 0), 3u);
    EXPECT_EQ(utf8_sequence_length("\xe2\x82", 0), 0u);
}

}  // namespace
}  // namespace strata::filter
