/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program whose every rank makes the same calls in the same order in
 * every run (no MPI_Test loops, no MPI_ANY_SOURCE), for the golden tests:
 * blocking and nonblocking messages, MPI_Sendrecv, blocking and nonblocking
 * collectives, a split communicator, user regions with a parameter, a phase,
 * and wait states.
 * Needs 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <strata/strata.h>

/* Rank 0 reads the clock more often before each exchange: under STRATA_TIMER=steps
 * its time runs ahead, so the others wait for it (late senders, waits at N x N),
 * the same in every run. */
static void delay(int rank) {
    if (rank != 0) return;
    for (int i = 0; i < 40; ++i) {
        STRATA_REGION_BEGIN("delay");
        STRATA_REGION_END("delay");
    }
}

static double work(int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += (double)i * 0.5;
    return s;
}

static void exchange(int rank, int size, int step) {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[8], in[8];
    for (int i = 0; i < 8; ++i) out[i] = rank + step + i;
    /* Blocking ring: even ranks send first. */
    if (rank % 2 == 0) {
        MPI_Send(out, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        MPI_Recv(in, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
    }
    MPI_Sendrecv(out, 4, MPI_DOUBLE, right, 2, in, 4, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Nonblocking halo, completed by MPI_Waitall and MPI_Wait. */
    MPI_Request r[4];
    MPI_Irecv(in, 2, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(in + 2, 2, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(out, 2, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(out + 2, 2, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    MPI_Wait(&r[3], MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    double sum = 0.0;
    for (int step = 0; step < 4; ++step) {
        STRATA_PHASE_BEGIN("step");
        STRATA_REGION_BEGIN("compute");
        STRATA_PARAMETER_INT("step", step);
        sum += work(1000 * (rank + 1));
        STRATA_REGION_END("compute");
        delay(rank);
        exchange(rank, size, step);
        double total = 0.0;
        MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&total, 1, MPI_DOUBLE, 0, half);
        MPI_Request request;
        double reduced = 0.0;
        MPI_Iallreduce(&sum, &reduced, 1, MPI_DOUBLE, MPI_MAX, half, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        STRATA_PHASE_END("step");
    }
    double gathered[64];
    MPI_Gather(&sum, 1, MPI_DOUBLE, gathered, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    if (rank == 0) printf("golden_mpi: done\n");
    MPI_Finalize();
    return 0;
}
