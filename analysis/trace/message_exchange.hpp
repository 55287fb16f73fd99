// SPDX-License-Identifier: BSD-3-Clause
// The seam between the trace analysis and MPI: the two collective
// operations the replay needs, on byte buffers.  message_exchange_mpi.cpp
// implements them with MPI_Alltoallv and MPI_Gatherv (the only MPI calls of
// the trace analysis); the tests run K shares in one process and move the
// buffers themselves (wait_state_analysis.hpp, analyze_trace_in_process).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strata::analysis::trace {

/// Collective byte exchange among the K analysis ranks.
class Exchange {
public:
    virtual ~Exchange() = default;
    /// This analysis rank and their number.
    virtual std::size_t rank() const = 0;
    virtual std::size_t size() const = 0;
    /// outbox[r] goes to rank r; returns inbox[r], what rank r sent here.  Collective.
    /// (By value: this rank's own part moves to its inbox without a copy.)
    virtual std::vector<std::string> all_to_all(std::vector<std::string> outbox) = 0;
    /// Every rank's `mine`, by rank, on rank 0; empty elsewhere.  Collective.
    virtual std::vector<std::string> gather(const std::string& mine) = 0;
};

}  // namespace strata::analysis::trace
