// SPDX-License-Identifier: BSD-3-Clause
// The sections of report.html (internal to html_report.cpp and
// html_sections.cpp): each writes one <section> from the parsed reports.
#pragma once

#include <string>
#include <vector>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report {

/// A parsed JSON report: its file name and its value.
struct ParsedReport {
    std::string name;
    JsonValue value;
};

/// The report called `name` ("summary.json"), or nullptr.
const JsonValue* find_report(const std::vector<ParsedReport>& reports, const std::string& name);

/// A term and its value in a <dl> (nothing when the value is empty).
void fact(HtmlWriter& html, const std::string& term, const std::string& value);

/// A column's unit from its name: "_s" -> "s", "_bytes" -> "B", ... ("" when none).
std::string unit_of(const std::string& column);

/// Writes a table of `rows` (objects) with a caption; columns are the
/// members in order of first appearance; at most `limit` rows, with a note
/// when there are more (`total` of them are in `full_file`).  Numbers are
/// right-aligned; sortable by a script.
void write_table(HtmlWriter& html, const std::string& caption, const std::vector<const JsonValue*>& rows,
                 std::size_t total, std::size_t limit, const std::string& full_file);

/// The findings of advice.json, each with its numbers and where to look (always written).
void write_advice(HtmlWriter& html, const JsonValue* advice);
/// Run facts, time by class, POP efficiencies with rating, top regions (nothing without summary.json).
void write_summary(HtmlWriter& html, const JsonValue* summary);
/// Call paths by time saved (min/mean/max bars) and ranks by useful time.
void write_load_balance(HtmlWriter& html, const JsonValue* balance, const JsonValue* ranks);
/// Totals per pattern and the largest waits (nothing without waitstates.json).
void write_wait_states(HtmlWriter& html, const JsonValue* waits);
/// Every report as tables: its arrays of objects, and its other members as a list.
void write_all_reports(HtmlWriter& html, const std::vector<ParsedReport>& reports);

}  // namespace strata::analysis::report
