// SPDX-License-Identifier: BSD-3-Clause
// Exchange over an MPI communicator (see message_exchange.hpp).
#pragma once

#include <mpi.h>

#include "trace/message_exchange.hpp"

namespace strata::analysis::trace {

/// Exchange on `comm` with MPI_Alltoallv / MPI_Gatherv of MPI_BYTE.  What
/// one rank sends or receives in one call must stay below 2 GiB (MPI's int
/// counts); otherwise every rank throws std::length_error, together.
class MpiExchange : public Exchange {
public:
    explicit MpiExchange(MPI_Comm comm);
    std::size_t rank() const override { return static_cast<std::size_t>(rank_); }
    std::size_t size() const override { return static_cast<std::size_t>(size_); }
    std::vector<std::string> all_to_all(std::vector<std::string> outbox) override;
    std::vector<std::string> gather(const std::string& mine) override;

private:
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

}  // namespace strata::analysis::trace
