/* SPDX-License-Identifier: BSD-3-Clause */
/* Preloaded into a traced program: the third large write of an event file
 * (written while a trace buffer is flushed: pwrite, or fwrite where OTF2
 * writes itself) raises SIGTERM first, as if the job were cancelled in the
 * middle of a flush; the flushes before it are complete. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

static int large_writes;

static void maybe_raise(size_t bytes) {
    if (bytes >= 16 * 1024 && ++large_writes == 3) raise(SIGTERM);
}

size_t fwrite(const void* data, size_t size, size_t count, FILE* file) {
    static size_t (*real_fwrite)(const void*, size_t, size_t, FILE*);
    if (real_fwrite == NULL) real_fwrite = (size_t(*)(const void*, size_t, size_t, FILE*))dlsym(RTLD_NEXT, "fwrite");
    maybe_raise(size * count);
    return real_fwrite(data, size, count, file);
}

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
    static ssize_t (*real_pwrite)(int, const void*, size_t, off_t);
    if (real_pwrite == NULL) real_pwrite = (ssize_t(*)(int, const void*, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    maybe_raise(size);
    return real_pwrite(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off_t offset) { return pwrite(fd, data, size, offset); }
