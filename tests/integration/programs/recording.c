/* SPDX-License-Identifier: BSD-3-Clause */
/* Recording off/on, an END without BEGIN and an END out of order. */
#include <strata/strata.h>

int main(void) {
    STRATA_REGION_BEGIN("visible");
    STRATA_REGION_END("visible");
    STRATA_RECORDING_OFF();
    STRATA_REGION_BEGIN("hidden");
    STRATA_REGION_END("hidden");
    STRATA_RECORDING_ON();
    STRATA_REGION_BEGIN("visible");
    STRATA_REGION_END("visible");
    STRATA_REGION_END("nope");
    STRATA_REGION_BEGIN("mismatch_outer");
    STRATA_REGION_BEGIN("mismatch_inner");
    STRATA_REGION_END("mismatch_outer");
    return 0;
}
