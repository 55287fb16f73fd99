/* SPDX-License-Identifier: BSD-3-Clause */
/* Region names and a parameter value that are not UTF-8 (a Latin-1 name, a
 * stray byte, a truncated sequence, an overlong form) beside a valid UTF-8
 * name: every file of the experiment and every report must stay valid UTF-8. */
#include <strata/strata.h>
#include <stdio.h>

int main(void) {
    STRATA_REGION_BEGIN("caf\xe9");
    STRATA_PARAMETER_STRING("mode", "\xc0\xaf");
    STRATA_REGION_BEGIN("\xff\xfe");
    STRATA_REGION_END("\xff\xfe");
    STRATA_REGION_BEGIN("euro \xe2\x82");
    STRATA_REGION_END("euro \xe2\x82");
    STRATA_REGION_BEGIN("\xc2\xb5s \xe2\x86\x92 ok");
    STRATA_REGION_END("\xc2\xb5s \xe2\x86\x92 ok");
    STRATA_REGION_END("caf\xe9");
    printf("invalid_utf8: done\n");
    return 0;
}
