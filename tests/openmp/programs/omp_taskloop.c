/* SPDX-License-Identifier: BSD-3-Clause
 * Taskloops, for the OpenMP adapters' tests (tests/openmp/run_openmp_scenario.py,
 * scenario taskloop-gcc): on GCC's libgomp each task of a taskloop gets the
 * bounds of its iterations from the runtime, written where the adapter keeps
 * its header, so the program checks that every iteration ran exactly once.
 * Markers "@name" at the end of a line tell the test where each construct is.
 *
 *   plain       a taskloop of 8 tasks over 1000 iterations, with a firstprivate
 *   reduction   a taskloop with reduction(+:sum) (OpenMP 5.0)
 *   unsigned    a taskloop over unsigned long long iterations (GOMP_taskloop_ull)
 */
#include <omp.h>
#include <stdio.h>

enum { n = 1000 };

static int done[n];
static int done_ull[n];

__attribute__((noinline)) double work(int i) {
    double s = 0;
    for (int k = 0; k < 50; ++k) s += (i + k) * 0.5;
    return s;
}

int main(void) {
    double sum = 0;
    int offset = 1;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskloop num_tasks(8) firstprivate(offset) /* @plain */
        for (int i = 0; i < n; ++i) done[i] += offset + 0 * (int)work(i);
#pragma omp taskloop grainsize(100) reduction(+ : sum) /* @reduction */
        for (int i = 0; i < n; ++i) sum += i;
#pragma omp taskloop num_tasks(4) /* @unsigned */
        for (unsigned long long u = 0; u < n; ++u) done_ull[u] += 1;
    }
    int once = 0, once_ull = 0;
    for (int i = 0; i < n; ++i) {
        once += done[i] == 1;
        once_ull += done_ull[i] == 1;
    }
    printf("once %d once_ull %d sum %.0f\n", once, once_ull, sum);
    return once == n && once_ull == n && sum == n * (n - 1) / 2 ? 0 : 1;
}
