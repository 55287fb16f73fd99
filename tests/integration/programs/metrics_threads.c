/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads that come and go, each with counted work: 3 rounds of 4 pthreads,
 * each thread spins in 'work' for 30 ms of wall time; the main thread runs
 * 'main_work' between the rounds.  Every thread must get its own counters. */
#include <pthread.h>
#include <strata/strata.h>
#include <stdio.h>
#include <time.h>

enum { ROUNDS = 3, THREADS = 4, SPIN_MS = 30 };

static _Thread_local volatile double sink; /* per thread: no data race between the threads */

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *worker(void *arg) {
    (void)arg;
    STRATA_REGION_BEGIN("work");
    const long long start = now_ns();
    while (now_ns() - start < SPIN_MS * 1000000LL) sink = sink * 1.0000001 + 1e-9;
    STRATA_REGION_END("work");
    return NULL;
}

int main(void) {
    for (int r = 0; r < ROUNDS; ++r) {
        pthread_t threads[THREADS];
        for (int t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, worker, NULL);
        for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
        STRATA_REGION_BEGIN("main_work");
        const long long start = now_ns();
        while (now_ns() - start < 10 * 1000000LL) sink = sink * 1.0000001 + 1e-9;
        STRATA_REGION_END("main_work");
    }
    printf("metrics_threads: done\n");
    return 0;
}
