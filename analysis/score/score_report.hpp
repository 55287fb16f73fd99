// SPDX-License-Identifier: BSD-3-Clause
// The strata-score report: a header and a table of time and visits per
// region (or per call path, as a tree), summed over locations, or the same
// rows as CSV.
//
//   Experiment:  strata-20261122_101500_1234
//   Written by:  Strata 0.1.0 at 2026-11-22T10:15:12Z
//   Locations:   2 (ranks: 1, CPU threads: 2)
//   Total time:  18.000000 s (sum over locations of the root call paths' inclusive time)
//   Timer:       tsc (2000000000 Hz)
//
//   paradigm  visits    incl(s)    excl(s)  excl(%)  excl/visit(us)  region
//   compiler       8  11.000000  11.000000    61.11      1375000.00  compute
//   ...
//
// The output depends only on the profile and the options: rows are sorted
// stably, ties broken by name and then by table order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "profile/profile.hpp"
#include "score/score_options.hpp"

namespace strata::analysis {

/// One row of the report, summed over locations.
struct ScoreRow {
    std::string label;      ///< region name, or the call path's last element
    std::string path;       ///< the full call-path name ("main/compute"); the region name per region
    std::size_t depth = 0;  ///< depth in the call tree (0 per region)
    std::string paradigm;   ///< the region's paradigm as the file names it
    std::uint64_t visits = 0;
    double time_inclusive = 0.0;  ///< s
    double time_exclusive = 0.0;  ///< s
    std::uint32_t region = 0;     ///< the region (of the call path)
};

/// All rows in report order, before --top: regions on a call path sorted by
/// `sort`, or the call tree depth first with siblings sorted by `sort`.
std::vector<ScoreRow> score_rows(const Profile& profile, ScoreGrouping by, ScoreSort sort);

/// Writes the report for `options` to `out`.  `experiment` is what the
/// header calls the experiment.  The incomplete-profile warning goes to
/// `out` with the header, or to `warnings` with --csv (stdout stays CSV).
/// With `filter` (--filter, already read), a column says which rows the
/// filter leaves out and the header sums them.  Throws ProfileError when a
/// needed metric is missing.
void write_score_report(std::ostream& out, std::ostream& warnings, const Profile& profile,
                        const ScoreOptions& options, const std::string& experiment,
                        const strata::filter::FilterFile* filter = nullptr);

/// What --suggest-filter says once the file is written: how many functions,
/// their visits, and how to use the file; or that none qualifies.
std::string suggestion_summary(const FilterSuggestion& suggestion, const FilterCriteria& criteria,
                               const std::string& file);

}  // namespace strata::analysis
