// SPDX-License-Identifier: BSD-3-Clause
// The wait-state patterns as callbacks on derived events
// (trace/wait_state_patterns.*, trace/derived_events.hpp): the table covers
// every metric once, and each pattern charges what Scalasca's definition
// says for hand-made matched calls.  The whole exchange that produces these
// events is tested in trace_analysis_test.cpp and the golden scenarios.
#include "trace/wait_state_patterns.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace/derived_events.hpp"

namespace strata::analysis::trace {
namespace {

TEST(WaitStatePatterns, EveryMetricIsChargedByExactlyOneRowNamedAfterIt) {
    std::set<std::string> names;
    std::size_t charging = 0;
    for (const WaitStatePattern& p : wait_state_patterns()) {
        EXPECT_TRUE(names.insert(p.name).second) << "two rows named " << p.name;
        EXPECT_TRUE(p.on_receive_call || p.on_send_call || p.on_collective_member)
            << p.name << " has no callback";
        if (!p.metric) continue;
        ++charging;
        EXPECT_STREQ(p.name, metric_name(*p.metric));
    }
    EXPECT_EQ(charging, wait_metric_count);
    for (std::size_t m = 0; m < wait_metric_count; ++m)
        EXPECT_EQ(names.count(metric_name(static_cast<WaitMetric>(m))), 1u) << m;
    std::size_t callbacks = 0;
    for (const WaitStatePattern& p : wait_state_patterns())
        callbacks +=
            (p.on_receive_call ? 1 : 0) + (p.on_send_call ? 1 : 0) + (p.on_collective_member ? 1 : 0);
    EXPECT_EQ(wait_state_callbacks().size(), callbacks);
}

TEST(DerivedCallbacks, NotifyCallsTheCallbacksOfTheEventsKindInTheOrderTheyWereRegistered) {
    static std::string seen;
    seen.clear();
    DerivedCallbacks c;
    c.on(+[](const ReceiveCallMatched&, DerivedContext&) { seen += "r1 "; });
    c.on(+[](const SendCallMatched&, DerivedContext&) { seen += "s "; });
    c.on(+[](const ReceiveCallMatched&, DerivedContext&) { seen += "r2 "; });
    c.on(+[](const CollectiveMemberMatched&, DerivedContext&) { seen += "c "; });
    ShareRecords records;
    ChargedWaits waits;
    TraceCounts counts;
    DerivedContext context{records, waits, counts, 0, 1000, {}};
    c.notify(ReceiveCallMatched{1, nullptr, 0}, context);
    EXPECT_EQ(seen, "r1 r2 ");
    c.notify(CollectiveMemberMatched{nullptr, CollectiveKind::barrier, 0, -1, no_time}, context);
    c.notify(SendCallMatched{1, nullptr, 0, false}, context);
    EXPECT_EQ(seen, "r1 r2 c s ");
}

/// Records of one analysis rank for hand-made matched calls.
struct Share {
    ShareRecords records;
    ChargedWaits waits;
    TraceCounts counts;
    DerivedContext context{records, waits, counts, 0, 1'000'000, {}};

    /// A receive on rank `to` from `from`, in blocking call `call` [enter, exit).
    MessageSide& receive(std::uint32_t from, std::uint32_t to, std::uint64_t call, Ticks enter, Ticks exit,
                         bool posted_in_call = true) {
        MessageSide r;
        r.channel = records.receive_channels.id(0, from, to, 0);
        r.block = call;
        r.block_enter = enter;
        r.block_exit = exit;
        r.posted_in_call = posted_in_call ? 1 : 0;
        r.callpath = 7;
        records.receives.push_back(r);
        return records.receives[records.receives.size() - 1];
    }
    MessageSide& send(std::uint32_t from, std::uint32_t to, std::uint64_t call, Ticks enter, Ticks exit) {
        MessageSide s;
        s.channel = records.send_channels.id(0, from, to, 0);
        s.block = call;
        s.block_enter = enter;
        s.block_exit = exit;
        s.posted_in_call = 1;
        s.callpath = 9;
        records.sends.push_back(s);
        return records.sends[records.sends.size() - 1];
    }
    ChargedWait charged(WaitMetric metric, std::uint32_t callpath, std::uint32_t rank,
                        std::int64_t partner) const {
        const auto it = waits.find({static_cast<std::uint8_t>(metric), callpath, rank, partner});
        return it == waits.end() ? ChargedWait{} : it->second;
    }
};

TEST(WaitStatePatterns, ALateSenderIsTheLatestSenderOfTheCallAndItsCallIsNoLateReceiver) {
    Share s;
    // Rank 2 waits in one call (an MPI_Waitall) from 100 to 500 for ranks 0 and 1,
    // whose sends were posted at 300 and 400: the latest sender, rank 1, costs 300.
    const MatchedReceive received[] = {{&s.receive(0, 2, 5, 100, 500, false), 0, 300},
                                       {&s.receive(1, 2, 5, 100, 500, false), 1, 400}};
    wait_state_callbacks().notify(ReceiveCallMatched{5, received, 2}, s.context);
    EXPECT_EQ(s.charged(WaitMetric::late_sender, 7, 2, 1).ticks, 300);
    EXPECT_EQ(s.charged(WaitMetric::late_sender, 7, 2, 1).instances, 1u);
    EXPECT_EQ(s.charged(WaitMetric::late_sender, 7, 2, 0).instances, 0u);
    // The same call also completes a send whose receive was posted late: one call waits at one site.
    const MatchedSend sent[] = {{&s.send(2, 3, 5, 100, 500), 450}};
    wait_state_callbacks().notify(SendCallMatched{5, sent, 1, false}, s.context);
    EXPECT_EQ(s.waits.size(), 1u);
    // Another call with the same send: a late receiver of 350 ticks, blamed on rank 3.
    const MatchedSend other[] = {{&s.send(2, 3, 6, 600, 1000), 950}};
    wait_state_callbacks().notify(SendCallMatched{6, other, 1, false}, s.context);
    EXPECT_EQ(s.charged(WaitMetric::late_receiver, 9, 2, 3).ticks, 350);
    EXPECT_EQ(s.counts.clock_violations, 0u);
}

TEST(WaitStatePatterns, TiesGoToTheLowestRankAndAReceiveBeforeItsSendViolatesTheClockCondition) {
    Share s;
    const MatchedReceive received[] = {{&s.receive(4, 0, 1, 100, 150), 4, 200},
                                       {&s.receive(3, 0, 1, 100, 150), 3, 200}};
    wait_state_callbacks().notify(ReceiveCallMatched{1, received, 2}, s.context);
    // The wait ends with the call: min(200, 150) - 100.
    EXPECT_EQ(s.charged(WaitMetric::late_sender, 7, 0, 3).ticks, 50);
    EXPECT_EQ(s.charged(WaitMetric::late_sender, 7, 0, 4).instances, 0u);
    EXPECT_EQ(s.counts.clock_violations, 2u);
}

TEST(WaitStatePatterns, NoLateReceiverInASendReceiveNorOutsideTheIterationWindow) {
    Share s;
    MessageSide& both = s.send(0, 1, 1, 100, 500);
    both.send_receive = 1;
    const MatchedSend sendrecv[] = {{&both, 300}};
    wait_state_callbacks().notify(SendCallMatched{1, sendrecv, 1, true}, s.context);
    EXPECT_TRUE(s.waits.empty());
    // A call that entered after the window's end is not charged.
    s.context.window_end = 1000;
    const MatchedSend late[] = {{&s.send(0, 1, 2, 1000, 1500), 1200}};
    wait_state_callbacks().notify(SendCallMatched{2, late, 1, false}, s.context);
    EXPECT_TRUE(s.waits.empty());
}

TEST(WaitStatePatterns, CollectivesChargeTheirOwnKindOnly) {
    Share s;
    s.records.callpaths.child(CallPaths::none_id, 1, "MPI_Allreduce");
    CollectiveCall call;
    call.rank = 2;
    call.enter = 100;
    call.exit = 600;
    call.callpath = 0;
    // N x N: every member waits for the last one (rank 5, entering at 400).
    wait_state_callbacks().notify(CollectiveMemberMatched{&call, CollectiveKind::nxn, 400, 5, no_time},
                                  s.context);
    EXPECT_EQ(s.charged(WaitMetric::wait_at_nxn, 0, 2, 5).ticks, 300);
    EXPECT_EQ(s.waits.size(), 1u);
    // A broadcast: a member other than the root waits for the root.
    call.root = 1;
    wait_state_callbacks().notify(CollectiveMemberMatched{&call, CollectiveKind::one_to_all, 400, 5, 250},
                                  s.context);
    EXPECT_EQ(s.charged(WaitMetric::late_broadcast, 0, 2, 1).ticks, 150);
    // A reduction charges only its root; this member is not the root.
    wait_state_callbacks().notify(CollectiveMemberMatched{&call, CollectiveKind::all_to_one, 400, 5, 250},
                                  s.context);
    EXPECT_EQ(s.waits.size(), 2u);
    // A member that left before the last one entered violates the clock condition.
    call.exit = 300;
    wait_state_callbacks().notify(CollectiveMemberMatched{&call, CollectiveKind::barrier, 400, 5, no_time},
                                  s.context);
    EXPECT_EQ(s.counts.collective_clock_violations, 1u);
    EXPECT_EQ(s.charged(WaitMetric::wait_at_barrier, 0, 2, 5).ticks, 200);
}

}  // namespace
}  // namespace strata::analysis::trace
