/* SPDX-License-Identifier: BSD-3-Clause */
/* A shared library of the test programs: an exported function that calls a static one. */
#include "mathlib.h"

static int lib_scale(int x) {
    return x * 1;
}

int lib_square(int x) {
    return lib_scale(x) * x;
}
