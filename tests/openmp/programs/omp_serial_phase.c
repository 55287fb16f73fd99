/* SPDX-License-Identifier: BSD-3-Clause */
/* A parallel phase, a serial phase ten times as long on the forking thread, and
 * a parallel phase again: the other thread is idle (not in a barrier) while
 * serial_phase runs, and libomp reports the end of its first part only when it
 * wakes up for the second. */
#include <stdio.h>

static volatile double sink;

static double spin(long n) {
    double s = 0;
    for (long i = 0; i < n; ++i) s += (double)i * 1e-9;
    return s;
}

void parallel_phase(void) {
#pragma omp parallel num_threads(2)
    sink += spin(2000000);
}

void serial_phase(void) { sink += spin(40000000); }

int main(void) {
    parallel_phase();
    serial_phase();
    parallel_phase();
    printf("done %g\n", sink > 0 ? 1.0 : 0.0);
    return 0;
}
