// SPDX-License-Identifier: BSD-3-Clause
// report.html: every report of one strata-analyze run on one self-contained
// page (inline CSS, inline SVG charts, two small inline scripts: one sorts
// tables, one drives the call tree; no network, no external file), read
// first by the user.
//
//   files (name, content) of summary.json, advice.json, loadbalance*.json,
//   waitstates.json, calltree.json, ... as strata-analyze is about to write them
//        |  parse_json() each *.json but trace.json
//        v
//   header, advice first, the POP efficiency tree, summary + POP, load
//   balance, call tree x locations and the region x rank heatmap (from
//   calltree.json, embedded for the call tree's script), wait states,
//   iterations (when iterations.json is there), ops, step trace, GPU
//   metrics over time, then every other JSON report as a sortable table,
//   and summary.txt
//
// The page is made from the JSON reports, so a report that is added to the
// list later appears in it (as a table) without a change here; the one CSV
// it reads is gpu_metrics.csv, whose samples (too many for a JSON tree) the
// GPU metric charts draw.
// Same files -> byte-identical page: no clock, no locale, fixed formats.
#pragma once

#include <string>
#include <vector>

#include "analyze/report_files.hpp"

namespace strata::analysis::report {

/// The name of the page in the output directory.
inline constexpr const char* html_report_name = "report.html";

/// The page for `files` (the other reports of the run, in the order they
/// are written).  A JSON report that cannot be parsed is named on the page
/// and otherwise left out.  Throws only std::bad_alloc.
std::string html_report(const std::vector<ReportFile>& files);

}  // namespace strata::analysis::report
