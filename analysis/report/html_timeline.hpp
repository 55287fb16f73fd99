// SPDX-License-Identifier: BSD-3-Clause
// The "Timeline" section of report.html, from timeline.json
// (trace/timeline_overview.hpp): a lane per rank's CPU thread and GPU
// stream on a canvas, zoomed and moved with the mouse and keys.  Over the
// whole run each lane shows, per time bin, what its time went to (the class
// of the innermost region, as strong as its share of the bin); inside the
// detail window every region instance and message.  Iterations are marked.
// The notes say what was left out and which options bring it in.
#pragma once

#include <string>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// Nothing without timeline.json.  `raw` is its text, embedded for the
/// script; with `iterations` (iterations.json), the first iterations of its
/// stable range are offered as a window; `experiment` (the directory, ""
/// when unknown) completes the commands shown.
void write_timeline(HtmlWriter& html, const JsonValue* timeline, const std::string* raw,
                    const JsonValue* iterations, const std::string& experiment);

}  // namespace strata::analysis::report
