/* SPDX-License-Identifier: BSD-3-Clause */
/* Calls a function of a shared object opened with dlopen after measurement started:
 *   main -> before; main -> plugin_run (2x) -> plugin_helper                       */
#include <dlfcn.h>
#include <stdio.h>

void before(void) {}

int main(int argc, char** argv) {
    before();
    void* plugin = dlopen(argc > 1 ? argv[1] : "./libplugin.so", RTLD_NOW);
    if (plugin == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    int (*run)(int) = (int (*)(int))dlsym(plugin, "plugin_run");
    printf("%d\n", run(1) + run(2));
    return 0;
}
