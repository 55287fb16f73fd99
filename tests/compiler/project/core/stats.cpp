// SPDX-License-Identifier: BSD-3-Clause
// The static library of the demo project: mean() calls sum().
#include "stats.hpp"

namespace stats {
double sum(const double* values, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += values[i];
    return s;
}

double mean(const double* values, int n) {
    return n > 0 ? sum(values, n) / n : 0.0;
}
}  // namespace stats
