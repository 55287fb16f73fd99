/* SPDX-License-Identifier: BSD-3-Clause */
/* One thread ends the process with exit(3) while the others are entering and
 * leaving regions as fast as they can: the measurement ends under running
 * threads, which must neither crash nor be reported as leaving regions they
 * did not enter.  The ender starts once every other thread has recorded: on
 * a loaded machine it could otherwise run and exit before any other thread
 * was scheduled, leaving one location. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strata/strata.h>

static _Thread_local volatile double sink; /* per thread: no data race between the threads */
static atomic_int recording; /* threads other than the ender that have recorded */

static void tick(int i) {
    STRATA_REGION_BEGIN("tick");
    sink += i * 0.5;
    STRATA_REGION_END("tick");
}

static void* busy(void* arg) {
    tick(0);
    atomic_fetch_add(&recording, 1);
    for (;;)
        for (int i = 0; i < 1000; ++i) tick(i);
    return arg;
}

static void* ender(void* arg) {
    while (atomic_load(&recording) < 4) sched_yield(); /* the 3 busy threads and main */
    for (int i = 0; i < 200; ++i) tick(i);
    exit(3);
    return arg;
}

int main(void) {
    pthread_t threads[4];
    for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, busy, NULL);
    pthread_create(&threads[3], NULL, ender, NULL);
    tick(1);
    atomic_fetch_add(&recording, 1);
    for (;;) tick(1);
}
