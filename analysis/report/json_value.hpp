// SPDX-License-Identifier: BSD-3-Clause
// A small JSON reader for the reports strata-analyze has just written, so
// that report.html can show any report without knowing it in advance.
//
// Numbers keep the text they were written with ("0.013", "1e-05"): the
// HTML shows exactly the figures of the JSON and CSV reports.  Objects keep
// their members in file order.  Only what the reports need: no comments,
// no duplicate-key rules, \u escapes decoded to UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::analysis::report {

/// A document that is not JSON; what() says where.
class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One JSON value.
struct JsonValue {
    enum class Kind { null, boolean, number, string, array, object };

    Kind kind = Kind::null;
    bool boolean = false;
    std::string text;  ///< a string's content, or a number as written
    std::vector<JsonValue> items;  ///< an array's elements (the first ones only, under parse_json's cap)
    std::size_t total_items = 0;   ///< an array's number of elements in the document
    std::vector<std::pair<std::string, JsonValue>> members;  ///< an object's members, in order

    bool is_null() const { return kind == Kind::null; }
    bool is_number() const { return kind == Kind::number; }
    bool is_string() const { return kind == Kind::string; }
    bool is_array() const { return kind == Kind::array; }
    bool is_object() const { return kind == Kind::object; }

    /// The member `key` of an object, or nullptr (also when this is not an object).
    const JsonValue* find(std::string_view key) const;
    /// The member at `path` ("pop", "load_balance"), or nullptr.
    const JsonValue* find(std::initializer_list<std::string_view> path) const;
    /// A number's value (strtod of its text); `fallback` for anything else.
    double number(double fallback = 0.0) const;
    /// A scalar as text: a string's content, a number as written,
    /// true/false, "" for null; arrays of scalars joined by spaces; an
    /// object as compact JSON.
    std::string display() const;
};

/// Parses `text`; throws JsonError.  Every array keeps at most `max_items`
/// elements (the whole document is still checked): a report with 10^5 rows
/// would otherwise take gigabytes as a tree.
JsonValue parse_json(std::string_view text, std::size_t max_items = SIZE_MAX);

/// `value` as compact JSON (strings re-escaped).
std::string to_json(const JsonValue& value);

}  // namespace strata::analysis::report
