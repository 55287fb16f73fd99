/* SPDX-License-Identifier: BSD-3-Clause
 * Many short parallel regions with a worksharing loop and its implicit
 * barrier: with a small trace memory (run_openmp_scenario.py,
 * flushes-in-teams) the trace buffers are flushed inside teams, also while a
 * thread's team begins or ends. */
#include <stdio.h>
#include <stdlib.h>

static double a[256];

int main(int argc, char** argv) {
    const long regions = argc > 1 ? atol(argv[1]) : 3000;
    for (long r = 0; r < regions; ++r) {
#pragma omp parallel for
        for (int i = 0; i < 256; ++i) a[i] = a[i] * 0.5 + i;
    }
    printf("%g\n", a[7]);
    return 0;
}
