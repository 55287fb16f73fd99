// SPDX-License-Identifier: BSD-3-Clause
// Number and string formats of the reports (see report_format.hpp).
#include "analyze/report_format.hpp"

#include <cmath>
#include <cstdio>

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
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
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

}  // namespace strata::analysis
