/* SPDX-License-Identifier: BSD-3-Clause
 * Tight ping-pongs of one double between ranks 0 and 1, 2 and 3, ... (1000
 * round trips by default, argv[1] to change): each receive ends within a
 * microsecond of its send's start, so a clock offset wrong by that much turns
 * into clock-condition violations.  On one host, where the ranks share a
 * clock, the trace must have none. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    double value = 1.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long rounds = argc > 1 ? atol(argv[1]) : 1000;
    const int partner = rank ^ 1;
    for (long i = 0; i < rounds && partner < size; ++i) {
        if (rank % 2 == 0) {
            MPI_Send(&value, 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&value, 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&value, 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return value == 1.0 ? 0 : 1;
}
