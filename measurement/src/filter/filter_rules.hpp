// SPDX-License-Identifier: BSD-3-Clause
// Score-P filter files: the rules, their parser and their matching, shared by the wrapper and the runtime.
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
// The compiler adapter applies all of them at run time (STRATA_FILTERING_FILE), once per
// function; Strata's GCC plugin applies all of them at compile time (--instrument-filter);
// without the plugin the `strata` wrapper turns the rules GCC can apply into exclude lists
// (instrumenter/src/filter_file.*); strata-score shows what a file leaves out and writes one.
// This library depends on nothing of the runtime.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "strata/measurement/error.hpp"

namespace strata::filter {

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
    /// The pattern as written, backslash escapes included (fnmatch(3) reads them).
    std::string pattern;
    /// 1-based line of the pattern in the file.
    int line = 0;
};

/// A parsed filter file: its rules in file order, and Score-P's verdict on a function.
struct FilterFile {
    std::string path;
    std::vector<FilterRule> rules;

    /// True when a function is not recorded: excluded by the file rules or by the region
    /// rules (a function in an excluded file cannot be included back by a region rule).
    /// `region_name` is the demangled name, `mangled_name` the symbol ("" when the same or
    /// unknown), `file` the source path ("" when unknown).
    bool excluded(const std::string& region_name, const std::string& mangled_name,
                  const std::string& file) const;

    /// The file rules alone: applied in order starting from "included"; the last rule that
    /// matches decides.  An unknown file ("") is never excluded.
    bool file_excluded(const std::string& file) const;

    /// The region rules alone, in the same way.  MANGLED rules match `mangled_name`, or
    /// `region_name` when `mangled_name` is empty (as Score-P does).
    bool region_excluded(const std::string& region_name, const std::string& mangled_name) const;

    /// The rules that apply to MPI functions: the region rules whose pattern begins with
    /// "MPI_".  A filter written for the program's own functions (`EXCLUDE *`, then
    /// `INCLUDE` a few) thus leaves MPI alone, as Score-P's filters do.
    FilterFile mpi_rules() const;
};

/// A filter file that cannot be read or has a syntax error.  The message names the file,
/// the line and what was expected: "filter.txt:3: expected EXCLUDE or INCLUDE before 'foo'".
class FilterError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Parses the text of a filter file; `path` is used in messages.  Throws
/// FilterError (the parser's and the tools' way; the runtime reads files with
/// read_filter_file, which returns the error).
FilterFile parse_filter_text(std::string_view text, const std::string& path);

/// Reads and parses a filter file into `filter`; the error is a FilterError's
/// message.
Error read_filter_file(const std::string& path, FilterFile* filter);

/// The filter file STRATA_FILTERING_FILE names, as the adapters read it before
/// main: none when it is unset or empty; the error is the message that stops
/// the program ("strata: STRATA_FILTERING_FILE='<path>' is not valid: ...").
Error read_configured_filter(std::optional<FilterFile>* filter);

/// The text of a pattern of the form *text* (one or more stars at each end, no wildcard in
/// between), with backslash escapes removed; nullopt for every other pattern.
std::optional<std::string> substring_pattern(std::string_view pattern);

/// The text of a pattern without wildcards, with backslash escapes removed; nullopt otherwise.
std::optional<std::string> literal_pattern(std::string_view pattern);

/// True when `pattern` matches all of `text`, as fnmatch(3) without flags (Score-P's
/// matching): `*` and `?` also match '/', `[...]` are sets, a backslash quotes.
bool pattern_matches(const std::string& pattern, const std::string& text);

/// The name region rules match for a function whose symbol is `symbol`: the demangled form
/// (namespaces, templates, lambdas, member functions), or the symbol itself when it is not a
/// mangled C++ name.  The runtime names regions so, and the GCC plugin filters by it.
std::string demangled_name(const char* symbol);

/// `text` with its control characters as \xNN, for messages and reports that quote names
/// or a file's bytes: an escape sequence among them would act on the user's terminal.
std::string visible_text(std::string_view text);

/// The length of the UTF-8 sequence that starts at text[i], or 0 where none does
/// (a stray continuation byte, an overlong form, a surrogate, a truncated sequence).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

/// `text` with every byte that is not part of valid UTF-8 as \xNN: names are
/// made so when they are defined, since OTF2 and HDF5 strings, JSON and HTML
/// are UTF-8 and their readers refuse anything else (a Latin-1 file name).
std::string valid_utf8(std::string_view text);

}  // namespace strata::filter
