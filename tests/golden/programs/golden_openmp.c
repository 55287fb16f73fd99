/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenMP program whose every thread records the same events in every run,
 * for the golden tests: a static parallel loop with a reduction, a critical
 * construct, an explicit barrier, a masked (master) block and nested user
 * regions.  No task, no `single`: which thread runs those changes from run to
 * run.  Run with OMP_NUM_THREADS=2. */
#include <omp.h>
#include <stdio.h>
#include <strata/strata.h>

int main(void) {
    double sum = 0.0, shared = 0.0;
    STRATA_REGION_BEGIN("solve");
    for (int step = 0; step < 3; ++step) {
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < 4000; ++i) sum += (double)i * 0.25;
#pragma omp critical
            shared += 1.0;
#pragma omp barrier
#pragma omp master
            shared *= 0.5;
        }
    }
    STRATA_REGION_END("solve");
    printf("golden_openmp: %g %g\n", sum, shared);
    return 0;
}
