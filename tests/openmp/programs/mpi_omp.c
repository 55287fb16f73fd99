/* SPDX-License-Identifier: BSD-3-Clause
 * A hybrid MPI + OpenMP program: each rank runs 2 parallel regions of 2
 * threads between MPI calls (MPI_THREAD_FUNNELED: only the master calls MPI).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) double work(int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += i * 0.25;
    return s;
}

int main(int argc, char** argv) {
    int provided = 0, rank = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);
    double local = 0, global = 0;
    for (int step = 0; step < 2; ++step) {
#pragma omp parallel num_threads(2) reduction(+ : local)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < 64; ++i) local += work(1000);
        }
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return global > 0 ? 0 : 1;
}
