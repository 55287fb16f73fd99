/* SPDX-License-Identifier: BSD-3-Clause
 * Opens the shared library argv[1] (as given: a relative path stays relative)
 * with RTLD_LOCAL, as Python opens an extension, and calls its work() five
 * times (tests/preload, scenario openmp-dlopen; omp_plugin.c).
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (plugin == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    double (*work)(int) = (double (*)(int))dlsym(plugin, "work");
    if (work == NULL) return 1;
    double sum = 0;
    for (int r = 0; r < 5; ++r) sum += work(10000);
    printf("%.1f\n", sum);
    return 0;
}
