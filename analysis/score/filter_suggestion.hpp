// SPDX-License-Identifier: BSD-3-Clause
// What strata-score says about run-time filtering: which functions a filter
// file would leave out of a profile like this one (--filter), and a filter
// file for the functions whose measurement costs more than it tells
// (--suggest-filter), in the Score-P syntax STRATA_FILTERING_FILE reads.
//
// A function is suggested when it is short and called often: its mean
// inclusive time per visit is at most `max_us_per_visit` and its visits are
// at least `min_visit_percent` of all region visits.  Compiler (function)
// regions are considered, and the MPI calls of polling loops (MPI_Test*,
// MPI_Iprobe, MPI_Improbe), which the MPI adapter lets a filter exclude while
// it still records their request completions; other MPI calls stay, since
// the wait states need their times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filter/filter_rules.hpp"
#include "profile/profile.hpp"

namespace strata::analysis {

/// When a function is worth filtering out.
struct FilterCriteria {
    double max_us_per_visit = 1.0;   ///< mean inclusive time per visit, µs
    double min_visit_percent = 1.0;  ///< share of all region visits, %
};

/// One function the suggestion leaves out.
struct SuggestedRegion {
    std::string name;
    std::uint64_t visits = 0;       ///< summed over locations
    double us_per_visit = 0.0;      ///< mean inclusive time per visit
};

/// The functions suggested, largest visit count first (ties by name).
struct FilterSuggestion {
    std::vector<SuggestedRegion> regions;
    std::uint64_t visits = 0;      ///< theirs, summed
    std::uint64_t all_visits = 0;  ///< every region's, summed over locations
};

FilterSuggestion suggest_filter(const Profile& profile, const FilterCriteria& criteria);

/// `name` as a pattern that matches exactly it: blanks, wildcards, '#' and
/// backslashes escaped, and a name equal to a keyword of the syntax escaped
/// so that it reads as a pattern.
std::string literal_filter_pattern(const std::string& name);

/// The filter file: a comment saying where it came from and how to use it,
/// then one EXCLUDE block with a pattern per suggested function.
std::string filter_file_text(const FilterSuggestion& suggestion, const FilterCriteria& criteria,
                             const std::string& experiment);

/// True when the run-time filter `filter` leaves region `region` of `profile`
/// out: a compiler region by every rule, an MPI region by the region rules
/// that name MPI functions (patterns beginning with MPI_, as the MPI adapter
/// applies them).  The profile keeps demangled names only, so MANGLED rules are
/// matched against the demangled name.
bool filtered_out(const strata::filter::FilterFile& filter, const Profile& profile, std::uint32_t region);

}  // namespace strata::analysis
