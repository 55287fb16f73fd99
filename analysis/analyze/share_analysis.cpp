// SPDX-License-Identifier: BSD-3-Clause
// The work of one analysis rank (see share_analysis.hpp).
#include "analyze/share_analysis.hpp"

#include <new>
#include <stdexcept>

#include "profile/profile_reader.hpp"

namespace strata::analysis {

const std::vector<std::string>& analyzed_metrics() {
    static const std::vector<std::string> names = {"time_exclusive", "time_inclusive", "visits"};
    return names;
}

ShareAnalysis analyze_share(const std::string& profile_path, std::size_t analysis_rank,
                            std::size_t analysis_ranks, bool include_mpi_init) {
    ShareAnalysis a;
    ProfileReadOptions options;
    options.metrics = analyzed_metrics();
    options.choose_columns = [&](const Profile& definitions) {
        a.layout = rank_layout(definitions);
        a.share = analysis_share(a.layout, analysis_rank, analysis_ranks);
        return std::make_pair(a.share.first_column, a.share.column_count);
    };
    a.profile = read_profile(profile_path, options);
    for (const std::string& name : analyzed_metrics())
        a.profile.metric(name);  // each must exist, on every rank
    a.classes = classify_callpaths(a.profile, include_mpi_init);
    try {
        a.partial = accumulate_share(a.profile, a.layout, a.share, a.classes);
    } catch (const std::bad_alloc&) {
        throw ProfileError(profile_path + ": out of memory while analysing the profile");
    } catch (const std::length_error&) {
        throw ProfileError(profile_path + ": out of memory while analysing the profile");
    }
    return a;
}

}  // namespace strata::analysis
