// SPDX-License-Identifier: BSD-3-Clause
// The measured ranks of a profile and the share of each analysis rank (see rank_layout.hpp).
#include "analyze/rank_layout.hpp"

#include <algorithm>
#include <map>

namespace strata::analysis {

RankLayout rank_layout(const Profile& profile) {
    RankLayout layout;
    std::map<std::uint32_t, std::vector<std::size_t>> columns;
    for (std::size_t l = 0; l < profile.locations.size(); ++l) {
        const Location& location = profile.locations[l];
        switch (location.type) {
            case LocationType::cpu_thread:
                columns[location.rank].push_back(l);
                ++layout.cpu_threads;
                break;
            case LocationType::gpu_stream:
                ++layout.gpu_streams;
                break;
            default:
                ++layout.other_locations;
                break;
        }
    }
    for (auto& [rank, cols] : columns) layout.ranks.push_back(MeasuredRank{rank, std::move(cols)});
    return layout;
}

AnalysisShare analysis_share(const RankLayout& layout, std::size_t analysis_rank,
                             std::size_t analysis_ranks) {
    AnalysisShare share;
    const std::size_t threads = layout.cpu_threads;
    std::size_t before = 0;  // CPU threads of the measured ranks before rank i
    bool found = false;
    std::size_t lowest = 0, highest = 0;
    for (std::size_t i = 0; i < layout.ranks.size(); ++i) {
        const MeasuredRank& rank = layout.ranks[i];
        // Widened so that before * K cannot overflow for any realistic size.
        const auto owner =
            static_cast<std::size_t>(static_cast<unsigned __int128>(before) * analysis_ranks / threads);
        before += rank.columns.size();
        if (owner != analysis_rank) continue;
        if (!found) share.first_rank = i;
        ++share.rank_count;
        const auto [low, high] = std::minmax_element(rank.columns.begin(), rank.columns.end());
        lowest = found ? std::min(lowest, *low) : *low;
        highest = found ? std::max(highest, *high) : *high;
        found = true;
    }
    if (found) {
        share.first_column = lowest;
        share.column_count = highest - lowest + 1;
    }
    return share;
}

}  // namespace strata::analysis
