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

TEST(ProfileMerge, JobCallPathsAreTheSameOnEveryRankAndColumnsArePlaced) {
    // 5 ranks (not a power of two); odd ranks have main/extra, rank 4 also a deeper path.
    testing::ThreadWorld world(5);
    std::vector<ProfileData> aligned(5);
    std::mutex mutex;
    world.run([&](events::ProcessGroup& group) {
        ProfileData mine = rank_profile(group.rank());
        if (group.rank() == 4) {  // main/work/extra, and a second location
            mine.callpaths.push_back({1, 3, -1, 0, -1});
            mine.metrics[0].counts.push_back(7);
            mine.metrics[1].values.push_back(3.5);
            ProfileData::Location second = mine.locations[0];
            second.id += 1;
            mine.locations.push_back(second);
            for (auto& metric : mine.metrics) {  // [callpath][location]: widen to 2 columns
                if (metric.integral) {
                    std::vector<std::uint64_t> wide;
                    for (auto v : metric.counts) wide.insert(wide.end(), {v, 100});
                    metric.counts = wide;
                } else {
                    std::vector<double> wide;
                    for (auto v : metric.values) wide.insert(wide.end(), {v, 0.25});
                    metric.values = wide;
                }
            }
        }
        mine.dropped_callpaths = static_cast<std::uint64_t>(group.rank());
        const bool complete = align_to_job(mine, job_callpaths(mine, group), group);
        std::lock_guard<std::mutex> lock(mutex);
        EXPECT_TRUE(complete) << group.rank();
        aligned[group.rank()] = std::move(mine);
    });
    // main, main/work, main/extra, main/work/extra: the same table, parents first, everywhere.
    for (const ProfileData& d : aligned) {
        ASSERT_EQ(d.callpaths.size(), 4u);
        for (std::size_t c = 0; c < 4; ++c) {
            EXPECT_EQ(d.callpaths[c].parent, aligned[0].callpaths[c].parent);
            EXPECT_EQ(d.callpaths[c].region, aligned[0].callpaths[c].region);
            EXPECT_LT(d.callpaths[c].parent, static_cast<std::int64_t>(c));
        }
        EXPECT_EQ(d.total_locations, 6u);
        EXPECT_EQ(d.dropped_callpaths, 0u + 1 + 2 + 3 + 4);
    }
    for (int r = 0; r < 5; ++r) EXPECT_EQ(aligned[r].location_offset, static_cast<std::uint64_t>(r)) << r;
    // Rank 4's rows: its deep path's values moved to the job's row of main/work/extra.
    const ProfileData& four = aligned[4];
    std::size_t deep = 4;
    for (std::size_t c = 0; c < 4; ++c) {
        if (four.callpaths[c].region == 3 && four.callpaths[c].parent >= 0 &&
            four.callpaths[static_cast<std::size_t>(four.callpaths[c].parent)].region == 2)
            deep = c;
    }
    ASSERT_LT(deep, 4u);
    EXPECT_EQ(four.metrics[0].counts[deep * 2], 7u);
    EXPECT_EQ(four.metrics[0].counts[deep * 2 + 1], 100u);
    // Rank 0 never visited main/extra: zeros there.
    for (std::size_t c = 0; c < 4; ++c) {
        const auto& cp = aligned[0].callpaths[c];
        if (cp.region == 3 && cp.parent == 0) {
            EXPECT_EQ(aligned[0].metrics[0].counts[c], 0u);
        }
    }
}

}  // namespace
}  // namespace strata::profiling
