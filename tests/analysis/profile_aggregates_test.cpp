// SPDX-License-Identifier: BSD-3-Clause
// Call-path names, the tree index, per-region and per-location sums of a known profile.
#include "profile/profile_aggregates.hpp"

#include <gtest/gtest.h>

#include "profile/profile_reader.hpp"
#include "profile_fixture.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

class ProfileAggregatesTest : public ::testing::Test {
protected:
    Profile read(const FixtureProfile& fixture) {
        const std::string path = dir_.file("profile.h5");
        write_fixture(fixture, path);
        return read_profile(path);
    }

    TempDir dir_;
};

TEST_F(ProfileAggregatesTest, CallPathNames) {
    const Profile p = read(known_profile());
    EXPECT_EQ(callpath_name(p, 0), "main");
    EXPECT_EQ(callpath_name(p, 1), "main/compute/compute");
    EXPECT_EQ(callpath_name(p, 2), "main/compute");
    EXPECT_EQ(callpath_name(p, 3), "main/io");
    EXPECT_EQ(callpath_name(p, 4), "main/compute/compute/n=4");
    EXPECT_EQ(callpath_label(p, 4), "n=4");
    EXPECT_EQ(callpath_label(p, 1), "compute");
}

TEST_F(ProfileAggregatesTest, AllCallPathNamesAtOnceMatchOneByOne) {
    const Profile p = read(known_profile());
    const std::vector<std::string> all = callpath_names(p);  // the file lists a child before its parent
    ASSERT_EQ(all.size(), p.callpaths.size());
    for (std::size_t cp = 0; cp < all.size(); ++cp) EXPECT_EQ(all[cp], callpath_name(p, cp));
}

TEST(PathNamesTest, DeepPathsKeepBothEndsAndCountWhatIsLeftOut) {
    PathNames names;
    std::int64_t parent = -1;
    for (std::size_t d = 0; d < 100000; ++d)
        parent = static_cast<std::int64_t>(names.add(parent, d == 0 ? "main" : "f" + std::to_string(d)));
    // Up to max_labels_in_name labels: the whole name.
    std::string expected = "main";
    for (std::size_t d = 1; d < max_labels_in_name; ++d) expected += "/f" + std::to_string(d);
    EXPECT_EQ(names.name(max_labels_in_name - 1), expected);
    // Beyond: the first and last labels_kept_at_each_end, and the count between.
    const std::string deep = names.name(99999);
    std::string head = "main", tail;
    for (std::size_t d = 1; d < labels_kept_at_each_end; ++d) head += "/f" + std::to_string(d);
    for (std::size_t d = 100000 - labels_kept_at_each_end; d < 100000; ++d) tail += "/f" + std::to_string(d);
    EXPECT_EQ(deep, head + "/" + elision_label(100000 - 2 * labels_kept_at_each_end) + tail);
    EXPECT_LT(deep.size(), 1000u);
    // One label more than fits: the elision stands for the labels beyond both ends.
    const std::string first_elided = names.name(max_labels_in_name);
    const std::string left_out = elision_label(max_labels_in_name + 1 - 2 * labels_kept_at_each_end);
    EXPECT_EQ(first_elided.substr(0, head.size() + left_out.size() + 1), head + "/" + left_out);
    const std::string last = "/f" + std::to_string(max_labels_in_name);
    EXPECT_EQ(first_elided.substr(first_elided.size() - last.size()), last);
}

TEST_F(ProfileAggregatesTest, StringParameterName) {
    FixtureProfile fixture = known_profile();
    fixture.strings.push_back("mode");  // 9
    fixture.strings.push_back("fast");  // 10
    fixture.parameters = {{9, 1}};
    fixture.callpaths[4].string_value = 10;
    const Profile p = read(fixture);
    EXPECT_EQ(p.parameters[0].type, ParameterType::string);
    EXPECT_EQ(callpath_name(p, 4), "main/compute/compute/mode=fast");
}

TEST_F(ProfileAggregatesTest, TreeIndex) {
    const Profile p = read(known_profile());
    const CallTreeIndex tree = index_call_tree(p);
    EXPECT_EQ(tree.roots, (std::vector<std::size_t>{0}));
    EXPECT_EQ(tree.children[0], (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(tree.children[2], (std::vector<std::size_t>{1}));
    EXPECT_EQ(tree.children[1], (std::vector<std::size_t>{4}));
    EXPECT_TRUE(tree.children[3].empty());
    EXPECT_EQ(tree.depth, (std::vector<std::size_t>{0, 2, 1, 1, 3}));
}

TEST_F(ProfileAggregatesTest, RegionAggregatesDoNotCountRecursionTwice) {
    const Profile p = read(known_profile());
    const std::vector<RegionAggregate> regions = aggregate_regions(p);
    ASSERT_EQ(regions.size(), 5u);

    const RegionAggregate& main = regions[1];
    EXPECT_EQ(main.callpaths, 1u);
    EXPECT_EQ(main.visits, (std::vector<std::uint64_t>{1, 1}));
    EXPECT_EQ(main.time_inclusive, (std::vector<double>{10, 8}));
    EXPECT_EQ(main.time_exclusive, (std::vector<double>{2, 3}));

    // compute: main/compute, main/compute/compute and the parameter node below it.
    const RegionAggregate& compute = regions[2];
    EXPECT_EQ(compute.region, 2u);
    EXPECT_EQ(compute.callpaths, 3u);
    EXPECT_EQ(compute.visits, (std::vector<std::uint64_t>{4, 4}));   // the parameter node is no visit
    EXPECT_EQ(compute.time_inclusive, (std::vector<double>{6, 5}));  // outermost only, not 6+3+1 / 5+2+0.5
    EXPECT_EQ(compute.time_exclusive, (std::vector<double>{6, 5}));  // 3+2+1 / 3+1.5+0.5
    EXPECT_EQ(compute.total_visits(), 8u);
    EXPECT_EQ(compute.total_time_inclusive(), 11.0);
    EXPECT_EQ(compute.total_time_exclusive(), 11.0);

    const RegionAggregate& io = regions[3];
    EXPECT_EQ(io.visits, (std::vector<std::uint64_t>{1, 0}));
    EXPECT_EQ(io.total_time_inclusive(), 2.0);
    EXPECT_EQ(io.total_time_exclusive(), 2.0);

    EXPECT_EQ(regions[0].callpaths, 0u);  // the empty region
    EXPECT_EQ(regions[4].callpaths, 0u);  // "unused"
    EXPECT_EQ(regions[4].total_visits(), 0u);
}

TEST_F(ProfileAggregatesTest, RecursionBelowAnotherRegionIsNotNested) {
    // main/io/compute: no compute above it, so its inclusive time counts too.
    FixtureProfile fixture = known_profile();
    fixture.callpaths.push_back({3, 2, -1, 0, -1});  // 5: main/io/compute
    for (auto& m : fixture.metrics) {
        m.rows = 6;
        if (m.integral)
            m.counts.insert(m.counts.end(), {1, 0});
        else
            m.values.insert(m.values.end(), {0.25, 0});
    }
    fixture.metric("time_exclusive").values[6] = 1.75;  // io keeps 2 - 0.25
    const Profile p = read(fixture);
    const RegionAggregate compute = aggregate_regions(p)[2];
    EXPECT_EQ(compute.time_inclusive, (std::vector<double>{6.25, 5}));
    EXPECT_EQ(compute.visits, (std::vector<std::uint64_t>{5, 4}));
}

TEST_F(ProfileAggregatesTest, LocationTotals) {
    const Profile p = read(known_profile());
    const std::vector<LocationTotals> totals = location_totals(p);
    ASSERT_EQ(totals.size(), 2u);
    EXPECT_EQ(totals[0].visits, 6u);
    EXPECT_EQ(totals[0].time_inclusive, 10.0);
    EXPECT_EQ(totals[0].time_exclusive, 10.0);
    EXPECT_EQ(totals[1].visits, 5u);
    EXPECT_EQ(totals[1].time_inclusive, 8.0);
    EXPECT_EQ(totals[1].time_exclusive, 8.0);
    EXPECT_EQ(total_time(p), 18.0);
}

TEST_F(ProfileAggregatesTest, MissingMetricIsAnError) {
    FixtureProfile fixture = known_profile();
    fixture.metrics.pop_back();  // time_exclusive
    const Profile p = read(fixture);
    try {
        aggregate_regions(p);
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()),
                  dir_.file("profile.h5") + ": missing metric /metrics/time_exclusive");
    }
    EXPECT_THROW(location_totals(p), ProfileError);
}

}  // namespace
}  // namespace strata::analysis::test
