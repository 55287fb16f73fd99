// SPDX-License-Identifier: BSD-3-Clause
// strata-analyze's analysis in one process, without MPI: the partition of
// measured ranks, the classes of call paths, exact statistics on synthetic
// profiles with known ground truth, and identical reports whether the
// profile is analysed as 1, 2, 3 or 5 shares (combined with merge_partial,
// the in-process form of the MPI reduction).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis_test_helpers.hpp"
#include "analyze/advice.hpp"
#include "analyze/analysis_result.hpp"
#include "analyze/partial.hpp"
#include "analyze/rank_layout.hpp"
#include "analyze/report_files.hpp"
#include "analyze/report_format.hpp"
#include "analyze/share_analysis.hpp"
#include "analyze/time_classes.hpp"
#include "analyze_fixtures.hpp"
#include "profile/profile_reader.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

const RowResult& row(const std::vector<RowResult>& rows, const std::string& name) {
    const auto found =
        std::find_if(rows.begin(), rows.end(), [&](const RowResult& r) { return r.name == name; });
    if (found == rows.end()) throw std::runtime_error("no row " + name);
    return *found;
}

class AnalyzeCoreTest : public ::testing::Test {
protected:
    std::string write(const FixtureProfile& profile) {
        write_experiment(profile, dir_.path());
        return dir_.file("profile.h5");
    }
    TempDir dir_;
};

// ---- partition --------------------------------------------------------------

TEST(RankLayoutTest, ContiguousBlocksNeverSplitARank) {
    ProfileBuilder b;
    for (std::uint32_t r = 0; r < 4; ++r)
        for (std::uint32_t t = 0; t < 2; ++t) b.location(r, t);
    b.location(1, 0, 1);  // a GPU stream: not analysed
    const FixtureProfile fixture = b.build();
    Profile p;
    for (const auto& l : fixture.locations)
        p.locations.push_back({l.id, l.rank, l.thread, static_cast<LocationType>(l.type), 0});
    const RankLayout layout = rank_layout(p);
    ASSERT_EQ(layout.ranks.size(), 4u);
    EXPECT_EQ(layout.cpu_threads, 8u);
    EXPECT_EQ(layout.gpu_streams, 1u);
    EXPECT_EQ(layout.ranks[1].columns, (std::vector<std::size_t>{2, 3}));

    // K = 3: ranks {0, 1} {2} {3}, columns [0,4) [4,6) [6,8).
    const AnalysisShare a = analysis_share(layout, 0, 3), b1 = analysis_share(layout, 1, 3),
                        c = analysis_share(layout, 2, 3);
    EXPECT_EQ(a.first_rank, 0u);
    EXPECT_EQ(a.rank_count, 2u);
    EXPECT_EQ(a.first_column, 0u);
    EXPECT_EQ(a.column_count, 4u);
    EXPECT_EQ(b1.first_rank, 2u);
    EXPECT_EQ(b1.rank_count, 1u);
    EXPECT_EQ(b1.first_column, 4u);
    EXPECT_EQ(b1.column_count, 2u);
    EXPECT_EQ(c.first_rank, 3u);
    EXPECT_EQ(c.first_column, 6u);
    EXPECT_EQ(c.column_count, 2u);

    // More analysis ranks than measured ranks: each rank once, the rest idle.
    std::size_t total = 0, idle = 0;
    for (std::size_t k = 0; k < 7; ++k) {
        const AnalysisShare s = analysis_share(layout, k, 7);
        total += s.rank_count;
        if (s.rank_count == 0) {
            ++idle;
            EXPECT_EQ(s.column_count, 0u);
        }
    }
    EXPECT_EQ(total, 4u);
    EXPECT_EQ(idle, 3u);
}

// ---- classes ----------------------------------------------------------------

TEST_F(AnalyzeCoreTest, MpiInitAndFinalizeAreSetApartUnlessIncluded) {
    const Profile p = read_profile(write(imbalanced_profile()));
    const CallPathClasses apart = classify_callpaths(p, false);
    // Call paths: 0 MPI_Init, 1 main, 2 main/compute, 3 main/MPI_Allreduce, 4 MPI_Finalize.
    EXPECT_EQ(apart.time_class[0], TimeClass::mpi_init_finalize);
    EXPECT_EQ(apart.time_class[1], TimeClass::computation);
    EXPECT_EQ(apart.time_class[2], TimeClass::computation);
    EXPECT_EQ(apart.time_class[3], TimeClass::mpi);
    EXPECT_EQ(apart.time_class[4], TimeClass::mpi_init_finalize);
    EXPECT_TRUE(apart.outermost_init_finalize[0]);
    EXPECT_FALSE(apart.outermost_init_finalize[1]);
    const CallPathClasses included = classify_callpaths(p, true);
    EXPECT_EQ(included.time_class[0], TimeClass::mpi);
    EXPECT_FALSE(included.outermost_init_finalize[0]);
}

// ---- exact values -------------------------------------------------------------

TEST(PartialTest, NanosecondsAndDamagedValues) {
    Profile p;
    p.path = "x/profile.h5";
    Metric m;
    m.name = "time_exclusive";
    EXPECT_EQ(to_ns(1.5, p, m, 0, 0), 1500000000);
    EXPECT_EQ(to_ns(0.0, p, m, 0, 0), 0);
    EXPECT_EQ(to_ns(-1e-9, p, m, 0, 0), 0);  // floating-point dust
    try {
        to_ns(-2.0, p, m, 3, 1);
        FAIL() << "a negative time was accepted";
    } catch (const ProfileError& e) {
        EXPECT_STREQ(e.what(),
                     "x/profile.h5: /metrics/time_exclusive row 3, column 1: -2 is not a valid time");
    }
    EXPECT_THROW(to_ns(std::nan(""), p, m, 0, 0), ProfileError);
    EXPECT_THROW(to_ns(2e9, p, m, 0, 0), ProfileError);
}

TEST(PartialTest, ExtremesKeepTheThreeLargestAndSmallestWhateverTheOrder) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> values = {{5, 0}, {9, 1}, {5, 2},
                                                                       {1, 3}, {9, 4}, {7, 5}};
    Extremes one = empty_extremes();
    for (const auto& [v, r] : values) add_extreme(one, v, r);
    Extremes left = empty_extremes(), right = empty_extremes();
    for (std::size_t i = 0; i < values.size(); ++i)
        add_extreme(i % 2 == 0 ? right : left, values[i].first, values[i].second);
    merge_extremes(left, right);
    for (const Extremes& e : {one, left}) {
        EXPECT_EQ(std::vector<std::int64_t>(e.high_value, e.high_value + 3),
                  (std::vector<std::int64_t>{9, 9, 7}));
        EXPECT_EQ(std::vector<std::int64_t>(e.high_rank, e.high_rank + 3),
                  (std::vector<std::int64_t>{1, 4, 5}));
        EXPECT_EQ(std::vector<std::int64_t>(e.low_value, e.low_value + 3),
                  (std::vector<std::int64_t>{1, 5, 5}));
        EXPECT_EQ(std::vector<std::int64_t>(e.low_rank, e.low_rank + 3),
                  (std::vector<std::int64_t>{3, 0, 2}));
    }
}

// CUDA API time on the host: waiting for the GPU (synchronisation, blocking
// copies) and the other calls are classes of their own, neither is useful
// computation; the GPU streams' own time is in no class.
TEST_F(AnalyzeCoreTest, CudaCallsAreGpuWaitingOrCudaApiTime) {
    EXPECT_TRUE(is_gpu_wait_call("cudaDeviceSynchronize"));
    EXPECT_TRUE(is_gpu_wait_call("cuStreamSynchronize"));
    EXPECT_TRUE(is_gpu_wait_call("cudaMemcpy"));
    EXPECT_TRUE(is_gpu_wait_call("cuMemcpyDtoH_v2"));
    EXPECT_FALSE(is_gpu_wait_call("cudaMemcpyAsync"));
    EXPECT_FALSE(is_gpu_wait_call("cudaLaunchKernel"));

    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto launch = b.region("cudaLaunchKernel", paradigm::cuda, role::function);
    const auto sync = b.region("cudaDeviceSynchronize", paradigm::cuda, role::function);
    const auto copy = b.region("cudaMemcpy", paradigm::cuda, role::function);
    const auto async = b.region("cudaMemcpyAsync", paradigm::cuda, role::function);
    const auto kernel = b.region("saxpy", paradigm::cuda, role::function);
    const std::size_t host[2] = {b.location(0, 0), b.location(1, 0)};
    const std::size_t stream[2] = {b.location(0, 1, 1), b.location(1, 1, 1)};
    const auto cp_main = b.callpath(-1, main);
    const auto parent = static_cast<std::int64_t>(cp_main);
    const auto cp_launch = b.callpath(parent, launch), cp_sync = b.callpath(parent, sync),
               cp_copy = b.callpath(parent, copy), cp_async = b.callpath(parent, async);
    const auto cp_kernel = b.callpath(-1, kernel);
    const double sync_time[2] = {2, 0.5};
    for (std::size_t r = 0; r < 2; ++r) {
        b.set(cp_main, host[r], 1, 1);
        b.set(cp_launch, host[r], 10, 0.25);
        b.set(cp_sync, host[r], 1, sync_time[r]);
        b.set(cp_copy, host[r], 1, 0.5);
        b.set(cp_async, host[r], 1, 0.25);
        b.set(cp_kernel, stream[r], 10, 3);
    }
    const AnalysisResult r = analyze_in_process(write(b.build()), 1, false, false);
    const SummaryResult& s = r.summary;
    EXPECT_EQ(s.gpu_streams, 2u);
    EXPECT_EQ(s.class_s[static_cast<std::size_t>(TimeClass::computation)], 2.0);
    EXPECT_EQ(s.class_s[static_cast<std::size_t>(TimeClass::gpu_wait)], 3.5);  // 2 + 0.5 + 2 x 0.5
    EXPECT_EQ(s.class_s[static_cast<std::size_t>(TimeClass::cuda_api)], 1.0);  // 2 x (0.25 + 0.25)
    EXPECT_EQ(s.program_s, 6.5);
    EXPECT_EQ(s.pop.max_useful_s, 1.0);
    EXPECT_EQ(row(r.regions, "cudaDeviceSynchronize").time_class, TimeClass::gpu_wait);
    EXPECT_EQ(row(r.callpaths, "main/cudaMemcpyAsync").time_class, TimeClass::cuda_api);

    // 3.5 s of 6.5 s waiting: above the 20 % threshold, the largest call path named.
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    const auto wait = std::find_if(findings.begin(), findings.end(),
                                   [](const Finding& f) { return f.kind == "gpu_wait_share"; });
    ASSERT_NE(wait, findings.end());
    EXPECT_DOUBLE_EQ(wait->value, 3.5 / 6.5);
    EXPECT_EQ(wait->callpath, "main/cudaDeviceSynchronize");
    EXPECT_NE(wait->message.find("The host waits for the GPU in 53.8% of the program's time"), std::string::npos)
        << wait->message;
}

TEST_F(AnalyzeCoreTest, ImbalancedProfileGivesTheKnownFigures) {
    const std::string path = write(imbalanced_profile());
    const AnalysisResult r = analyze_in_process(path, 1, false, false);
    const SummaryResult& s = r.summary;
    EXPECT_EQ(s.ranks, 4u);
    EXPECT_EQ(s.cpu_threads, 4u);
    EXPECT_EQ(s.wall_s, 5.5);
    EXPECT_EQ(s.wall_rank, 0);
    EXPECT_EQ(s.run_s, 5.0);
    EXPECT_EQ(s.class_s[0], 12.0);  // computation
    EXPECT_EQ(s.class_s[1], 8.0);   // mpi
    EXPECT_EQ(s.class_s[static_cast<std::size_t>(TimeClass::mpi_init_finalize)], 1.25);
    EXPECT_EQ(s.program_s, 20.0);
    EXPECT_EQ(*s.share(TimeClass::mpi), 0.4);
    EXPECT_EQ(s.pop.mean_useful_s, 3.0);
    EXPECT_EQ(s.pop.max_useful_s, 4.5);
    EXPECT_EQ(s.pop.rank_at_max, 3);
    EXPECT_DOUBLE_EQ(*s.pop.load_balance, 3.0 / 4.5);
    EXPECT_DOUBLE_EQ(*s.pop.communication_efficiency, 0.9);
    EXPECT_DOUBLE_EQ(*s.pop.parallel_efficiency, 0.6);

    const RowResult& compute = row(r.callpaths, "main/compute");
    EXPECT_EQ(compute.ranks, 4u);
    EXPECT_EQ(compute.min_s, 2.0);
    EXPECT_EQ(compute.mean_s, 2.5);
    EXPECT_EQ(compute.max_s, 4.0);
    EXPECT_EQ(compute.rank_at_max, 3);
    EXPECT_EQ(compute.rank_at_min, 0);
    EXPECT_EQ(compute.imbalance, 0.375);
    EXPECT_EQ(compute.saved_s, 1.5);
    EXPECT_DOUBLE_EQ(compute.stddev_s, std::sqrt(0.75));
    EXPECT_EQ(r.callpaths.front().name, "main/compute");  // the largest saving first

    ASSERT_EQ(r.ranks.size(), 4u);
    EXPECT_EQ(r.ranks[0].rank, 3);
    EXPECT_EQ(r.ranks[0].useful_s(), 4.5);
    EXPECT_EQ(r.ranks[1].rank, 0);  // ties by rank

    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 3u);
    EXPECT_EQ(findings[0].kind, "load_imbalance");
    EXPECT_EQ(findings[0].region, "compute");
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{3}));
    EXPECT_EQ(findings[1].kind, "wait_imbalance");
    EXPECT_EQ(findings[1].region, "MPI_Allreduce");
    EXPECT_EQ(findings[1].ranks, (std::vector<std::int64_t>{3}));  // least waiting: it arrives last
    EXPECT_EQ(findings[2].kind, "mpi_share");
}

TEST_F(AnalyzeCoreTest, ReportsAreIdenticalForAnyNumberOfShares) {
    const std::string path = write(imbalanced_profile());
    const std::vector<ReportFile> one = reports_in_process(path, 1);
    for (std::size_t k : {2u, 3u, 4u, 5u}) {
        const std::vector<ReportFile> many = reports_in_process(path, k);
        ASSERT_EQ(many.size(), one.size());
        for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(many[i], one[i]) << "K = " << k;
    }
}

TEST_F(AnalyzeCoreTest, HybridRanksAverageTheirThreads) {
    const std::string path = write(hybrid_profile());
    for (std::size_t k : {1u, 2u}) {
        const AnalysisResult r = analyze_in_process(path, k, false, false);
        const SummaryResult& s = r.summary;
        EXPECT_EQ(s.ranks, 2u);
        EXPECT_EQ(s.cpu_threads, 4u);
        EXPECT_EQ(s.run_s, 8.0);
        EXPECT_EQ(s.pop.mean_useful_s, 5.25);
        EXPECT_EQ(s.pop.max_useful_s, 5.75);
        EXPECT_EQ(s.pop.rank_at_max, 1);
        EXPECT_DOUBLE_EQ(*s.pop.load_balance, 5.25 / 5.75);
        EXPECT_EQ(*s.pop.communication_efficiency, 0.71875);
        EXPECT_EQ(*s.pop.parallel_efficiency, 0.65625);
        ASSERT_EQ(r.ranks.size(), 2u);
        EXPECT_EQ(r.ranks[0].rank, 1);
        EXPECT_EQ(r.ranks[0].useful_s(), 5.75);
        EXPECT_EQ(r.ranks[1].useful_s(), 4.75);
        EXPECT_EQ(r.ranks[1].class_s[1], 1.0);  // rank 0: 2 s of MPI on one of 2 threads

        const RowResult& work = row(r.regions, "work");
        EXPECT_EQ(work.mean_s, 4.5);
        EXPECT_EQ(work.max_s, 5.0);
        EXPECT_EQ(work.rank_at_max, 1);
        EXPECT_EQ(work.imbalance, 0.1);
        EXPECT_EQ(work.saved_s, 0.5);
        EXPECT_EQ(work.total_s, 18.0);
        const RowResult& allreduce = row(r.callpaths, "main/MPI_Allreduce");
        EXPECT_EQ(allreduce.ranks, 2u);  // rank 1 visited it without time
        EXPECT_EQ(allreduce.mean_s, 0.5);
    }
}

TEST_F(AnalyzeCoreTest, HybridFindingsSayARanksFigureIsPerThread) {
    // main/parallel/work: rank 1 works 6 s on thread 0, so its figure is 3 s per
    // thread, and its own timer shows 6 s: the finding gives both.  A rank of
    // one thread has its time printed plainly (imbalanced_profile below).
    const AnalysisResult r = analyze_in_process(write(hybrid_profile()), 1, false, false);
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    const auto work = std::find_if(findings.begin(), findings.end(),
                                   [](const Finding& f) { return f.callpath == "main/parallel/work"; });
    ASSERT_NE(work, findings.end());
    EXPECT_NE(work->message.find("spend 2.5 s there per CPU thread on average, rank 1 spends 3 s per thread, "
                                 "6 s summed over its 2 CPU threads (imbalance"),
              std::string::npos)
        << work->message;
    EXPECT_NE(work->message.find("The slowest: rank 1 (3 s per thread, 6 s summed over its 2 CPU threads)."),
              std::string::npos)
        << work->message;

    const AnalysisResult flat = analyze_in_process(write(imbalanced_profile()), 1, false, false);
    const std::vector<Finding> plain = advise(flat, AdviceOptions{});
    ASSERT_FALSE(plain.empty());
    EXPECT_EQ(plain[0].kind, "load_imbalance");
    EXPECT_NE(plain[0].message.find("spend 2.5 s there on average, rank 3 spends 4 s (imbalance"),
              std::string::npos)
        << plain[0].message;
    EXPECT_EQ(plain[0].message.find("per thread"), std::string::npos) << plain[0].message;
}

TEST_F(AnalyzeCoreTest, FileIoIsItsOwnClassNotCommunication) {
    // 2 ranks, per rank: main 1 s, MPI_File_write_at 5 s (an MPI region of role
    // function, as profiles before the file_io role hold it), a POSIX-like
    // region of role file_io 1 s, MPI_Allreduce 1 s.  I/O is 6 of 8 s: an
    // io_share finding, and MPI (1 of 8 s) stays below its 20 % threshold.
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto write_at = b.region("MPI_File_write_at", paradigm::mpi, role::function);
    const auto fwrite = b.region("write_checkpoint", paradigm::user, role::file_io);
    const auto allreduce = b.region("MPI_Allreduce", paradigm::mpi, role::coll_all2all);
    for (std::uint32_t r = 0; r < 2; ++r) b.location(r, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_write = b.callpath(static_cast<std::int64_t>(cp_main), write_at);
    const auto cp_fwrite = b.callpath(static_cast<std::int64_t>(cp_main), fwrite);
    const auto cp_allreduce = b.callpath(static_cast<std::int64_t>(cp_main), allreduce);
    for (std::size_t r = 0; r < 2; ++r) {
        b.set(cp_main, r, 1, 1);
        b.set(cp_write, r, 10, 5);
        b.set(cp_fwrite, r, 1, 1);
        b.set(cp_allreduce, r, 10, 1);
    }
    const AnalysisResult r = analyze_in_process(write(b.build()), 1, false, false);
    EXPECT_EQ(r.summary.class_s[static_cast<std::size_t>(TimeClass::io)], 12.0);
    EXPECT_EQ(r.summary.class_s[static_cast<std::size_t>(TimeClass::mpi)], 2.0);
    EXPECT_EQ(r.summary.program_s, 16.0);
    EXPECT_EQ(row(r.callpaths, "main/MPI_File_write_at").time_class, TimeClass::io);
    EXPECT_EQ(row(r.callpaths, "main/write_checkpoint").time_class, TimeClass::io);
    EXPECT_EQ(r.summary.pop.max_useful_s, 1.0);  // I/O is not useful computation
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "io_share");
    EXPECT_EQ(findings[0].callpath, "main/MPI_File_write_at");
    EXPECT_EQ(findings[0].stake, 0.75);
    EXPECT_EQ(findings[0].message.rfind("File I/O takes 75.0% of the program's time (above 10.0%): 12 s of 16 s", 0),
              0u)
        << findings[0].message;
    EXPECT_NE(findings[0].message.find("collective I/O"), std::string::npos);
    const std::vector<ReportFile> files = reports_in_process(write(b.build()), 1);
    EXPECT_NE(files[0].second.find("  file I/O                     12 s     75.0%   MPI-IO"), std::string::npos) << files[0].second;
}

TEST_F(AnalyzeCoreTest, LargeOpenMpSynchronisationIsAFinding) {
    // One rank, 2 threads, each: parallel region 1 s of work, implicit barrier 1 s;
    // main 2 s on thread 0: OpenMP synchronisation is 2 of 6 s, above the 20 % threshold.
    ProfileBuilder b;
    const auto parallel = b.region("!$omp parallel @solver.c:10", paradigm::openmp, role::parallel);
    const auto barrier = b.region("!$omp implicit barrier @solver.c:10", paradigm::openmp, role::implicit_barrier);
    const auto main = b.region("main", paradigm::user, role::function);
    b.location(0, 0);
    b.location(0, 1);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_parallel = b.callpath(static_cast<std::int64_t>(cp_main), parallel);
    const auto cp_barrier = b.callpath(static_cast<std::int64_t>(cp_parallel), barrier);
    const auto cp_worker = b.callpath(-1, parallel);
    const auto cp_worker_barrier = b.callpath(static_cast<std::int64_t>(cp_worker), barrier);
    b.set(cp_main, 0, 1, 2);
    b.set(cp_parallel, 0, 1, 1);
    b.set(cp_barrier, 0, 1, 1);
    b.set(cp_worker, 1, 1, 1);
    b.set(cp_worker_barrier, 1, 1, 1);
    const AnalysisResult r = analyze_in_process(write(b.build()), 1, false, false);
    AdviceOptions options;
    const std::vector<Finding> findings = advise(r, options);
    const auto openmp = std::find_if(findings.begin(), findings.end(),
                                     [](const Finding& f) { return f.kind == "openmp_share"; });
    ASSERT_NE(openmp, findings.end());
    EXPECT_EQ(openmp->value, 2.0 / 6.0);
    // Both barrier call paths have 1 s: the first by name is the worker's.
    EXPECT_EQ(openmp->callpath, "!$omp parallel @solver.c:10/!$omp implicit barrier @solver.c:10");
    EXPECT_EQ(openmp->message.rfind("OpenMP synchronisation takes 33.3% of the program's time (above 20.0%)", 0),
              0u)
        << openmp->message;
    options.openmp_threshold = 0.4;
    const std::vector<Finding> quiet = advise(r, options);
    EXPECT_TRUE(std::none_of(quiet.begin(), quiet.end(), [](const Finding& f) { return f.kind == "openmp_share"; }));
}

TEST(DisplayNameTest, TemplateArgumentsAndParameterListsAreElided) {
    const std::string e = "\u2026";
    EXPECT_EQ(display_name("main/compute"), "main/compute");
    EXPECT_EQ(display_name("std::vector<double, std::allocator<double> >::push_back(double const&)"),
              "std::vector<" + e + ">::push_back(" + e + ")");
    EXPECT_EQ(display_name("main/solve<Grid<3>, double>(Grid<3>&, int)/MPI_Allreduce"),
              "main/solve<" + e + ">(" + e + ")/MPI_Allreduce");
    EXPECT_EQ(display_name("(anonymous namespace)::step()"), "(anonymous namespace)::step()");
    // As the demangler writes an operator template: a blank before its arguments.
    EXPECT_EQ(display_name("bool operator<< <int>(A<int> const&, A<int> const&)"),
              "bool operator<< <" + e + ">(" + e + ")");
    EXPECT_EQ(display_name("bool operator<(A const&, A const&)"), "bool operator<(" + e + ")");
    EXPECT_EQ(display_name("Functor::operator()(int) const"), "Functor::operator()(" + e + ") const");
    EXPECT_EQ(display_name("operator/(A, A)/leaf"), "operator/(" + e + ")/leaf");
    EXPECT_EQ(display_name("!$omp parallel @solver.c:10"), "!$omp parallel @solver.c:10");
    EXPECT_EQ(display_name("broken<unclosed(x"), "broken<unclosed(x");
    // Nothing that drives a terminal: control characters read \xNN.
    EXPECT_EQ(display_name(std::string("evil\x1b[2Jname\a\n")), "evil\\x1b[2Jname\\x07\\x0a");
}

TEST(CsvFieldTest, FormulasStayText) {
    EXPECT_EQ(csv_field("main/compute"), "main/compute");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    EXPECT_EQ(csv_field("+1"), "\"'+1\"");
    EXPECT_EQ(csv_field("-2"), "\"'-2\"");
    EXPECT_EQ(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
    EXPECT_EQ(csv_field(""), "");
}

TEST(RankFindingsTest, MostAtStakeFirstNotesLastSmallOnesLeftOut) {
    std::vector<Finding> findings(5);
    const char* kinds[] = {"a", "b", "c", "d", "e"};
    const std::optional<double> stakes[] = {0.05, std::nullopt, 0.3, 0.005, 0.05};
    for (std::size_t i = 0; i < 5; ++i) {
        findings[i].kind = kinds[i];
        findings[i].stake = stakes[i];
    }
    EXPECT_EQ(rank_findings(findings, 0.01), 1u);  // d
    std::string order;
    for (const Finding& f : findings) order += f.kind;
    EXPECT_EQ(order, "caeb");  // ties (a, e) keep their order; the note last
}

TEST_F(AnalyzeCoreTest, SingleParticipantIsMarked) {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto serial = b.region("serial_io", paradigm::user, role::code);
    b.location(0, 0);
    b.location(1, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_io = b.callpath(static_cast<std::int64_t>(cp_main), serial);
    b.set(cp_main, 0, 1, 1);
    b.set(cp_main, 1, 1, 3);
    b.set(cp_io, 0, 1, 2);
    const AnalysisResult r = analyze_in_process(write(b.build()), 2, false, false);
    const RowResult& io = row(r.callpaths, "main/serial_io");
    EXPECT_EQ(io.ranks, 1u);
    EXPECT_TRUE(io.single_participant);
    EXPECT_EQ(io.mean_s, 2.0);
    EXPECT_EQ(io.imbalance, 0.0);
    for (const Finding& f : advise(r, AdviceOptions{})) EXPECT_NE(f.callpath, "main/serial_io");
}

TEST_F(AnalyzeCoreTest, OpenMpTimeIsSynchronisationOnlyWhereThreadsWait) {
    // One thread: the program's code inside parallel, loop, task and critical sblock
    // regions is computation; barriers, the wait to enter a critical section and the
    // wait for a lock are OpenMP synchronisation.
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto parallel = b.region("!$omp parallel @a.c:1", paradigm::openmp, role::parallel);
    const auto loop = b.region("!$omp for @a.c:2", paradigm::openmp, role::loop);
    const auto task = b.region("!$omp task @a.c:3", paradigm::openmp, role::task);
    const auto barrier = b.region("!$omp implicit barrier @a.c:2", paradigm::openmp, role::implicit_barrier);
    const auto critical = b.region("!$omp critical @a.c:4", paradigm::openmp, role::critical);
    const auto sblock = b.region("!$omp critical sblock @a.c:4", paradigm::openmp, role::critical_sblock);
    const auto lock = b.region("omp_set_lock @a.c:5", paradigm::openmp, role::lock);
    b.location(0, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_parallel = b.callpath(static_cast<std::int64_t>(cp_main), parallel);
    const auto under = [&](std::uint32_t region) { return b.callpath(static_cast<std::int64_t>(cp_parallel), region); };
    const auto cp_loop = under(loop), cp_task = under(task), cp_barrier = under(barrier), cp_lock = under(lock);
    const auto cp_critical = under(critical);
    const auto cp_sblock = b.callpath(static_cast<std::int64_t>(cp_critical), sblock);
    b.set(cp_main, 0, 1, 1);
    b.set(cp_parallel, 0, 1, 2);
    b.set(cp_loop, 0, 1, 4);
    b.set(cp_task, 0, 1, 8);
    b.set(cp_sblock, 0, 1, 16);
    b.set(cp_barrier, 0, 1, 32);
    b.set(cp_critical, 0, 1, 64);
    b.set(cp_lock, 0, 1, 128);
    const AnalysisResult r = analyze_in_process(write(b.build()), 1, false, false);
    EXPECT_EQ(r.summary.class_s[static_cast<std::size_t>(TimeClass::computation)], 1 + 2 + 4 + 8 + 16);
    EXPECT_EQ(r.summary.class_s[static_cast<std::size_t>(TimeClass::openmp)], 32 + 64 + 128);
}

TEST_F(AnalyzeCoreTest, IncludeMpiInitCountsItAsRunTime) {
    const AnalysisResult r = analyze_in_process(write(imbalanced_profile()), 2, true, false);
    EXPECT_EQ(r.summary.run_s, 5.5);
    EXPECT_EQ(r.summary.class_s[1], 9.25);  // MPI_Allreduce 8 + MPI_Init 1.25
    EXPECT_EQ(r.summary.class_s[4], 0.0);
}

TEST_F(AnalyzeCoreTest, FlushesAndDroppedCallPathsAreAdvice) {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto flush = b.region("STRATA_TRACE_BUFFER_FLUSH", paradigm::measurement, role::artificial);
    b.location(0, 0);
    b.location(1, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_flush = b.callpath(static_cast<std::int64_t>(cp_main), flush);
    b.set(cp_main, 0, 1, 4);
    b.set(cp_main, 1, 1, 4);
    b.set(cp_flush, 1, 2, 1);
    FixtureProfile p = b.build();
    p.dropped_callpaths = 7;
    const AnalysisResult r = analyze_in_process(write(p), 1, false, false);
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].kind, "trace_buffer_flush");
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{1}));
    EXPECT_EQ(findings[0].value, 0.2);  // 1 s of R = 5 s
    EXPECT_NE(findings[0].message.find("flushed its trace buffers 2 times on 1 rank"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[1].kind, "dropped_callpaths");
    EXPECT_EQ(findings[1].value, 7.0);
}

// A binary measured without function instrumentation: its computation is the
// program region's own time (the root named after the program, role
// artificial, paradigm user), and the advice says how to see into it.
TEST_F(AnalyzeCoreTest, ComputationInTheProgramRegionItselfIsAdvice) {
    ProfileBuilder b;
    const auto program = b.region("hpcc", paradigm::user, role::artificial);
    const auto solve = b.region("solve", paradigm::user, role::function);
    const auto send = b.region("MPI_Send", paradigm::mpi, role::point_to_point);
    b.location(0, 0);
    b.location(1, 0);
    const auto cp_program = b.callpath(-1, program);
    const auto cp_solve = b.callpath(static_cast<std::int64_t>(cp_program), solve);
    const auto cp_send = b.callpath(static_cast<std::int64_t>(cp_program), send);
    for (std::size_t l = 0; l < 2; ++l) {
        b.set(cp_program, l, 1, 3);  // exclusive: the program's own work
        b.set(cp_solve, l, 1, 1);
        b.set(cp_send, l, 10, 1);
    }
    const AnalysisResult r = analyze_in_process(write(b.build()), 1, false, false);
    EXPECT_EQ(r.summary.class_s[static_cast<std::size_t>(TimeClass::computation)], 8.0);
    EXPECT_EQ(r.summary.pop.max_useful_s, 4.0);
    EXPECT_EQ(r.summary.run_s, 5.0);  // the program region's inclusive time
    std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "unmeasured_computation");
    EXPECT_EQ(findings[0].region, "hpcc");
    EXPECT_EQ(findings[0].value, 0.75);  // 6 s of 8 s
    EXPECT_EQ(findings[0].time_s, 6.0);
    EXPECT_NE(findings[0].message.find("75.0% of the computation (6 s of 8 s summed over all CPU threads) is in "
                                       "the program region 'hpcc' itself"),
              std::string::npos)
        << findings[0].message;

    // Two programs in one job (MPMD), each below half of the computation, together above.
    ProfileBuilder mpmd;
    const std::size_t cps[2] = {mpmd.callpath(-1, mpmd.region("a", paradigm::user, role::artificial)),
                                mpmd.callpath(-1, mpmd.region("b", paradigm::user, role::artificial))};
    const auto work = mpmd.region("work", paradigm::user, role::function);
    for (std::uint32_t r = 0; r < 2; ++r) {
        mpmd.location(r, 0);
        mpmd.set(cps[r], r, 1, 3);
        mpmd.set(mpmd.callpath(static_cast<std::int64_t>(cps[r]), work), r, 1, 1);
    }
    findings = advise(analyze_in_process(write(mpmd.build()), 1, false, false), AdviceOptions{});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "unmeasured_computation");
    EXPECT_EQ(findings[0].value, 0.75);
    EXPECT_NE(findings[0].message.find("in the program regions 'a', 'b' itself"), std::string::npos)
        << findings[0].message;

    // Below half of the computation: the functions measured say enough.
    ProfileBuilder measured;
    const auto p2 = measured.region("hpcc", paradigm::user, role::artificial);
    const auto s2 = measured.region("solve", paradigm::user, role::function);
    measured.location(0, 0);
    const auto cp_p2 = measured.callpath(-1, p2);
    measured.set(cp_p2, 0, 1, 1);
    measured.set(measured.callpath(static_cast<std::int64_t>(cp_p2), s2), 0, 1, 1.5);
    findings = advise(analyze_in_process(write(measured.build()), 1, false, false), AdviceOptions{});
    EXPECT_TRUE(findings.empty()) << findings[0].message;
}

// Short functions called very often: the advice points to strata-score's filter.
TEST_F(AnalyzeCoreTest, ShortFrequentFunctionsAreAdvice) {
    auto profile = [](std::uint64_t leaf_visits) {
        ProfileBuilder b;
        const auto main = b.region("main", paradigm::compiler, role::function);
        const auto leaf = b.region("leaf", paradigm::compiler, role::function);
        const auto rare = b.region("rare", paradigm::compiler, role::function);  // short, < 1 % of the visits
        const auto slow = b.region("slow", paradigm::compiler, role::function);  // frequent, 2 us per call
        b.location(0, 0);
        const auto cp_main = b.callpath(-1, main);
        b.set(cp_main, 0, 1, 1);
        b.set(b.callpath(static_cast<std::int64_t>(cp_main), leaf), 0, leaf_visits, 1.5);
        b.set(b.callpath(static_cast<std::int64_t>(cp_main), rare), 0, 10, 1e-6);
        b.set(b.callpath(static_cast<std::int64_t>(cp_main), slow), 0, 500000, 1);
        return b.build();
    };
    const AnalysisResult r = analyze_in_process(write(profile(6000000)), 1, false, false);
    EXPECT_EQ(r.summary.thread_s, 3.500001);
    for (const RowResult& row : r.regions) {
        if (row.region == "leaf") {
            EXPECT_EQ(row.inclusive_total_s, 1.5);
        }
        if (row.region == "main") {
            EXPECT_EQ(row.inclusive_total_s, 3.500001);
        }
    }
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "short_frequent_functions");
    EXPECT_EQ(findings[0].region, "leaf");
    EXPECT_DOUBLE_EQ(findings[0].value, 6000000 / 3.500001);
    EXPECT_NE(findings[0].message.find("1 function ('leaf') of at most 1 us per call (inclusive, on average) made "
                                       "6000000 of the 6500011 visits (92.3%), 1.7 million per second of thread "
                                       "time"),
              std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].message.find("strata-score --suggest-filter FILE"), std::string::npos);
    // 3000000 calls in 3.500001 s: 0.86 million a second, below the rate.
    EXPECT_TRUE(advise(analyze_in_process(write(profile(3000000)), 1, false, false), AdviceOptions{}).empty());
}

// A region's inclusive time counts a recursion once, on 1 to 3 analysis ranks.
TEST_F(AnalyzeCoreTest, RegionInclusiveTimeCountsRecursionOnce) {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::compiler, role::function);
    const auto fact = b.region("fact", paradigm::compiler, role::function);
    for (std::uint32_t rank = 0; rank < 3; ++rank) b.location(rank, 0);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_fact = b.callpath(static_cast<std::int64_t>(cp_main), fact);
    const auto cp_inner = b.callpath(static_cast<std::int64_t>(cp_fact), fact);
    for (std::size_t l = 0; l < 3; ++l) {
        b.set(cp_main, l, 1, 1);
        b.set(cp_fact, l, 1, 2);   // inclusive 2 + 3 = 5
        b.set(cp_inner, l, 1, 3);  // inclusive 3, inside the other fact
    }
    const std::string file = write(b.build());
    for (std::size_t k : {1, 2, 3}) {
        const AnalysisResult r = analyze_in_process(file, k, false, false);
        bool seen = false;
        for (const RowResult& row : r.regions) {
            if (row.region != "fact") continue;
            seen = true;
            EXPECT_EQ(row.inclusive_total_s, 15.0) << "K = " << k;  // 3 ranks x 5 s, not 3 x (5 + 3)
            EXPECT_EQ(row.visits, 6u);
        }
        EXPECT_TRUE(seen);
        for (const RowResult& row : r.callpaths) {
            if (row.name == "main/fact/fact") {
                EXPECT_EQ(row.inclusive_total_s, 9.0) << "K = " << k;
            }
        }
    }
}

// Threads that wait while their rank's busiest thread works (OpenMP threads
// outside parallel regions): their idle time against the thread time.
TEST_F(AnalyzeCoreTest, IdleThreadsAreAdvice) {
    auto profile = [](double worker_busy) {
        ProfileBuilder b;
        const auto main = b.region("main", paradigm::user, role::function);
        const auto parallel = b.region("!$omp parallel @a.c:3", paradigm::openmp, role::parallel);
        b.location(0, 0);
        b.location(0, 1);
        const auto cp_main = b.callpath(-1, main);
        const auto cp_parallel = b.callpath(static_cast<std::int64_t>(cp_main), parallel);
        b.set(cp_main, 0, 1, 6);  // serial work on the main thread
        b.set(cp_parallel, 0, 1, 4);
        b.set(cp_parallel, 1, 0, worker_busy);  // the other thread: in the parallel region only
        return b.build();
    };
    const AnalysisResult r = analyze_in_process(write(profile(4)), 1, false, false);
    EXPECT_EQ(r.summary.thread_s, 20.0);  // 2 threads x 10 s
    EXPECT_EQ(r.summary.idle_s, 6.0);     // the other thread outside the parallel region
    ASSERT_EQ(r.ranks.size(), 1u);
    EXPECT_EQ(r.ranks[0].idle_s, 6.0);
    const std::vector<Finding> findings = advise(r, AdviceOptions{});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind, "idle_threads");
    EXPECT_EQ(findings[0].value, 0.3);
    EXPECT_EQ(findings[0].time_s, 6.0);
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{0}));
    EXPECT_NE(findings[0].message.find("in no measured region for 6 s of 20 s of thread time (30.0%, above 20.0%"),
              std::string::npos)
        << findings[0].message;
    // 1 s of 20 s: below the threshold.
    EXPECT_TRUE(advise(analyze_in_process(write(profile(9)), 1, false, false), AdviceOptions{}).empty());
}

TEST_F(AnalyzeCoreTest, BalancedProfileHasNoFindings) {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    for (std::uint32_t r = 0; r < 3; ++r) b.location(r, 0);
    const auto cp = b.callpath(-1, main);
    for (std::size_t l = 0; l < 3; ++l) b.set(cp, l, 1, 2);
    const std::string path = write(b.build());
    const AnalysisResult r = analyze_in_process(path, 1, false, false);
    EXPECT_TRUE(advise(r, AdviceOptions{}).empty());
    EXPECT_EQ(*r.summary.pop.load_balance, 1.0);
    const std::vector<ReportFile> files = reports_in_process(path, 1);
    EXPECT_NE(files[0].second.find("No findings"), std::string::npos) << files[0].second;
    EXPECT_EQ(files[7].second, "index,kind,region,callpath,ranks,metric,value,threshold,time_s,stake,message\n");
}

// ---- the reader's column slice -------------------------------------------------

TEST_F(AnalyzeCoreTest, ColumnSliceReadsOnlyThoseColumns) {
    const std::string path = write(imbalanced_profile());
    ProfileReadOptions options;
    options.first_column = 1;
    options.column_count = 2;
    options.metrics = {"time_exclusive"};
    const Profile p = read_profile(path, options);
    ASSERT_EQ(p.metrics.size(), 1u);
    const Metric& m = p.metric("time_exclusive");
    EXPECT_EQ(m.first_column, 1u);
    EXPECT_EQ(m.columns, 2u);
    EXPECT_EQ(m.values.size(), 5u * 2u);
    EXPECT_EQ(m.at(0, 0), 0.25);  // MPI_Init on rank 1
    EXPECT_EQ(m.at(2, 1), 2.0);   // compute on rank 2
    EXPECT_FALSE(m.whole(4));
    EXPECT_EQ(p.find_metric("visits"), nullptr);

    options.first_column = 3;
    options.column_count = ProfileReadOptions::all_columns;  // clipped
    EXPECT_EQ(read_profile(path, options).metric("time_exclusive").columns, 1u);
    options.first_column = 5;
    try {
        read_profile(path, options);
        FAIL() << "a slice past the last location was accepted";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": columns from 5 on requested, but the profile has 4 locations");
    }
}

TEST_F(AnalyzeCoreTest, DeepRecursionGivesReportsLinearInItsDepth) {
    // A recursion 20 000 deep: before, every call path's row named its whole
    // path (the reports grew with the square of the depth: 400 MB at 10 000).
    constexpr std::size_t depth = 20000;
    std::size_t bytes = 0;
    for (const ReportFile& file : reports_in_process(write(deep_recursion_profile(depth, 1e-3)), 1)) {
        if (file.first == "loadbalance.csv") {
            EXPECT_LT(file.second.size(), depth * 600) << file.first;
        }
        bytes += file.second.size();
    }
    EXPECT_LT(bytes, depth * 2000);
}

}  // namespace
}  // namespace strata::analysis::test
