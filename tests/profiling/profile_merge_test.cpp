// SPDX-License-Identifier: BSD-3-Clause
// Merging the profiles of several ranks: call paths by content, columns appended.
#include <gtest/gtest.h>

#include <mutex>

#include "profiling/profile_merge.hpp"
#include "thread_group.hpp"

namespace strata::profiling {
namespace {

/// Rank r: main -> work (and on odd ranks main -> extra); one location; visits = r + 1.
ProfileData rank_profile(int rank) {
    ProfileData d;
    d.strings = {"", "main", "work", "extra"};
    d.regions.resize(4);
    for (std::uint32_t i = 1; i < 4; ++i) d.regions[i].name = i;
    d.parameters.resize(1);
    d.callpaths.push_back({-1, 1, -1, 0, -1});
    d.callpaths.push_back({0, 2, -1, 0, -1});
    if (rank % 2 == 1) d.callpaths.push_back({0, 3, -1, 0, -1});
    d.strings.push_back("thread 0");
    ProfileData::Location l;
    l.id = static_cast<std::uint64_t>(rank) << 32;
    l.rank = static_cast<std::uint32_t>(rank);
    l.name = static_cast<std::uint32_t>(d.strings.size() - 1);
    d.locations.push_back(l);
    ProfileData::Metric visits{"visits", "count", "v", true, {}, {}};
    ProfileData::Metric time{"time_inclusive", "s", "t", false, {}, {}};
    for (std::size_t c = 0; c < d.callpaths.size(); ++c) {
        visits.counts.push_back(static_cast<std::uint64_t>(rank + 1));
        time.values.push_back(0.5 * (rank + 1));
    }
    d.metrics = {visits, time};
    d.total_locations = 1;
    return d;
}

TEST(ProfileMerge, ColumnsOfAnotherRankAreAppendedAndCallPathsMerged) {
    ProfileData merged = rank_profile(0);
    ASSERT_TRUE(merge_columns(merged, serialize_columns(rank_profile(1))));
    ASSERT_EQ(merged.callpaths.size(), 3u);  // main, main/work, main/extra
    ASSERT_EQ(merged.locations.size(), 2u);
    EXPECT_EQ(merged.locations[1].rank, 1u);
    EXPECT_EQ(merged.strings[merged.locations[1].name], "thread 0");
    const auto& v = merged.metrics[0].counts;  // [callpath][location]
    EXPECT_EQ(v, (std::vector<std::uint64_t>{1, 2, 1, 2, 0, 2}));
    EXPECT_DOUBLE_EQ(merged.metrics[1].values[5], 1.0);
    EXPECT_FALSE(merge_columns(merged, "garbage"));
}

TEST(ProfileMerge, GatherOverFourRanks) {
    testing::ThreadWorld world(4);
    ProfileData result;
    world.run([&](events::ProcessGroup& group) {
        ProfileData merged = gather_profiles(rank_profile(group.rank()), group);
        if (group.rank() == 0) result = merged;
    });
    ASSERT_EQ(result.locations.size(), 4u);
    ASSERT_EQ(result.callpaths.size(), 3u);
    // main/extra exists on ranks 1 and 3 only.
    EXPECT_EQ(std::vector<std::uint64_t>(result.metrics[0].counts.begin() + 8, result.metrics[0].counts.end()),
              (std::vector<std::uint64_t>{0, 2, 0, 4}));
    EXPECT_EQ(result.total_locations, 4u);
}

}  // namespace
}  // namespace strata::profiling
