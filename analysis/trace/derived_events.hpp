// SPDX-License-Identifier: BSD-3-Clause
// The events the trace analysis derives once an exchange has joined both
// sides of an MPI call (Scalasca's PEARL: callbacks on matched events rather
// than on the trace's records):
//
//   ReceiveCallMatched      a blocking call's receives, each with its send's post time
//   SendCallMatched         a blocking call's sends, each with its receive's post time
//   CollectiveMemberMatched one member of a complete collective instance (or of
//                           MPI_Finalize on every rank), with the instance's latest
//                           enter, last rank and root enter
//
// The matching (wait_state_matching.cpp) notifies them to the callbacks
// registered for their kind, in the order above: every receive call before
// the first send call, so that a callback on the sends may use what the
// callbacks on the receives found.  The wait-state patterns and the clock
// condition checks are such callbacks (wait_state_patterns.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "trace/trace_records.hpp"
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

/// A receive joined with the post time (E of the posting call) of its send.
struct MatchedReceive {
    const MessageSide* receive;
    std::uint32_t sender;  ///< world rank (of the receive's channel)
    Ticks send_posted;
};

/// A send joined with the post time of its receive.
struct MatchedSend {
    const MessageSide* send;
    Ticks receive_posted;
};

/// The matched receives of one blocking call (one MPI_Recv, or the receives an
/// MPI_Waitall completes), in record order.
struct ReceiveCallMatched {
    std::uint64_t call;  ///< the blocking call instance (MessageSide::block)
    const MatchedReceive* receives;
    std::size_t count;
};

/// The matched sends of one blocking call that completed them, in record order.
struct SendCallMatched {
    std::uint64_t call;
    const MatchedSend* sends;
    std::size_t count;
    /// The call also completes a receive it posted itself (MPI_Recv in a
    /// Waitall, MPI_Sendrecv): its wait is that receive's.
    bool receives_in_call;
};

/// How a collective operation synchronises its members (Scalasca's classes);
/// finalize: MPI_Finalize (finalize_operation).
enum class CollectiveKind { none, barrier, nxn, one_to_all, all_to_one, finalize };
CollectiveKind collective_kind(std::uint32_t op);

/// One member's call of a collective instance whose members all took part.
struct CollectiveMemberMatched {
    const CollectiveCall* call;  ///< the member's own call (its E and X)
    CollectiveKind kind;
    Ticks latest_enter;      ///< max over the members of E
    std::int64_t last_rank;  ///< the member with that E (lowest rank on ties)
    Ticks root_enter;        ///< E of the root, no_time when it has none
};

/// The waits one analysis rank charged: (metric, call path, rank, partner) -> time, calls.
struct ChargedWait {
    std::int64_t ticks = 0;
    std::uint64_t instances = 0;
};
using ChargedWaits =
    std::map<std::tuple<std::uint8_t, std::uint32_t, std::uint32_t, std::int64_t>, ChargedWait>;

/// What the callbacks of one exchange share: where they charge, what they
/// count, and what they tell each other.
struct DerivedContext {
    const ShareRecords& records;
    ChargedWaits& waits;
    TraceCounts& counts;
    Ticks window_begin, window_end;  ///< the iteration window (iterations.hpp)
    /// The receive calls charged a late sender, in call order: such a call
    /// waits at that one site (Scalasca's rule), so its sends are no late receiver.
    std::vector<std::uint64_t> late_sender_calls;

    /// Charges `wait` (when positive) when the waiting call entered at `at`, inside the window.
    void charge(WaitMetric metric, std::uint32_t callpath, std::uint32_t rank, std::int64_t partner,
                Ticks wait, Ticks at) {
        if (wait <= 0 || at < window_begin || at >= window_end) return;
        ChargedWait& v = waits[{static_cast<std::uint8_t>(metric), callpath, rank, partner}];
        v.ticks += wait;
        ++v.instances;
    }
};

/// The callbacks registered for each kind of derived event.
class DerivedCallbacks {
public:
    template <class Event>
    using Callback = void (*)(const Event& event, DerivedContext& context);

    void on(Callback<ReceiveCallMatched> f) { receive_calls_.push_back(f); }
    void on(Callback<SendCallMatched> f) { send_calls_.push_back(f); }
    void on(Callback<CollectiveMemberMatched> f) { collective_members_.push_back(f); }

    /// Calls every callback of the event's kind, in the order they were registered.
    void notify(const ReceiveCallMatched& e, DerivedContext& c) const { run(receive_calls_, e, c); }
    void notify(const SendCallMatched& e, DerivedContext& c) const { run(send_calls_, e, c); }
    void notify(const CollectiveMemberMatched& e, DerivedContext& c) const { run(collective_members_, e, c); }

    std::size_t size() const {
        return receive_calls_.size() + send_calls_.size() + collective_members_.size();
    }

private:
    template <class Event>
    static void run(const std::vector<Callback<Event>>& callbacks, const Event& e, DerivedContext& c) {
        for (const Callback<Event> f : callbacks) f(e, c);
    }
    std::vector<Callback<ReceiveCallMatched>> receive_calls_;
    std::vector<Callback<SendCallMatched>> send_calls_;
    std::vector<Callback<CollectiveMemberMatched>> collective_members_;
};

}  // namespace strata::analysis::trace
