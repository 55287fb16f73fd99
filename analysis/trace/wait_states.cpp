// SPDX-License-Identifier: BSD-3-Clause
// Names and definitions of the wait-state patterns (see wait_states.hpp).
#include "trace/wait_states.hpp"

namespace strata::analysis::trace {

namespace {
// In WaitMetric's order.
constexpr WaitMetricInfo kWaitMetrics[wait_metric_count] = {
    {"late_sender", "Late senders", "late senders", true, "the late senders",
     "Scalasca late sender: min(E_send, X_recv) - E_recv at the receiving call (the latest sender for a Wait "
     "of several receives)",
     "mpi_latesender", "Late Sender", WaitCall::point_to_point},
    {"late_receiver", "Late receivers", "late receivers", true, "the late receivers",
     "Scalasca late receiver: E_recv_posted - E_send at the sending call, when the send ended after the "
     "receive was posted; none in MPI_Sendrecv or in a Wait charged a late sender (a call waits at one site)",
     "mpi_latereceiver", "Late Receiver", WaitCall::point_to_point},
    {"wait_at_barrier", "Waiting at barriers", "waiting at barriers", false,
     "ranks wait because these arrive last", "Scalasca wait at barrier: min(max_q E_q, X_p) - E_p in MPI_Barrier",
     "mpi_barrier_wait", "Wait at Barrier", WaitCall::barrier},
    {"wait_at_nxn", "Waiting at N\u00D7N collectives", "waiting at NxN collectives", false,
     "ranks wait because these arrive last",
     "Scalasca wait at NxN: min(max_q E_q, X_p) - E_p in Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter",
     "mpi_wait_nxn", "Wait at N x N", WaitCall::collective},
    {"late_broadcast", "Late broadcasts", "late broadcast roots", true, "the late roots",
     "Scalasca late broadcast: min(E_root, X_p) - E_p on every rank but the root of Bcast, Scatter(v)",
     "mpi_latebroadcast", "Late Broadcast", WaitCall::collective},
    {"early_reduce", "Early reduces", "early reduce roots", true, "ranks wait because these arrive last",
     "Scalasca early reduce: min(max_q E_q, X_root) - E_root on the root of Reduce, Gather(v)",
     "mpi_earlyreduce", "Early Reduce", WaitCall::collective},
    {"wait_at_finalize", "Waiting in MPI_Finalize", "waiting in MPI_Finalize", false,
     "ranks wait because these arrive last",
     "Scalasca wait at finalize: min(max_q E_q, X_p) - E_p in MPI_Finalize, over all ranks (the barrier "
     "formula: ranks that finish early wait there for the last one)",
     "mpi_finalize_wait", "Wait at Finalize", WaitCall::init_exit},
};
}  // namespace

const WaitMetricInfo& info(WaitMetric metric) { return kWaitMetrics[static_cast<std::size_t>(metric)]; }

}  // namespace strata::analysis::trace
