/* SPDX-License-Identifier: BSD-3-Clause */
/* Known nesting and counts for the integration tests:
 *   outer x1 { step (phase) x5 { middle x2 { inner x3 } } , io x1 }
 * plus an integer and a string parameter in 'outer'. */
#include <strata/strata.h>
#include <stdio.h>

static volatile double sink;

static void inner(void) {
    STRATA_REGION_BEGIN("inner");
    for (int i = 0; i < 2000; ++i) sink = sink * 1.0000001 + 1e-9;
    STRATA_REGION_END("inner");
}

int main(void) {
    STRATA_REGION_BEGIN("outer");
    STRATA_PARAMETER_INT("size", 42);
    STRATA_PARAMETER_STRING("mode", "fast");
    for (int s = 0; s < 5; ++s) {
        STRATA_PHASE_BEGIN("step");
        for (int m = 0; m < 2; ++m) {
            STRATA_REGION_BEGIN("middle");
            for (int k = 0; k < 3; ++k) inner();
            STRATA_REGION_END("middle");
        }
        STRATA_PHASE_END("step");
    }
    STRATA_REGION_BEGIN("io");
    printf("nesting: done\n");
    STRATA_REGION_END("io");
    STRATA_REGION_END("outer");
    return 0;
}
