// SPDX-License-Identifier: BSD-3-Clause
// The page's "Call tree" and "Region x rank heatmap" sections, from
// calltree.json (analyze/calltree_report.hpp), as Cube shows a profile:
//
//   call tree (a table, one row per call path,       distribution of the selected call path
//   indented, sums of every metric)                  over the locations: a bar per location
//     ▾ main            10.0 s  2.00 s  4            (the first 256), min / mean / max, the
//       ▸ compute        8.00 s  8.00 s 40   ──────>  largest and smallest named, the values of
//         MPI_Allreduce  ...                          a location chosen by a click on its bar
//
//   heatmap: the regions with most exclusive time x the ranks, each row on its
//   own colour scale (share of the row's largest rank), values in tooltips
//
// The table and the heatmap are HTML and SVG written here (every name
// escaped), complete without JavaScript; the data of the distribution is
// calltree.json itself, embedded as a JSON script block (every '<' written
// as \u003c, so no name can end the block) and read with JSON.parse by a
// small script that builds its elements with DOM calls and textContent.
// `report.html#callpath=<path>` (the path URI-encoded) opens and selects a
// call path.
#pragma once

#include <string>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// A value for people in its unit: times ("s", "ns", "us") as human_seconds(),
/// "bytes" as B/KiB/MiB/GiB, other units with k/M/G (three significant
/// figures); integers below 1000 as they are; "" when not finite.
std::string human_value(double value, const std::string& unit);

/// `text` percent-encoded as JavaScript's encodeURIComponent() does it.
std::string uri_component(const std::string& text);

/// The call tree section: nothing without calltree.json; `raw` is its text (embedded for the script).
void write_calltree(HtmlWriter& html, const JsonValue* calltree, const std::string* raw);

/// The heatmap section: nothing without calltree.json; a sentence when its heatmap has no rows.
void write_heatmap(HtmlWriter& html, const JsonValue* calltree);

}  // namespace strata::analysis::report
