// SPDX-License-Identifier: BSD-3-Clause
// The built strata-score run as a subprocess: exact output, messages and exit status.
#include <gtest/gtest.h>

#include "profile_fixture.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

class StrataScoreTest : public ::testing::Test {
protected:
    /// Writes `fixture` as the experiment's profile.h5.
    void write(const FixtureProfile& fixture) { write_fixture(fixture, profile()); }
    std::string profile() const { return dir_.file("profile.h5"); }
    /// The header for the known profile with `experiment` as the experiment.
    static std::string header(const std::string& experiment) {
        return "Experiment:  " + experiment +
               "\n"
               "Written by:  Strata 0.1.0 at 2024-05-06T07:08:09Z\n"
               "Locations:   2 (ranks: 2, CPU threads: 2)\n"
               "Total time:  18.000000 s (sum over locations of the root call paths' inclusive time)\n"
               "Timer:       tsc (2000000000 Hz)\n" +
               estimate + "\n";
    }
    /// The trace estimate of the known profile (trace_estimate.hpp): 11 visits, 2 events and 24
    /// OTF2 bytes each; in the buffer 2 x (1 type + 5 time + 1 region) bytes per visit (every
    /// call path's mean time per visit is more than 128^4 ticks), 6 visits on rank 0.
    static constexpr const char* estimate =
        "Trace:       about 264 bytes of OTF2 events (22 events) if traced; the largest location, rank 0 "
        "thread 0: 144 bytes\n"
        "Memory:      rank 0 needs about 84 bytes of trace buffers; the default STRATA_TOTAL_MEMORY=64M holds "
        "them\n";

    TempDir dir_;
};

const char* const region_table =
    "paradigm  visits    incl(s)    excl(s)  excl(%)  excl/visit(us)  region\n"
    "compiler       8  11.000000  11.000000    61.11      1375000.00  compute\n"
    "compiler       2  18.000000   5.000000    27.78      2500000.00  main\n"
    "user           1   2.000000   2.000000    11.11      2000000.00  io\n";

TEST_F(StrataScoreTest, DefaultIsPerRegion) {
    write(known_profile());
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, header(dir_.path()) + region_table);
}

TEST_F(StrataScoreTest, ProfileFileGivenDirectly) {
    write(known_profile());
    const RunResult r = run_score({profile(), "--by", "region", "--sort=excl"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, header(dir_.path()) + region_table);
}

TEST_F(StrataScoreTest, ByCallPathIsATree) {
    write(known_profile());
    const RunResult r = run_score({"--by", "callpath", dir_.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, header(dir_.path()) +
                         "paradigm  visits    incl(s)   excl(s)  excl(%)  excl/visit(us)  call path\n"
                         "compiler       2  18.000000  5.000000    27.78      2500000.00  main\n"
                         "compiler       5  11.000000  6.000000    33.33      1200000.00    compute\n"
                         "compiler       3   5.000000  3.500000    19.44      1166666.67      compute\n"
                         "compiler       2   1.500000  1.500000     8.33       750000.00        n=4\n"
                         "user           1   2.000000  2.000000    11.11      2000000.00    io\n");
}

TEST_F(StrataScoreTest, Csv) {
    write(known_profile());
    const RunResult r = run_score({dir_.path(), "--csv"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "region,paradigm,visits,time_inclusive_s,time_exclusive_s,time_exclusive_percent,"
              "time_exclusive_per_visit_us\n"
              "compute,compiler,8,11.000000000,11.000000000,61.1111,1375000.000\n"
              "main,compiler,2,18.000000000,5.000000000,27.7778,2500000.000\n"
              "io,user,1,2.000000000,2.000000000,11.1111,2000000.000\n");
}

TEST_F(StrataScoreTest, CsvByCallPath) {
    write(known_profile());
    const RunResult r = run_score({dir_.path(), "--csv", "--by=callpath"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "callpath,depth,paradigm,visits,time_inclusive_s,time_exclusive_s,time_exclusive_percent,"
              "time_exclusive_per_visit_us\n"
              "main,0,compiler,2,18.000000000,5.000000000,27.7778,2500000.000\n"
              "main/compute,1,compiler,5,11.000000000,6.000000000,33.3333,1200000.000\n"
              "main/compute/compute,2,compiler,3,5.000000000,3.500000000,19.4444,1166666.667\n"
              "main/compute/compute/n=4,3,compiler,2,1.500000000,1.500000000,8.3333,750000.000\n"
              "main/io,1,user,1,2.000000000,2.000000000,11.1111,2000000.000\n");
}

TEST_F(StrataScoreTest, CsvQuotesNames) {
    FixtureProfile fixture = known_profile();
    fixture.strings[3] = "io, \"buffered\"";
    write(fixture);
    const RunResult r = run_score({dir_.path(), "--csv", "--sort", "visits", "--top", "1"});
    EXPECT_EQ(r.status, 0) << r.err;
    const RunResult last = run_score({dir_.path(), "--csv", "--sort", "incl"});
    EXPECT_NE(last.out.find("\n\"io, \"\"buffered\"\"\",user,1,"), std::string::npos) << last.out;
}

TEST_F(StrataScoreTest, SortAndTop) {
    write(known_profile());
    const RunResult visits = run_score({dir_.path(), "--sort", "visits", "--top", "2"});
    EXPECT_EQ(visits.status, 0) << visits.err;
    EXPECT_EQ(visits.out, header(dir_.path()) +
                              "paradigm  visits    incl(s)    excl(s)  excl(%)  excl/visit(us)  region\n"
                              "compiler       8  11.000000  11.000000    61.11      1375000.00  compute\n"
                              "compiler       2  18.000000   5.000000    27.78      2500000.00  main\n"
                              "(1 more region not shown; --top 2)\n");
    const RunResult inclusive = run_score({dir_.path(), "--sort=incl", "--csv"});
    EXPECT_EQ(inclusive.out.substr(inclusive.out.find('\n') + 1, 5), "main,");
}

TEST_F(StrataScoreTest, TiesAreBrokenByName) {
    FixtureProfile fixture = known_profile();
    // io gets main's exclusive time and visits: "io" sorts before "main",
    // although main comes first in the region table.
    fixture.metric("time_exclusive").values = {2, 3, 2, 1.5, 3, 3, 5, 0, 1, 0.5};
    fixture.metric("visits").counts = {1, 1, 2, 1, 2, 3, 2, 0, 1, 1};
    write(fixture);
    const RunResult r = run_score({dir_.path(), "--csv"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "region,paradigm,visits,time_inclusive_s,time_exclusive_s,time_exclusive_percent,"
              "time_exclusive_per_visit_us\n"
              "compute,compiler,8,11.000000000,11.000000000,52.3810,1375000.000\n"
              "io,user,2,2.000000000,5.000000000,23.8095,2500000.000\n"
              "main,compiler,2,18.000000000,5.000000000,23.8095,2500000.000\n");
}

TEST_F(StrataScoreTest, DroppedCallPathsAreReported) {
    FixtureProfile fixture = known_profile();
    fixture.dropped_callpaths = 7;
    write(fixture);
    const std::string warning =
        "Warning: 7 call paths were not recorded because the profile ran out of memory; the profile is "
        "incomplete. Raise STRATA_TOTAL_MEMORY and measure again.\n";
    const RunResult text = run_score({dir_.path()});
    EXPECT_EQ(text.status, 0) << text.err;
    std::string expected = header(dir_.path());
    expected.insert(expected.size() - 1, "\n" + warning);
    EXPECT_EQ(text.out, expected + region_table);
    const RunResult csv = run_score({dir_.path(), "--csv"});
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(csv.err, warning);  // stdout stays pure CSV
    EXPECT_EQ(csv.out.rfind("region,", 0), 0u);
}

TEST_F(StrataScoreTest, EmptyProfile) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths.clear();
    for (auto& m : fixture.metrics) {
        m.rows = 0;
        m.counts.clear();
        m.values.clear();
    }
    write(fixture);
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Total time:  0.000000 s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  region\n(no regions)\n"), std::string::npos) << r.out;
}

// ---- unreadable experiments: the reader's message, exit status 1 -----------

TEST_F(StrataScoreTest, MissingProfile) {
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "strata-score: " + profile() + ": cannot open: No such file or directory\n");
}

TEST_F(StrataScoreTest, NotHdf5) {
    dir_.write("profile.h5", "not HDF5\n");
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "strata-score: " + profile() + ": not an HDF5 file\n");
}

TEST_F(StrataScoreTest, WrongFormat) {
    FixtureProfile fixture = known_profile();
    fixture.format = "cube";
    write(fixture);
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "strata-score: " + profile() +
                         ": not a Strata profile (attribute format is \"cube\", expected \"strata-profile\")\n");
}

TEST_F(StrataScoreTest, RegionOutOfRange) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[1].region = 77;
    write(fixture);
    const RunResult r = run_score({dir_.path(), "--by", "callpath"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err,
              "strata-score: " + profile() + ": /definitions/callpaths row 1: region 77 is out of range (5 regions)\n");
}

TEST_F(StrataScoreTest, MissingMetric) {
    FixtureProfile fixture = known_profile();
    fixture.metrics.erase(fixture.metrics.begin() + 1);  // time_inclusive
    write(fixture);
    const RunResult r = run_score({dir_.path()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "strata-score: " + profile() + ": missing metric /metrics/time_inclusive\n");
}

// ---- bad arguments: usage, exit status 2 -----------------------------------

TEST_F(StrataScoreTest, BadArguments) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no experiment directory or profile.h5 given"},
        {{"x", "--by", "tree"}, "--by must be callpath or region, not 'tree'"},
        {{"x", "--sort", "name"}, "--sort must be excl, incl or visits, not 'name'"},
        {{"x", "--top", "ten"}, "--top needs a positive number, not 'ten'"},
        {{"x", "--top"}, "--top needs a value"},
        {{"x", "--verbose"}, "unknown option '--verbose'"},
        {{"x", "y"}, "more than one experiment given ('x' and 'y')"},
    };
    for (const auto& [args, problem] : cases) {
        const RunResult r = run_score(args);
        EXPECT_EQ(r.status, 2) << problem;
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(r.err.rfind("strata-score: " + problem + "\n\nusage: strata-score <experiment-dir", 0), 0u)
            << r.err;
    }
}

TEST_F(StrataScoreTest, Help) {
    const RunResult r = run_score({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out.rfind("usage: strata-score", 0), 0u);
    EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace strata::analysis::test
