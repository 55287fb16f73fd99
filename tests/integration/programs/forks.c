/* SPDX-License-Identifier: BSD-3-Clause */
/* A child forked without exec runs regions and exits: the parent's experiment
 * must be the parent's alone (the child neither records nor writes). */
#include <strata/strata.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    STRATA_REGION_BEGIN("parent_work");
    pid_t pid = fork();
    if (pid == 0) {
        STRATA_REGION_BEGIN("child_work");
        STRATA_REGION_END("child_work");
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    STRATA_REGION_END("parent_work");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
