/* SPDX-License-Identifier: BSD-3-Clause */
/* Records some regions, then dies from SIGSEGV (or the signal named in argv[1];
 * `pipe`: writes to stdout until a closed pipe ends it with SIGPIPE) inside
 * 'doomed': the experiment must still hold everything before. */
#include <strata/strata.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    const char* how = argc > 1 ? argv[1] : "segv";
    STRATA_REGION_BEGIN("before");
    for (int i = 0; i < 7; ++i) {
        STRATA_REGION_BEGIN("work");
        STRATA_REGION_END("work");
    }
    STRATA_REGION_BEGIN("doomed");
    fflush(stdout);
    if (strcmp(how, "segv") == 0) {
        volatile int* p = (volatile int*)(long)(argc - argc);  /* NULL, hidden from the optimiser */
        *p = 1;
    } else if (strcmp(how, "abort") == 0) {
        abort();
    } else if (strcmp(how, "term") == 0) {
        raise(SIGTERM);
    } else if (strcmp(how, "exit") == 0) {
        exit(3);  /* exit() from inside open regions */
    } else if (strcmp(how, "pipe") == 0) {
        while (puts("doomed") >= 0 && fflush(stdout) == 0) {
        }
    }
    STRATA_REGION_END("doomed");
    STRATA_REGION_END("before");
    return 0;
}
