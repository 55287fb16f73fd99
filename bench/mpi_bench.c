/* Reference workload of the Strata overhead benchmarks (unchanged). */
/* MPI wrapper overhead: small-message ping-pong between ranks 0 and 1 and an
 * 8-byte MPI_Allreduce over all ranks.  Run with 2 ranks.  The difference to the
 * plain build, per call, is the tool's cost per MPI call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    double buf = 1.0, sum = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n && size > 1; ++i) {
        if (rank == 0) {
            MPI_Send(&buf, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        }
    }
    double t1 = MPI_Wtime();
    for (long i = 0; i < n; ++i) MPI_Allreduce(&buf, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    if (rank == 0)
        printf("ranks=%d pingpong_us=%.3f allreduce_us=%.3f\n", size, 1e6 * (t1 - t0) / n, 1e6 * (t2 - t1) / n);
    MPI_Finalize();
    return 0;
}
