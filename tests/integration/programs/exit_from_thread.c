/* SPDX-License-Identifier: BSD-3-Clause */
/* One thread ends the process with exit(3) while the others are entering and
 * leaving regions as fast as they can: the measurement ends under running
 * threads, which must neither crash nor be reported as leaving regions they
 * did not enter. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strata/strata.h>

static volatile double sink;

static void tick(int i) {
    STRATA_REGION_BEGIN("tick");
    sink += i * 0.5;
    STRATA_REGION_END("tick");
}

static void* busy(void* arg) {
    for (;;)
        for (int i = 0; i < 1000; ++i) tick(i);
    return arg;
}

static void* ender(void* arg) {
    for (int i = 0; i < 2000; ++i) tick(i);
    exit(3);
    return arg;
}

int main(void) {
    pthread_t threads[4];
    for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, busy, NULL);
    pthread_create(&threads[3], NULL, ender, NULL);
    for (;;) tick(1);
}
