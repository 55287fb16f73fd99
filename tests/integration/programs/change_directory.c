/* SPDX-License-Identifier: BSD-3-Clause */
/* Changes its working directory (to the one named by its argument) between
 * two regions: the experiment still goes where the program started. */
#include <stdio.h>
#include <strata/strata.h>
#include <unistd.h>

int main(int argc, char** argv) {
    STRATA_REGION_BEGIN("before");
    STRATA_REGION_END("before");
    if (argc < 2 || chdir(argv[1]) != 0) {
        perror("chdir");
        return 1;
    }
    STRATA_REGION_BEGIN("after");
    STRATA_REGION_END("after");
    puts("changed directory");
    return 0;
}
