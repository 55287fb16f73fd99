/* SPDX-License-Identifier: BSD-3-Clause */
/* Four threads call the same functions at once, the first calls included:
 *   each thread: task (100x) -> step                                               */
#include <pthread.h>
#include <stdio.h>

int step(int x) {
    return x + 1;
}

int task(int x) {
    return step(x);
}

static void* body(void* arg) {
    long sum = 0;
    for (int i = 0; i < 100; ++i) sum += task(i);
    *(long*)arg = sum;
    return NULL;
}

int main(void) {
    pthread_t threads[4];
    long sums[4];
    for (int i = 0; i < 4; ++i) pthread_create(&threads[i], NULL, body, &sums[i]);
    for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
    printf("%ld\n", sums[0] + sums[1] + sums[2] + sums[3]);
    return 0;
}
