/* SPDX-License-Identifier: BSD-3-Clause */
/* Preloaded into a traced program: the first large fwrite (an OTF2 chunk,
 * written while a trace buffer is flushed) raises SIGTERM first, as if the job
 * were cancelled in the middle of the flush. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>

size_t fwrite(const void* data, size_t size, size_t count, FILE* file) {
    static size_t (*real_fwrite)(const void*, size_t, size_t, FILE*);
    static int raised;
    if (real_fwrite == NULL) real_fwrite = (size_t(*)(const void*, size_t, size_t, FILE*))dlsym(RTLD_NEXT, "fwrite");
    if (!raised && size * count >= 64 * 1024) {
        raised = 1;
        raise(SIGTERM);
    }
    return real_fwrite(data, size, count, file);
}
