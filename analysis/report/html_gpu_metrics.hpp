// SPDX-License-Identifier: BSD-3-Clause
// The "GPU metrics over time" section of report.html, from gpu_metrics.json
// (the per-GPU summary) and gpu_metrics.csv (the samples; trace/gpu_metrics.hpp),
// as the Clara GPU profiler's multi-GPU view draws them: per GPU one chart of
// its utilisation, memory used and (when the board reports it) power over
// time, on one time axis for all GPUs and one scale per metric.
//
//   time  ->  | utilisation   0 to 100%        /\__/\___
//             | memory used   0 to the largest  ___/----
//             | power         0 to the largest  _/\/\__
//
// At most 16 GPUs are drawn (the first by rank and device); a sentence says
// how many were left out.  Each chart point is the mean of the samples in its
// 1/720 of the time axis, so a chart stays small for any number of samples.
#pragma once

#include <string>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Nothing without gpu_metrics.json; the charts need `samples_csv` (gpu_metrics.csv, may be null).
void write_gpu_metrics(HtmlWriter& html, const JsonValue* metrics, const std::string* samples_csv);

}  // namespace strata::analysis::report
