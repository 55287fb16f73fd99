// SPDX-License-Identifier: BSD-3-Clause
// How numbers and strings are written into the reports, fixed once so that
// the same figures always give the same bytes.
//
//   CSV, JSON   numbers "%.9g" (9 significant digits; -0 prints as 0;
//               undefined values are an empty CSV field and JSON null)
//   text        seconds "%.6g s", shares "%.1f%"
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analyze/partial.hpp"

namespace strata::analysis {

/// A number for CSV and JSON: "%.9g"; "" for NaN or infinity.
std::string format_number(double value);

/// An exact integer in decimal.
std::string format_wide(WideSum value);

/// A CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a line break;
/// one that a spreadsheet would take for a formula (= + - @ first) gets a leading ' in quotes.
std::string csv_field(std::string_view text);

/// A JSON string literal with its quotes.
std::string json_string(std::string_view text);

/// A JSON number ("%.9g"), or null.
std::string json_number(std::optional<double> value);

/// Seconds for the text summary: "%.6g s".
std::string text_seconds(double value);

/// A share for the text summary: "%.1f%" (no space, so that wrapping keeps it whole).
std::string text_percent(double share);

/// A region or call path name for people: in each part of a call path, the
/// template arguments and the parameter list of a demangled C++ name are
/// elided ("std::vector<…>::push_back(…)"), so that names of hundreds of
/// characters fit a heading; control characters (ESC, BEL, line breaks)
/// read \xNN.  Operators (operator<, operator()) and
/// "(anonymous namespace)" keep their text.  The reports' CSV and JSON fields,
/// and tooltips, keep the full name.
std::string display_name(std::string_view name);

}  // namespace strata::analysis
