// SPDX-License-Identifier: BSD-3-Clause
// A field of a JSON report as a section of report.html shows it: text, a
// number, a time for people, a share as a percentage, a flag, the objects of
// an array; "" (NaN, false, none) where the object or the field is missing.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "report/html_writer.hpp"
#include "report/json_value.hpp"

namespace strata::analysis::report::fields {

inline std::string text(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value && !value->is_null() ? value->display() : "";
}

inline double number(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value ? value->number(NAN) : NAN;
}

inline std::string seconds(const JsonValue* object, const char* key) {
    const double s = number(object, key);
    return std::isfinite(s) ? human_seconds(s) : "";
}

inline std::string share(const JsonValue* object, const char* key) {
    const double s = number(object, key);
    return std::isfinite(s) ? percent(s) : "";
}

inline bool flag(const JsonValue* object, const char* key) {
    const JsonValue* value = object ? object->find(key) : nullptr;
    return value && value->kind == JsonValue::Kind::boolean && value->boolean;
}

inline std::vector<const JsonValue*> objects(const JsonValue* array) {
    std::vector<const JsonValue*> out;
    if (array && array->is_array()) {
        for (const JsonValue& item : array->items) {
            if (item.is_object()) out.push_back(&item);
        }
    }
    return out;
}

}  // namespace strata::analysis::report::fields
