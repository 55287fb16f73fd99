/* Reference workload of the Strata overhead benchmarks (unchanged). */
/* Manual (user API) region overhead.  The tool's API comes in through a small
 * header chosen at compile time with -include api_TOOL.h, which defines
 * BENCH_DECLARE(h), BENCH_BEGIN(h, "name") and BENCH_END(h, "name").
 * Each iteration opens and closes 2 nested regions: 2 enter/exit pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifndef BENCH_BEGIN
#include "api_none.h"
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink;

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    BENCH_DECLARE(outer);
    BENCH_DECLARE(inner);
    double t0 = now();
    for (long i = 0; i < n; ++i) {
        BENCH_BEGIN(outer, "outer");
        BENCH_BEGIN(inner, "inner");
        sink = sink * 1.0000001 + 1e-9;
        BENCH_END(inner, "inner");
        BENCH_END(outer, "outer");
    }
    double s = now() - t0;
    long regions = 2 * n;
    printf("regions=%ld loop_seconds=%.6f ns_per_region=%.2f\n", regions, s, 1e9 * s / regions);
    return 0;
}
