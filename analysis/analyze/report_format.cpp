// SPDX-License-Identifier: BSD-3-Clause
// Number and string formats of the reports (see report_format.hpp).
#include "analyze/report_format.hpp"

#include <cmath>
#include <cstdio>

#include "filter/filter_rules.hpp"

namespace strata::analysis {

std::string format_number(double value) {
    if (!std::isfinite(value)) return "";
    if (value == 0.0) value = 0.0;  // no "-0"
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

std::string format_wide(WideSum value) {
    if (value == 0) return "0";
    std::string digits;
    while (value > 0) {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
        value /= 10;
    }
    return digits;
}

std::string csv_field(std::string_view text) {
    // A cell a spreadsheet would read as a formula (=, +, -, @, tab, carriage
    // return first: a region named "=HYPERLINK(...)") is kept as text with a quote.
    const bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos;
    if (!formula && text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = formula ? "\"'" : "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char escape[8];
                    std::snprintf(escape, sizeof escape, "\\u%04x", c);
                    out += escape;
                } else {
                    out += static_cast<char>(c);  // UTF-8 passes through
                }
        }
    }
    return out + "\"";
}

std::string json_number(std::optional<double> value) {
    if (!value || !std::isfinite(*value)) return "null";
    return format_number(*value);
}

std::string text_seconds(double value) {
    if (value == 0.0) value = 0.0;
    char text[40];
    std::snprintf(text, sizeof text, "%.6g s", value);
    return text;
}

std::string text_percent(double share) {
    char text[40];
    std::snprintf(text, sizeof text, "%.1f%%", share * 100.0);
    return text;
}

namespace {

/// The position of the bracket that closes the one at `open` (`<` or `(`), or npos.
std::size_t closing(std::string_view s, std::size_t open) {
    const char in = s[open], out = in == '<' ? '>' : ')';
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (s[i] == in) ++depth;
        if (s[i] == out && --depth == 0) return i;
    }
    return std::string_view::npos;
}

/// Whether bracket `c` after `text` belongs to an operator's name: the first
/// character after "operator" ("operator<", "operator()"), or the second '<'
/// of "operator<<".  A template argument list after an operator follows a
/// blank ("operator< <int>"), and a parameter list follows the whole name.
bool in_operator_name(const std::string& text, char c) {
    if (text.size() >= 8 && text.compare(text.size() - 8, 8, "operator") == 0) return true;
    return c == '<' && text.size() >= 9 && text.compare(text.size() - 9, 9, "operator<") == 0;
}

/// One part of a call path, elided (see display_name).
std::string display_part(std::string_view part) {
    std::string out;
    for (std::size_t i = 0; i < part.size();) {
        const char c = part[i];
        const bool after_operator = in_operator_name(out, c);
        if ((c == '<' || c == '(') && !after_operator) {
            const std::size_t end = closing(part, i);
            const std::string_view inner =
                end == std::string_view::npos ? std::string_view() : part.substr(i + 1, end - i - 1);
            // "(anonymous namespace)" and empty lists say something; the rest is elided.
            if (end != std::string_view::npos && !inner.empty() && inner != "anonymous namespace") {
                out += c;
                out += "\u2026";
                out += part[end];
                i = end + 1;
                continue;
            }
        }
        out += c;
        ++i;
    }
    return out;
}

}  // namespace

std::string display_name(std::string_view name) {
    // Control characters (an ESC would drive the terminal) are shown as \xNN.
    const std::string printable = filter::visible_text(name);
    name = printable;
    std::string out;
    std::size_t from = 0;
    int depth = 0;  // a '/' inside brackets (operator/ in a template argument) does not split
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i < name.size() && (name[i] == '<' || name[i] == '(')) ++depth;
        if (i < name.size() && (name[i] == '>' || name[i] == ')') && depth > 0) --depth;
        if (i == name.size() || (name[i] == '/' && depth == 0)) {
            out += display_part(name.substr(from, i - from));
            if (i < name.size()) out += '/';
            from = i + 1;
        }
    }
    return out;
}

}  // namespace strata::analysis
