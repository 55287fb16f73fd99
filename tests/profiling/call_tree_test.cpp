// SPDX-License-Identifier: BSD-3-Clause
// Exact call paths, visits, inclusive and exclusive times with a fake clock.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>

#include "core/memory_pool.hpp"
#include "profiling/call_tree.hpp"
#include "profiling/profiling_substrate.hpp"
#include "runtime_fixture.hpp"

namespace strata::testing {
namespace {

using events::enter_at;
using events::exit_at;

struct Row {
    std::uint64_t visits;
    double inclusive;
    double exclusive;
};

/// "main/compute/compute" -> values of location `loc`.
std::map<std::string, Row> rows(const profiling::ProfileData& data, size_t loc = 0) {
    std::map<std::string, Row> out;
    const size_t n_loc = data.locations.size();
    auto path = [&](std::int64_t cp) {
        std::string p;
        for (; cp >= 0; cp = data.callpaths[cp].parent) {
            const auto& c = data.callpaths[cp];
            std::string part = data.strings[data.regions[c.region].name];
            if (c.parameter >= 0) {
                part = data.strings[data.parameters[c.parameter].name] + "=" +
                       (c.string_value >= 0 ? data.strings[c.string_value] : std::to_string(c.int_value));
            }
            p = p.empty() ? part : part + "/" + p;
        }
        return p;
    };
    for (size_t cp = 0; cp < data.callpaths.size(); ++cp) {
        const size_t i = cp * n_loc + loc;
        out[path(static_cast<std::int64_t>(cp))] = Row{data.metrics[0].counts[i], data.metrics[1].values[i],
                                                        data.metrics[2].values[i]};
    }
    return out;
}

class CallTreeTest : public RuntimeTest {};

TEST_F(CallTreeTest, NestedAndRecursiveRegions) {
    start({&profiling::substrate_callbacks()});
    const RegionHandle main_r = region("main"), compute = region("compute"), io = region("io");
    enter_at(0, main_r);
    enter_at(10, compute);
    exit_at(30, compute);
    enter_at(40, compute);
    enter_at(45, compute);  // recursion
    exit_at(50, compute);
    exit_at(60, compute);
    enter_at(70, io);
    exit_at(75, io);
    exit_at(100, main_r);
    runtime::finalize();
    const auto r = rows(profiling::collect());
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r.at("main").visits, 1u);
    EXPECT_DOUBLE_EQ(r.at("main").inclusive, 100e-9);
    EXPECT_DOUBLE_EQ(r.at("main").exclusive, 55e-9);
    EXPECT_EQ(r.at("main/compute").visits, 2u);
    EXPECT_DOUBLE_EQ(r.at("main/compute").inclusive, 40e-9);
    EXPECT_DOUBLE_EQ(r.at("main/compute").exclusive, 35e-9);
    EXPECT_EQ(r.at("main/compute/compute").visits, 1u);
    EXPECT_DOUBLE_EQ(r.at("main/compute/compute").inclusive, 5e-9);
    EXPECT_EQ(r.at("main/io").visits, 1u);
    EXPECT_DOUBLE_EQ(r.at("main/io").exclusive, 5e-9);
}

TEST_F(CallTreeTest, ParametersSplitTheCallPath) {
    start({&profiling::substrate_callbacks()});
    const RegionHandle solve = region("solve"), step = region("step");
    const ParameterHandle n = events::define_parameter("n", events::ParameterType::integer);
    for (int i = 0; i < 3; ++i) {
        const Ticks t0 = 100 * i;
        enter_at(t0, solve);
        events::parameter_int(n, i % 2);  // time from now on belongs to "n=0" or "n=1"
        enter_at(t0 + 10, step);
        exit_at(t0 + 20, step);
        exit_at(t0 + 50, solve);
    }
    runtime::finalize();
    const auto r = rows(profiling::collect());
    EXPECT_EQ(r.at("solve").visits, 3u);
    EXPECT_EQ(r.at("solve/n=0").visits, 2u);
    EXPECT_EQ(r.at("solve/n=1").visits, 1u);
    EXPECT_EQ(r.at("solve/n=0/step").visits, 2u);
    EXPECT_DOUBLE_EQ(r.at("solve/n=0/step").inclusive, 20e-9);
    EXPECT_DOUBLE_EQ(r.at("solve/n=1/step").inclusive, 10e-9);
}

TEST_F(CallTreeTest, ThreadsAreSeparateLocationsMergedByCallPath) {
    start({&profiling::substrate_callbacks()});
    const RegionHandle work = region("work");
    enter_at(0, work);
    exit_at(10, work);
    std::thread t([&] {
        for (int i = 0; i < 4; ++i) {
            enter_at(100 + i * 10, work);
            exit_at(105 + i * 10, work);
        }
    });
    t.join();
    runtime::finalize();
    const auto data = profiling::collect();
    ASSERT_EQ(data.locations.size(), 2u);
    ASSERT_EQ(data.callpaths.size(), 1u);
    EXPECT_EQ(rows(data, 0).at("work").visits, 1u);
    EXPECT_EQ(rows(data, 1).at("work").visits, 4u);
    EXPECT_DOUBLE_EQ(rows(data, 1).at("work").inclusive, 20e-9);
}

TEST_F(CallTreeTest, TeamThreadsContinueTheForkingThreadsCallPath) {
    start({&profiling::substrate_callbacks()});
    const RegionHandle main_region = region("main"), parallel = region("parallel"), work = region("work");
    events::enter(main_region);
    events::enter(parallel);
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2);
    events::thread_team_begin(fork, 0, 2);
    events::enter(work);
    events::exit(work);
    std::thread worker([&] {
        events::thread_team_begin(fork, 1, 2);
        for (int i = 0; i < 3; ++i) {
            events::enter(work);
            events::exit(work);
        }
        events::thread_team_end();
    });
    worker.join();
    events::thread_team_end();
    events::thread_join(fork);
    events::exit(parallel);
    events::exit(main_region);
    runtime::finalize();
    const auto data = profiling::collect();
    ASSERT_EQ(data.locations.size(), 2u);
    ASSERT_EQ(data.callpaths.size(), 3u);  // main, main/parallel, main/parallel/work: one tree
    const auto master = rows(data, 0), team_thread = rows(data, 1);
    EXPECT_EQ(master.at("main/parallel/work").visits, 1u);
    EXPECT_EQ(team_thread.at("main/parallel/work").visits, 3u);
    // The inherited call paths are not visits of the team thread, but hold its time.
    EXPECT_EQ(team_thread.at("main").visits, 0u);
    EXPECT_EQ(team_thread.at("main/parallel").visits, 0u);
    EXPECT_GE(team_thread.at("main/parallel").inclusive, team_thread.at("main/parallel/work").inclusive);
    EXPECT_GE(team_thread.at("main").inclusive, team_thread.at("main/parallel").inclusive);
    EXPECT_GT(team_thread.at("main").inclusive, 0.0);
}

using Bytes = std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>;

class CallTreeMpiTest : public CallTreeTest {
protected:
    Bytes mpi_bytes(std::vector<const substrate::Callbacks*> substrates);
};

/// Bytes sent and received per call path of an MPI-like sequence, through the
/// event API's calls that join an MPI call's enter or exit with its message.
Bytes CallTreeMpiTest::mpi_bytes(std::vector<const substrate::Callbacks*> substrates) {
    start(std::move(substrates));
    const RegionHandle main_r = region("main"), send = region("MPI_Send", Paradigm::mpi),
                       recv = region("MPI_Recv", Paradigm::mpi), allreduce = region("MPI_Allreduce", Paradigm::mpi);
    // An MPI communicator: the profile has byte metrics only then.
    const std::int32_t ranks[] = {0};
    events::CommunicatorSpec world;
    world.name = "MPI_COMM_WORLD";
    world.world_ranks = ranks;
    world.size = 1;
    const events::CommunicatorHandle comm = events::define_communicator(world);
    events::enter(main_r);
    for (int i = 0; i < 3; ++i) {
        events::enter_mpi_send(send, comm, 1, 7, 64);
        events::exit(send);
        events::enter(recv);
        events::mpi_recv_exit(recv, comm, 1, 7, 32);
        events::enter_mpi_collective_begin(allreduce);
        events::mpi_collective_end_exit(allreduce, events::CollectiveOp::allreduce, comm, -1, 8, 8);
    }
    events::exit(main_r);
    runtime::finalize();
    const auto data = profiling::collect();
    std::size_t sent = data.metrics.size(), received = data.metrics.size();
    for (std::size_t m = 0; m < data.metrics.size(); ++m) {
        if (data.metrics[m].name == "bytes_sent") sent = m;
        if (data.metrics[m].name == "bytes_received") received = m;
    }
    EXPECT_LT(sent, data.metrics.size());
    EXPECT_LT(received, data.metrics.size());
    Bytes out;
    if (sent == data.metrics.size() || received == data.metrics.size()) return out;
    for (std::size_t cp = 0; cp < data.callpaths.size(); ++cp) {
        std::string name = data.strings[data.regions[data.callpaths[cp].region].name];
        if (data.callpaths[cp].parent >= 0) name = "main/" + name;
        out[name] = {data.metrics[sent].counts[cp], data.metrics[received].counts[cp]};
    }
    return out;
}

TEST_F(CallTreeMpiTest, MessageBytesLandOnTheCallPathOfTheirCall) {
    const Bytes expected = {{"main", {0, 0}},
                            {"main/MPI_Send", {192, 0}},
                            {"main/MPI_Recv", {0, 96}},
                            {"main/MPI_Allreduce", {24, 24}}};
    // The profile alone takes an MPI call's enter and its message in one callback ...
    EXPECT_EQ(mpi_bytes({&profiling::substrate_callbacks()}), expected);
    TearDown();
    // ... and as two with another substrate beside it.
    EXPECT_EQ(mpi_bytes({&profiling::substrate_callbacks(), &recording_substrate()}), expected);
}

TEST_F(CallTreeTest, OutOfMemoryFoldsNewCallPathsIntoTheirParent) {
    // 400 distinct call paths below 'top', in a budget of `total` bytes of 4 KiB pages.
    const auto run = [this](std::uint64_t total) {
        start({&profiling::substrate_callbacks()}, total, 4 << 10);
        std::vector<RegionHandle> regions;
        for (int i = 0; i < 400; ++i) regions.push_back(region(("r" + std::to_string(i)).c_str()));
        const RegionHandle top = region("top");
        enter_at(0, top);
        for (int i = 0; i < 400; ++i) {
            enter_at(10 + i, regions[i]);
            exit_at(11 + i, regions[i]);
        }
        exit_at(1000, top);
        runtime::finalize();
        return profiling::collect();
    };
    // 4 pages: the root page plus a few; the distinct paths run out.
    const auto data = run(16 << 10);
    EXPECT_GT(data.dropped_callpaths, 0u);
    EXPECT_LT(data.callpaths.size(), 401u);
    // The time stays in 'top': its inclusive time is complete.
    EXPECT_DOUBLE_EQ(rows(data).at("top").inclusive, 1000e-9);
    // The warning's figure: a budget that keeps every call path, as the next run shows.
    ASSERT_GT(data.memory_needed, std::uint64_t{16} << 10);
    EXPECT_FALSE(data.memory_needed_at_least);
    TearDown();
    const auto kept = run(data.memory_needed);
    EXPECT_EQ(kept.dropped_callpaths, 0u) << "STRATA_TOTAL_MEMORY=" << data.memory_needed;
    EXPECT_EQ(kept.callpaths.size(), 401u);
}

}  // namespace
}  // namespace strata::testing
