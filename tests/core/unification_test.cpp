// SPDX-License-Identifier: BSD-3-Clause
// Unification: merge by content, the tree reduction over 1..7 ranks, the maps.
#include <gtest/gtest.h>

#include <mutex>

#include "core/unification.hpp"
#include "thread_group.hpp"

namespace strata::unification {
namespace {

/// Definitions of "rank r": shared regions, a rank-specific one, different order.
DefinitionsSnapshot local_of(int rank) {
    DefinitionsSnapshot d;
    auto str = [&](const std::string& s) {
        for (std::size_t i = 0; i < d.strings.size(); ++i) if (d.strings[i] == s) return static_cast<StringHandle>(i + 1);
        d.strings.push_back(s);
        return static_cast<StringHandle>(d.strings.size());
    };
    auto region = [&](const std::string& name, const std::string& file, std::uint32_t line) {
        RegionDefinition r;
        r.name = str(name);
        r.file = str(file);
        r.line = line;
        r.paradigm = Paradigm::user;
        r.role = RegionRole::code;
        d.regions.push_back(r);
    };
    if (rank % 2 == 0) {
        region("main", "app.c", 10);
        region("compute", "app.c", 20);
    } else {
        region("compute", "app.c", 20);  // same region, other local handle
        region("main", "app.c", 10);
    }
    region("rank_" + std::to_string(rank), "", 0);
    d.parameters.push_back(ParameterDefinition{str("n"), events::ParameterType::integer});
    // The same counters on every rank (the same environment).
    d.metrics.push_back(MetricDefinition{str("perf::TASK-CLOCK"), str("ns"), str("task clock"), 0, 0});
    d.metrics.push_back(MetricDefinition{str("ru_maxrss"), str("KiB"), str("peak"), 1, 1});
    return d;
}

TEST(Unification, SerializeRoundTrip) {
    Unified d = from_local(local_of(3));
    Unified back;
    ASSERT_TRUE(deserialize(serialize(d), &back));
    EXPECT_EQ(back.strings, d.strings);
    ASSERT_EQ(back.regions.size(), d.regions.size());
    EXPECT_EQ(back.regions[1].line, d.regions[1].line);
    ASSERT_EQ(back.metrics.size(), 2u);
    EXPECT_EQ(back.strings[back.metrics[1].unit], "KiB");
    EXPECT_EQ(back.metrics[1].mode, 1);
    EXPECT_FALSE(deserialize(serialize(d).substr(0, 7), &back));
}

TEST(Unification, AloneTheGlobalDefinitionsAreTheLocalOnes) {
    const DefinitionsSnapshot local = local_of(0);
    const Unified u = unify(local, nullptr);
    ASSERT_EQ(u.regions.size(), 3u);
    for (std::size_t i = 0; i < local.regions.size(); ++i) {
        EXPECT_EQ(u.strings[u.regions[u.region_map[i]].name], local.strings[local.regions[i].name - 1]);
    }
    EXPECT_EQ(u.strings[0], "");
}

class UnificationRanks : public ::testing::TestWithParam<int> {};

TEST_P(UnificationRanks, EveryRankGetsTheSameGlobalTableAndCorrectMaps) {
    const int size = GetParam();
    testing::ThreadWorld world(size);
    std::mutex mutex;
    std::vector<Unified> results(size);
    world.run([&](events::ProcessGroup& group) {
        Unified u = unify(local_of(group.rank()), &group);
        std::lock_guard<std::mutex> lock(mutex);
        results[group.rank()] = std::move(u);
    });
    // main, compute and one region per rank; "n" once.
    const std::size_t expected_regions = 2 + static_cast<std::size_t>(size);
    for (int r = 0; r < size; ++r) {
        const Unified& u = results[r];
        EXPECT_EQ(serialize(u), serialize(results[0])) << "rank " << r << " disagrees";
        ASSERT_EQ(u.regions.size(), expected_regions);
        ASSERT_EQ(u.parameters.size(), 1u);
        const DefinitionsSnapshot local = local_of(r);
        for (std::size_t i = 0; i < local.regions.size(); ++i) {
            const RegionDefinition& g = u.regions[u.region_map[i]];
            EXPECT_EQ(u.strings[g.name], local.strings[local.regions[i].name - 1]) << "rank " << r;
            EXPECT_EQ(g.line, local.regions[i].line);
        }
        EXPECT_EQ(u.strings[u.parameters[u.parameter_map[0]].name], "n");
        ASSERT_EQ(u.metrics.size(), 2u) << "rank " << r;
        EXPECT_EQ(u.metric_map, (std::vector<std::uint32_t>{0, 1})) << "rank " << r;
        EXPECT_EQ(u.strings[u.metrics[0].name], "perf::TASK-CLOCK");
        EXPECT_EQ(u.strings[u.metrics[1].description], "peak");
        for (std::size_t h = 1; h < u.string_map.size(); ++h) {
            EXPECT_EQ(u.strings[u.string_map[h]], local.strings[h - 1]);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, UnificationRanks, ::testing::Values(1, 2, 3, 4, 5, 7, 8));

}  // namespace
}  // namespace strata::unification
