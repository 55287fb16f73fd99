/* The reference workload of compiler instrumentation (shared bench/calls.c), unchanged below. */
/* Compiler-instrumentation overhead: many calls of tiny, non-inlined functions.
 * Each outer iteration makes 1 call of mid() and 10 calls of leaf(): 11 function
 * enter/exit pairs.  Build it plain and through each tool's compiler wrapper;
 * (ns_per_call instrumented - ns_per_call plain) is the tool's cost per call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) double leaf(double x) { return x * 1.0000001 + 1e-9; }

__attribute__((noinline)) double mid(double x) {
    for (int i = 0; i < 10; ++i) x = leaf(x);
    return x;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    double x = 1.0, t0 = now();
    for (long i = 0; i < n; ++i) x = mid(x);
    double s = now() - t0;
    long calls = 11 * n;
    printf("calls=%ld loop_seconds=%.6f ns_per_call=%.2f checksum=%g\n", calls, s, 1e9 * s / calls, x);
    return 0;
}
