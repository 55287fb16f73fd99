// SPDX-License-Identifier: BSD-3-Clause
// An MPI program with a known number of calls per rank, for the MPI adapter tests:
// a blocking ring, a nonblocking halo exchange, collectives on MPI_COMM_WORLD and
// a collective on a sub-communicator.  Every rank prints "rank R pid P" so that the
// test can tell which experiment directory belongs to which rank.  With
// MPI_RING_CHDIR set, it first changes its working directory to it (before
// MPI_Init, where the job's experiment directory is made).
//
// Calls per rank with ITERATIONS = 3:
//   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Send 3, MPI_Recv 3,
//   MPI_Irecv 6, MPI_Isend 6, MPI_Waitall 3, MPI_Allreduce 4, MPI_Bcast 1,
//   MPI_Barrier 1, MPI_Comm_split 1, MPI_Allgather 1, MPI_Comm_free 1, MPI_Finalize 1
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ITERATIONS 3

int main(int argc, char** argv) {
    const char* elsewhere = getenv("MPI_RING_CHDIR");
    if (elsewhere != NULL && chdir(elsewhere) != 0) {
        perror("chdir");
        return 1;
    }
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double value = rank, sum = 0.0;
    for (int i = 0; i < ITERATIONS; ++i) {
        // Blocking ring: even ranks send first, odd ranks receive first (size is even).
        double token = rank, received = -1.0;
        if (rank % 2 == 0) {
            MPI_Send(&token, 1, MPI_DOUBLE, right, 10 + i, MPI_COMM_WORLD);
            MPI_Recv(&received, 1, MPI_DOUBLE, left, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&received, 1, MPI_DOUBLE, left, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_DOUBLE, right, 10 + i, MPI_COMM_WORLD);
        }
        if ((int)received != left) fprintf(stderr, "rank %d: ring token %g, expected %d\n", rank, received, left);
        // Nonblocking halo exchange with both neighbours.
        double halo_out[2] = {rank, rank}, halo_in[2] = {-1.0, -1.0};
        MPI_Request requests[4];
        MPI_Irecv(&halo_in[0], 1, MPI_DOUBLE, left, 20, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(&halo_in[1], 1, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &requests[1]);
        MPI_Isend(&halo_out[0], 1, MPI_DOUBLE, right, 20, MPI_COMM_WORLD, &requests[2]);
        MPI_Isend(&halo_out[1], 1, MPI_DOUBLE, left, 21, MPI_COMM_WORLD, &requests[3]);
        MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    int root_value = rank == 0 ? 42 : 0;
    MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    // A collective on a sub-communicator: even and odd ranks.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int ranks_in_half[64];
    MPI_Allgather(&rank, 1, MPI_INT, ranks_in_half, 1, MPI_INT, half);
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return root_value == 42 ? 0 : 1;
}
