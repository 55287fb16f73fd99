// SPDX-License-Identifier: BSD-3-Clause
// The part of Score-P filter files that GCC's -finstrument-functions-exclude-* lists express
// (without Strata's GCC plugin, which reads the whole file and applies it exactly).
//
// The syntax is Score-P's (see measurement/src/filter/filter_rules.hpp).
// GCC's exclude lists match substrings and cannot include back, so only an EXCLUDE rule
// of the form *text* that no later INCLUDE rule can override is applied at compile time:
// a compile-time exclusion can never be undone, and it must never drop a function the
// filter keeps.  Every other rule applies at run time through STRATA_FILTERING_FILE.
#pragma once

#include <string>
#include <vector>

#include "filter/filter_rules.hpp"

namespace strata::instrumenter {

// The rules and their parser live in measurement/src/filter/ (library strata-filter), which
// the runtime shares; the wrapper adds the conversion to GCC's exclude lists below.
using filter::FilterAction;
using filter::FilterError;
using filter::FilterFile;
using filter::FilterRule;
using filter::FilterTarget;
using filter::literal_pattern;
using filter::parse_filter_text;
using filter::read_filter_file;
using filter::substring_pattern;

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
