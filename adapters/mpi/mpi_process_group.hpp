// SPDX-License-Identifier: BSD-3-Clause
// The measured job's ranks as the core sees them (events::ProcessGroup), over
// a private duplicate of MPI_COMM_WORLD, with PMPI calls only.
#pragma once

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "strata/measurement/process_group.hpp"

namespace strata::mpi {

class MpiProcessGroup final : public events::ProcessGroup {
public:
    /// Duplicates MPI_COMM_WORLD: Strata's messages never match the program's.
    MpiProcessGroup();
    ~MpiProcessGroup() override;
    MpiProcessGroup(const MpiProcessGroup&) = delete;
    MpiProcessGroup& operator=(const MpiProcessGroup&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void barrier() override;
    void broadcast(void* data, std::size_t bytes, int root) override;
    void gather(const void* in, std::size_t bytes, void* out, int root) override;
    void gatherv(const void* in, std::size_t bytes, void* out, const std::size_t* counts, int root) override;
    void scatter(const void* in, std::size_t bytes, void* out, int root) override;
    void scatterv(const void* in, const std::size_t* counts, void* out, std::size_t bytes, int root) override;
    void send(const void* data, std::size_t bytes, int peer) override;
    void receive(void* data, std::size_t bytes, int peer) override;
    const void* native_communicator() const override { return &comm_; }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
};

/// Called by the MPI_Init / MPI_Init_thread wrappers after PMPI_Init: hands the
/// job to the core (experiment directory, trace archive) and defines
/// MPI_COMM_WORLD and MPI_COMM_SELF (communicators.hpp).
void after_init();
/// Called by the MPI_Abort wrapper before PMPI_Abort: this rank writes what it
/// recorded alone (the others are killed by the MPI runtime and do the same).
void before_abort();
/// Called by the MPI_Finalize wrapper before PMPI_Finalize: the core writes
/// the experiment of all ranks together.  Reports events that named a
/// communicator Strata did not know.
void before_finalize();

}  // namespace strata::mpi
