// SPDX-License-Identifier: BSD-3-Clause
// The page's "Overview" section: the POP efficiencies as the tree the POP
// Centre of Excellence draws them in,
//
//   Global efficiency = parallel efficiency x computation scalability
//    ├─ Parallel efficiency = load balance x communication efficiency
//    │   ├─ Load balance
//    │   └─ Communication efficiency = serialisation x transfer efficiency
//    │       ├─ Serialisation efficiency
//    │       └─ Transfer efficiency
//    └─ Computation scalability
//        └─ IPC scalability
//
// each node with its value from summary.json as a percentage, a colour band
// and the word (good >= 80 %, fair 60-80 %, poor below) and its definition in
// a tooltip.  A node the analysis does not compute says "not measured" and
// why; nothing is computed here.
#pragma once

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// The section, from summary.json (`summary`, its "pop" object) and the metric
/// list of calltree.json (`calltree`, to name the counters a profile has; may be null).
/// Without summary.json it says that the efficiencies need a profile.
void write_overview(HtmlWriter& html, const JsonValue* summary, const JsonValue* calltree);

}  // namespace strata::analysis::report
