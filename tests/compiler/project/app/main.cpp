// SPDX-License-Identifier: BSD-3-Clause
// The program of the demo project:
//   main -> stats::mean -> stats::sum;  main -> render_line (2x) -> pad
#include "render.h"
#include "stats.hpp"

int main() {
    const double values[] = {1.0, 2.0, 3.0, 6.0};
    const double m = stats::mean(values, 4);
    render_line(m);
    render_line(m * 2);
    return 0;
}
