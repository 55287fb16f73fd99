// SPDX-License-Identifier: BSD-3-Clause
// The "Ops (DLProf)" section of report.html, from ops.json
// (trace/op_analysis.hpp): the ops by GPU time with their Tensor Core use,
// those eligible for Tensor Cores that use none marked.
#pragma once

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Nothing without ops.json or without an op that launched a kernel.
void write_ops(HtmlWriter& html, const JsonValue* ops);

}  // namespace strata::analysis::report
