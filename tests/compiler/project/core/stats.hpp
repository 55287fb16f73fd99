// SPDX-License-Identifier: BSD-3-Clause
// The static library of the demo project.
#pragma once

namespace stats {
double sum(const double* values, int n);
double mean(const double* values, int n);
}  // namespace stats
