/* SPDX-License-Identifier: BSD-3-Clause
 * Wait states by construction, for the end-to-end trace analysis on 4 ranks:
 *   rank 0 sleeps 20 ms, then sends to rank 1, which is already waiting in
 *   MPI_Recv (a late sender of at least 20 ms, blamed on rank 0);
 *   rank 3 sleeps 60 ms before MPI_Barrier, so ranks 0-2 wait for it there;
 *   then ranks 0 and 1 exchange in 5 MPI_Sendrecv, rank 0 10 ms late each
 *   time: rank 1 waits once per call (a late sender), not also as a late
 *   receiver for the same time. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

int main(int argc, char** argv) {
    int rank = 0, size = 0, value = 42, other = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "late_sender: run on 4 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* everyone starts together */
    if (rank == 0) {
        sleep_ms(20);
        MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 3) sleep_ms(60);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5 && rank < 2; ++i) {
        if (rank == 0) sleep_ms(10);
        MPI_Sendrecv(&value, 1, MPI_INT, 1 - rank, 8, &other, 1, MPI_INT, 1 - rank, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return value == 42 ? 0 : 1;
}
