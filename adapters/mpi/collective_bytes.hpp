// SPDX-License-Identifier: BSD-3-Clause
// Bytes sent and received by blocking collectives, following Score-P's MPI
// adapter (SCOREP_Mpi_Coll.c) operation by operation, so that the figures mean
// what Score-P users expect.  N is the size of the communicator (of the local
// group), M the size of the remote group of an intercommunicator, me the rank.
// Arguments significant only at the root are read only there.
//
// Inline, and a template on the operation: each wrapper computes only what its
// operation needs (the switch, the unused arguments and terms fold away).
// Included by collectives.hpp; not to be included on its own.
#pragma once

#include "communicators.hpp"
#include "datatype_sizes.hpp"

namespace strata::mpi {

namespace collective_detail {

using Op = events::CollectiveOp;
using u64 = std::uint64_t;

inline u64 n(int count) {
    return count > 0 ? static_cast<u64>(count) : 0;
}

inline u64 sum(const int* counts, u64 members) {
    u64 total = 0;
    for (u64 i = 0; i < members; ++i) total += n(counts[i]);
    return total;
}

constexpr bool rooted(Op op) {
    return op == Op::bcast || op == Op::gather || op == Op::gatherv || op == Op::scatter ||
           op == Op::scatterv || op == Op::reduce;
}

}  // namespace collective_detail

template <events::CollectiveOp op>
inline CollectiveRecord collective_bytes(const CollectiveArgs& a) {
    using namespace collective_detail;
    CommInfo unknown;
    const CommInfo& c = communicator_info(a.comm, unknown);
    CollectiveRecord r;
    r.op = op;
    r.comm = c.handle;
    if (rooted(op) && a.root >= 0) r.root = a.root;
    const u64 N = n(c.size), M = n(c.remote_size), me = n(c.rank);
    const bool root = !c.inter && a.root == c.rank;
    const bool send_in_place = a.sendbuf == MPI_IN_PLACE, recv_in_place = a.recvbuf == MPI_IN_PLACE;
    // Intercommunicators: the root group passes MPI_ROOT (its other members MPI_PROC_NULL).
    const bool inter_root = c.inter && a.root == MPI_ROOT;
    const bool inter_leaf = c.inter && a.root != MPI_ROOT && a.root != MPI_PROC_NULL;
    switch (op) {
        case Op::barrier:
            break;
        case Op::bcast: {
            const u64 bytes = n(a.count) * datatype_size(a.datatype);
            if (!c.inter) {
                r.sent = root ? N * bytes : 0;
                r.received = bytes;
            } else if (inter_root) {
                r.sent = M * bytes;
            } else if (inter_leaf) {
                r.received = bytes;
            }
            break;
        }
        case Op::gather:
        case Op::gatherv: {
            if (!c.inter) {
                if (!send_in_place) r.sent = n(a.sendcount) * datatype_size(a.sendtype);
                if (root) {
                    const u64 size = datatype_size(a.recvtype);
                    if (op == Op::gather) {
                        r.received = (send_in_place ? N - 1 : N) * n(a.recvcount) * size;
                    } else {
                        u64 total = sum(a.recvcounts, N);
                        if (send_in_place) total -= n(a.recvcounts[me]);
                        r.received = total * size;
                    }
                }
            } else if (inter_root) {
                const u64 elements = op == Op::gather ? M * n(a.recvcount) : sum(a.recvcounts, M);
                r.received = elements * datatype_size(a.recvtype);
            } else if (inter_leaf) {
                r.sent = n(a.sendcount) * datatype_size(a.sendtype);
            }
            break;
        }
        case Op::scatter:
        case Op::scatterv: {
            if (!c.inter) {
                if (!recv_in_place) r.received = n(a.recvcount) * datatype_size(a.recvtype);
                if (root) {
                    u64 elements = 0;
                    if (op == Op::scatter) {
                        elements = (recv_in_place ? N - 1 : N) * n(a.sendcount);
                    } else {
                        elements = sum(a.sendcounts, N);
                        if (recv_in_place) elements -= n(a.sendcounts[me]);
                    }
                    r.sent = elements * datatype_size(a.sendtype);
                }
            } else if (inter_root) {
                const u64 elements = op == Op::scatter ? M * n(a.sendcount) : sum(a.sendcounts, M);
                r.sent = elements * datatype_size(a.sendtype);
            } else if (inter_leaf) {
                r.received = n(a.recvcount) * datatype_size(a.recvtype);
            }
            break;
        }
        case Op::allgather: {
            if (c.inter) {
                r.sent = M * n(a.sendcount) * datatype_size(a.sendtype);
                r.received = M * n(a.recvcount) * datatype_size(a.recvtype);
            } else if (!send_in_place) {
                r.sent = N * n(a.sendcount) * datatype_size(a.sendtype);
                r.received = N * n(a.recvcount) * datatype_size(a.recvtype);
            } else {
                r.sent = r.received = (N - 1) * n(a.recvcount) * datatype_size(a.recvtype);
            }
            break;
        }
        case Op::allgatherv: {
            const u64 size = datatype_size(a.recvtype);
            if (c.inter) {
                r.sent = M * n(a.sendcount) * datatype_size(a.sendtype);
                r.received = sum(a.recvcounts, M) * size;
            } else if (!send_in_place) {
                r.sent = N * n(a.sendcount) * datatype_size(a.sendtype);
                r.received = sum(a.recvcounts, N) * size;
            } else {
                r.sent = (N - 1) * n(a.recvcounts[me]) * size;
                r.received = (sum(a.recvcounts, N) - n(a.recvcounts[me])) * size;
            }
            break;
        }
        case Op::alltoall: {
            if (c.inter) {
                r.sent = M * n(a.sendcount) * datatype_size(a.sendtype);
                r.received = M * n(a.recvcount) * datatype_size(a.recvtype);
            } else {
                r.sent = r.received = (send_in_place ? N - 1 : N) * n(a.recvcount) * datatype_size(a.recvtype);
            }
            break;
        }
        case Op::alltoallv: {
            const u64 recv_size = datatype_size(a.recvtype);
            if (!c.inter && send_in_place) {
                r.sent = r.received = (sum(a.recvcounts, N) - n(a.recvcounts[me])) * recv_size;
            } else {
                const u64 members = c.inter ? M : N;
                r.sent = sum(a.sendcounts, members) * datatype_size(a.sendtype);
                r.received = sum(a.recvcounts, members) * recv_size;
            }
            break;
        }
        case Op::alltoallw: {
            const u64 members = c.inter ? M : N;
            for (u64 i = 0; i < members; ++i) r.received += n(a.recvcounts[i]) * datatype_size(a.recvtypes[i]);
            if (!c.inter && send_in_place) {
                r.received -= n(a.recvcounts[me]) * datatype_size(a.recvtypes[me]);
                r.sent = r.received;
            } else {
                for (u64 i = 0; i < members; ++i) r.sent += n(a.sendcounts[i]) * datatype_size(a.sendtypes[i]);
            }
            break;
        }
        case Op::allreduce: {
            const u64 peers = c.inter ? M : (send_in_place ? N - 1 : N);
            r.sent = r.received = peers * n(a.count) * datatype_size(a.datatype);
            break;
        }
        case Op::reduce: {
            const u64 bytes = n(a.count) * datatype_size(a.datatype);
            if (!c.inter) {
                if (!send_in_place) r.sent = bytes;
                if (root) r.received = (send_in_place ? N - 1 : N) * bytes;
            } else if (inter_root) {
                r.received = M * bytes;
            } else if (inter_leaf) {
                r.sent = bytes;
            }
            break;
        }
        case Op::reduce_scatter: {
            const u64 size = datatype_size(a.datatype);
            const u64 total = sum(a.recvcounts, N);
            const u64 mine = n(a.recvcounts[me]);
            if (c.inter) {
                r.sent = total * size;
                r.received = M * mine * size;
            } else if (send_in_place) {
                r.sent = (total - mine) * size;
                r.received = (N - 1) * mine * size;
            } else {
                r.sent = total * size;
                r.received = N * mine * size;
            }
            break;
        }
        case Op::reduce_scatter_block: {
            r.sent = r.received = (send_in_place ? N - 1 : N) * n(a.recvcount) * datatype_size(a.datatype);
            break;
        }
        case Op::scan: {
            const u64 bytes = n(a.count) * datatype_size(a.datatype);
            r.sent = (send_in_place ? N - me - 1 : N - me) * bytes;
            r.received = (send_in_place ? me : me + 1) * bytes;
            break;
        }
        case Op::exscan: {
            const u64 bytes = n(a.count) * datatype_size(a.datatype);
            r.sent = (N - me - 1) * bytes;
            r.received = me * bytes;
            break;
        }
        default:
            break;
    }
    return r;
}

}  // namespace strata::mpi
