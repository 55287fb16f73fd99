// SPDX-License-Identifier: BSD-3-Clause
// The event path: nesting repair, recording on/off, parameters, inactive runtime.
#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "core/location.hpp"
#include "runtime_fixture.hpp"

namespace strata::testing {
namespace {

using events::enter_at;
using events::exit_at;

class EventsTest : public RuntimeTest {};

TEST_F(EventsTest, DeliversEnterAndExitInOrder) {
    start({&recording_substrate()});
    const RegionHandle a = region("a"), b = region("b");
    enter_at(10, a);
    enter_at(20, b);
    exit_at(30, b);
    exit_at(40, a);
    const std::vector<SeenEvent> expected = {{'E', 10, a, 0}, {'E', 20, b, 0}, {'L', 30, b, 0}, {'L', 40, a, 0}};
    EXPECT_EQ(seen_events(), expected);
}

TEST_F(EventsTest, EventsTimedBeforeAFlushAreDeliveredAfterIt) {
    // Two substrates, as profiling and tracing: a trace buffer flush recorded
    // at 100..200 while an MPI call's exit (read at 50) was on its way.  The
    // exit reaches both substrates at 200, where the trace's buffer puts it
    // too, so that the flush stays inside the call in the profile as well.
    start({&recording_substrate(), &recording_substrate_inherited_only()});
    const RegionHandle call = region("MPI_Recv", Paradigm::mpi), flush = runtime::detail::flush_region;
    enter_at(10, call);
    // As the tracing substrate reports it, through what the core gave the substrates.
    ASSERT_NE(core_services(), nullptr);
    core_services()->measurement_activity(*location::current(), substrate::MeasurementActivity::trace_buffer_flush,
                                          100, 200);
    exit_at(50, call);
    enter_at(300, call);  // later events keep their own times
    exit_at(310, call);
    const std::vector<SeenEvent> expected = {
        {'E', 10, call, 0},  {'E', 10, call, 0},  {'E', 100, flush, 0}, {'E', 100, flush, 0},
        {'L', 200, flush, 0}, {'L', 200, flush, 0}, {'L', 200, call, 0},  {'L', 200, call, 0},
        {'E', 300, call, 0}, {'E', 300, call, 0}, {'L', 310, call, 0},  {'L', 310, call, 0}};
    EXPECT_EQ(seen_events(), expected);
}

TEST_F(EventsTest, ExitOfOuterRegionClosesInnerOnesFirst) {
    start({&recording_substrate()});
    const RegionHandle a = region("a"), b = region("b"), c = region("c");
    enter_at(1, a);
    enter_at(2, b);
    enter_at(3, c);
    exit_at(4, a);  // b and c are still open
    const std::vector<SeenEvent> expected = {{'E', 1, a, 0}, {'E', 2, b, 0}, {'E', 3, c, 0},
                                             {'L', 4, c, 0}, {'L', 4, b, 0}, {'L', 4, a, 0}};
    EXPECT_EQ(seen_events(), expected);
    EXPECT_EQ(location::current()->unmatched_exits, 1u);
}

TEST_F(EventsTest, ExitOfRegionNotOpenIsIgnored) {
    start({&recording_substrate()});
    const RegionHandle a = region("a"), b = region("b");
    enter_at(1, a);
    exit_at(2, b);
    exit_at(3, a);
    const std::vector<SeenEvent> expected = {{'E', 1, a, 0}, {'L', 3, a, 0}};
    EXPECT_EQ(seen_events(), expected);
    EXPECT_EQ(location::current()->unmatched_exits, 1u);
}

TEST_F(EventsTest, RecordingOffHidesEventsButKeepsNesting) {
    start({&recording_substrate()});
    const RegionHandle outer = region("outer"), hidden = region("hidden");
    enter_at(1, outer);
    events::set_recording(false);
    EXPECT_FALSE(events::is_recording());
    enter_at(5, hidden);
    exit_at(6, hidden);
    events::set_recording(true);
    EXPECT_TRUE(events::is_recording());
    exit_at(9, outer);
    const auto& seen = seen_events();
    ASSERT_EQ(seen.size(), 4u);
    const RegionHandle off = runtime::detail::recording_off_region;
    EXPECT_EQ(seen[0], (SeenEvent{'E', 1, outer, 0}));
    EXPECT_EQ(seen[1].kind, 'E');
    EXPECT_EQ(seen[1].id, off);
    EXPECT_EQ(seen[2].kind, 'L');
    EXPECT_EQ(seen[2].id, off);
    EXPECT_EQ(seen[3], (SeenEvent{'L', 9, outer, 0}));
}

TEST_F(EventsTest, RegionEnteredBeforeRecordingOffIsStillLeft) {
    start({&recording_substrate()});
    const RegionHandle a = region("a");
    enter_at(1, a);
    events::set_recording(false);
    // Leaving 'a' closes the recording-off region (a nesting repair) and 'a' itself.
    exit_at(3, a);
    const auto& seen = seen_events();
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen.back(), (SeenEvent{'L', 3, a, 0}));
    // Switching on at another depth is refused: recording stays off.
    events::set_recording(true);
    EXPECT_FALSE(events::is_recording());
}

TEST_F(EventsTest, ParametersAreDelivered) {
    start({&recording_substrate()});
    const RegionHandle a = region("a");
    const ParameterHandle n = events::define_parameter("n", events::ParameterType::integer);
    enter_at(1, a);
    events::parameter_int(n, -42);
    exit_at(5, a);
    const auto& seen = seen_events();
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[1].kind, 'P');
    EXPECT_EQ(seen[1].id, n);
    EXPECT_EQ(seen[1].value, -42);
}

TEST_F(EventsTest, NothingHappensBeforeInitialisation) {
    events::RegionSpec spec;
    spec.name = "early";
    const RegionHandle r = events::define_region(spec);
    events::enter(r);
    events::exit(r);
    EXPECT_FALSE(events::is_active());
    EXPECT_TRUE(seen_events().empty());
}

TEST_F(EventsTest, RegionZeroFromAFailedDefinitionIsIgnored) {
    start({&recording_substrate()});
    events::enter(0);
    enter_at(5, 0);
    exit_at(6, 0);
    EXPECT_TRUE(seen_events().empty());
    EXPECT_EQ(location::current()->depth, 0u);
}

TEST_F(EventsTest, DefinitionsAreDeduplicated) {
    start({&recording_substrate()});
    events::RegionSpec spec;
    spec.name = "solve";
    spec.file = "solver.c";
    spec.line = 12;
    const RegionHandle first = events::define_region(spec);
    EXPECT_EQ(events::define_region(spec), first);
    spec.line = 13;
    EXPECT_NE(events::define_region(spec), first);
    EXPECT_EQ(events::find_region(Paradigm::user, "solve", 0), first);
    EXPECT_EQ(events::find_region(Paradigm::user, "solve", region_flag_phase), 0u);
    EXPECT_EQ(events::define_string("x"), events::define_string("x"));
}

TEST_F(EventsTest, FinalizeClosesOpenRegions) {
    start({&recording_substrate()});
    const RegionHandle a = region("a"), b = region("b");
    enter_at(1, a);
    enter_at(2, b);
    runtime::finalize();
    const auto& seen = seen_events();
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen[2].kind, 'L');
    EXPECT_EQ(seen[2].id, b);
    EXPECT_EQ(seen[3].id, a);
    EXPECT_FALSE(events::is_active());
    events::enter(a);  // after finalisation: ignored
    EXPECT_EQ(seen_events().size(), 4u);
}

/// The kinds of the events seen, in order ("FBEL..."), without times.
std::string kinds() {
    std::string out;
    for (const SeenEvent& e : seen_events()) out += e.kind;
    return out;
}

TEST_F(EventsTest, ThreadTeamEventsAndTheInheritedCallPath) {
    start({&recording_substrate()});
    const RegionHandle outer = region("outer"), parallel = region("parallel");
    events::enter(outer);
    events::enter(parallel);
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2);
    ASSERT_NE(fork, nullptr);
    events::thread_team_begin(fork, 0, 2);
    std::vector<SeenEvent> worker_seen;
    std::thread worker([&] {
        // seen_events() is not thread-safe: the main thread waits in join() meanwhile.
        events::thread_team_begin(fork, 1, 2);
        events::thread_team_end();
    });
    worker.join();
    events::thread_team_end();
    events::thread_join(fork);
    events::exit(parallel);
    events::exit(outer);
    EXPECT_EQ(kinds(), "EEFBBXXJLL");
    const auto& seen = seen_events();
    EXPECT_EQ(seen[2].value, 2);  // requested threads
    EXPECT_EQ(seen[3].value, 0);  // thread 0 inherits nothing: its call path is its own
    EXPECT_EQ(seen[4].value, 2);  // the worker continues outer/parallel
    EXPECT_EQ(seen[3].id, seen[4].id);  // one team
    EXPECT_EQ(seen[5].id, seen[4].id);

    // The team is a communicator of the OpenMP paradigm whose members are the two threads.
    const DefinitionsSnapshot defs = definitions().snapshot();
    ASSERT_EQ(defs.communicators.size(), 1u);
    EXPECT_EQ(defs.communicators[0].paradigm, Paradigm::openmp);
    EXPECT_EQ(defs.communicators[0].world_ranks, (std::vector<std::int32_t>{0, 1}));
}

/// The fields of `e` that differ from a ThreadEvent's defaults (bit(ThreadField) each).
std::uint8_t fields_set(const substrate::ThreadEvent& e) {
    using substrate::bit;
    using substrate::ThreadField;
    const substrate::ThreadEvent none;
    std::uint8_t set = 0;
    if (e.model != none.model) set |= bit(ThreadField::model);
    if (e.requested_threads != none.requested_threads) set |= bit(ThreadField::requested_threads);
    if (e.team != none.team) set |= bit(ThreadField::team);
    if (e.thread_number != none.thread_number) set |= bit(ThreadField::thread_number);
    if (e.inherited != none.inherited || e.inherited_depth != none.inherited_depth) set |= bit(ThreadField::inherited);
    if (e.task_creator != none.task_creator || e.task_generation != none.task_generation) set |= bit(ThreadField::task);
    return set;
}

TEST_F(EventsTest, EveryThreadEventCarriesTheFieldsOfItsRow) {
    // Every kind of thread_events.def, through the API functions its row
    // names, with values that differ from the defaults (a model that is not
    // OpenMP, a worker numbered 1 that inherits a call path).
    start({&recording_substrate()});
    const RegionHandle outer = region("outer");
    events::enter(outer);
    events::ForkContext* fork = events::thread_fork(Paradigm::compiler, 2);
    ASSERT_NE(fork, nullptr);
    events::thread_team_begin(fork, 0, 2);
    std::thread worker([&] {
        events::thread_team_begin(fork, 1, 2);
        const events::TaskId task = events::task_create();
        events::task_switch(task);
        events::task_complete(task);
        events::thread_team_end();
    });
    worker.join();  // seen_thread_events() is not thread-safe: one thread at a time
    events::thread_team_end();
    events::thread_join(fork);
    events::exit(outer);

    std::uint8_t carried[substrate::ThreadEvent::kind_count] = {};
    for (const substrate::ThreadEvent& e : seen_thread_events()) {
        ASSERT_LT(e.kind, substrate::ThreadEvent::kind_count);
        const std::uint8_t spec = substrate::kThreadEventFields.of[e.kind];
        EXPECT_EQ(fields_set(e) & ~spec, 0) << "kind " << int(e.kind) << " carries a field its row does not name";
        carried[e.kind] |= fields_set(e);
    }
    // Each kind arrived, and carried every field its row names at least once.
    for (int k = 0; k < substrate::ThreadEvent::kind_count; ++k)
        EXPECT_EQ(carried[k], substrate::kThreadEventFields.of[k]) << "kind " << k;
}

/// A thread that runs one job at a time while the caller waits (the recording
/// substrate is not thread-safe, so the two never record at the same time).
class StepThread {
public:
    StepThread() : thread_([this] { loop(); }) {}
    ~StepThread() {
        run(nullptr);
        thread_.join();
    }
    void run(std::function<void()> job) {
        std::unique_lock<std::mutex> lock(mutex_);
        job_ = std::move(job);
        quit_ = !job_;
        pending_ = true;
        cv_.notify_all();
        cv_.wait(lock, [this] { return !pending_; });
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [this] { return pending_; });
            if (quit_) {
                pending_ = false;
                cv_.notify_all();
                return;
            }
            job_();
            pending_ = false;
            cv_.notify_all();
        }
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::function<void()> job_;
    bool pending_ = false;
    bool quit_ = false;
    std::thread thread_;
};

TEST_F(EventsTest, ForkContextsAreReusedOnlyAfterTheTeamReleasedThem) {
    start({&recording_substrate()});
    // As libomp reports it: the worker ends its part of team i only when it
    // wakes for team i + 1, at the join of team i.  More forks than one batch
    // of contexts holds; each worker must still see its own team's join time
    // and user data, and the contexts must be reused.
    constexpr int kForks = 40;
    StepThread worker;
    std::set<events::ForkContext*> contexts;
    std::vector<Ticks> joins, late_ends;
    for (int i = 0; i < kForks; ++i) {
        const void* user = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(i + 1));
        events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2, user, &contexts);
        ASSERT_NE(fork, nullptr);
        contexts.insert(fork);
        events::thread_team_begin(fork, 0, 2);
        worker.run([&] {
            if (i > 0) {
                const Ticks joined = events::thread_team_joined();
                late_ends.push_back(joined);
                events::thread_team_end_at(joined);
            }
            events::thread_team_begin(fork, 1, 2);
            EXPECT_EQ(events::thread_team_joined(), 0u);
            EXPECT_EQ(events::thread_fork_user_data(fork)[0], user);
            EXPECT_EQ(events::thread_fork_user_data(fork)[1], &contexts);
        });
        events::thread_team_end();
        events::thread_join(fork);
        joins.push_back(seen_events().back().time);
    }
    worker.run([&] {
        const Ticks joined = events::thread_team_joined();
        late_ends.push_back(joined);
        events::thread_team_end_at(joined);
    });
    EXPECT_EQ(late_ends, joins);
    EXPECT_LE(contexts.size(), 16u);  // reused (one batch of contexts), not one per fork
    std::string expected;
    for (int i = 0; i < kForks; ++i) expected += i == 0 ? "FBBXJ" : "FBXBXJ";
    expected += "X";
    EXPECT_EQ(kinds(), expected);
}

TEST_F(EventsTest, TasksAreNamedByTheirCreatorsNumberInTheTeamAndItsCount) {
    start({&recording_substrate()});
    // Outside a team there is no task to name: nothing is recorded.
    EXPECT_EQ(events::task_create().generation, 0u);
    events::task_switch(events::TaskId{0, 0});
    EXPECT_EQ(kinds(), "");

    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2);
    events::thread_team_begin(fork, 0, 2);
    const events::TaskId first = events::task_create();
    events::TaskId by_worker{};
    std::thread worker([&] {
        // seen_events() is not thread-safe: the main thread waits in join() meanwhile.
        events::thread_team_begin(fork, 1, 2);
        by_worker = events::task_create();  // the worker's own count
        events::task_switch(first);          // runs the forking thread's task
        events::task_complete(first);
        events::thread_team_end();
    });
    worker.join();
    const events::TaskId second = events::task_create();
    events::task_switch(by_worker);
    events::set_recording(false);
    events::task_complete(by_worker);  // not recorded while recording is off
    events::set_recording(true);
    events::thread_team_end();
    events::thread_join(fork);

    EXPECT_EQ(first.creator, 0u);
    EXPECT_EQ(first.generation, 1u);
    EXPECT_EQ(second.creator, 0u);
    EXPECT_EQ(second.generation, 2u);
    EXPECT_EQ(by_worker.creator, 1u);
    EXPECT_EQ(by_worker.generation, 1u);
    const std::string k = kinds();
    EXPECT_EQ(k.substr(0, 3), "FBC");  // fork, team begin, first task created
    std::vector<std::pair<std::uint64_t, std::int64_t>> tasks;  // (creator, generation) of C, W, D in order
    std::string task_kinds;
    for (const SeenEvent& e : seen_events()) {
        if (e.kind == 'C' || e.kind == 'W' || e.kind == 'D') {
            task_kinds += e.kind;
            tasks.emplace_back(e.id, e.value);
        }
    }
    EXPECT_EQ(task_kinds, "CCWDCW");
    const std::vector<std::pair<std::uint64_t, std::int64_t>> expected = {{0, 1}, {1, 1}, {0, 1}, {0, 1}, {0, 2}, {1, 1}};
    EXPECT_EQ(tasks, expected);
}

TEST_F(EventsTest, ASubstrateAskingForInheritedPathsOnlyGetsNoOtherThreadEvents) {
    start({&recording_substrate_inherited_only()});
    const RegionHandle outer = region("outer");
    events::enter(outer);
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2);
    ASSERT_NE(fork, nullptr);
    events::thread_team_begin(fork, 0, 2);  // the forking thread inherits nothing: no event
    events::TaskId task{};
    std::thread worker([&] {
        events::thread_team_begin(fork, 1, 2);  // inherits "outer": delivered
        task = events::task_create();           // tasks: not delivered
        events::task_switch(task);
        events::thread_team_end();  // leaves the inherited path: delivered
    });
    worker.join();
    events::thread_team_end();
    events::thread_join(fork);
    events::exit(outer);
    EXPECT_EQ(kinds(), "EBXL");
    EXPECT_EQ(seen_events()[1].value, 1);  // the inherited depth
    EXPECT_EQ(task.generation, 0u);
}

TEST_F(EventsTest, ThreadTeamEndClosesRegionsLeftOpenInIt) {
    start({&recording_substrate()});
    const RegionHandle a = region("a");
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 1);
    events::thread_team_begin(fork, 0, 1);
    events::enter(a);  // never left by the program
    events::thread_team_end();
    events::thread_join(fork);
    EXPECT_EQ(kinds(), "FBELXJ");
    EXPECT_EQ(location::current()->depth, 0u);
}

// One call for a team's begin and its first region, one for closing the adapter's own
// regions and the team: the same events as the separate calls, one time for each.
TEST_F(EventsTest, TeamBeginWithItsRegionAndTeamEndClosingTheCallersRegions) {
    start({&recording_substrate()});
    const RegionHandle parallel = region("parallel"), loop = region("loop"), user = region("user");
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 1);
    events::thread_team_begin_enter_at(100, fork, 0, 1, parallel);
    events::enter_at(110, loop);
    ::testing::internal::CaptureStderr();
    events::thread_team_end_closing_at(120, 2);  // the caller's two: no warning
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    events::thread_join(fork);
    EXPECT_EQ(kinds(), "FBEELLXJ");
    const auto& seen = seen_events();
    EXPECT_EQ(seen[2].time, 100u);  // the region at the team's begin
    EXPECT_EQ(seen[4].time, 120u);
    EXPECT_EQ(seen[5].time, 120u);
    EXPECT_EQ(location::current()->depth, 0u);
    // A region the program left open beyond the caller's is closed too, and reported.
    fork = events::thread_fork(Paradigm::openmp, 1);
    events::thread_team_begin_enter_at(200, fork, 0, 1, parallel);
    events::enter_at(210, user);
    ::testing::internal::CaptureStderr();
    events::thread_team_end_closing_at(220, 1);
    EXPECT_NE(::testing::internal::GetCapturedStderr().find("regions still open"), std::string::npos);
    events::thread_join(fork);
    EXPECT_EQ(location::current()->depth, 0u);
}

TEST_F(EventsTest, NoTeamIsRecordedWhileRecordingIsOff) {
    start({&recording_substrate()});
    events::set_recording(false);
    events::ForkContext* fork = events::thread_fork(Paradigm::openmp, 2);
    EXPECT_EQ(fork, nullptr);
    events::thread_team_begin(fork, 0, 2);
    events::set_recording(true);
    events::thread_team_end();  // balanced with the begin above, delivers nothing
    events::thread_join(fork);
    EXPECT_EQ(kinds(), "EL");   // only the STRATA_RECORDING_OFF region
    EXPECT_TRUE(definitions().snapshot().communicators.empty());
}

// The MPI wrappers' combined calls: the same events as enter + message event
// and message event + exit, with one timestamp for both.
TEST_F(EventsTest, MpiCallsDeliverTheRegionAndItsMessageEventTogether) {
    using K = substrate::MpiEvent;
    start({&recording_substrate()});
    const RegionHandle send = region("MPI_Send", Paradigm::mpi), recv = region("MPI_Recv", Paradigm::mpi),
                       allreduce = region("MPI_Allreduce", Paradigm::mpi);
    events::enter_mpi_send(send, 0, 1, 7, 64);
    events::exit(send);
    events::enter(recv);
    events::mpi_recv_exit(recv, 0, 1, 7, 32);
    events::enter_mpi_collective_begin(allreduce);
    events::mpi_collective_end_exit(allreduce, events::CollectiveOp::allreduce, 0, -1, 16, 16);
    EXPECT_EQ(kinds(), "EMLEMLEMML");
    const std::vector<SeenEvent>& seen = seen_events();
    ASSERT_EQ(seen.size(), 10u);
    EXPECT_EQ(seen[1], (SeenEvent{'M', seen[0].time, K::send, 64}));  // at the enter's time
    EXPECT_EQ(seen[4], (SeenEvent{'M', seen[5].time, K::recv, 32}));  // at the exit's time
    EXPECT_EQ(seen[7], (SeenEvent{'M', seen[6].time, K::collective_begin, 0}));
    EXPECT_EQ(seen[8], (SeenEvent{'M', seen[9].time, K::collective_end, 16}));
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].time, seen[i].time);
}

// The separate message events (the API of DESIGN.md; the combined calls are
// built from the same dispatch): each inside the region, in call order.
TEST_F(EventsTest, SeparateMpiEventsArriveInsideTheirRegions) {
    using K = substrate::MpiEvent;
    start({&recording_substrate()});
    const RegionHandle call = region("MPI_Sendrecv", Paradigm::mpi);
    events::enter(call);
    events::mpi_send(0, 1, 7, 64);
    events::mpi_recv(0, 1, 7, 32);
    events::mpi_collective_begin();
    events::mpi_collective_end(events::CollectiveOp::barrier, 0, -1, 8, 4);
    events::exit(call);
    EXPECT_EQ(kinds(), "EMMMML");
    const std::vector<SeenEvent>& seen = seen_events();
    ASSERT_EQ(seen.size(), 6u);
    EXPECT_EQ(std::vector<std::uint64_t>({seen[1].id, seen[2].id, seen[3].id, seen[4].id}),
              std::vector<std::uint64_t>({K::send, K::recv, K::collective_begin, K::collective_end}));
    EXPECT_EQ(std::vector<std::int64_t>({seen[1].value, seen[2].value, seen[3].value, seen[4].value}),
              std::vector<std::int64_t>({64, 32, 0, 8}));
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].time, seen[i].time);
}

// Every row of mpi_events.def: its function delivers its kind with the fields
// it was given, and the profile counts the bytes the MPI standard says the
// call moves.  The combined calls of the MPI wrappers, written by hand for
// speed, deliver the same events as the rows they stand for.
std::vector<substrate::MpiEvent> g_mpi_events;
void keep_mpi_event(Location&, Ticks, const substrate::MpiEvent& e) { g_mpi_events.push_back(e); }
constexpr substrate::Callbacks mpi_event_keeper() {
    substrate::Callbacks c;
    c.management.name = "mpi events";
    c.events.mpi_event = keep_mpi_event;
    return c;
}
constexpr substrate::Callbacks kMpiEventKeeper = mpi_event_keeper();

bool same_event(const substrate::MpiEvent& a, const substrate::MpiEvent& b) {
    return a.kind == b.kind && a.comm == b.comm && a.peer == b.peer && a.tag == b.tag && a.bytes == b.bytes &&
           a.bytes_received == b.bytes_received && a.request == b.request && a.op == b.op;
}

TEST_F(EventsTest, EveryMpiEventOfTheSpecArrivesWithItsKindAndFields) {
    using K = substrate::MpiEvent;
    using events::CollectiveOp;
    g_mpi_events.clear();
    start({&kMpiEventKeeper});
    const RegionHandle call = region("MPI_Call", Paradigm::mpi);
    events::enter(call);
    events::mpi_send(3, 1, 7, 64);
    events::mpi_recv(3, 2, 8, 32);
    events::mpi_isend(3, 1, 9, 16, 101);
    events::mpi_isend_complete(101);
    events::mpi_irecv_request(102);
    events::mpi_irecv(3, 2, 10, 48, 102);
    events::mpi_request_test(103);
    events::mpi_request_cancelled(104);
    events::mpi_collective_begin();
    events::mpi_collective_end(CollectiveOp::gather, 3, 2, 24, 96);
    events::mpi_nonblocking_collective_request(105);
    events::mpi_nonblocking_collective_complete(CollectiveOp::allreduce, 3, -1, 8, 8, 105);
    events::exit(call);
    const auto event = [](K::Kind kind, std::uint32_t comm, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
                          std::uint64_t received, std::uint64_t request, CollectiveOp op) {
        K e;
        e.kind = kind;
        e.comm = comm;
        e.peer = peer;
        e.tag = tag;
        e.bytes = bytes;
        e.bytes_received = received;
        e.request = request;
        e.op = static_cast<std::uint8_t>(op);
        return e;
    };
    const CollectiveOp none = CollectiveOp::barrier;
    const std::vector<K> expected = {
        event(K::send, 3, 1, 7, 64, 0, 0, none),
        event(K::recv, 3, 2, 8, 32, 0, 0, none),
        event(K::isend, 3, 1, 9, 16, 0, 101, none),
        event(K::isend_complete, 0, 0, 0, 0, 0, 101, none),
        event(K::irecv_request, 0, 0, 0, 0, 0, 102, none),
        event(K::irecv, 3, 2, 10, 48, 0, 102, none),
        event(K::request_test, 0, 0, 0, 0, 0, 103, none),
        event(K::request_cancelled, 0, 0, 0, 0, 0, 104, none),
        event(K::collective_begin, 0, 0, 0, 0, 0, 0, none),
        event(K::collective_end, 3, 2, 0, 24, 96, 0, CollectiveOp::gather),
        event(K::nonblocking_collective_request, 0, 0, 0, 0, 0, 105, none),
        event(K::nonblocking_collective_complete, 3, -1, 0, 8, 8, 105, CollectiveOp::allreduce),
    };
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(K::kind_count)) << "a row of mpi_events.def is not called here";
    ASSERT_EQ(g_mpi_events.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(g_mpi_events[i].kind, static_cast<K::Kind>(i)) << "the rows' order is the kinds' numbering";
        EXPECT_TRUE(same_event(g_mpi_events[i], expected[i])) << "kind " << i;
    }
    // The profile's bytes: a send's or a receive's message, both directions of a collective.
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> bytes = {
        {64, 0}, {0, 32}, {16, 0}, {0, 0}, {0, 0}, {0, 48}, {0, 0}, {0, 0}, {0, 0}, {24, 96}, {0, 0}, {8, 8}};
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(substrate::message_bytes(g_mpi_events[i]), bytes[i]) << "kind " << i;
    EXPECT_EQ(substrate::kinds_moving_bytes(), (1u << K::send) | (1u << K::recv) | (1u << K::isend) |
                                                   (1u << K::irecv) | (1u << K::collective_end) |
                                                   (1u << K::nonblocking_collective_complete));

    // The combined calls.
    g_mpi_events.clear();
    events::enter_mpi_send(call, 3, 1, 7, 64);
    events::exit(call);
    events::enter(call);
    events::mpi_recv_exit(call, 3, 2, 8, 32);
    events::enter_mpi_collective_begin(call);
    events::mpi_collective_end_exit(call, CollectiveOp::gather, 3, 2, 24, 96);
    ASSERT_EQ(g_mpi_events.size(), 4u);
    EXPECT_TRUE(same_event(g_mpi_events[0], expected[K::send]));
    EXPECT_TRUE(same_event(g_mpi_events[1], expected[K::recv]));
    EXPECT_TRUE(same_event(g_mpi_events[2], expected[K::collective_begin]));
    EXPECT_TRUE(same_event(g_mpi_events[3], expected[K::collective_end]));
}

TEST_F(EventsTest, MpiCallsRepairNestingAndRespectRecordingOff) {
    start({&recording_substrate()});
    const RegionHandle recv = region("MPI_Recv", Paradigm::mpi), inner = region("inner");
    events::enter(recv);
    events::enter(inner);                      // left open by mistake
    events::mpi_recv_exit(recv, 0, 1, 7, 8);   // closes inner first, as exit() does
    EXPECT_EQ(kinds(), "EEMLL");
    EXPECT_EQ(seen_events()[3].id, inner);
    seen_events().clear();
    events::set_recording(false);
    events::enter_mpi_send(recv, 0, 1, 7, 8);  // nothing delivered, but the nesting is kept
    events::mpi_recv_exit(recv, 0, 1, 7, 8);
    events::set_recording(true);
    EXPECT_EQ(kinds(), "EL");  // only the STRATA_RECORDING_OFF region
}

}  // namespace
}  // namespace strata::testing
