// SPDX-License-Identifier: BSD-3-Clause
// The built strata-analyze run as a subprocess, with `mpirun -np K` (K = 1,
// 2, 3) and without mpirun: exact figures in the CSV and JSON reports of
// synthetic experiments, byte-identical reports for every K, the advice,
// the refusal to overwrite, and every kind of bad input with its message
// and exit status.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_fixtures.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> report_names = {
    "summary.txt",      "summary.csv",           "summary.json",           "loadbalance.csv",
    "loadbalance.json", "loadbalance_ranks.csv", "loadbalance_ranks.json", "advice.csv",
    "advice.json",      "calltree.json",         "report.html"};


/// strata-analyze with `args` (see run_analyze).
constexpr auto analyze = &run_analyze;

class StrataAnalyzeTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        // Open MPI refuses root without these; harmless otherwise.
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    std::string experiment() const { return dir_.file("experiment"); }
    std::string report(const std::string& output, const std::string& name) const {
        return slurp((fs::path(output) / name).string());
    }
    /// Analyses the experiment with K ranks into <dir>/out<K>, expecting success.
    std::string analyze_into(int k, std::vector<std::string> extra = {}) {
        const std::string output = dir_.file("out" + std::to_string(k));
        std::vector<std::string> args = {"--output", output};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(experiment());
        const RunResult r = analyze(k, args);
        EXPECT_EQ(r.status, 0) << "K = " << k << "\n" << r.out << r.err;
        return output;
    }

    TempDir dir_;
};

// ---- start-up --------------------------------------------------------------------

// On one node strata-analyze chooses Open MPI's ob1 point-to-point layer, so
// that MPI_Init does not probe for UCX and libfabric networks; a layer the user
// chose is kept.  Seen in Open MPI's own log of its selection (no timing).
TEST_F(StrataAnalyzeTest, OnOneNodeOpenMpiIsNotProbedForNetworksUnlessTheUserChose) {
    if (std::getenv("OMPI_MCA_pml") != nullptr) GTEST_SKIP() << "OMPI_MCA_pml is set for the tests";
    write_experiment(imbalanced_profile(), experiment());
    setenv("OMPI_MCA_pml_base_verbose", "10", 1);
    const RunResult two = analyze(2, {"--force", experiment()});
    const RunResult alone = analyze(0, {"--force", experiment()});
    setenv("OMPI_MCA_pml", "^ucx", 1);  // the user's choice: any layer but UCX
    const RunResult chosen = analyze(2, {"--force", experiment()});
    unsetenv("OMPI_MCA_pml");
    unsetenv("OMPI_MCA_pml_base_verbose");
    if (two.err.find("mca: base: components_open: opening pml components") == std::string::npos) {
        GTEST_SKIP() << "not Open MPI: " << two.err;
    }
    for (const RunResult* r : {&two, &alone, &chosen}) EXPECT_EQ(r->status, 0) << r->out << r->err;
    for (const RunResult* r : {&two, &alone}) {
        EXPECT_NE(r->err.find("select: component ob1 selected"), std::string::npos) << r->err;
        EXPECT_EQ(r->err.find("found loaded component cm"), std::string::npos) << r->err;
    }
    EXPECT_NE(chosen.err.find("found loaded component cm"), std::string::npos) << chosen.err;
}

// ---- the imbalanced experiment: exact figures ---------------------------------

TEST_F(StrataAnalyzeTest, ImbalancedExperimentExactLoadBalance) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string out = analyze_into(1);
    EXPECT_EQ(
        report(out, "loadbalance.csv"),
        "level,name,region,paradigm,class,ranks,single_participant,min_s,mean_s,max_s,stddev_s,rank_at_min,"
        "rank_at_max,imbalance,saved_s,total_s,visits\n"
        "region,compute,compute,user,computation,4,0,2,2.5,4,0.866025404,0,3,0.375,1.5,10,40\n"
        "region,MPI_Allreduce,MPI_Allreduce,mpi,mpi,4,0,0.5,2,2.5,0.866025404,3,0,0.2,0.5,8,40\n"
        "region,MPI_Init,MPI_Init,mpi,mpi_init_finalize,4,0,0.25,0.3125,0.5,0.108253175,1,0,0.375,0.1875,1."
        "25,4\n"
        "region,MPI_Finalize,MPI_Finalize,mpi,mpi_init_finalize,4,0,0,0,0,0,0,0,0,0,0,4\n"
        "region,main,main,user,computation,4,0,0.5,0.5,0.5,0,0,0,0,0,2,4\n"
        "callpath,main/compute,compute,user,computation,4,0,2,2.5,4,0.866025404,0,3,0.375,1.5,10,40\n"
        "callpath,main/MPI_Allreduce,MPI_Allreduce,mpi,mpi,4,0,0.5,2,2.5,0.866025404,3,0,0.2,0.5,8,40\n"
        "callpath,MPI_Init,MPI_Init,mpi,mpi_init_finalize,4,0,0.25,0.3125,0.5,0.108253175,1,0,0.375,0.1875,"
        "1.25,4\n"
        "callpath,MPI_Finalize,MPI_Finalize,mpi,mpi_init_finalize,4,0,0,0,0,0,0,0,0,0,0,4\n"
        "callpath,main,main,user,computation,4,0,0.5,0.5,0.5,0,0,0,0,0,2,4\n");
    EXPECT_EQ(report(out, "loadbalance_ranks.csv"),
              "order,rank,threads,useful_s,mpi_s,io_s,openmp_s,gpu_wait_s,cuda_api_s,measurement_s,"
              "mpi_init_finalize_s,run_time_s,wall_time_s\n"
              "1,3,1,4.5,0.5,0,0,0,0,0,0.25,5,5.25\n"
              "2,0,1,2.5,2.5,0,0,0,0,0,0.5,5,5.5\n"
              "3,1,1,2.5,2.5,0,0,0,0,0,0.25,5,5.25\n"
              "4,2,1,2.5,2.5,0,0,0,0,0,0.25,5,5.25\n");
    const std::string json = report(out, "loadbalance.json");
    EXPECT_NE(
        json.find(
            "{\"level\": \"callpath\", \"name\": \"main/compute\", \"region\": \"compute\", \"paradigm\": "
            "\"user\", \"class\": \"computation\", \"ranks\": 4, \"single_participant\": false, \"min_s\": "
            "2, \"mean_s\": 2.5, \"max_s\": 4, \"stddev_s\": 0.866025404, \"rank_at_min\": 0, "
            "\"rank_at_max\": 3, \"imbalance\": 0.375, \"saved_s\": 1.5, \"total_s\": 10, \"visits\": 40}"),
        std::string::npos)
        << json;
}

TEST_F(StrataAnalyzeTest, ImbalancedExperimentExactSummaryAndPop) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string out = analyze_into(1);
    const std::string csv = report(out, "summary.csv");
    for (const char* line :
         {"run,ranks,4,count,",
          "run,cpu_threads,4,count,",
          "run,wall_time,5.5,s,",
          "run,wall_time_rank,0,rank,",
          "run,run_time,5,s,",
          "time,computation,12,s,",
          "time,mpi,8,s,",
          "time,mpi_init_finalize,1.25,s,",
          "time,program,20,s,",
          "share,computation,0.6,ratio,",
          "share,mpi,0.4,ratio,",
          "pop,useful_time_mean,3,s,",
          "pop,useful_time_max,4.5,s,",
          "pop,useful_time_max_rank,3,rank,",
          "pop,useful_time_min,2.5,s,",
          "pop,useful_time_min_rank,0,rank,",
          "pop,load_balance,0.666666667,ratio,\"load balance LB = mean_p U_p / max_p U_p (POP, "
          "multiplicative)\"\n",
          "pop,communication_efficiency,0.9,ratio,communication efficiency CommE = max_p U_p / R (POP)\n",
          "pop,parallel_efficiency,0.6,ratio,parallel efficiency PE = LB x CommE = mean_p U_p / R (POP)\n",
          "top_regions,compute,10,s,",
          "top_regions,MPI_Allreduce,8,s,"})
        EXPECT_NE(csv.find(line), std::string::npos) << line << "\n" << csv;
    const std::string json = report(out, "summary.json");
    for (const char* fragment :
         {"\"load_balance\": 0.666666667,", "\"communication_efficiency\": 0.9,",
          "\"parallel_efficiency\": 0.6,", "\"run_time_s\": 5,", "\"wall_time_s\": 5.5,",
          "\"useful_time_max_rank\": 3,", "\"findings\": 3\n"})
        EXPECT_NE(json.find(fragment), std::string::npos) << fragment << "\n" << json;
    // The definitions are printed with the figures.
    const std::string text = report(out, "summary.txt");
    for (const char* fragment :
         {"LB    = mean_p U_p / max_p U_p       = 0.667", "CommE = max_p U_p / R                = 0.900",
          "PE    = LB x CommE = mean_p U_p / R  = 0.600", "U_p: useful computation time",
          "means over all 4 measured ranks", "Run time R   5 s (rank 0)"})
        EXPECT_NE(text.find(fragment), std::string::npos) << fragment << "\n" << text;
}

TEST_F(StrataAnalyzeTest, TheNoteOfARankThatStoppedAloneIsInTheSummary) {
    write_experiment(imbalanced_profile(), experiment());
    std::ofstream(fs::path(experiment()) / "INCOMPLETE")
        << "rank 2 did not finish with the other ranks: it called MPI_Abort.\nWhat it recorded until then is "
           "in this directory.\n";
    const std::string out = analyze_into(1);
    const std::string note =
        "rank 2 did not finish with the other ranks: it called MPI_Abort. What it recorded until then is in this "
        "directory.";
    EXPECT_NE(report(out, "summary.csv").find("run,incomplete," + note + ",,"), std::string::npos)
        << report(out, "summary.csv");
    EXPECT_NE(report(out, "summary.json").find("\"incomplete\": \"" + note + "\",\n"), std::string::npos)
        << report(out, "summary.json");
    EXPECT_NE(report(out, "summary.txt").find("Incomplete   rank 2 did not finish"), std::string::npos)
        << report(out, "summary.txt");
    // Without the note: null, and no line.
    fs::remove(fs::path(experiment()) / "INCOMPLETE");
    const std::string complete = analyze_into(1, {"--force"});
    EXPECT_NE(report(complete, "summary.json").find("\"incomplete\": null,\n"), std::string::npos);
    EXPECT_EQ(report(complete, "summary.csv").find("run,incomplete,"), std::string::npos);
}

TEST_F(StrataAnalyzeTest, ImbalancedExperimentAdviceNamesComputeAndRank3) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string out = analyze_into(2);
    const std::string csv = report(out, "advice.csv");
    std::istringstream lines(csv);
    std::string header, first, second, third, rest;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    std::getline(lines, third);
    std::getline(lines, rest);
    EXPECT_EQ(header, "index,kind,region,callpath,ranks,metric,value,threshold,time_s,stake,message");
    // Most of the run time at stake first: MPI 40 % of the program time, then
    // the imbalance of compute (1.5 s of R = 5 s), then that of MPI_Allreduce (0.5 s).
    EXPECT_EQ(first.substr(0, first.find(",\"")),
              "1,mpi_share,MPI_Allreduce,main/MPI_Allreduce,,mpi_share,0.4,0.2,8,0.4");
    EXPECT_EQ(second.substr(0, second.find(",\"")),
              "2,load_imbalance,compute,main/compute,3,imbalance,0.375,0.1,1.5,0.3");
    EXPECT_NE(
        second.find(
            "Load imbalance in 'compute' (call path main/compute): the 4 ranks that run it spend 2.5 s "
            "there on average, rank 3 spends 4 s (imbalance (max - mean) / max = 37.5%, above 10.0%). "
            "Perfect balance would save 1.5 s, 33.3% of the slowest rank's useful time and 30.0% of the run "
            "time R. The slowest: rank 3 (4 s)."),
        std::string::npos)
        << second;
    EXPECT_EQ(third.substr(0, third.find(",\"")),
              "3,wait_imbalance,MPI_Allreduce,main/MPI_Allreduce,3,imbalance,0.2,0.1,0.5,0.1");
    EXPECT_EQ(rest, "");
    EXPECT_NE(report(out, "summary.txt").find("  1. [40.0% at stake] MPI takes 40.0% of the program's time"),
              std::string::npos)
        << report(out, "summary.txt");
    // Findings with less at stake than --min-finding-share are left out, and counted.
    const std::string few = analyze_into(2, {"--force", "--min-finding-share", "0.2"});
    EXPECT_EQ(report(few, "advice.csv").find("wait_imbalance"), std::string::npos);
    EXPECT_NE(report(few, "advice.csv").find("load_imbalance"), std::string::npos);
    EXPECT_NE(report(few, "summary.txt").find("at stake left out (1 here, --min-finding-share)"),
              std::string::npos)
        << report(few, "summary.txt");
    const std::string json = report(out, "advice.json");
    EXPECT_NE(
        json.find("\"kind\": \"load_imbalance\", \"region\": \"compute\", \"callpath\": \"main/compute\", "
                  "\"ranks\": [3]"),
        std::string::npos)
        << json;
    // A higher threshold silences the imbalance findings.
    const std::string quiet = analyze_into(3, {"--imbalance-threshold", "0.5", "--mpi-threshold=0.5"});
    EXPECT_EQ(report(quiet, "advice.csv"), header + "\n");
    EXPECT_NE(report(quiet, "summary.txt").find("No findings"), std::string::npos);
}

TEST_F(StrataAnalyzeTest, IdenticalBytesForOneTwoAndThreeAnalysisRanks) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string one = analyze_into(1), two = analyze_into(2), three = analyze_into(3),
                      alone = analyze_into(0);
    for (const std::string& name : report_names) {
        const std::string expected = report(one, name);
        EXPECT_FALSE(expected.empty()) << name;
        EXPECT_EQ(report(two, name), expected) << name << " with K = 2";
        EXPECT_EQ(report(three, name), expected) << name << " with K = 3";
        EXPECT_EQ(report(alone, name), expected) << name << " without mpirun";
    }
}

TEST_F(StrataAnalyzeTest, StdoutIsTheSummary) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string output = dir_.file("out");
    const RunResult r = analyze(2, {experiment(), "--output", output});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, report(output, "summary.txt").size()), report(output, "summary.txt"));
    EXPECT_NE(r.out.find("Reports written to " + output + "/: summary.txt, summary.csv"), std::string::npos);
}

// ---- hybrid: per-process aggregation ---------------------------------------------

TEST_F(StrataAnalyzeTest, HybridRanksAverageTheirThreads) {
    write_experiment(hybrid_profile(), experiment());
    const std::string one = analyze_into(1), two = analyze_into(2);
    for (const std::string& name : report_names) EXPECT_EQ(report(two, name), report(one, name)) << name;
    const std::string csv = report(one, "summary.csv");
    for (const char* line :
         {"run,ranks,2,count,", "run,cpu_threads,4,count,", "run,run_time,8,s,", "time,computation,21,s,",
          "time,openmp,2,s,", "time,mpi,2,s,", "pop,useful_time_mean,5.25,s,", "pop,useful_time_max,5.75,s,",
          "pop,load_balance,0.913043478,", "pop,communication_efficiency,0.71875,",
          "pop,parallel_efficiency,0.65625,"})
        EXPECT_NE(csv.find(line), std::string::npos) << line << "\n" << csv;
    EXPECT_EQ(report(one, "loadbalance_ranks.csv"),
              "order,rank,threads,useful_s,mpi_s,io_s,openmp_s,gpu_wait_s,cuda_api_s,measurement_s,"
              "mpi_init_finalize_s,run_time_s,wall_time_s\n"
              "1,1,2,5.75,0,0,0.5,0,0,0,0,8,8\n"
              "2,0,2,4.75,1,0,0.5,0,0,0,0,8,8\n");
    const std::string balance = report(one, "loadbalance.csv");
    EXPECT_NE(balance.find("\nregion,work,work,user,computation,2,0,4,4.5,5,0.5,0,1,0.1,0.5,18,4\n"),
              std::string::npos)
        << balance;
    EXPECT_NE(
        balance.find(
            "\ncallpath,main/parallel/work,work,user,computation,2,0,2,2.5,3,0.5,0,1,0.166666667,0.5,10,2\n"),
        std::string::npos)
        << balance;
    EXPECT_NE(balance.find("\ncallpath,parallel/work,work,user,computation,2,0,2,2,2,0,0,0,0,0,8,2\n"),
              std::string::npos)
        << balance;
}

// ---- where the reports go -----------------------------------------------------------

TEST_F(StrataAnalyzeTest, PlantedSymbolicLinksAreNeverWrittenThrough) {
    // Someone who can write into the output directory plants summary.txt.tmp -> a file of the
    // user's elsewhere: strata-analyze refuses to write through it and says so; the file is intact.
    write_experiment(imbalanced_profile(), experiment());
    const std::string output = dir_.file("out"), victim = dir_.file("victim.txt");
    fs::create_directories(output);
    {
        std::ofstream(victim) << "precious\n";
    }
    fs::create_symlink(victim, fs::path(output) / "summary.txt.tmp");
    const RunResult r = analyze(1, {"--output", output, experiment()});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("summary.txt.tmp: cannot write: it is a symbolic link, which is not written through"),
              std::string::npos)
        << r.err;
    std::ifstream in(victim);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "precious\n");
}

TEST_F(StrataAnalyzeTest, DefaultOutputIsNeverOverwrittenWithoutForce) {
    write_experiment(imbalanced_profile(), experiment());
    const RunResult first = analyze(1, {experiment()});
    ASSERT_EQ(first.status, 0) << first.err;
    const std::string analysis = (fs::path(experiment()) / "analysis").string();
    for (const std::string& name : report_names) EXPECT_TRUE(fs::exists(fs::path(analysis) / name)) << name;
    const std::string before = report(analysis, "summary.txt");

    const RunResult again = analyze(0, {experiment()});
    EXPECT_EQ(again.status, 1);
    EXPECT_EQ(again.out, "");
    EXPECT_EQ(again.err,
              "strata-analyze: " + analysis +
                  "/summary.txt: exists; strata-analyze does not overwrite reports (use --force to replace "
                  "them, or --output DIR to write elsewhere)\n");
    std::ofstream(fs::path(analysis) / "summary.txt") << "kept";
    EXPECT_EQ(analyze(2, {experiment()}).status, 1);
    EXPECT_EQ(report(analysis, "summary.txt"), "kept");

    const RunResult forced = analyze(2, {"--force", experiment()});
    EXPECT_EQ(forced.status, 0) << forced.err;
    EXPECT_EQ(report(analysis, "summary.txt"), before);
    for (const auto& entry : fs::directory_iterator(analysis))
        EXPECT_NE(entry.path().extension(), ".tmp") << "left behind: " << entry.path();

    // report.html alone is also a report that is not overwritten.
    for (const std::string& name : report_names)
        if (name != "report.html") fs::remove(fs::path(analysis) / name);
    const RunResult html_only = analyze(1, {experiment()});
    EXPECT_EQ(html_only.status, 1);
    EXPECT_NE(html_only.err.find(analysis + "/report.html: exists;"), std::string::npos) << html_only.err;
    // So are the trace's reports, such as gpu.json.
    fs::remove(fs::path(analysis) / "report.html");
    std::ofstream(fs::path(analysis) / "gpu.json") << "{}";
    const RunResult gpu_only = analyze(1, {experiment()});
    EXPECT_EQ(gpu_only.status, 1);
    EXPECT_NE(gpu_only.err.find(analysis + "/gpu.json: exists;"), std::string::npos) << gpu_only.err;
}

TEST_F(StrataAnalyzeTest, TraceIsMentionedWhenAbsentOrUnreadable) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string without = analyze_into(1);
    EXPECT_NE(report(without, "summary.txt").find("This experiment has no trace: the wait states"), std::string::npos);
    EXPECT_NE(report(without, "summary.txt").find("STRATA_ENABLE_TRACING=true"), std::string::npos);
    EXPECT_FALSE(fs::exists(fs::path(without) / "waitstates.csv"));
    // Event files without the anchor: a trace the measurement began and could not finish.
    fs::create_directories(fs::path(experiment()) / "traces");
    const std::string unfinished = analyze_into(1, {"--force"});
    EXPECT_NE(report(unfinished, "summary.txt").find("The trace of this experiment is incomplete: traces/ holds"),
              std::string::npos);
    EXPECT_EQ(report(unfinished, "summary.txt").find("STRATA_ENABLE_TRACING=true"), std::string::npos);
    std::ofstream(fs::path(experiment()) / "traces.otf2") << "not read";
    const std::string with = analyze_into(2);
    const std::string text = report(with, "summary.txt");
    EXPECT_NE(text.find("The trace cannot be read ("), std::string::npos) << text;
    EXPECT_NE(report(with, "summary.json").find("traces.otf2: not a readable OTF2 anchor file"), std::string::npos);
    EXPECT_NE(report(with, "summary.json").find("\"trace\": {\"present\": true, \"analysed\": false"),
              std::string::npos);
    EXPECT_FALSE(fs::exists(fs::path(with) / "waitstates.csv"));
}

// ---- bad input ----------------------------------------------------------------------

TEST_F(StrataAnalyzeTest, MissingDirectory) {
    const std::string missing = dir_.file("nowhere");
    const RunResult r = analyze(0, {missing});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "strata-analyze: " + missing + ": cannot open: No such file or directory\n");
    const RunResult parallel = analyze(2, {missing});
    EXPECT_EQ(parallel.status, 1);
    EXPECT_NE(parallel.err.find("strata-analyze: " + missing + ": cannot open: No such file or directory\n"),
              std::string::npos)
        << parallel.err;
}

TEST_F(StrataAnalyzeTest, NotADirectory) {
    const std::string file = dir_.write("plain", "x");
    const RunResult r = analyze(0, {file});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "strata-analyze: " + file + ": not an experiment directory\n");
}

TEST_F(StrataAnalyzeTest, NoProfile) {
    fs::create_directories(experiment());
    const RunResult r = analyze(0, {experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "strata-analyze: " + experiment() +
                         ": not a Strata experiment (no profile.h5, traces.otf2 or strata.cfg in it)\n");
    EXPECT_FALSE(fs::exists(fs::path(experiment()) / "analysis"))
        << "nothing is created when nothing can be read";
}

TEST_F(StrataAnalyzeTest, ARunKilledBeforeWritingSaysSo) {
    // What SIGKILL leaves: the directory, strata.cfg and trace buffers flushed during the run.
    fs::create_directories(fs::path(experiment()) / "traces");
    std::ofstream(fs::path(experiment()) / "strata.cfg") << "STRATA_ENABLE_TRACING=true\n";
    std::ofstream(fs::path(experiment()) / "traces" / "0.evt") << "x";
    std::ofstream(fs::path(experiment()) / "traces" / "1.evt") << "x";
    const RunResult r = analyze(0, {experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "strata-analyze: " + experiment() +
                         ": no profile.h5 and no traces.otf2: the run ended before Strata could write them (a "
                         "SIGKILL, the out-of-memory killer, a batch system's time limit; Strata writes at the "
                         "program's end and when a signal it can catch stops it).  traces/ holds 2 event files "
                         "flushed during the run, which cannot be read without the definitions written at the end\n");
}

TEST_F(StrataAnalyzeTest, RanksThatLeftNoExperimentAreNamed) {
    // Ranks 1 and 3 of 5 wrote their own experiments (INCOMPLETE: "rank r of n"); 0, 2 and 4 left none.
    for (int rank : {1, 3}) {
        const fs::path dir = fs::path(experiment()) / ("rank-" + std::to_string(rank));
        fs::create_directories(dir);
        std::ofstream(dir / "INCOMPLETE") << "rank " << rank << " of 5 did not finish with the other ranks: ...\n";
    }
    const RunResult r = analyze(0, {experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("rank-1, rank-3 (their INCOMPLETE files say why).  No experiment from ranks 0, 2, 4 of "
                         "the 5: they ended without writing one"),
              std::string::npos)
        << r.err;
}

TEST_F(StrataAnalyzeTest, RanksKilledWhileWritingAreNamed) {
    // Ranks 0-2 of 3 began writing their own experiments after a SIGTERM; 0 and 2 were killed before
    // they had finished: their markers are left in writing-<host>/ (ranks_writing_alone.hpp).
    for (int rank : {0, 1, 2}) {
        const fs::path dir = fs::path(experiment()) / ("rank-" + std::to_string(rank));
        fs::create_directories(dir);
        std::ofstream(dir / "INCOMPLETE") << "rank " << rank << " of 3 did not finish with the other ranks: ...\n";
    }
    fs::create_directories(fs::path(experiment()) / "writing-node7");
    for (int rank : {2, 0}) std::ofstream(fs::path(experiment()) / "writing-node7" / std::to_string(rank)) << "42\n";
    const RunResult r = analyze(0, {experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("rank-0, rank-1, rank-2 (their INCOMPLETE files say why).  Ranks 0, 2 were killed while "
                         "writing (what is missing from rank-<r>/ was not written); to give the ranks time, run "
                         "mpirun --mca odls_base_sigkill_timeout 10.  Analyse them one at a time"),
              std::string::npos)
        << r.err;
}

TEST_F(StrataAnalyzeTest, RanksThatStoppedSeparately) {
    // What a job whose rank called MPI_Abort leaves: one experiment per rank, none at the top.
    for (int rank : {0, 1, 2, 10, 3, 4}) {
        fs::create_directories(fs::path(experiment()) / ("rank-" + std::to_string(rank)));
    }
    fs::create_directories(fs::path(experiment()) / "traces");
    for (int k : {0, 2}) {
        const RunResult r = analyze(k, {experiment()});
        EXPECT_EQ(r.status, 1) << "K = " << k;
        const std::string message =
            "strata-analyze: " + experiment() +
            ": the ranks of this job stopped separately (MPI_Abort, a signal, or an exit without MPI_Finalize), "
            "so each wrote its own experiment here: rank-0, rank-1, rank-2, rank-3, ... (6 in all) (their "
            "INCOMPLETE files say why).  Analyse them one at a time, e.g. strata-analyze " + experiment() + "/rank-0\n";
        EXPECT_NE(r.err.find(message), std::string::npos) << "K = " << k << ": " << r.err;
    }
}

TEST_F(StrataAnalyzeTest, TextFileNamedProfile) {
    fs::create_directories(experiment());
    std::ofstream(fs::path(experiment()) / "profile.h5") << "this is not HDF5\n";
    for (int k : {0, 1, 3}) {
        const RunResult r = analyze(k, {experiment()});
        EXPECT_EQ(r.status, 1) << "K = " << k;
        const std::string message = "strata-analyze: " + experiment() + "/profile.h5: not an HDF5 file\n";
        if (k == 0)
            EXPECT_EQ(r.err, message);
        else  // printed once, by the lowest rank that failed; mpirun adds its own note
            EXPECT_EQ(r.err.find(message), r.err.rfind(message)) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
}

TEST_F(StrataAnalyzeTest, TruncatedProfile) {
    write_experiment(imbalanced_profile(), experiment());
    const std::string path = (fs::path(experiment()) / "profile.h5").string();
    const std::string bytes = slurp(path);
    for (std::size_t keep : {bytes.size() / 2, bytes.size() - 100, std::size_t{100}}) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, keep);
        for (int k : {0, 2}) {
            const RunResult r = analyze(k, {"--force", experiment()});
            EXPECT_EQ(r.status, 1) << keep << " bytes, K = " << k << "\n" << r.out << r.err;
            EXPECT_NE(r.err.find("strata-analyze: " + path + ": "), std::string::npos) << r.err;
            EXPECT_LT(r.status, 128) << "crashed";
        }
    }
}

TEST_F(StrataAnalyzeTest, ProfileWithoutTimesOrWithDamagedValues) {
    FixtureProfile p = imbalanced_profile();
    p.metric("time_exclusive").values[2 * 4 + 3] = -7.0;  // main/compute on rank 3
    write_experiment(p, experiment());
    const RunResult r = analyze(2, {experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("strata-analyze: " + experiment() +
                         "/profile.h5: /metrics/time_exclusive row 2, column 3: -7 is not a valid time\n"),
              std::string::npos)
        << r.err;

    FixtureProfile missing = imbalanced_profile();
    missing.metrics.erase(missing.metrics.begin() + 1);  // time_inclusive
    fs::remove_all(experiment());
    write_experiment(missing, experiment());
    const RunResult m = analyze(0, {experiment()});
    EXPECT_EQ(m.status, 1);
    EXPECT_EQ(m.err,
              "strata-analyze: " + experiment() + "/profile.h5: missing metric /metrics/time_inclusive\n");
}

TEST_F(StrataAnalyzeTest, BadOptionsPrintUsage) {
    write_experiment(imbalanced_profile(), experiment());
    const struct {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"--frobnicate", experiment()}, "unknown option '--frobnicate'"},
        {{}, "no experiment directory given"},
        {{experiment(), experiment()}, "more than one experiment given"},
        {{"--imbalance-threshold", "lots", experiment()},
         "--imbalance-threshold needs a fraction from 0 to 1 (e.g. 0.1 for 10 %), not 'lots'"},
        {{"--mpi-threshold=1.5", experiment()}, "--mpi-threshold needs a fraction from 0 to 1"},
        {{"--top", "0", experiment()}, "--top needs a positive number, not '0'"},
        {{"--wait-threshold", "-0.1", experiment()}, "--wait-threshold needs a fraction from 0 to 1"},
        {{"--timeline-events", "many", experiment()}, "--timeline-events needs a positive number, not 'many'"},
        {{experiment(), "--output"}, "--output needs a value"},
    };
    for (const auto& c : cases) {
        // Every case alone; the first two also under mpirun (slow on a shared machine).
        for (int k : {0, 2}) {
            if (k == 2 && &c - cases >= 2) continue;
            const RunResult r = analyze(k, c.args);
            EXPECT_EQ(r.status, 2) << c.message;
            EXPECT_NE(r.err.find("strata-analyze: " + c.message), std::string::npos) << r.err;
            EXPECT_NE(r.err.find("usage: mpirun -np K strata-analyze"), std::string::npos) << r.err;
            EXPECT_EQ(r.err.find("usage:"), r.err.rfind("usage: mpirun")) << "usage printed once: " << r.err;
        }
    }
    const RunResult help = analyze(0, {"--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_EQ(help.out.find("usage: mpirun -np K strata-analyze"), 0u);
    EXPECT_FALSE(fs::exists(fs::path(experiment()) / "analysis"));
}

TEST_F(StrataAnalyzeTest, QuickAnswersNeedNoMpi) {
    // --help, a bad command line and a missing experiment are answered before MPI starts (a
    // quick exit through Open MPI's singleton MPI_Init and MPI_Finalize crashed now and then).
    // With an MPI transport that does not exist, MPI_Init fails: only an analysis needs it.
    write_experiment(imbalanced_profile(), experiment());
    setenv("OMPI_MCA_pml", "no_such_transport", 1);
    const RunResult help = analyze(0, {"--help"});
    const RunResult usage = analyze(0, {"--top", "many", experiment()});
    const RunResult missing = analyze(0, {dir_.file("missing")});
    const RunResult analysis = analyze(0, {"--output", dir_.file("out"), experiment()});
    unsetenv("OMPI_MCA_pml");
    EXPECT_EQ(help.status, 0) << help.err;
    EXPECT_EQ(help.out.find("usage: mpirun -np K strata-analyze"), 0u);
    EXPECT_EQ(usage.status, 2) << usage.err;
    EXPECT_NE(usage.err.find("usage: mpirun -np K strata-analyze"), std::string::npos) << usage.err;
    EXPECT_EQ(missing.status, 1) << missing.err;
    EXPECT_EQ(missing.err, "strata-analyze: " + dir_.file("missing") + ": cannot open: No such file or directory\n");
    EXPECT_NE(analysis.status, 0) << "this test needs MPI_Init to fail without a transport";
}

// ---- damaged profiles: a fuzz corpus ----------------------------------------------

TEST_F(StrataAnalyzeTest, DamagedProfilesNeverCrashTheTools) {
    // Truncations and flipped bytes all over profile.h5 (also inside HDF5's own
    // structures, which can crash HDF5 itself: the tools read such a file in a
    // child process first).  Every run ends with status 0 or 1, never a signal.
    write_experiment(imbalanced_profile(), experiment());
    const std::string path = (fs::path(experiment()) / "profile.h5").string();
    const std::string pristine = slurp(path);
    ASSERT_GT(pristine.size(), 1000u);
    std::uint64_t state = 20261122;
    const auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    int crashes_contained = 0;
    for (int variant = 0; variant < 20; ++variant) {
        std::string bytes = pristine;
        if (variant < 4) {
            bytes.resize(pristine.size() * static_cast<std::size_t>(variant) / 4);
        } else {
            for (int flip = 0; flip < 1 + variant % 6; ++flip) {
                bytes[(next() >> 16) % bytes.size()] ^= static_cast<char>(1 + (next() >> 24) % 255);
            }
        }
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        const RunResult a = analyze(0, {"--force", "--output", dir_.file("out"), experiment()});
        EXPECT_TRUE(a.status == 0 || a.status == 1) << "variant " << variant << ": status " << a.status << "\n" << a.err;
        if (a.status == 1) {
            EXPECT_NE(a.err.find("strata-analyze: "), std::string::npos) << variant;
        }
        if (a.err.find("crashed the HDF5 library") != std::string::npos) ++crashes_contained;
        const RunResult s = run_score({path});
        EXPECT_TRUE(s.status == 0 || s.status == 1) << "variant " << variant << ": status " << s.status << "\n" << s.err;
    }
    // Not asserted: whether any variant actually crashes HDF5 depends on the bytes hit.
    std::cout << "[ fuzz     ] " << crashes_contained << " of 20 damaged profiles crashed HDF5 in the child\n";
}

}  // namespace
}  // namespace strata::analysis::test
