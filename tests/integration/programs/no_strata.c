/* SPDX-License-Identifier: BSD-3-Clause */
/* Includes the header but is built without STRATA_USER_ENABLE and without
 * the runtime: the macros must compile to nothing. */
#include <strata/strata.h>
#include <stdio.h>

int main(void) {
    int x = 0;
    STRATA_REGION_BEGIN("r");
    STRATA_PHASE_BEGIN("p");
    STRATA_PARAMETER_INT("n", x);
    STRATA_PARAMETER_STRING("s", "v");
    STRATA_RECORDING_OFF();
    STRATA_RECORDING_ON();
    STRATA_PHASE_END("p");
    STRATA_REGION_END("r");
    printf("no_strata: ok\n");
    return x;
}
