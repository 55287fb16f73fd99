/* SPDX-License-Identifier: BSD-3-Clause */
/* libstrata-nvtx: what NVTX_INJECTION64_PATH names.  The variable reaches
 * every child process the program starts; a child that is not measured must
 * not load Strata's measurement through it (that would measure it, and its
 * experiment directory would clash with the parent's).  This library needs
 * nothing: it forwards NVTX's initialisation to libstrata-cuda when that is in
 * the process (linked by `strata nvcc` or preloaded), and declines otherwise,
 * which leaves that process's NVTX calls NVTX's own no-ops. */
#include <dlfcn.h>
#include <stddef.h>

typedef int (*Initialize)(void*);

static int forward(const char* symbol, void* argument, int otherwise) {
    Initialize strata = (Initialize)dlsym(RTLD_DEFAULT, symbol);
    return strata != NULL ? strata(argument) : otherwise;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* get_export_table) {
    return forward("strata_nvtx_initialize", get_export_table, 0);
}

__attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(void* module_info) {
    /* Success with nothing registered: the extensions' calls stay no-ops. */
    return forward("strata_nvtx_initialize_extension", module_info, 1);
}
