// SPDX-License-Identifier: BSD-3-Clause
// A program without MPI and without Strata, for strata-preload: prints its pid and arguments,
// does a little work and exits with the status given as its first argument (0 without one).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    printf("serial pid %ld\n", (long)getpid());
    for (int i = 1; i < argc; ++i) printf("arg %d [%s]\n", i, argv[i]);
    volatile double sum = 0.0;
    for (int i = 0; i < 1000000; ++i) sum += i * 0.5;
    fflush(stdout);
    return argc > 1 ? atoi(argv[1]) : 0;
}
