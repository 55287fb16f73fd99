// SPDX-License-Identifier: BSD-3-Clause
// Score-P filter files, and the part of them GCC's -finstrument-functions-exclude-* lists express.
//
// The syntax is Score-P's, unchanged:
//
//   SCOREP_REGION_NAMES_BEGIN          # rules on function (region) names
//     EXCLUDE *                        # patterns with * ? [..] as in fnmatch(3)
//     INCLUDE main solve_*             # later rules override earlier ones
//     EXCLUDE MANGLED _Z4leafv         # MANGLED: match the mangled name
//   SCOREP_REGION_NAMES_END
//   SCOREP_FILE_NAMES_BEGIN            # rules on source file names
//     EXCLUDE */third_party/*
//   SCOREP_FILE_NAMES_END
//
// GCC's exclude lists match substrings and cannot include back, so only an EXCLUDE rule
// of the form *text* that no later INCLUDE rule can override is applied at compile time:
// a compile-time exclusion can never be undone, and it must never drop a function the
// filter keeps.  Every other rule applies at run time through STRATA_FILTERING_FILE.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace strata::instrumenter {

/// What a rule matches: function (region) names or source file names.
enum class FilterTarget { region, file };

/// What a rule does with the names it matches.
enum class FilterAction { exclude, include };

/// One pattern of a filter file with the rule it belongs to.
struct FilterRule {
    FilterTarget target = FilterTarget::region;
    FilterAction action = FilterAction::exclude;
    /// Matched against the mangled name (`MANGLED`), region rules only.
    bool mangled = false;
    /// The pattern as written, backslash escapes included.
    std::string pattern;
    /// 1-based line of the pattern in the file.
    int line = 0;
};

/// A parsed filter file: its rules in file order.
struct FilterFile {
    std::string path;
    std::vector<FilterRule> rules;
};

/// A filter file that cannot be read or has a syntax error.  The message names the file,
/// the line and what was expected: "filter.txt:3: expected EXCLUDE or INCLUDE before 'foo'".
class FilterError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Parses the text of a filter file; `path` is used in messages.  Throws FilterError.
FilterFile parse_filter_text(std::string_view text, const std::string& path);

/// Reads and parses a filter file.  Throws FilterError.
FilterFile read_filter_file(const std::string& path);

/// The text of a pattern of the form *text* (one or more stars at each end, no wildcard in
/// between), with backslash escapes removed; nullopt for every other pattern.
std::optional<std::string> substring_pattern(std::string_view pattern);

/// The text of a pattern without wildcards, with backslash escapes removed; nullopt otherwise.
std::optional<std::string> literal_pattern(std::string_view pattern);

/// The EXCLUDE rules a substring-matching compiler can apply, and those it cannot.
struct CompileTimeFilter {
    /// Substrings of function names to exclude (-finstrument-functions-exclude-function-list).
    std::vector<std::string> functions;
    /// Substrings of file names to exclude (-finstrument-functions-exclude-file-list).
    std::vector<std::string> files;
    /// One line per EXCLUDE pattern applied at run time only: "file:line: EXCLUDE x: reason".
    std::vector<std::string> run_time_only;
};

/// Splits the EXCLUDE rules of `filter` into those GCC can apply at compile time and those it
/// cannot.  `through_nvcc`: the flags go through nvcc's -Xcompiler, which splits at commas.
CompileTimeFilter compile_time_filter(const FilterFile& filter, bool through_nvcc);

/// GCC flags for `filter`: one -finstrument-functions-exclude-{function,file}-list=a,b (commas in
/// names escaped as "\,"); through nvcc, one "-Xcompiler" "-finstrument-...=a" pair per name.
std::vector<std::string> gcc_exclude_flags(const CompileTimeFilter& filter, bool through_nvcc);

}  // namespace strata::instrumenter
