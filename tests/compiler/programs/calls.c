/* SPDX-License-Identifier: BSD-3-Clause */
/* Known call structure: recursion, a static function, a function of a shared library.
 *   main -> work (3x) -> leaf, helper, lib_square -> lib_scale
 *        -> fact(4) -> fact(3) -> fact(2) -> fact(1)                               */
#include <stdio.h>

#include "mathlib.h"

static int helper(int x) {
    return x + 1;
}

int fact(int n) {
    return n <= 1 ? 1 : n * fact(n - 1);
}

void leaf(void) {}

int work(int i) {
    leaf();
    return helper(i) + lib_square(i);
}

int main(void) {
    int sum = 0;
    for (int i = 0; i < 3; ++i) sum += work(i);
    sum += fact(4);
    printf("sum=%d\n", sum);
    return 0;
}
