// SPDX-License-Identifier: BSD-3-Clause
// strata-score's filter support: the suggested functions, patterns that read
// back as exactly their name, and the built tool with --filter and
// --suggest-filter (files, messages, exit status).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "filter/filter_rules.hpp"
#include "profile/profile_reader.hpp"
#include "profile_fixture.hpp"
#include "score/filter_suggestion.hpp"
#include "score/trace_estimate.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

/// One location; main calls five functions and MPI_Send:
///
///   region                         paradigm  visits     incl(s)   µs per visit
///   main                           compiler        1   10
///   leaf                           compiler  1000000    0.5        0.5
///   operator*(A const&, A const&)  compiler   500000    0.25       0.5
///   slow                           compiler      100    1      10000
///   rare                           compiler       10    2^-20      0.1  (10 of 2500111 visits)
///   MPI_Send                       mpi       1000000    0.125      0.125
FixtureProfile short_calls_profile() {
    FixtureProfile p;
    p.number_of_locations = 1;
    p.strings = {"", "main", "leaf", "operator*(A const&, A const&)", "slow", "rare", "MPI_Send", "main.c",
                 "rank 0 thread 0"};
    // paradigm: 2 compiler, 3 mpi; role: 1 function.
    p.regions = {{0, 0, 0, 0, 0, 0},  {1, 7, 1, 2, 1, 0}, {2, 7, 2, 2, 1, 0}, {3, 7, 3, 2, 1, 0},
                 {4, 7, 4, 2, 1, 0},  {5, 7, 5, 2, 1, 0}, {6, 0, 0, 3, 1, 0}};
    p.locations = {{0, 0, 0, 0, 8}};
    p.callpaths = {{-1, 1, -1, 0, -1}, {0, 2, -1, 0, -1}, {0, 3, -1, 0, -1},
                   {0, 4, -1, 0, -1},  {0, 5, -1, 0, -1}, {0, 6, -1, 0, -1}};
    const double rare = 1.0 / 1048576.0;
    FixtureProfile::Matrix visits{"visits", "count", "number of times the call path was entered", true, 6, 1,
                                  {1, 1000000, 500000, 100, 10, 1000000}, {}};
    FixtureProfile::Matrix inclusive{"time_inclusive", "s", "time in the call path including its callees", false, 6, 1,
                                     {}, {10, 0.5, 0.25, 1, rare, 0.125}};
    FixtureProfile::Matrix exclusive{"time_exclusive", "s", "time in the call path without its callees", false, 6, 1,
                                     {}, {10 - 0.5 - 0.25 - 1 - rare - 0.125, 0.5, 0.25, 1, rare, 0.125}};
    p.metrics = {visits, inclusive, exclusive};
    return p;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class FilterSuggestionTest : public ::testing::Test {
protected:
    void SetUp() override { write_fixture(short_calls_profile(), dir_.file("profile.h5")); }
    TempDir dir_;
};

TEST_F(FilterSuggestionTest, ShortAndFrequentFunctionsOnly) {
    const Profile profile = read_profile(dir_.file("profile.h5"));
    const FilterSuggestion s = suggest_filter(profile, FilterCriteria{});
    ASSERT_EQ(s.regions.size(), 2u);  // not slow (long), rare (few visits), MPI_Send (not a function)
    EXPECT_EQ(s.regions[0].name, "leaf");
    EXPECT_EQ(s.regions[0].visits, 1000000u);
    EXPECT_DOUBLE_EQ(s.regions[0].us_per_visit, 0.5);
    EXPECT_EQ(s.regions[1].name, "operator*(A const&, A const&)");
    EXPECT_EQ(s.visits, 1500000u);
    EXPECT_EQ(s.all_visits, 2500111u);

    FilterCriteria strict;
    strict.max_us_per_visit = 0.4;  // neither leaf nor operator*
    EXPECT_TRUE(suggest_filter(profile, strict).regions.empty());
    FilterCriteria every_share;
    every_share.min_visit_percent = 0;  // rare too
    ASSERT_EQ(suggest_filter(profile, every_share).regions.size(), 3u);
    EXPECT_EQ(suggest_filter(profile, every_share).regions[2].name, "rare");
}

TEST(FilterSuggestionMpiTest, PollingCallsAreSuggestedOtherMpiCallsAreNot) {
    // short_calls_profile() with an MPI_Testany polling loop: 800000 visits of 0.125 us.
    FixtureProfile p = short_calls_profile();
    p.strings.push_back("MPI_Testany");
    p.regions.push_back({9, 0, 0, 3, 1, 0});
    p.callpaths.push_back({0, 7, -1, 0, -1});
    for (FixtureProfile::Matrix& m : p.metrics) {
        m.rows = 7;
        if (m.name == "visits") m.counts.push_back(800000);
        if (m.name != "visits") m.values.push_back(0.1);
    }
    p.metrics[2].values[0] -= 0.1;  // main's exclusive time
    TempDir dir;
    write_fixture(p, dir.file("profile.h5"));
    const Profile profile = read_profile(dir.file("profile.h5"));
    const FilterSuggestion s = suggest_filter(profile, FilterCriteria{});
    ASSERT_EQ(s.regions.size(), 3u);  // MPI_Send, short and frequent too, stays: the wait states need it
    EXPECT_EQ(s.regions[0].name, "leaf");
    EXPECT_EQ(s.regions[1].name, "MPI_Testany");
    EXPECT_EQ(s.regions[2].name, "operator*(A const&, A const&)");
    // The filter's MPI rules are those naming MPI functions, as the MPI adapter applies them.
    const filter::FilterFile all =
        filter::parse_filter_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *\n INCLUDE main\nSCOREP_REGION_NAMES_END\n", "a");
    const filter::FilterFile polling =
        filter::parse_filter_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE MPI_Test*\nSCOREP_REGION_NAMES_END\n", "b");
    EXPECT_FALSE(filtered_out(all, profile, 6));  // MPI_Send
    EXPECT_FALSE(filtered_out(all, profile, 7));  // MPI_Testany
    EXPECT_TRUE(filtered_out(all, profile, 2));   // leaf
    EXPECT_FALSE(filtered_out(polling, profile, 6));
    EXPECT_TRUE(filtered_out(polling, profile, 7));
    EXPECT_EQ(all.mpi_rules().rules.size(), 0u);
    ASSERT_EQ(polling.mpi_rules().rules.size(), 1u);
    EXPECT_EQ(polling.mpi_rules().rules[0].pattern, "MPI_Test*");
}

TEST(LiteralFilterPatternTest, ReadsBackAsExactlyTheName) {
    const std::vector<std::string> names = {
        "operator*(A const&, A const&)", "std::vector<int, std::allocator<int> >::size() const",
        "f[3]?", "a#b", "back\\slash", "EXCLUDE", "SCOREP_REGION_NAMES_END", "plain", "tab\there"};
    std::string text = "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\n";
    for (const std::string& name : names) text += "    " + literal_filter_pattern(name) + "  # a comment\n";
    text += "SCOREP_REGION_NAMES_END\n";
    const strata::filter::FilterFile filter = strata::filter::parse_filter_text(text, "suggested");
    ASSERT_EQ(filter.rules.size(), names.size());
    for (const std::string& name : names) EXPECT_TRUE(filter.region_excluded(name, "")) << name;
    // Exactly: no wildcard survives.
    for (const char* other : {"operator+(A const&, A const&)", "f33", "f[3]x", "a", "backXslash", "INCLUDE", "plainer"})
        EXPECT_FALSE(filter.region_excluded(other, "")) << other;
}

TEST_F(FilterSuggestionTest, ToolWritesTheFileAndSaysWhatItLeavesOut) {
    const std::string file = dir_.file("suggested.filter");
    const RunResult r = run_score({dir_.path(), "--top", "1", "--suggest-filter", file});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\nSuggested filter written to " + file +
                         ": it leaves out 2 functions (leaf, operator*(A const&, A const&)) with 1500000 of "
                         "2500111 visits (60.0%; mean inclusive time per visit at most 1 us, at least 1% of all "
                         "visits). Measure again with STRATA_FILTERING_FILE=" +
                         file + ", or build with strata --instrument-filter=" + file + ".\n"),
              std::string::npos)
        << r.out;
    const std::string text = slurp(file);
    EXPECT_NE(text.find("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\n    leaf  # 1000000 visits, 0.5 us per visit\n"
                        "    operator\\*(A\\ const&,\\ A\\ const&)  # 500000 visits, 0.5 us per visit\n"
                        "SCOREP_REGION_NAMES_END\n"),
              std::string::npos)
        << text;
    // The file is a filter the tool (and the runtime) reads: --filter marks exactly those two.
    const RunResult marked = run_score({dir_.path(), "--filter", file});
    ASSERT_EQ(marked.status, 0) << marked.err;
    EXPECT_NE(marked.out.find("Filter:      " + file +
                              " leaves out 2 of 5 function regions (flt -): 1500000 of 2500111 visits (60.0%); their "
                              "callees would be recorded under their callers\n"
                              // 2500111 visits, 1000111 with the filter; in the buffer, main 14 bytes,
                              // slow 100 x 12, rare 10 x 8, MPI_Send 1000000 x 8 (trace_estimate.hpp).
                              "Trace:       about 57 MiB of OTF2 events (5000222 events) if traced; the largest "
                              "location, rank 0 thread 0: 57 MiB; with the filter 23 MiB (2000222 events)\n"
                              "Memory:      rank 0 needs about 7.6 MiB of trace buffers with the filter; the default "
                              "STRATA_TOTAL_MEMORY=64M holds them\n\nflt  paradigm"),
              std::string::npos)
        << marked.out;
    EXPECT_NE(marked.out.find("\n-    compiler  1000000"), std::string::npos) << marked.out;
    EXPECT_NE(marked.out.find("\n+    mpi       1000000"), std::string::npos) << marked.out;
    EXPECT_NE(marked.out.find("\n+    compiler      100"), std::string::npos) << marked.out;
    const RunResult csv = run_score({dir_.path(), "--csv", "--sort", "visits", "--top", "2", "--filter", file});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(csv.out,
              "region,paradigm,visits,time_inclusive_s,time_exclusive_s,time_exclusive_percent,"
              "time_exclusive_per_visit_us,filtered\n"
              "MPI_Send,mpi,1000000,0.125000000,0.125000000,1.2500,0.125,0\n"
              "leaf,compiler,1000000,0.500000000,0.500000000,5.0000,0.500,1\n");
}

TEST_F(FilterSuggestionTest, WithCsvTheSummaryGoesToStandardError) {
    const std::string file = dir_.file("suggested.filter");
    const RunResult r = run_score({dir_.path(), "--csv", "--suggest-filter=" + file, "--max-us-per-visit=0.4"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("Suggested"), std::string::npos);
    EXPECT_EQ(r.err,
              "No function is short and called often enough to filter (mean inclusive time per visit at most 0.4 "
              "us, at least 1% of all visits); " +
                  file + " not written.\n");
    EXPECT_FALSE(std::ifstream(file).good());
}

TEST_F(FilterSuggestionTest, BadFilterFileUnwritableSuggestionAndStrayCriteria) {
    std::ofstream(dir_.file("bad.filter")) << "SCOREP_REGION_NAMES_BEGIN\n  leaf\nSCOREP_REGION_NAMES_END\n";
    const RunResult bad = run_score({dir_.path(), "--filter", dir_.file("bad.filter")});
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err, "strata-score: " + dir_.file("bad.filter") +
                           ":2: expected EXCLUDE or INCLUDE before the pattern 'leaf'\n");
    const RunResult missing = run_score({dir_.path(), "--filter", dir_.file("none.filter")});
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find(dir_.file("none.filter")), std::string::npos) << missing.err;

    const std::string unwritable = dir_.file("no-such-directory") + "/suggested.filter";
    const RunResult full = run_score({dir_.path(), "--suggest-filter", unwritable});
    EXPECT_EQ(full.status, 1);
    EXPECT_NE(full.err.find("strata-score: cannot write the filter file " + unwritable + " ("), std::string::npos)
        << full.err;

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{dir_.path(), "--max-us-per-visit", "2"},
          std::vector<std::string>{dir_.path(), "--suggest-filter", "f", "--min-visit-percent", "101"},
          std::vector<std::string>{dir_.path(), "--suggest-filter", "f", "--max-us-per-visit", "-1"},
          std::vector<std::string>{dir_.path(), "--suggest-filter", "f", "--max-us-per-visit", "nan"},
          std::vector<std::string>{dir_.path(), "--filter="}}) {
        const RunResult r = run_score(args);
        EXPECT_EQ(r.status, 2) << args.back();
        EXPECT_EQ(r.err.rfind("strata-score: ", 0), 0u) << r.err;
    }
}

TEST(TraceEstimateTest, CountersMessagesAndTheBudget) {
    // The same run with MPI_Send as point-to-point (one message event) and one counter.
    FixtureProfile p = short_calls_profile();
    p.regions[6].role = 8;  // point_to_point
    p.metrics.push_back({"papi:perf::TASK-CLOCK_inclusive", "ns", "counter", true, 6, 1, {1, 2, 3, 4, 5, 6}, {}});
    TempDir dir;
    write_fixture(p, dir.file("profile.h5"));
    const Profile profile = read_profile(dir.file("profile.h5"));
    const TraceEstimate e = estimate_trace(profile);
    // Per visit 2 events and 2 metric events, MPI_Send 1 more; OTF2 24 + 2 x 13 bytes, MPI_Send 12 more.
    EXPECT_EQ(e.events, 4u * 2500111u + 1000000u);
    EXPECT_DOUBLE_EQ(e.otf2_bytes, 50.0 * 2500111 + 12.0 * 1000000);
    // Buffer: enter and leave 2 x (1 + time + region) bytes, 2 x 8 for the metric records, 12 for
    // the message: main 14 + 16, leaf and operator* (0.5 us = 1000 ticks: 2 bytes) 8 + 16,
    // slow 12 + 16, rare 8 + 16, MPI_Send 8 + 16 + 12.
    EXPECT_DOUBLE_EQ(e.largest_rank_buffer_bytes, 30.0 + 1500000.0 * 24 + 100.0 * 28 + 10.0 * 24 + 1000000.0 * 36);
    std::vector<bool> left_out(profile.regions.size(), true);
    EXPECT_EQ(estimate_trace(profile, &left_out).events, 0u);
    // 72003070 bytes = 68.7 MiB, and 16 MiB for the profile and definitions: 128M.
    const RunResult r = run_score({dir.path(), "--top", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Memory:      rank 0 needs about 69 MiB of trace buffers: STRATA_TOTAL_MEMORY=128M keeps "
                         "Strata from flushing them during the run\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(format_bytes(999), "999 bytes");
    EXPECT_EQ(format_bytes(1500), "1.5 KiB");
    EXPECT_EQ(format_bytes(12.3e9), "11 GiB");
    EXPECT_EQ(format_bytes(1023), "1023 bytes");
}

}  // namespace
}  // namespace strata::analysis::test
