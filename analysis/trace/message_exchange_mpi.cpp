// SPDX-License-Identifier: BSD-3-Clause
// MPI_Alltoallv and MPI_Gatherv of byte buffers (see message_exchange_mpi.hpp).
#include "trace/message_exchange_mpi.hpp"

#include <climits>
#include <stdexcept>

namespace strata::analysis::trace {

namespace {

int checked_count(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT_MAX)) {
        throw std::length_error("a trace-analysis exchange buffer exceeds 2 GiB; use more analysis ranks");
    }
    return static_cast<int>(bytes);
}

/// Displacements of `counts`, checked to fit MPI's int.
std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> at(counts.size(), 0);
    std::size_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        at[i] = checked_count(total);
        total += static_cast<std::size_t>(counts[i]);
    }
    checked_count(total);
    return at;
}

}  // namespace

MpiExchange::MpiExchange(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
}

std::vector<std::string> MpiExchange::all_to_all(const std::vector<std::string>& outbox) {
    const auto n = static_cast<std::size_t>(size_);
    std::vector<int> send_counts(n, 0), receive_counts(n, 0);
    std::string sending;
    for (std::size_t r = 0; r < n && r < outbox.size(); ++r) {
        send_counts[r] = checked_count(outbox[r].size());
        sending += outbox[r];
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_);
    const std::vector<int> send_at = displacements(send_counts), receive_at = displacements(receive_counts);
    std::string receiving(static_cast<std::size_t>(receive_at.back()) + static_cast<std::size_t>(receive_counts.back()),
                          '\0');
    MPI_Alltoallv(sending.data(), send_counts.data(), send_at.data(), MPI_BYTE, &receiving[0], receive_counts.data(),
                  receive_at.data(), MPI_BYTE, comm_);
    std::vector<std::string> inbox(n);
    for (std::size_t r = 0; r < n; ++r) inbox[r] = receiving.substr(static_cast<std::size_t>(receive_at[r]),
                                                                    static_cast<std::size_t>(receive_counts[r]));
    return inbox;
}

std::vector<std::string> MpiExchange::gather(const std::string& mine) {
    const int count = checked_count(mine.size());
    std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
    std::vector<int> at;
    std::string all;
    if (rank_ == 0) {
        at = displacements(counts);
        all.resize(static_cast<std::size_t>(at.back()) + static_cast<std::size_t>(counts.back()));
    }
    MPI_Gatherv(mine.data(), count, MPI_BYTE, rank_ == 0 ? &all[0] : nullptr, counts.data(), at.data(), MPI_BYTE, 0,
                comm_);
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        parts.push_back(all.substr(static_cast<std::size_t>(at[r]), static_cast<std::size_t>(counts[r])));
    }
    return parts;
}

}  // namespace strata::analysis::trace
