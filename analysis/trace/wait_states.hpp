// SPDX-License-Identifier: BSD-3-Clause
// The wait-state patterns (Scalasca's definitions, METRICS.md "Wait
// states") and the combined result the reports show.  E = enter, X = exit
// of the MPI call on a rank; times on rank 0's clock.
//
// clang-format off
//   metric            where it is charged       time (the calls it is found in)
//   late_sender       receiver's blocking call  min(E_send, X_recv) - E_recv; a Waitall: the latest sender
//   late_receiver     sender's blocking call    E_recv - E_send, when the send ended after the receive
//                                               was posted
//   wait_at_barrier   every rank                min(max_q E_q, X_p) - E_p (MPI_Barrier)
//   wait_at_nxn       every rank                the same (Allreduce, Allgather(v), Alltoall(v,w),
//                                               Reduce_scatter)
//   late_broadcast    every rank but the root   min(E_root, X_p) - E_p (Bcast, Scatter(v))
//   early_reduce      the root only             min(max_q E_q, X_root) - E_root (Reduce, Gather(v))
//   wait_at_finalize  every rank                min(max_q E_q, X_p) - E_p (MPI_Finalize, over all
//                                               ranks: the barrier formula, METRICS.md)
// clang-format on
//
// Only positive waits count.  "partner" is the rank the wait is blamed on:
// the (latest) sender, the receiver, the last rank to arrive (lowest rank on
// ties), the root.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>


namespace strata::analysis::trace {

/// The patterns, in report order.
enum class WaitMetric : std::uint8_t {
    late_sender,
    late_receiver,
    wait_at_barrier,
    wait_at_nxn,
    late_broadcast,
    early_reduce,
    wait_at_finalize
};
inline constexpr std::size_t wait_metric_count = 7;

/// The kind of MPI call a pattern is found in (Cube's metric tree, Scalasca's).
/// init_exit: MPI_Finalize, which the MPI time the other patterns are
/// compared with leaves out.
enum class WaitCall : std::uint8_t { point_to_point, barrier, collective, init_exit };

/// Everything the reports say of a pattern, in one row (wait_states.cpp).
struct WaitMetricInfo {
    const char* name;        ///< "late_sender": CSV, JSON, advice kinds
    const char* title;       ///< "Late senders": report headings
    const char* words;       ///< "late senders": in sentences
    bool plural;             ///< `words` take a plural verb
    const char* blamed;      ///< what the ranks it names are: "the late senders"
    const char* definition;  ///< as the reports print it
    const char* cube_name;   ///< Scalasca's metric in Cube: "mpi_latesender"
    const char* cube_title;  ///< and its display name: "Late Sender"
    WaitCall call;
};

/// The row of `metric`.
const WaitMetricInfo& info(WaitMetric metric);
inline const char* metric_name(WaitMetric metric) { return info(metric).name; }
inline const char* metric_definition(WaitMetric metric) { return info(metric).definition; }
inline const char* metric_words(WaitMetric metric) { return info(metric).words; }

/// Waiting of one rank in one call path, blamed on one partner.
struct WaitStateRow {
    WaitMetric metric = WaitMetric::late_sender;
    std::string callpath;
    std::uint32_t rank = 0;
    std::int64_t partner = -1;
    std::int64_t ticks = 0;
    std::uint64_t instances = 0;  ///< calls with a positive wait
};

/// What the trace analysis could and could not use.
struct TraceCounts {
    std::uint64_t events = 0;
    std::uint64_t messages_matched = 0;
    std::uint64_t sends_unmatched = 0;
    std::uint64_t receives_unmatched = 0;
    std::uint64_t clock_violations = 0;        ///< receives that ended before their send began
    /// members of a barrier or N x N instance that left before the last member entered
    std::uint64_t collective_clock_violations = 0;
    std::uint64_t collectives_matched = 0;     ///< instances (communicator, sequence) complete
    std::uint64_t collectives_incomplete = 0;  ///< instances missing a member or mixing operations
    std::uint64_t unresolved = 0;
    std::uint64_t unbalanced = 0;
    std::uint64_t unterminated = 0;
    // The controlled logical clock (logical_clock.hpp), where it ran; the two
    // violation counts above are then those of the trace as written.
    std::uint64_t clock_rounds = 0;               ///< rounds of enforcing; 0: it did not run
    std::uint64_t clock_conditions_violated = 0;  ///< conditions violated before it (every kind)
    std::uint64_t clock_violations_left = 0;      ///< clock_violations after it
    std::uint64_t collective_clock_violations_left = 0;
    std::uint64_t clock_ranks_moved = 0;
    std::uint64_t clock_times_checked = 0;  ///< MPI times: send posts, receive ends, collective enters and exits
    std::uint64_t clock_times_moved = 0;    ///< of those, moved later
    std::int64_t clock_largest_move = 0;    ///< ticks
    std::int64_t clock_move_sum = 0;        ///< ticks, over the times moved
};

/// The wait states of a trace, combined over its ranks (TraceReport::waits).
struct WaitStates {
    std::vector<WaitStateRow> rows;  ///< by metric, call path, rank, partner
    std::array<std::int64_t, wait_metric_count> total_ticks{};
    std::array<std::uint64_t, wait_metric_count> total_instances{};
};

}  // namespace strata::analysis::trace
