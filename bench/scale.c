/* SPDX-License-Identifier: BSD-3-Clause */
/* The scale check: every rank records EVENTS events (EVENTS/2 user regions
 * "tick"), with an MPI_Barrier every 65536 regions, and prints its peak
 * resident memory; rank 0 prints the job's largest.  bench/run_scale.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <strata/strata.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long events = argc > 1 ? atol(argv[1]) : 2000000;
    STRATA_REGION_BEGIN("all");
    for (long i = 0; i < events / 2 - 1; ++i) {
        STRATA_REGION_BEGIN("tick");
        STRATA_REGION_END("tick");
        if ((i & 65535) == 65535) MPI_Barrier(MPI_COMM_WORLD);
    }
    STRATA_REGION_END("all");
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    long peak = usage.ru_maxrss, largest = 0;
    MPI_Reduce(&peak, &largest, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("scale: peak_rss_kib=%ld (largest rank, before MPI_Finalize)\n", largest);
    MPI_Finalize();
    return 0;
}
