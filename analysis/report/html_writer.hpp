// SPDX-License-Identifier: BSD-3-Clause
// Writing HTML that is well formed by construction: every string from the
// experiment goes through escape(), and elements are opened and closed
// through HtmlWriter, which keeps the stack of open tags so that they
// always balance.  Plus the inline SVG charts of report.html.
//
//   HtmlWriter html;
//   html.open("table", {{"class", "sortable"}});
//   html.element("caption", "Call paths by time saved");
//   ...
//   html.close("table");
//   std::string page = html.finish();
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::analysis::report {

/// `text` with &, <, >, " and ' as character references, and control
/// characters other than tab and line feed as U+FFFD; safe in element
/// content and in quoted attribute values.
std::string escape(std::string_view text);

/// A number for charts and derived figures: "%.<digits>g" ("" for NaN or infinity).
std::string short_number(double value, int digits = 6);

/// A share as a percentage with one decimal: "12.5%".
std::string percent(double share);

/// A time for people: three significant figures in the unit that suits it
/// ("68.5 ms", "1.04 s", "4.30 µs", "12.0 ns", "1230 s"); "" for a value that
/// is not finite.  The reports' files keep every digit.
std::string human_seconds(double seconds);

/// JSON text to embed in <script type="application/json">: a '<' only occurs
/// inside JSON strings, where \u003c means the same, so no name can close the
/// element or open a comment.
std::string json_for_script(const std::string& json);

/// Attributes in the order given; values are escaped.
using Attributes = std::vector<std::pair<std::string, std::string>>;

/// Builds a document; tags are checked to balance (a mismatch throws
/// std::logic_error, a programming error).
class HtmlWriter {
public:
    /// Opens `tag` with `attributes`.
    void open(std::string_view tag, const Attributes& attributes = {});
    /// Closes the innermost open element, which must be `tag`.
    void close(std::string_view tag);
    /// `<tag attributes>escaped text</tag>`.
    void element(std::string_view tag, std::string_view text, const Attributes& attributes = {});
    /// A void element such as `meta` or `br`.
    void empty(std::string_view tag, const Attributes& attributes = {});
    /// Escaped text.
    void text(std::string_view text);
    /// Markup that is already safe (constant CSS, script, SVG built here).
    void raw(std::string_view markup);
    /// A line break in the source, for readable HTML.
    void newline() { out_ += '\n'; }

    /// The document; every element must be closed.
    std::string finish();

private:
    void start_tag(std::string_view tag, const Attributes& attributes);

    std::string out_;
    std::vector<std::string> open_;
};

/// `json` as <script type="application/json" id="`id`">, then `script`, which reads it with JSON.parse.
void embed_data_and_script(HtmlWriter& html, const char* id, const std::string& json, const char* script);

/// One bar of a chart: its label, its value and the text printed beside it.
struct Bar {
    std::string label;
    double value = 0.0;
    std::string text;
    std::string tick;  ///< a short label under a column ("" -> label)
};

/// A horizontal bar chart as inline SVG, one bar per row with its label on
/// the left and its text on the right; `title` is the accessible name.
std::string svg_bar_chart(const std::string& title, const std::vector<Bar>& bars);

/// A range per row: a line from min to max, a tick at the mean, on a shared
/// scale from 0 to the largest max; the text names the three values.
struct Range {
    std::string label;
    double min = 0.0, mean = 0.0, max = 0.0;
    std::string text;
};
/// The ranges as inline SVG, one row each; `title` is the accessible name.
std::string svg_range_chart(const std::string& title, const std::vector<Range>& ranges);

/// One part of a stacked bar: label, share of the whole, CSS class of its
/// fill.  The segments are labelled and the legend repeats every label with
/// its share, so colour is not the only cue.
struct Segment {
    std::string label;
    double share = 0.0;
    std::string css_class;
};
/// A single stacked bar 100% wide, with a legend giving every label and share.
std::string svg_stacked_bar(const std::string& title, const std::vector<Segment>& segments);

/// One row of stacked bars: its label, its parts (label, value, CSS class;
/// values on the chart's shared scale) and the text printed beside it.
struct StackedRow {
    std::string label;
    std::vector<Segment> parts;  ///< `share` holds the value here
    std::string text;
};
/// A bar per row, each stacked from its parts, on one scale (the largest
/// row's total); a legend names every kind of part, so colour is not the only cue,
/// and each part's tooltip names its row, its kind and the value's text.
std::string svg_stacked_rows(const std::string& title, const std::vector<StackedRow>& rows,
                             const std::vector<std::string>& part_texts);

/// Vertical bars (e.g. one per iteration), labelled below; with many bars
/// only every n-th label is printed, the rest are in each bar's tooltip.
std::string svg_column_chart(const std::string& title, const std::vector<Bar>& bars);

/// One column of an iteration chart (one iteration, or a run of them when
/// there are too many for a column each).
struct IterationColumn {
    std::string label;     ///< "iteration 5", "iterations 400 to 409"
    double value = 0.0;    ///< the duration (the longest of a run)
    double low = NAN, high = NAN;  ///< the ranks' fastest and slowest time, when known
    std::string text;      ///< the tooltip after the label
    std::string kind;      ///< "" (regular), "warmup" or "outlier": the column's CSS class
    bool stable = false;   ///< in the suggested stable range
    std::string tick;      ///< the short label under the column
};
/// Up to this many columns, each has a whisker from the fastest to the slowest
/// rank's time (beyond, the columns are too narrow to show one).
inline constexpr std::size_t kIterationWhiskersUpTo = 100;
/// A column per iteration on a scale from 0 to `scale`: columns above it are
/// cut at the top and marked; the stable range is shaded behind its columns;
/// a whisker spans the ranks' times.  `title` is the accessible name.
std::string svg_iteration_chart(const std::string& title, const std::vector<IterationColumn>& columns,
                                double scale);

}  // namespace strata::analysis::report
