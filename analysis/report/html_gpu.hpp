// SPDX-License-Identifier: BSD-3-Clause
// The "GPU" section of report.html, as the Clara GPU profiler, DLProf and
// Nsight Systems show a GPU job, over every rank: from gpu.json, gpu_kernels.json
// and op_kernels.json (trace/gpu_analysis.hpp, trace/op_analysis.hpp).
//
//   busy and idle     a bar per GPU and per stream over its span (busy + idle),
//                     utilisation as a percentage; a table with the copies per
//                     direction, NCCL time and launch latency beside it
//   activity          per GPU, its busy share per time bin on one time axis
//                     (Clara's "GPU % activity"), from gpu.json's "activity"
//   top kernels       the 20 with most time: count, total, mean, Tensor Cores,
//                     NCCL, the launching call path
//   kernels per op    the 15 largest rows of op_kernels.json in an op, when present
//
// At most 16 GPUs and 16 streams are drawn and 64 rows listed; a sentence says
// how many were left out.  Without GPU data the section stays, with one
// sentence saying why it is empty and how to record a GPU.
#pragma once

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Any of the reports may be null; `summary` (summary.json) tells why there is no GPU data.
void write_gpu(HtmlWriter& html, const JsonValue* gpu, const JsonValue* kernels, const JsonValue* op_kernels,
               const JsonValue* summary, bool ops_section);

}  // namespace strata::analysis::report
