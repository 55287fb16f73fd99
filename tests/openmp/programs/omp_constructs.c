/* SPDX-License-Identifier: BSD-3-Clause
 * OpenMP constructs with a known structure, for the OpenMP adapter's tests
 * (tests/openmp/run_openmp_scenario.py).  Markers "@name" at the end of a
 * line tell the test where each construct is.  Run with OMP_MAX_ACTIVE_LEVELS=2:
 *
 *   phase_loops   3 parallel regions of 2 threads, each with a loop, an explicit
 *                 barrier, a critical section, an OpenMP lock, sections and 4 tasks
 *   nested        a parallel region of 2 threads, each forking 2 threads
 *
 * so 4 threads in all, 6 forks and joins.
 */
#include <omp.h>
#include <stdio.h>

enum { rounds = 3, iterations = 100, tasks = 4 };

static omp_lock_t lock;
static double total;
static long locked;
static double part[2];

__attribute__((noinline)) double work(int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += i * 0.5;
    return s;
}

void phase_loops(void) {
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel num_threads(2) /* @loops */
        {
            double mine = 0;
#pragma omp for schedule(static)
            for (int i = 0; i < iterations; ++i) mine += work(200);
#pragma omp barrier /* @barrier */
#pragma omp critical /* @critical */
            total += mine;
            omp_set_lock(&lock); /* @lock */
            locked += 1;
            omp_unset_lock(&lock);
#pragma omp sections
            {
#pragma omp section
                part[0] += work(10);
#pragma omp section
                part[1] += work(20);
            }
#pragma omp single
            {
                for (int t = 0; t < tasks; ++t) {
#pragma omp task /* @task */
                    work(1000);
                }
#pragma omp taskwait /* @taskwait */
            }
        }
    }
}

void nested(void) {
#pragma omp parallel num_threads(2) /* @outer */
    {
#pragma omp parallel num_threads(2) /* @inner */
        work(10);
    }
}

int main(void) {
    omp_init_lock(&lock);
    phase_loops();
    nested();
    omp_destroy_lock(&lock);
    printf("total %.1f locked %ld sections %.1f\n", total, locked, part[0] + part[1]);
    return 0;
}
