// SPDX-License-Identifier: BSD-3-Clause
// The table of the wait-state patterns and clock condition checks (see
// wait_state_patterns.hpp; the definitions are in wait_states.hpp).
#include "trace/wait_state_patterns.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace strata::analysis::trace {

namespace {

/// A receive that ended before its message was sent (the clock condition, METRICS.md).
void message_clock_condition(const ReceiveCallMatched& e, DerivedContext& c) {
    for (std::size_t i = 0; i < e.count; ++i) {
        const MatchedReceive& m = e.receives[i];
        if (m.receive->block_exit != no_time && m.receive->block_exit < m.send_posted)
            ++c.counts.clock_violations;
    }
}

/// Late sender, at the receiving call: the latest of its senders (lowest rank on ties).
void late_sender(const ReceiveCallMatched& e, DerivedContext& c) {
    const MatchedReceive* latest = nullptr;
    for (std::size_t i = 0; i < e.count; ++i) {
        const MatchedReceive& m = e.receives[i];
        if (latest == nullptr || m.send_posted > latest->send_posted ||
            (m.send_posted == latest->send_posted && m.sender < latest->sender))
            latest = &m;
    }
    const MessageSide& receive = *latest->receive;
    if (receive.block_exit == no_time) return;  // the call was never completed in a recorded call
    const Ticks wait = std::min(latest->send_posted, receive.block_exit) - receive.block_enter;
    c.charge(WaitMetric::late_sender, receive.callpath,
             c.records.receive_channels[receive.channel].destination, latest->sender, wait,
             receive.block_enter);
    if (wait > 0) c.late_sender_calls.push_back(e.call);  // in call order: sorted
}

/// Late receiver, at the sending call: its largest wait for a receive to be
/// posted.  As Scalasca, none in a combined send-receive call (MPI_Sendrecv:
/// its wait is the late sender of its receive, or none), nor in a call that
/// completes a receive of its own or was charged a late sender.
void late_receiver(const SendCallMatched& e, DerivedContext& c) {
    Ticks largest = 0;
    const MessageSide* send = nullptr;
    for (std::size_t i = 0; i < e.count; ++i) {
        const MessageSide& s = *e.sends[i].send;
        const Ticks posted = e.sends[i].receive_posted;
        const Ticks wait = posted > s.block_enter && s.block_exit > posted ? posted - s.block_enter : 0;
        if (send == nullptr || wait > largest) {
            largest = wait;
            send = &s;
        }
    }
    if (send->send_receive ||
        std::binary_search(c.late_sender_calls.begin(), c.late_sender_calls.end(), e.call) ||
        (send->posted_in_call && e.receives_in_call))
        return;
    const MessageChannel& channel = c.records.send_channels[send->channel];
    c.charge(WaitMetric::late_receiver, send->callpath, channel.source, channel.destination, largest,
             send->block_enter);
}

/// A member that left a collective before it could have (METRICS.md): nobody
/// leaves a synchronising collective before the last member entered it, a
/// broadcast before its root entered it, a reduction's root before the last
/// member entered.  A member whose call was not recorded (outside any
/// region) has no enter to compare.  logical_clock.hpp enforces the same.
void collective_clock_condition(const CollectiveMemberMatched& e, DerivedContext& c) {
    const CollectiveCall& call = *e.call;
    const Ticks bound = e.kind == CollectiveKind::barrier || e.kind == CollectiveKind::nxn ? e.latest_enter
                        : e.kind == CollectiveKind::one_to_all && call.root >= 0 && call.rank != call.root
                            ? e.root_enter
                        : e.kind == CollectiveKind::all_to_one && call.rank == call.root ? e.latest_enter
                                                                                         : no_time;
    if (bound != no_time && call.exit < bound &&
        c.records.callpaths.name(call.callpath) != outside_any_region)
        ++c.counts.collective_clock_violations;
}

/// Every member waits for the last one to enter: min(max_q E_q, X_p) - E_p.
void wait_for_last(WaitMetric metric, const CollectiveMemberMatched& e, DerivedContext& c) {
    const CollectiveCall& call = *e.call;
    c.charge(metric, call.callpath, call.rank, e.last_rank, std::min(e.latest_enter, call.exit) - call.enter,
             call.enter);
}

void wait_at_barrier(const CollectiveMemberMatched& e, DerivedContext& c) {
    if (e.kind == CollectiveKind::barrier) wait_for_last(WaitMetric::wait_at_barrier, e, c);
}

void wait_at_nxn(const CollectiveMemberMatched& e, DerivedContext& c) {
    if (e.kind == CollectiveKind::nxn) wait_for_last(WaitMetric::wait_at_nxn, e, c);
}

/// Every member but the root waits for the root: min(E_root, X_p) - E_p.
void late_broadcast(const CollectiveMemberMatched& e, DerivedContext& c) {
    const CollectiveCall& call = *e.call;
    if (e.kind != CollectiveKind::one_to_all || call.root < 0 || call.rank == call.root ||
        e.root_enter == no_time)
        return;
    c.charge(WaitMetric::late_broadcast, call.callpath, call.rank, call.root,
             std::min(e.root_enter, call.exit) - call.enter, call.enter);
}

/// The root waits for the last member: min(max_q E_q, X_root) - E_root.
void early_reduce(const CollectiveMemberMatched& e, DerivedContext& c) {
    if (e.kind == CollectiveKind::all_to_one && e.call->root >= 0 && e.call->rank == e.call->root)
        wait_for_last(WaitMetric::early_reduce, e, c);
}

/// Every rank waits in MPI_Finalize for the last one to enter it (the barrier formula).
void wait_at_finalize(const CollectiveMemberMatched& e, DerivedContext& c) {
    if (e.kind == CollectiveKind::finalize) wait_for_last(WaitMetric::wait_at_finalize, e, c);
}

}  // namespace

const std::vector<WaitStatePattern>& wait_state_patterns() {
    // late_receiver needs late_sender's calls: every receive call is notified before any send call.
    static const std::vector<WaitStatePattern> patterns = {
        {"message clock condition", std::nullopt, message_clock_condition, nullptr, nullptr},
        {"late_sender", WaitMetric::late_sender, late_sender, nullptr, nullptr},
        {"late_receiver", WaitMetric::late_receiver, nullptr, late_receiver, nullptr},
        {"collective clock condition", std::nullopt, nullptr, nullptr, collective_clock_condition},
        {"wait_at_barrier", WaitMetric::wait_at_barrier, nullptr, nullptr, wait_at_barrier},
        {"wait_at_nxn", WaitMetric::wait_at_nxn, nullptr, nullptr, wait_at_nxn},
        {"late_broadcast", WaitMetric::late_broadcast, nullptr, nullptr, late_broadcast},
        {"early_reduce", WaitMetric::early_reduce, nullptr, nullptr, early_reduce},
        {"wait_at_finalize", WaitMetric::wait_at_finalize, nullptr, nullptr, wait_at_finalize},
    };
    return patterns;
}

const DerivedCallbacks& wait_state_callbacks() {
    static const DerivedCallbacks callbacks = [] {
        DerivedCallbacks c;
        for (const WaitStatePattern& p : wait_state_patterns()) {
            if (p.on_receive_call) c.on(p.on_receive_call);
            if (p.on_send_call) c.on(p.on_send_call);
            if (p.on_collective_member) c.on(p.on_collective_member);
        }
        return c;
    }();
    return callbacks;
}

void put_wait_partial(ByteWriter& out, const ChargedWaits& waits, const CallPaths& callpaths) {
    out.put<std::uint64_t>(waits.size());
    for (const auto& [key, value] : waits) {
        const auto& [metric, callpath, rank, partner] = key;
        out.put(metric);
        out.put_string(callpaths.name(callpath));
        out.put(rank);
        out.put(partner);
        out.put(value.ticks);
        out.put(value.instances);
    }
}

void add_wait_partial(WaitStates& states, ByteReader& in) {
    const auto n = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < n; ++i) {
        WaitStateRow row;
        row.metric = static_cast<WaitMetric>(in.get<std::uint8_t>());
        row.callpath = in.get_string();
        row.rank = in.get<std::uint32_t>();
        row.partner = in.get<std::int64_t>();
        row.ticks = in.get<std::int64_t>();
        row.instances = in.get<std::uint64_t>();
        states.rows.push_back(std::move(row));
    }
}

void finish_wait_states(WaitStates& states) {
    const auto key = [](const WaitStateRow& r) { return std::tie(r.metric, r.callpath, r.rank, r.partner); };
    std::stable_sort(states.rows.begin(), states.rows.end(),
                     [&](const WaitStateRow& a, const WaitStateRow& b) { return key(a) < key(b); });
    std::vector<WaitStateRow> rows;
    for (WaitStateRow& r : states.rows) {
        if (!rows.empty() && key(rows.back()) == key(r)) {
            rows.back().ticks += r.ticks;
            rows.back().instances += r.instances;
        } else {
            rows.push_back(std::move(r));
        }
    }
    states.total_ticks = {};
    states.total_instances = {};
    for (const WaitStateRow& r : rows) {
        states.total_ticks[static_cast<std::size_t>(r.metric)] += r.ticks;
        states.total_instances[static_cast<std::size_t>(r.metric)] += r.instances;
    }
    states.rows = std::move(rows);
}

}  // namespace strata::analysis::trace
