// SPDX-License-Identifier: BSD-3-Clause
// calltree.json (analyze/calltree_report.hpp) on calltree_profile(): every
// sum, mean, extreme and per-location value against the fixture's matrices,
// computed here from the fixture without the analysis; the tree order, the
// heatmap's figures by hand; and the caps: what they keep (callers with
// their callees, the largest first) and the notes of what they cut.
#include "analyze/calltree_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analyze_fixtures.hpp"
#include "profile/profile_reader.hpp"
#include "report/html_report.hpp"
#include "report/json_value.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

using report::JsonValue;
using report::parse_json;
using report::to_json;

/// calltree.json of `fixture`, written as profile.h5 and read back.
JsonValue calltree_of(const FixtureProfile& fixture, const CallTreeCaps& caps = {}) {
    TempDir dir;
    const std::string path = dir.file("profile.h5");
    write_fixture(fixture, path);
    return parse_json(calltree_json(read_profile(path), caps));
}

const JsonValue* callpath_with_id(const JsonValue& tree, std::size_t id) {
    for (const JsonValue& cp : tree.find("callpaths")->items)
        if (cp.find("id")->display() == std::to_string(id)) return &cp;
    return nullptr;
}

std::vector<std::string> ids_in_order(const JsonValue& tree) {
    std::vector<std::string> ids;
    for (const JsonValue& cp : tree.find("callpaths")->items) ids.push_back(cp.find("id")->display());
    return ids;
}

/// The value of a fixture matrix as a double.
double value_at(const FixtureProfile::Matrix& m, std::size_t row, std::size_t column) {
    const std::size_t i = row * m.columns + column;
    return m.integral ? static_cast<double>(m.counts[i]) : m.values[i];
}

TEST(CallTreeReport, EveryValueMatchesTheProfile) {
    FixtureProfile fixture = calltree_profile();
    const JsonValue tree = calltree_of(fixture);
    ASSERT_EQ(tree.find("report")->text, "calltree");
    EXPECT_EQ(tree.find("callpaths_total")->display(), "7");
    EXPECT_EQ(tree.find("locations_total")->display(), "4");
    EXPECT_EQ(tree.find("shown_locations")->display(), "4");
    EXPECT_TRUE(tree.find("cut")->items.empty());

    // The times and visits first, then every other metric of the file by name.
    std::vector<std::string> names;
    for (const JsonValue& m : tree.find("metrics")->items) names.push_back(m.find("name")->text);
    EXPECT_EQ(names,
              (std::vector<std::string>{"time_inclusive", "time_exclusive", "visits", "bytes_sent",
                                        "papi:PAPI_TOT_INS_exclusive", "papi:PAPI_TOT_INS_inclusive"}));
    EXPECT_EQ(tree.find("metrics")->items[3].find("unit")->text, "bytes");

    // Each location the file names, with its kind.
    const std::vector<JsonValue>& locations = tree.find("locations")->items;
    ASSERT_EQ(locations.size(), 4u);
    EXPECT_EQ(to_json(locations[1]),
              R"({"location": 1, "rank": 0, "thread": 1, "type": "cpu_thread", "name": "rank 0 thread 1"})");
    EXPECT_EQ(locations[3].find("type")->text, "gpu_stream");

    // Every call path, every metric, every location: against the fixture.
    const FixtureProfile::Matrix& visits = fixture.metric("visits");
    const FixtureProfile::Matrix& inclusive = fixture.metric("time_inclusive");
    ASSERT_EQ(tree.find("callpaths")->items.size(), 7u);
    for (std::size_t cp = 0; cp < 7; ++cp) {
        SCOPED_TRACE("call path " + std::to_string(cp));
        const JsonValue* row = callpath_with_id(tree, cp);
        ASSERT_NE(row, nullptr);
        std::vector<std::size_t> participants;
        for (std::size_t l = 0; l < 4; ++l)
            if (value_at(visits, cp, l) > 0 || value_at(inclusive, cp, l) > 0) participants.push_back(l);
        EXPECT_EQ(row->find("participants")->display(), std::to_string(participants.size()));
        for (std::size_t m = 0; m < names.size(); ++m) {
            SCOPED_TRACE(names[m]);
            const FixtureProfile::Matrix& matrix = fixture.metric(names[m]);
            double sum = 0, part = 0;
            for (std::size_t l = 0; l < 4; ++l) {
                sum += value_at(matrix, cp, l);
                EXPECT_EQ(row->find("values")->items[m].items[l].number(NAN), value_at(matrix, cp, l));
            }
            for (std::size_t l : participants) part += value_at(matrix, cp, l);
            EXPECT_EQ(row->find("sum")->items[m].number(NAN), sum);
            EXPECT_EQ(row->find("mean")->items[m].number(NAN),
                      part / static_cast<double>(participants.size()));
            // The largest and smallest participants, ties by location.
            std::vector<std::size_t> by_value = participants;
            std::stable_sort(by_value.begin(), by_value.end(), [&](std::size_t a, std::size_t b) {
                return value_at(matrix, cp, a) > value_at(matrix, cp, b);
            });
            const std::vector<JsonValue>& largest = row->find("largest")->items[m].items;
            ASSERT_EQ(largest.size(), std::min<std::size_t>(3, participants.size()));
            for (std::size_t i = 0; i < largest.size(); ++i) {
                EXPECT_EQ(largest[i].items[0].display(), std::to_string(by_value[i]));
                EXPECT_EQ(largest[i].items[1].number(NAN), value_at(matrix, cp, by_value[i]));
            }
            std::stable_sort(by_value.begin(), by_value.end(), [&](std::size_t a, std::size_t b) {
                return value_at(matrix, cp, a) < value_at(matrix, cp, b);
            });
            const std::vector<JsonValue>& smallest = row->find("smallest")->items[m].items;
            for (std::size_t i = 0; i < smallest.size(); ++i)
                EXPECT_EQ(smallest[i].items[0].display(), std::to_string(by_value[i]));
        }
    }

    // By hand: the tree order (each node before its children, the larger sibling first), names, sums.
    EXPECT_EQ(ids_in_order(tree), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6"}));
    const JsonValue* odd = callpath_with_id(tree, 2);
    EXPECT_EQ(odd->find("label")->text, odd_region_name);
    EXPECT_EQ(odd->find("callpath")->text, std::string("main/solve/") + odd_region_name);
    EXPECT_EQ(odd->find("parent")->display(), "1");
    EXPECT_EQ(callpath_with_id(tree, 3)->find("callpath")->text, "main/solve/n=4");
    EXPECT_EQ(callpath_with_id(tree, 3)->find("region")->text, "solve");
    EXPECT_EQ(callpath_with_id(tree, 0)->find("parent")->display(), "");  // null
    EXPECT_EQ(to_json(*callpath_with_id(tree, 1)->find("sum")), "[7.125, 5, 4, 0, 4000, 4047]");
    EXPECT_EQ(to_json(callpath_with_id(tree, 4)->find("largest")->items[3]), "[[0, 4096], [2, 1024]]");
    EXPECT_EQ(to_json(callpath_with_id(tree, 0)->find("values")->items[5]), "[1117, 0, 3080, 0]");
    EXPECT_EQ(to_json(callpath_with_id(tree, 6)->find("mean")->items[2]), "5");

    // The heatmap: CPU threads only (the kernel has none), by exclusive time, ties by name.
    const JsonValue* heatmap = tree.find("heatmap");
    EXPECT_EQ(to_json(*heatmap->find("ranks")), "[0, 1]");
    EXPECT_EQ(heatmap->find("regions_total")->display(), "5");
    std::vector<std::string> rows;
    for (const JsonValue& r : heatmap->find("rows")->items)
        rows.push_back(r.find("region")->text + " " + r.find("total_s")->display() + " " +
                       to_json(*r.find("ranks_s")));
    EXPECT_EQ(rows, (std::vector<std::string>{
                        "solve 5.125 [2.125, 3]", std::string(odd_region_name) + " 2 [0.5, 1.5]",
                        "worker 2 [2, 0]", "main 1.5 [1, 0.5]", "MPI_Send 1 [0.25, 0.75]"}));
}

TEST(CallTreeReport, CapsKeepCallersAndSayWhatTheyCut) {
    CallTreeCaps caps;
    caps.callpaths = 3;
    caps.locations = 2;
    caps.values = 12;  // 2 locations x 6 metrics: one call path's worth
    caps.heatmap_regions = 2;
    caps.heatmap_ranks = 1;
    const JsonValue tree = calltree_of(calltree_profile(), caps);
    // By inclusive time: main 9.625, solve 7.125, then worker 2 before <odd> 2 (the caller first on a tie).
    EXPECT_EQ(ids_in_order(tree), (std::vector<std::string>{"0", "1", "5"}));
    EXPECT_EQ(to_json(callpath_with_id(tree, 0)->find("values")->items[1]), "[1, 0]");
    EXPECT_TRUE(callpath_with_id(tree, 1)->find("values")->is_null());
    // Sums and extremes stay over all locations.
    EXPECT_EQ(to_json(*callpath_with_id(tree, 1)->find("sum")), "[7.125, 5, 4, 0, 4000, 4047]");
    EXPECT_EQ(to_json(callpath_with_id(tree, 1)->find("largest")->items[1]), "[[2, 3], [0, 2]]");
    // The locations the extremes name are listed beyond the first two.
    std::vector<std::string> listed;
    for (const JsonValue& l : tree.find("locations")->items) listed.push_back(l.find("location")->display());
    EXPECT_EQ(listed, (std::vector<std::string>{"0", "1", "2"}));
    const std::vector<JsonValue>& cut = tree.find("cut")->items;
    ASSERT_EQ(cut.size(), 5u) << to_json(*tree.find("cut"));
    EXPECT_EQ(cut[0].text,
              "call paths: the 3 with most inclusive time (with their callers) of 7 (caps.callpaths); the 4 "
              "left out "
              "hold 3.625 s of exclusive time (29.9% of all); loadbalance.csv and profile.cubex have every "
              "call path");
    EXPECT_EQ(cut[1].text,
              "locations: values on the first 2 of 4 CPU threads and GPU streams (caps.locations, in "
              "the profile's order); sum, mean, largest and smallest are over all of them");
    EXPECT_EQ(cut[2].text,
              "values: per-location values for the first 1 call paths by inclusive time (caps.values); "
              "the other 2 have sum, mean, largest and smallest only");
    EXPECT_EQ(cut[3].text,
              "heatmap: the 2 regions with most exclusive time of 5 with any (caps.heatmap_regions)");
    EXPECT_EQ(cut[4].text, "heatmap: the first 1 of 2 ranks (caps.heatmap_ranks)");
    EXPECT_EQ(
        to_json(*tree.find("heatmap")->find("rows")),
        std::string(R"([{"region": "solve", "paradigm": "user", "total_s": 5.125, "ranks_s": [2.125]}, )") +
            R"({"region": "</script><img src=x onerror=alert(1)>", "paradigm": "user", )"
            R"("total_s": 2, "ranks_s": [0.5]}])");
}

TEST(CallTreeReport, ADeepRecursionKeepsItsTopWithinTheCap) {
    // 5000 levels: the 1000 outermost (most inclusive time) are kept, each with its caller.
    const JsonValue tree = calltree_of(deep_recursion_profile(5000, 0.001));
    const std::vector<JsonValue>& callpaths = tree.find("callpaths")->items;
    ASSERT_EQ(callpaths.size(), 1000u);
    for (std::size_t i = 0; i < callpaths.size(); ++i) {
        EXPECT_EQ(callpaths[i].find("id")->display(), std::to_string(i));
        EXPECT_EQ(callpaths[i].find("depth")->display(), std::to_string(i));
    }
    // Per-location values for all: 1000 call paths x 1 location x 3 metrics is within the cap.
    EXPECT_FALSE(callpaths.back().find("values")->is_null());
    EXPECT_EQ(tree.find("cut")->items.size(), 1u);
}

TEST(CallTreeReport, ALargeProfileStaysWithinTheStatedSize) {
    // 2000 call paths of 2000 regions on 300 ranks, times with nine digits: every cap cuts.
    ProfileBuilder b;
    for (std::uint32_t r = 0; r < 300; ++r) b.location(r, 0);
    const std::size_t root = b.callpath(-1, b.region("main", paradigm::user, role::function));
    for (std::size_t i = 1; i < 2000; ++i)
        b.callpath(static_cast<std::int64_t>(root),
                   b.region("f" + std::to_string(i), paradigm::compiler, role::function));
    for (std::size_t cp = 0; cp < 2000; ++cp)
        for (std::size_t l = 0; l < 300; ++l)
            b.set(cp, l, 1 + (cp + l) % 97,
                  1e-3 * static_cast<double>(1 + (cp * 7919 + l * 104729) % 1000) / 1024.0);
    TempDir dir;
    const std::string path = dir.file("profile.h5");
    write_fixture(b.build(), path);
    const std::string text = calltree_json(read_profile(path));
    EXPECT_LT(text.size(), 12u << 20) << text.size();
    // The page holds it once, with its table and heatmap (6.6 MB and 8.1 MB when written).
    EXPECT_LT(report::html_report({{"calltree.json", text}}).size(), 12u << 20);
    const JsonValue tree = parse_json(text);
    const std::vector<JsonValue>& callpaths = tree.find("callpaths")->items;
    ASSERT_EQ(callpaths.size(), 1000u);
    std::size_t with_values = 0;
    for (const JsonValue& cp : callpaths) with_values += cp.find("values")->is_null() ? 0 : 1;
    EXPECT_EQ(with_values, 500000u / (256 * 3));
    EXPECT_EQ(callpaths.front().find("values")->items[0].items.size(), 256u);
    EXPECT_EQ(tree.find("cut")->items.size(), 5u);
    EXPECT_EQ(tree.find("heatmap")->find("rows")->items.size(), 30u);
    EXPECT_EQ(tree.find("heatmap")->find("ranks")->items.size(), 256u);
}

}  // namespace
}  // namespace strata::analysis::test
