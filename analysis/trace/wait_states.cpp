// SPDX-License-Identifier: BSD-3-Clause
// Names and definitions of the wait-state patterns (see wait_states.hpp).
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

const char* metric_name(WaitMetric metric) {
    switch (metric) {
        case WaitMetric::late_sender:
            return "late_sender";
        case WaitMetric::late_receiver:
            return "late_receiver";
        case WaitMetric::wait_at_barrier:
            return "wait_at_barrier";
        case WaitMetric::wait_at_nxn:
            return "wait_at_nxn";
        case WaitMetric::late_broadcast:
            return "late_broadcast";
        case WaitMetric::early_reduce:
            return "early_reduce";
    }
    return "unknown";
}

const char* metric_definition(WaitMetric metric) {
    switch (metric) {
        case WaitMetric::late_sender:
            return "Scalasca late sender: min(E_send, X_recv) - E_recv at the receiving call (the latest "
                   "sender for "
                   "a Wait of several receives)";
        case WaitMetric::late_receiver:
            return "Scalasca late receiver: E_recv_posted - E_send at the sending call, when the send ended "
                   "after the receive was posted; none in MPI_Sendrecv or in a Wait charged a late sender "
                   "(a call waits at one site)";
        case WaitMetric::wait_at_barrier:
            return "Scalasca wait at barrier: min(max_q E_q, X_p) - E_p in MPI_Barrier";
        case WaitMetric::wait_at_nxn:
            return "Scalasca wait at NxN: min(max_q E_q, X_p) - E_p in Allreduce, Allgather(v), "
                   "Alltoall(v,w), "
                   "Reduce_scatter";
        case WaitMetric::late_broadcast:
            return "Scalasca late broadcast: min(E_root, X_p) - E_p on every rank but the root of Bcast, "
                   "Scatter(v)";
        case WaitMetric::early_reduce:
            return "Scalasca early reduce: min(max_q E_q, X_root) - E_root on the root of Reduce, Gather(v)";
    }
    return "";
}

const char* metric_words(WaitMetric metric) {
    switch (metric) {
        case WaitMetric::late_sender:
            return "late senders";
        case WaitMetric::late_receiver:
            return "late receivers";
        case WaitMetric::wait_at_barrier:
            return "waiting at barriers";
        case WaitMetric::wait_at_nxn:
            return "waiting at NxN collectives";
        case WaitMetric::late_broadcast:
            return "late broadcast roots";
        case WaitMetric::early_reduce:
            return "early reduce roots";
    }
    return "";
}

double WaitStateReport::seconds(std::int64_t ticks) const {
    return static_cast<double>(static_cast<long double>(ticks) / static_cast<long double>(timer_resolution));
}

}  // namespace strata::analysis::trace
