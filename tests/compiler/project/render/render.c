/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared library of the demo project: render_line() calls a static function. */
#include "render.h"

#include <stdio.h>

static int pad(int width) {
    return width < 8 ? 8 : width;
}

int render_line(double value) {
    return printf("%*.*f\n", pad(6), 2, value);
}
