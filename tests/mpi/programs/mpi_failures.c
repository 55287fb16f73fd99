/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank fails in the middle of the run: `abort` -> rank 1 calls MPI_Abort,
 * `segv` -> rank 2 dies from SIGSEGV, `kill` -> rank 3 from SIGKILL (nothing
 * can write its experiment), any other word -> nobody fails.  Every
 * rank first does TICKS (the second argument, default 0) empty user regions
 * "tick", then 3 barriers inside the user region "work".  The experiment must
 * keep what every rank recorded. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata/strata.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long ticks = argc > 2 ? atol(argv[2]) : 0;
    for (long i = 0; i < ticks; ++i) {
        STRATA_REGION_BEGIN("tick");
        STRATA_REGION_END("tick");
    }
    for (int i = 0; i < 3; ++i) {
        STRATA_REGION_BEGIN("work");
        MPI_Barrier(MPI_COMM_WORLD);
        STRATA_REGION_END("work");
    }
    const char* how = argc > 1 ? argv[1] : "abort";
    if (strcmp(how, "abort") == 0 && rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(how, "segv") == 0 && rank == 2) {
        volatile int* p = (volatile int*)(long)(argc - argc);
        *p = 1;
    }
    if (strcmp(how, "kill") == 0 && rank == 3) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD);  /* the others wait here until they are killed */
    MPI_Finalize();
    return 0;
}
