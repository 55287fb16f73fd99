// SPDX-License-Identifier: BSD-3-Clause
// ProcessGroup over PMPI, and the hand-over to the core at MPI_Init / MPI_Finalize.
#include "mpi_process_group.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "communicators.hpp"
#include "mpi_adapter.hpp"

namespace strata::mpi {

namespace {

// MPI counts are ints: larger transfers go in pieces.
constexpr std::size_t kChunk = static_cast<std::size_t>(INT_MAX) / 2;

std::vector<int> int_counts(const std::size_t* counts, int n, std::vector<int>* displacements) {
    std::vector<int> out(n);
    displacements->assign(n, 0);
    std::size_t offset = 0;
    for (int r = 0; r < n; ++r) {
        out[r] = static_cast<int>(counts[r]);
        (*displacements)[r] = static_cast<int>(offset);
        offset += counts[r];
    }
    return out;
}

MpiProcessGroup* g_group = nullptr;

}  // namespace

MpiProcessGroup::MpiProcessGroup() {
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    PMPI_Comm_rank(comm_, &rank_);
    PMPI_Comm_size(comm_, &size_);
}

MpiProcessGroup::~MpiProcessGroup() {
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
}

void MpiProcessGroup::barrier() { PMPI_Barrier(comm_); }

void MpiProcessGroup::broadcast(void* data, std::size_t bytes, int root) {
    for (std::size_t done = 0; done < bytes; done += kChunk) {
        const std::size_t n = std::min(kChunk, bytes - done);
        PMPI_Bcast(static_cast<char*>(data) + done, static_cast<int>(n), MPI_BYTE, root, comm_);
    }
}

void MpiProcessGroup::gather(const void* in, std::size_t bytes, void* out, int root) {
    PMPI_Gather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE, root, comm_);
}

void MpiProcessGroup::gatherv(const void* in, std::size_t bytes, void* out, const std::size_t* counts, int root) {
    std::vector<int> displacements, n;
    if (rank_ == root) n = int_counts(counts, size_, &displacements);
    PMPI_Gatherv(in, static_cast<int>(bytes), MPI_BYTE, out, n.data(), displacements.data(), MPI_BYTE, root, comm_);
}

void MpiProcessGroup::scatter(const void* in, std::size_t bytes, void* out, int root) {
    PMPI_Scatter(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE, root, comm_);
}

void MpiProcessGroup::scatterv(const void* in, const std::size_t* counts, void* out, std::size_t bytes, int root) {
    std::vector<int> displacements, n;
    if (rank_ == root) n = int_counts(counts, size_, &displacements);
    PMPI_Scatterv(in, n.data(), displacements.data(), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE, root, comm_);
}

void MpiProcessGroup::send(const void* data, std::size_t bytes, int peer) {
    for (std::size_t done = 0; done < bytes || done == 0; done += kChunk) {
        const std::size_t n = std::min(kChunk, bytes - done);
        PMPI_Send(static_cast<const char*>(data) + done, static_cast<int>(n), MPI_BYTE, peer, 0, comm_);
        if (bytes == 0) break;
    }
}

void MpiProcessGroup::receive(void* data, std::size_t bytes, int peer) {
    for (std::size_t done = 0; done < bytes || done == 0; done += kChunk) {
        const std::size_t n = std::min(kChunk, bytes - done);
        PMPI_Recv(static_cast<char*>(data) + done, static_cast<int>(n), MPI_BYTE, peer, 0, comm_, MPI_STATUS_IGNORE);
        if (bytes == 0) break;
    }
}

void after_init() {
    // MPI calls made meanwhile (by Strata, by HDF5 or OTF2) are not the program's:
    // not recorded, and their communicators not defined.  The wrapper of MPI_Init
    // has set the guard already when its group is recorded, not otherwise.
    MeasurementScope scope;
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (g_group != nullptr || !initialized) return;  // PMPI_Init failed: nothing to agree on
    g_group = new MpiProcessGroup();
    events::begin_multi_process(g_group);
    define_world_and_self();
}

void before_abort() {
    MeasurementScope scope;
    if (g_group == nullptr) return;
    const int size = g_group->size();
    events::abort_multi_process("it called MPI_Abort");
#ifdef OPEN_MPI
    // mpirun then sends the other ranks SIGTERM and, by default, SIGKILL one
    // second later: enough for most experiments (the ranks keep each other
    // alive while they write, core/ranks_writing_alone.hpp), not for large
    // traces.  The user can give them time; only the launcher's setting counts.
    const char* timeout = std::getenv("OMPI_MCA_odls_base_sigkill_timeout");
    if (size > 1 && (timeout == nullptr || std::atoi(timeout) < 5)) {
        std::fprintf(stderr,
                     "strata: note: after MPI_Abort, Open MPI's mpirun terminates the other ranks and kills them "
                     "one second later; a rank whose rank-<r>/ lacks profile.h5 or traces.otf2 was killed before "
                     "it had written them (strata-analyze names it).  To give the ranks time, run mpirun --mca "
                     "odls_base_sigkill_timeout 10\n");
    }
#else
    (void)size;
#endif
}

void before_finalize() {
    MeasurementScope scope;  // as in after_init: parallel HDF5 calls MPI_Comm_dup, MPI_Allreduce, ...
    if (g_group == nullptr) return;
    if (const std::uint64_t unknown = unknown_communicator_uses()) {
        std::fprintf(stderr,
                     "strata: warning: rank %d: %llu MPI events name a communicator Strata does not know "
                     "(made before MPI_Init or by PMPI directly); they refer to "
                     "\"unknown communicator\"\n",
                     g_group->rank(), static_cast<unsigned long long>(unknown));
    }
    events::end_multi_process();
    delete g_group;
    g_group = nullptr;
}

}  // namespace strata::mpi

