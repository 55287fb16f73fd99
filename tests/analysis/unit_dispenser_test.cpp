// SPDX-License-Identifier: BSD-3-Clause
// MpiUnitDispenser under mpirun (programs/unit_dispenser_check.cpp): every
// unit goes to exactly one rank, each rank's in ascending order, and a rank
// that stops leaves its share to the others (or, when all stop, to rank 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

/// "rank R: units" lines by R, and the "left:" line under -1.
std::map<int, std::vector<std::int64_t>> run_check(int ranks, const std::string& scenario, int units) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    const RunResult r =
        run_program(STRATA_MPIEXEC, {"-np", std::to_string(ranks), "--oversubscribe",
                                     STRATA_UNIT_DISPENSER_CHECK, scenario, std::to_string(units)});
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<int, std::vector<std::int64_t>> taken;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const int who = line.rfind("rank ", 0) == 0 ? std::stoi(line.substr(5, colon - 5)) : -1;
        std::istringstream numbers(line.substr(colon + 1));
        auto& list = taken[who];
        for (std::int64_t u; numbers >> u;) list.push_back(u);
    }
    return taken;
}

std::vector<std::int64_t> all_units(int n) {
    std::vector<std::int64_t> units;
    for (int u = 0; u < n; ++u) units.push_back(u);
    return units;
}

TEST(UnitDispenserTest, EveryUnitGoesToOneRankInAscendingOrder) {
    for (const int ranks : {1, 3}) {
        const auto taken = run_check(ranks, "all", 20);
        ASSERT_EQ(taken.size(), static_cast<std::size_t>(ranks) + 1) << ranks;
        std::multiset<std::int64_t> seen;
        for (int r = 0; r < ranks; ++r) {
            const auto& list = taken.at(r);
            EXPECT_TRUE(std::is_sorted(list.begin(), list.end())) << "rank " << r;
            seen.insert(list.begin(), list.end());
        }
        EXPECT_EQ(std::vector<std::int64_t>(seen.begin(), seen.end()), all_units(20)) << ranks << " ranks";
        EXPECT_TRUE(taken.at(-1).empty());
    }
}

TEST(UnitDispenserTest, RanksThatStopLeaveTheirUnitsToTheOthers) {
    const auto taken = run_check(3, "stop", 20);
    ASSERT_EQ(taken.size(), 4u);
    EXPECT_TRUE(taken.at(0).empty());   // rank 0 stopped at once, and still handed out every unit
    EXPECT_EQ(taken.at(1).size(), 1u);  // rank 1 stopped after its first
    std::vector<std::int64_t> seen = taken.at(1);
    seen.insert(seen.end(), taken.at(2).begin(), taken.at(2).end());
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, all_units(20));
    EXPECT_TRUE(taken.at(-1).empty());
}

TEST(UnitDispenserTest, UnitsGoOutInTheOrderGiven) {
    const auto taken = run_check(3, "reverse", 20);
    ASSERT_EQ(taken.size(), 4u);
    std::vector<std::int64_t> seen;
    for (int r = 0; r < 3; ++r) {
        const auto& list = taken.at(r);
        EXPECT_TRUE(std::is_sorted(list.rbegin(), list.rend())) << "rank " << r;  // largest first
        seen.insert(seen.end(), list.begin(), list.end());
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, all_units(20));
    // Stopped at once: rank 0 is left with them in that order.
    const auto left = run_check(2, "stop-all-reverse", 5);
    EXPECT_EQ(left.at(-1), (std::vector<std::int64_t>{4, 3, 2, 1, 0}));
}

TEST(UnitDispenserTest, WhenEveryRankStopsRankZeroIsLeftWithAllUnits) {
    const auto taken = run_check(3, "stop-all", 7);
    ASSERT_EQ(taken.size(), 4u);
    for (int r = 0; r < 3; ++r) EXPECT_TRUE(taken.at(r).empty()) << r;
    EXPECT_EQ(taken.at(-1), all_units(7));
}

}  // namespace
}  // namespace strata::analysis::test
