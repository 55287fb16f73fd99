/* SPDX-License-Identifier: BSD-3-Clause
 * An OpenMP plugin that a program opens itself (tests/preload, scenario
 * openmp-dlopen): built with gcc -fopenmp, so it needs GCC's libgomp, which
 * the program (open_plugin.c) does not.  Markers "@name" end the lines the
 * test looks for.
 */
double work(int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 10) /* @parallel */
    for (int i = 0; i < n; ++i) s += i * 0.5;
    return s;
}
