// SPDX-License-Identifier: BSD-3-Clause
// Run-time filtering as strata-score sees it (see filter_suggestion.hpp).
#include "score/filter_suggestion.hpp"

#include <algorithm>

#include "profile/profile_aggregates.hpp"
#include "score/number_text.hpp"

namespace strata::analysis {
namespace {

/// An MPI call a polling loop makes again and again, whose region a filter may drop.
bool is_mpi_polling(const Profile& profile, std::uint32_t region) {
    if (profile.regions[region].paradigm != Paradigm::mpi) return false;
    const std::string& name = profile.region_name(region);
    return name.rfind("MPI_Test", 0) == 0 || name == "MPI_Iprobe" || name == "MPI_Improbe";
}

bool is_keyword(const std::string& name) {
    return name == "EXCLUDE" || name == "INCLUDE" || name == "MANGLED" || name == "SCOREP_REGION_NAMES_BEGIN" ||
           name == "SCOREP_REGION_NAMES_END" || name == "SCOREP_FILE_NAMES_BEGIN" || name == "SCOREP_FILE_NAMES_END";
}

}  // namespace

FilterSuggestion suggest_filter(const Profile& profile, const FilterCriteria& criteria) {
    FilterSuggestion suggestion;
    const std::vector<RegionAggregate> aggregates = aggregate_regions(profile);
    for (const RegionAggregate& aggregate : aggregates) suggestion.all_visits += aggregate.total_visits();
    for (const RegionAggregate& aggregate : aggregates) {
        if (profile.regions[aggregate.region].paradigm != Paradigm::compiler &&
            !is_mpi_polling(profile, aggregate.region))
            continue;
        const std::uint64_t visits = aggregate.total_visits();
        if (visits == 0) continue;
        const double us_per_visit = 1e6 * aggregate.total_time_inclusive() / static_cast<double>(visits);
        const double percent = 100.0 * static_cast<double>(visits) / static_cast<double>(suggestion.all_visits);
        // A NaN time (a damaged profile) fails the comparison: never suggested.
        if (!(us_per_visit <= criteria.max_us_per_visit) || percent < criteria.min_visit_percent) continue;
        suggestion.regions.push_back({profile.region_name(aggregate.region), visits, us_per_visit});
        suggestion.visits += visits;
    }
    std::stable_sort(suggestion.regions.begin(), suggestion.regions.end(),
                     [](const SuggestedRegion& a, const SuggestedRegion& b) {
                         if (a.visits != b.visits) return a.visits > b.visits;
                         return a.name < b.name;
                     });
    return suggestion;
}

std::string literal_filter_pattern(const std::string& name) {
    std::string pattern;
    for (const char c : name) {
        // Blanks separate patterns, '#' starts a comment, the rest are fnmatch(3)'s.
        if (c == ' ' || c == '\t' || c == '#' || c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            pattern += '\\';
        pattern += c;
    }
    if (is_keyword(name)) pattern.insert(0, 1, '\\');  // "\EXCLUDE" matches "EXCLUDE"
    return pattern;
}

std::string filter_file_text(const FilterSuggestion& suggestion, const FilterCriteria& criteria,
                             const std::string& experiment) {
    std::string text =
        "# Score-P filter file suggested by strata-score for " + experiment +
        ":\n"
        "# the functions with a mean inclusive time per visit of at most " +
        number_text("%g", criteria.max_us_per_visit) + " us and at least " +
        number_text("%g", criteria.min_visit_percent) +
        "% of all visits.\n"
        "# Measure again with STRATA_FILTERING_FILE=<this file>, or build with\n"
        "# strata --instrument-filter=<this file> so that they are not instrumented at all.\n"
        "# Their callees are then recorded under their callers.\n"
        "SCOREP_REGION_NAMES_BEGIN\n"
        "  EXCLUDE\n";
    for (const SuggestedRegion& region : suggestion.regions) {
        text += "    " + literal_filter_pattern(region.name) + "  # " + std::to_string(region.visits) + " visits, " +
                number_text("%.3g", region.us_per_visit) + " us per visit\n";
    }
    return text + "SCOREP_REGION_NAMES_END\n";
}

bool filtered_out(const strata::filter::FilterFile& filter, const Profile& profile, std::uint32_t region) {
    const Region& r = profile.regions[region];
    if (r.paradigm == Paradigm::mpi) return filter.mpi_rules().region_excluded(profile.region_name(region), "");
    if (r.paradigm != Paradigm::compiler) return false;
    return filter.excluded(profile.region_name(region), "", profile.strings[r.file]);
}

}  // namespace strata::analysis
