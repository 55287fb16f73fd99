// SPDX-License-Identifier: BSD-3-Clause
// The wait-state patterns and the clock condition checks, as callbacks on
// the derived events (derived_events.hpp), declared in one table
// (wait_state_patterns.cpp), and the combination of what they charged.  A new pattern is a WaitMetric with its row in
// wait_states.cpp (names, definition, Cube metric) and a row here with its
// callback (analysis/README.md, "Adding a wait state").
#pragma once

#include <optional>
#include <vector>

#include "trace/byte_codec.hpp"
#include "trace/derived_events.hpp"
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

/// One consumer of the derived events; a callback it does not need is nullptr.
struct WaitStatePattern {
    const char* name;                  ///< the metric's name (wait_states.hpp), or the check's
    std::optional<WaitMetric> metric;  ///< what it charges; none for a check that only counts
    DerivedCallbacks::Callback<ReceiveCallMatched> on_receive_call;
    DerivedCallbacks::Callback<SendCallMatched> on_send_call;
    DerivedCallbacks::Callback<CollectiveMemberMatched> on_collective_member;
};

/// Every pattern and check, in the order their callbacks run.
const std::vector<WaitStatePattern>& wait_state_patterns();

/// The callbacks of every row of wait_state_patterns(), registered by kind.
const DerivedCallbacks& wait_state_callbacks();

// What they charged, as the "wait states" row of the trace's analyses
// (trace_passes.cpp) hands it from the analysis ranks to rank 0.

/// An analysis rank's part: what its patterns charged, by call path name.
void put_wait_partial(ByteWriter& out, const ChargedWaits& waits, const CallPaths& callpaths);
/// Adds one analysis rank's part (in rank order).
void add_wait_partial(WaitStates& states, ByteReader& in);
/// Sums the rows of one metric, call path, rank and partner, sorted so, and the totals per metric.
void finish_wait_states(WaitStates& states);

}  // namespace strata::analysis::trace
