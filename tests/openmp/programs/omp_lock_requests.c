/* SPDX-License-Identifier: BSD-3-Clause
 * Lock requests that do not wait, for the OpenMP adapter's tests
 * (tests/openmp/run_openmp_scenario.py, scenario lock-requests).  In one
 * parallel region of 2 threads:
 *
 *   thread 0 takes the lock `held`                      one omp_set_lock region
 *   thread 1 tries it while thread 0 holds it: fails    no region
 *   thread 0 takes the nest lock, then takes it again   one omp_set_nest_lock region
 *
 * libomp reports the failed omp_test_lock as a lock request with no grant, and
 * the second omp_set_nest_lock as a request with no grant either (the owner
 * takes it again): neither may leave a region open.  The barriers order the
 * threads, so the test always fails.  It also prints the lock kind libomp was
 * given (KMP_LOCK_KIND): futex for a GCC build, as libgomp's locks are.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static omp_lock_t held;
static omp_nest_lock_t nest;

__attribute__((noinline)) void take_twice(void) {
    omp_set_nest_lock(&nest); /* @nest */
    omp_set_nest_lock(&nest); /* @again */
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
}

int main(void) {
    int tested = -1, threads = 0;
    omp_init_lock(&held);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(2)
    {
        const int me = omp_get_thread_num();
        if (me == 0) omp_set_lock(&held); /* @held */
#pragma omp barrier
        if (me == 1) tested = omp_test_lock(&held); /* @test */
#pragma omp barrier
        if (me == 0) {
            omp_unset_lock(&held);
            take_twice();
            threads = omp_get_num_threads();
        }
    }
    omp_destroy_nest_lock(&nest);
    omp_destroy_lock(&held);
    const char* kind = getenv("KMP_LOCK_KIND");
    printf("threads %d tested %d lock kind %s\n", threads, tested, kind != NULL ? kind : "(unset)");
    return 0;
}
