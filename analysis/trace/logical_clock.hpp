// SPDX-License-Identifier: BSD-3-Clause
// The controlled logical clock (as Scalasca's, after Rabenseifner and
// Becker et al.): where the clock offsets leave a receive ending before its
// send began, or a rank leaving a collective before the member it waits for
// entered it, the waiting rank's times move later, just enough, and the move
// fades out again.  Wait states measured across such a violation are wrong
// (a late sender of a negative time, a barrier wait that ends before the last
// rank came), so the analysis corrects them before it measures.
//
// Conditions, on corrected times (the same the analysis counts as clock
// violations, wait_state_matching.cpp):
//   message            the receiving call ends no earlier than the send's call began
//   barrier, N x N     a member leaves no earlier than the last member entered
//   broadcast          a non-root member leaves no earlier than the root entered
//   reduction          the root leaves no earlier than the last member entered
//
// The move of rank r is one function s_r of its corrected time t, and every
// time t of every location of r (threads, GPU streams) becomes t + s_r(t):
// one function per rank keeps the order of its threads' and streams' events.
// A condition violated at time a by d ticks raises s_r(a) to d, and then:
//   forward    s_r fades by 1 tick every kFade ticks after a, so local
//              intervals shrink by at most 1 % until the rank's own times are
//              back (Scalasca's controller, gamma = 0.99);
//   backward   before a, s_r rises along a ramp from the rank's last send or
//              collective enter at or before a (whose partners have seen it:
//              they must not move), or its first time if it has none, or the
//              previous raise if later, so no interval just before the
//              receive grows by d (backward amortisation).
// Moved sends and enters may violate other conditions: the analysis ranks
// exchange them and enforce again until nothing is violated (a fixpoint; at
// most kMaxRounds rounds), then read the trace once more with the functions
// applied (ClockCorrection::follow): every report then sees the corrected times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// The move s_r of one rank's times (see the top of the file).  Integer
/// arithmetic, rounding toward minus infinity: the same trace gives the same
/// times for any number of analysis ranks.
class LogicalShift {
public:
    /// The move fades by 1 tick every kFade ticks.
    static constexpr Ticks kFade = 100;

    /// One raise: the move reaches `shift` at `at`, along a ramp from 0 at `from`.
    struct Jump {
        Ticks from = 0;
        Ticks at = 0;
        Ticks shift = 0;
    };

    bool empty() const { return jumps_.empty(); }
    const std::vector<Jump>& jumps() const { return jumps_; }

    /// s_r(t) >= 0.
    Ticks at(Ticks t) const {
        Ticks first = 0, last = 0;
        return at(t, &first, &last);
    }
    /// s_r(t), and the times [*first, *last] around t that share its value
    /// (a single time on a ramp).
    Ticks at(Ticks t, Ticks* first, Ticks* last) const;

    /// Makes s_r(at) at least `shift` (> 0), its ramp starting at `floor`
    /// (<= at) or at the previous raise, whichever is later.
    void raise(Ticks at, Ticks shift, Ticks floor);

    /// Adds a raise read back from put(): in the order put() wrote them.
    void append(const Jump& jump);

private:
    /// How many raises are at or before t.
    std::size_t raises_up_to(Ticks t) const;
    void update_reach(std::size_t from);
    mutable std::size_t hint_ = 0;  ///< the last raises_up_to() (a cache: times come in order)
    std::vector<Jump> jumps_;  ///< by `at`; every `from` at or after the previous `at`
    /// reach_[k]: max over raises j <= k of shift_j * kFade + at_j (the fade
    /// of all raises up to k is max(0, floor((reach_[k] - t) / kFade))).
    std::vector<__int128> reach_;
};

/// What the logical clock did on one analysis rank's ranks (TraceCounts adds them up).
struct LogicalClockSummary {
    std::uint64_t rounds = 0;           ///< of enforcing (the same on every analysis rank)
    std::uint64_t conditions_violated = 0;  ///< by the trace's own times, of every kind above
    std::uint64_t ranks_moved = 0;
    std::uint64_t times_checked = 0;  ///< MPI times: send posts, receive ends, collective enters and exits
    std::uint64_t times_moved = 0;    ///< of those, moved
    std::int64_t largest_move = 0;    ///< ticks
    std::int64_t move_sum = 0;        ///< ticks, over the times moved
};

/// One analysis rank's part of the fixpoint, over the records of its first
/// read.  A round: outbox() to every analysis rank, answers() from the
/// instance owners, enforce(); repeated while any rank's enforce() raised.
class LogicalClock {
public:
    static constexpr std::uint64_t kMaxRounds = 200;

    /// `owner_of_rank`: world rank -> the analysis rank that read it.
    LogicalClock(const ShareRecords& records, const TraceDefinitions& definitions,
                 const std::vector<std::int64_t>& owner_of_rank, std::size_t analysis_ranks);

    /// The moved times since the last round (all in the first): each send's
    /// post to its receiver's analysis rank, each collective enter to its
    /// instance's owner (collective_owner()).
    std::vector<std::string> outbox();
    /// At the owners: the enters kept; every member of an instance whose
    /// latest or root enter changed is told, at its analysis rank.
    std::vector<std::string> answers(const std::vector<std::string>& inbox);
    /// The answers kept; every condition of this rank's records enforced in
    /// time order.  True when a move was raised (another round is needed).
    bool enforce(const std::vector<std::string>& inbox);

    std::uint64_t rounds() const { return rounds_; }
    /// This analysis rank's moves, for every analysis rank (read_shifts()).
    std::string shifts() const;
    /// What moved, of this rank's records.
    LogicalClockSummary summary() const;

private:
    struct Member {
        std::uint32_t rank = 0;
        std::uint32_t op = 0;
        std::int64_t root = -1;
        Ticks enter = no_time;
    };
    struct Instance {
        std::vector<Member> members;
        bool changed = false;
    };
    struct Answer {
        bool complete = false;
        Ticks latest = no_time;
        Ticks root_enter = no_time;
    };
    /// A condition: its record, its rank, its time (the end that may move).
    struct Condition {
        std::uint32_t rank = 0;
        Ticks time = 0;
        bool receive = false;  ///< else a collective call
        std::size_t index = 0;
    };
    Ticks moved(std::uint32_t rank, Ticks t) const;
    /// The time the end of condition `c` must reach; no_time: nothing known (yet).
    Ticks required(const Condition& c) const;
    /// The rank's last send post or collective enter at or before `t` (no_time: none).
    Ticks last_source(std::uint32_t rank, Ticks t) const;

    const ShareRecords& records_;
    const TraceDefinitions& definitions_;
    const std::vector<std::int64_t>& owner_of_rank_;
    std::size_t k_;
    std::uint64_t rounds_ = 0;
    std::uint64_t violated_first_ = 0;
    std::map<std::uint32_t, LogicalShift> shifts_;           ///< of this share's ranks
    std::map<std::uint32_t, std::vector<Ticks>> sources_;    ///< per rank, ascending
    std::vector<Ticks> sent_;                                ///< per send: the post last sent
    std::vector<Ticks> entered_;                             ///< per collective call: the enter last sent
    std::vector<Ticks> partner_post_;                        ///< per receive: its send's post, moved
    /// (comm, source, destination, tag) -> the receive channel's id in records.receive_channels
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> channel_of_;
    std::vector<std::vector<std::size_t>> receive_by_seq_;   ///< per receive channel: indices in records.receives
    std::map<std::tuple<std::uint32_t, std::uint64_t>, Instance> instances_;  ///< owned (comm, seq)
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::size_t>
        call_of_;                   ///< (rank, comm, seq) -> index in records.collectives
    std::vector<Answer> answer_;    ///< per collective call
    std::vector<Condition> conditions_;  ///< by rank, then time
};

/// Every analysis rank's shifts(), by world rank.
std::map<std::uint32_t, LogicalShift> read_shifts(const std::vector<std::string>& inbox);

}  // namespace strata::analysis::trace
