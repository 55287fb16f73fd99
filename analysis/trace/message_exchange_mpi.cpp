// SPDX-License-Identifier: BSD-3-Clause
// MPI_Alltoallv and MPI_Gatherv of byte buffers (see message_exchange_mpi.hpp).
#include "trace/message_exchange_mpi.hpp"

#include <time.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace strata::analysis::trace {

namespace {

constexpr const char* too_large =
    "a trace-analysis exchange buffer exceeds 2 GiB (MPI's int counts); use more analysis ranks";

/// Throws std::length_error on every rank of `comm` when `local_too_large`
/// is true on any of them (so that no rank is left waiting in a collective).
void agree_on_size(bool local_too_large, MPI_Comm comm) {
    int any = local_too_large ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any != 0) throw std::length_error(too_large);
}

/// Sleeps a little longer at each call: 20 us, doubling up to 1 ms.
class Naps {
public:
    void take() {
        const timespec nap{0, nap_ns_};
        nanosleep(&nap, nullptr);
        nap_ns_ = std::min(nap_ns_ * 2, 1000000L);  // at most 1 ms late
    }

private:
    long nap_ns_ = 20000;
};

/// Waits for `request`, sleeping between looks: spinning in MPI would take
/// the CPU from a rank still replaying on the same core.
void wait_quietly(MPI_Request* request) {
    Naps naps;
    for (int done = 0;;) {
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done != 0) return;
        naps.take();
    }
}

/// Waits until every rank of `comm` has come here.  The ranks reach an
/// exchange at different times (their shares differ, or share a core with
/// other processes).
void quiet_barrier(MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibarrier(comm, &request);
    wait_quietly(&request);
}

// The dispenser's messages: a request to rank 0 (an int, kWant or kQuit) and its answer (a unit, -1 none).
constexpr int kRequestTag = 1, kAnswerTag = 2;
constexpr int kWant = 0, kQuit = 1;

bool fits(std::size_t bytes) {
    return bytes <= static_cast<std::size_t>(INT_MAX);
}

/// Displacements of `counts`; false when their sum does not fit an int.
bool displacements(const std::vector<int>& counts, std::vector<int>* at) {
    at->assign(counts.size(), 0);
    std::size_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        (*at)[i] = static_cast<int>(total);
        total += static_cast<std::size_t>(counts[i]);
        if (!fits(total)) return false;
    }
    return true;
}

}  // namespace

MpiExchange::MpiExchange(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
}

std::vector<std::string> MpiExchange::all_to_all(std::vector<std::string> outbox) {
    const auto n = static_cast<std::size_t>(size_);
    const auto me = static_cast<std::size_t>(rank_);
    outbox.resize(n);
    // This rank's own part (with K = 1 all of it) moves, not through MPI: at a
    // message's 8 bytes it is tens of megabytes on a large trace.
    std::string own = std::move(outbox[me]);
    outbox[me].clear();
    if (size_ > 1) quiet_barrier(comm_);
    std::vector<int> send_counts(n, 0), receive_counts(n, 0);
    std::size_t total = 0;
    for (std::size_t r = 0; r < n; ++r) total += outbox[r].size();
    agree_on_size(!fits(total), comm_);
    std::string sending;
    sending.reserve(total);
    for (std::size_t r = 0; r < n; ++r) {
        send_counts[r] = static_cast<int>(outbox[r].size());
        sending += outbox[r];
        std::string().swap(outbox[r]);
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_);
    std::vector<int> send_at, receive_at;
    displacements(send_counts, &send_at);
    agree_on_size(!displacements(receive_counts, &receive_at), comm_);
    std::string receiving(
        static_cast<std::size_t>(receive_at.back()) + static_cast<std::size_t>(receive_counts.back()), '\0');
    MPI_Alltoallv(sending.data(), send_counts.data(), send_at.data(), MPI_BYTE, &receiving[0],
                  receive_counts.data(), receive_at.data(), MPI_BYTE, comm_);
    std::string().swap(sending);  // freed before the inbox is built: memory is the peak of the analysis
    std::vector<std::string> inbox(n);
    for (std::size_t r = 0; r < n; ++r) {
        if (r == me) continue;
        inbox[r] = receiving.substr(static_cast<std::size_t>(receive_at[r]),
                                    static_cast<std::size_t>(receive_counts[r]));
    }
    inbox[me] = std::move(own);
    return inbox;
}

std::unique_ptr<UnitDispenser> MpiExchange::dispenser(std::int64_t units, std::vector<std::int64_t> order) {
    return std::make_unique<MpiUnitDispenser>(comm_, units, std::move(order));
}

MpiUnitDispenser::MpiUnitDispenser(MPI_Comm comm, std::int64_t units, std::vector<std::int64_t> order)
    : units_(units), order_(std::move(order)) {
    if (!order_.empty() && order_.size() != static_cast<std::size_t>(std::max<std::int64_t>(0, units_)))
        order_.clear();  // an order of another number of units: ascending instead
    MPI_Comm_dup(comm, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    active_ = size_ - 1;
}

MpiUnitDispenser::~MpiUnitDispenser() {
    MPI_Comm_free(&comm_);
}

void MpiUnitDispenser::answer(int source, int request) {
    if (request == kWant) {
        const std::int64_t unit = next_ < units_ ? unit_at(next_++) : -1;
        MPI_Send(&unit, 1, MPI_INT64_T, source, kAnswerTag, comm_);
        if (unit < 0) --active_;
    } else {
        --active_;
    }
}

void MpiUnitDispenser::serve() {
    if (rank_ != 0) return;
    for (;;) {
        int waiting = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kRequestTag, comm_, &waiting, &status);
        if (waiting == 0) return;
        int request = kWant;
        MPI_Recv(&request, 1, MPI_INT, status.MPI_SOURCE, kRequestTag, comm_, MPI_STATUS_IGNORE);
        answer(status.MPI_SOURCE, request);
    }
}

void MpiUnitDispenser::drain() {
    Naps naps;
    while (active_ > 0) {
        int waiting = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kRequestTag, comm_, &waiting, &status);
        if (waiting == 0) {
            naps.take();
            continue;
        }
        int request = kWant;
        MPI_Recv(&request, 1, MPI_INT, status.MPI_SOURCE, kRequestTag, comm_, MPI_STATUS_IGNORE);
        answer(status.MPI_SOURCE, request);
        naps = Naps();  // the next request may follow soon
    }
}

std::int64_t MpiUnitDispenser::next() {
    if (done_) return -1;
    if (rank_ == 0) {
        serve();  // the others' requests first: they asked earlier
        if (next_ < units_) return unit_at(next_++);
        drain();
        done_ = true;
        return -1;
    }
    const int request = kWant;
    MPI_Send(&request, 1, MPI_INT, 0, kRequestTag, comm_);
    std::int64_t unit = -1;
    MPI_Request answer_request = MPI_REQUEST_NULL;
    MPI_Irecv(&unit, 1, MPI_INT64_T, 0, kAnswerTag, comm_, &answer_request);
    wait_quietly(&answer_request);
    if (unit < 0) done_ = true;
    return unit;
}

std::vector<std::int64_t> MpiUnitDispenser::stop() {
    if (done_) return {};
    done_ = true;
    if (rank_ != 0) {
        const int request = kQuit;
        MPI_Send(&request, 1, MPI_INT, 0, kRequestTag, comm_);
        return {};
    }
    drain();  // the others take what is left, while they can
    std::vector<std::int64_t> left;
    for (; next_ < units_; ++next_) left.push_back(unit_at(next_));
    return left;
}

std::vector<std::string> MpiExchange::gather(const std::string& mine) {
    if (size_ > 1) quiet_barrier(comm_);
    agree_on_size(!fits(mine.size()), comm_);
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
    std::vector<int> at;
    std::string all;
    bool fit = true;
    if (rank_ == 0) {
        fit = displacements(counts, &at);
        if (fit) all.resize(static_cast<std::size_t>(at.back()) + static_cast<std::size_t>(counts.back()));
    }
    agree_on_size(!fit, comm_);
    MPI_Gatherv(mine.data(), count, MPI_BYTE, rank_ == 0 ? &all[0] : nullptr, counts.data(), at.data(),
                MPI_BYTE, 0, comm_);
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        parts.push_back(all.substr(static_cast<std::size_t>(at[r]), static_cast<std::size_t>(counts[r])));
    }
    return parts;
}

}  // namespace strata::analysis::trace
