// SPDX-License-Identifier: BSD-3-Clause
// Linked with -static (and -static-pie) by the tests: strata-preload must refuse it.
#include <stdio.h>

int main(void) {
    puts("static program ran");
    return 0;
}
