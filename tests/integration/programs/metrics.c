/* SPDX-License-Identifier: BSD-3-Clause */
/* Known work for the counter tests (STRATA_METRIC_*):
 *   outer x1 { spin x1 (busy for SPIN_MS of wall time), touch x1 (writes to
 *   PAGES new pages), repeat x3 { short x2 } , level=1 (parameter) { short x1 } }
 * and prints what it measured itself, so that the test can compare the
 * counters with the program's own clocks. */
#include <strata/strata.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { SPIN_MS = 200, PAGES = 300 };

static volatile double sink;

static long long ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin(long long wall_ns, long long *wall, long long *cpu) {
    const long long w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
    STRATA_REGION_BEGIN("spin");
    while (ns(CLOCK_MONOTONIC) - w0 < wall_ns) sink = sink * 1.0000001 + 1e-9;
    STRATA_REGION_END("spin");
    *wall = ns(CLOCK_MONOTONIC) - w0;
    *cpu = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
}

static void short_work(void) {
    STRATA_REGION_BEGIN("short");
    for (int i = 0; i < 20000; ++i) sink = sink * 1.0000001 + 1e-9;
    STRATA_REGION_END("short");
}

int main(void) {
    const long page = sysconf(_SC_PAGESIZE);
    long long wall = 0, cpu = 0;
    STRATA_REGION_BEGIN("outer");
    spin(SPIN_MS * 1000000LL, &wall, &cpu);
    /* Fresh anonymous pages: the first write to each is a page fault. */
    char *memory = mmap(NULL, (size_t)PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return 2;
    STRATA_REGION_BEGIN("touch");
    for (long p = 0; p < PAGES; ++p) memory[p * page] = 1;
    STRATA_REGION_END("touch");
    munmap(memory, (size_t)PAGES * page);
    for (int r = 0; r < 3; ++r) {
        STRATA_REGION_BEGIN("repeat");
        short_work();
        short_work();
        STRATA_REGION_END("repeat");
    }
    STRATA_PARAMETER_INT("level", 1);
    short_work();
    STRATA_REGION_END("outer");
    printf("spin_wall_ns=%lld spin_cpu_ns=%lld pages=%d\n", wall, cpu, PAGES);
    return 0;
}
