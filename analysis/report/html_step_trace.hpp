// SPDX-License-Identifier: BSD-3-Clause
// The "Step trace" section of report.html, from step_trace.json
// (trace/step_trace.hpp): the slowest rank's iteration split into gap,
// computation, communication and idle as one stacked bar, and the ranks' sums.
#pragma once

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Nothing without step_trace.json or without an iteration with figures.
void write_step_trace(HtmlWriter& html, const JsonValue* steps);

}  // namespace strata::analysis::report
