// SPDX-License-Identifier: BSD-3-Clause
// One number as text with a printf conversion ("%.6f", "%g"), for strata-score's
// fixed-format output.
#pragma once

#include <cstdio>
#include <string>

namespace strata::analysis {

inline std::string number_text(const char* spec, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, spec, value);
    return buffer;
}

}  // namespace strata::analysis
