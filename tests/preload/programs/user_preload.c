// SPDX-License-Identifier: BSD-3-Clause
// A library a user already has in LD_PRELOAD: says so when it is loaded, to show that
// strata-preload keeps it.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

__attribute__((constructor)) static void announce(void) {
    fprintf(stderr, "user preload library loaded in %s\n", program_invocation_short_name);
}
