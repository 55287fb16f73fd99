// SPDX-License-Identifier: BSD-3-Clause
// The command line of strata-score: what to read and how to show it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "score/filter_suggestion.hpp"

namespace strata::analysis {

/// Rows of the report: one per region, or the call tree.
enum class ScoreGrouping { region, callpath };

/// The column rows are sorted by (largest first; ties by name).
enum class ScoreSort { exclusive, inclusive, visits };

/// Everything strata-score was asked to do.
struct ScoreOptions {
    std::string input;  ///< an experiment directory or a profile.h5
    ScoreGrouping by = ScoreGrouping::region;
    ScoreSort sort = ScoreSort::exclusive;
    std::size_t top = 0;  ///< show at most this many rows; 0: all
    bool csv = false;     ///< CSV on stdout instead of the header and table
    bool help = false;    ///< --help: print the usage and stop
    /// --filter FILE: mark the regions this run-time filter file leaves out.
    std::string filter_file;
    /// --suggest-filter FILE: write a filter file for the short, frequent functions.
    std::string suggest_filter;
    FilterCriteria criteria;  ///< --max-us-per-visit, --min-visit-percent
};

/// A command line that cannot be followed; what() says why.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Parses the arguments after the program name (`--opt value` or
/// `--opt=value`).  Throws UsageError.
ScoreOptions parse_score_options(const std::vector<std::string>& args);

/// The usage text, ending in a newline.
const char* score_usage();

}  // namespace strata::analysis
