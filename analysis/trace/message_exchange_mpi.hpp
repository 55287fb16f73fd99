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
    std::unique_ptr<UnitDispenser> dispenser(std::int64_t units, std::vector<std::int64_t> order) override;

private:
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

/// Rank 0 keeps the count of units handed out and answers the others'
/// requests whenever it asks for a unit itself or is between two batches
/// of events (serve()): a request waits for at most one batch.  On its own
/// communicator (a duplicate), so that its messages meet no other.
class MpiUnitDispenser : public UnitDispenser {
public:
    /// `order`: see Exchange::dispenser().
    MpiUnitDispenser(MPI_Comm comm, std::int64_t units, std::vector<std::int64_t> order = {});
    ~MpiUnitDispenser() override;
    MpiUnitDispenser(const MpiUnitDispenser&) = delete;
    MpiUnitDispenser& operator=(const MpiUnitDispenser&) = delete;
    std::int64_t next() override;
    void serve() override;
    std::vector<std::int64_t> stop() override;

private:
    /// Rank 0: answers one request of `source` (kWant or kQuit).
    void answer(int source, int request);
    /// Rank 0: answers requests, sleeping between looks, until every other rank is done.
    void drain();
    /// Rank 0: the unit handed out `n`-th.
    std::int64_t unit_at(std::int64_t n) const {
        return order_.empty() ? n : order_[static_cast<std::size_t>(n)];
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::int64_t units_ = 0;
    std::vector<std::int64_t> order_;  ///< rank 0: the order to hand them out in (empty: ascending)
    std::int64_t next_ = 0;            ///< rank 0: how many were handed out
    int active_ = 0;                   ///< rank 0: other ranks not yet done
    bool done_ = false;                ///< this rank takes no more units
};

}  // namespace strata::analysis::trace
