// SPDX-License-Identifier: BSD-3-Clause
// The "Iterations" section of report.html, from iterations.json
// (trace/iterations.hpp): the key region, the iterations as a time series on
// a scale the stable ones stay readable on (warm-up and outliers marked and
// cut at the top), the ranks' spread per iteration, the suggested stable range
// shaded, and the command that analyses only that range.
#pragma once

#include <string>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Nothing without iterations.json or without a duration per row.  `experiment`
/// (the directory name, "" when unknown) completes the command to copy.
void write_iterations(HtmlWriter& html, const JsonValue* iterations, const std::string& experiment);

}  // namespace strata::analysis::report
