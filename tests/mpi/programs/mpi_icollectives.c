/* SPDX-License-Identifier: BSD-3-Clause
 * Nonblocking collectives, completed by MPI_Wait, MPI_Waitall and an MPI_Test
 * loop, on MPI_COMM_WORLD (tests/mpi/run_mpi_scenario.py, icollectives-np*):
 *
 *   MPI_Iallreduce  4 ints                      MPI_Wait
 *   MPI_Ibcast      8 doubles from root 0       \
 *   MPI_Ireduce     2 doubles to root 1          > MPI_Waitall
 *   MPI_Iallgather  3 ints per rank             /
 *   MPI_Ialltoall   1 int per pair              MPI_Test until done
 *   MPI_Ibarrier                                MPI_Wait
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);

    int in[4] = {rank, 1, 2, 3}, out[4];
    MPI_Request request;
    MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);

    double values[8] = {0}, part[2] = {1.0 * rank, 2.0}, sum[2];
    int mine[3] = {rank, rank, rank};
    int* all = malloc(sizeof(int) * 3 * (size_t)size);
    MPI_Request three[3];
    MPI_Ibcast(values, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, &three[0]);
    MPI_Ireduce(part, sum, 2, MPI_DOUBLE, MPI_SUM, 1 % size, MPI_COMM_WORLD, &three[1]);
    MPI_Iallgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD, &three[2]);
    MPI_Waitall(3, three, MPI_STATUSES_IGNORE);

    int* send = malloc(sizeof(int) * (size_t)size);
    int* receive = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; ++i) send[i] = rank * 100 + i;
    MPI_Ialltoall(send, 1, MPI_INT, receive, 1, MPI_INT, MPI_COMM_WORLD, &request);
    for (int done = 0; !done;) MPI_Test(&request, &done, MPI_STATUS_IGNORE);

    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);

    const int ok = out[0] == size * (size - 1) / 2 && all[3 * (size - 1)] == size - 1 && receive[0] == rank;
    free(all);
    free(send);
    free(receive);
    MPI_Finalize();
    return ok ? 0 : 1;
}
