/* SPDX-License-Identifier: BSD-3-Clause */
/* Many short regions: with a tiny STRATA_TOTAL_MEMORY the trace buffer is
 * flushed several times, and every event must still be in the trace. */
#include <strata/strata.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    STRATA_REGION_BEGIN("all");
    for (long i = 0; i < n; ++i) {
        STRATA_REGION_BEGIN("tick");
        STRATA_REGION_END("tick");
    }
    STRATA_REGION_END("all");
    printf("many_events: %ld\n", n);
    return 0;
}
