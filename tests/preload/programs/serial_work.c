// SPDX-License-Identifier: BSD-3-Clause
// A program without MPI and without Strata, for strata-preload: prints its pid and arguments,
// does a little work and exits with the status given as its first argument (0 without one).
// With the argument "spawn" it first runs itself again through a shell, which prints the
// LD_PRELOAD that the programs it starts get.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    printf("serial pid %ld\n", (long)getpid());
    for (int i = 1; i < argc; ++i) printf("arg %d [%s]\n", i, argv[i]);
    if (argc > 1 && strcmp(argv[1], "spawn") == 0) {
        char command[4096];
        snprintf(command, sizeof command, "echo \"child LD_PRELOAD=[${LD_PRELOAD-unset}]\"; exec '%s' 0",
                 argv[0]);
        fflush(stdout);
        if (system(command) != 0) return 3;
    }
    volatile double sum = 0.0;
    for (int i = 0; i < 1000000; ++i) sum += i * 0.5;
    fflush(stdout);
    return argc > 1 ? atoi(argv[1]) : 0;
}
