// SPDX-License-Identifier: BSD-3-Clause
// The JSON reader (see json_value.hpp): recursive descent over the text,
// depth limited so that a damaged file cannot exhaust the stack.
#include "report/json_value.hpp"

#include <cstdio>
#include <cstdlib>

namespace strata::analysis::report {
namespace {

constexpr int max_depth = 64;

class Parser {
public:
    Parser(std::string_view text, std::size_t max_items) : text_(text), max_items_(max_items) {}

    JsonValue document() {
        JsonValue value = parse(0);
        skip_space();
        if (pos_ != text_.size()) fail("text after the JSON value");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw JsonError("JSON at byte " + std::to_string(pos_) + ": " + what);
    }
    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
            ++pos_;
    }
    bool take(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!take(c)) fail(std::string("expected '") + c + "'");
    }
    bool word(std::string_view w) {
        if (text_.substr(pos_, w.size()) != w) return false;
        pos_ += w.size();
        return true;
    }

    JsonValue parse(int depth) {
        if (depth > max_depth) fail("nested too deeply");
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end");
        JsonValue value;
        const char c = text_[pos_];
        if (c == '{') {
            ++pos_;
            value.kind = JsonValue::Kind::object;
            if (take('}')) return value;
            do {
                skip_space();
                std::string key = string();
                expect(':');
                value.members.emplace_back(std::move(key), parse(depth + 1));
            } while (take(','));
            expect('}');
        } else if (c == '[') {
            ++pos_;
            value.kind = JsonValue::Kind::array;
            if (take(']')) return value;
            do {
                JsonValue item = parse(depth + 1);  // parsed even when not kept: the document is checked whole
                if (value.items.size() < max_items_) value.items.push_back(std::move(item));
                ++value.total_items;
            } while (take(','));
            expect(']');
        } else if (c == '"') {
            value.kind = JsonValue::Kind::string;
            value.text = string();
        } else if (word("true")) {
            value.kind = JsonValue::Kind::boolean;
            value.boolean = true;
        } else if (word("false")) {
            value.kind = JsonValue::Kind::boolean;
        } else if (word("null")) {
            value.kind = JsonValue::Kind::null;
        } else {
            value.kind = JsonValue::Kind::number;
            value.text = number();
        }
        return value;
    }

    std::string number() {
        const std::size_t start = pos_;
        auto digits = [&] {
            const std::size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
            if (pos_ == from) fail("expected a digit");
        };
        if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
        digits();
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            digits();
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            digits();
        }
        return std::string(text_.substr(start, pos_ - start));
    }

    unsigned hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return code;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string");
        ++pos_;
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string");
            const char c = text_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) fail("unterminated string");
            const char e = text_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
                        pos_ += 2;
                        const unsigned low = hex4();
                        if (low >= 0xDC00 && low < 0xE000) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        else code = 0xFFFD;
                    } else if (code >= 0xD800 && code < 0xE000) {
                        code = 0xFFFD;
                    }
                    append_utf8(out, code);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }

    std::string_view text_;
    std::size_t max_items_;
    std::size_t pos_ = 0;
};

void append_json_string(std::string& out, const std::string& text) {
    out += '"';
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out += escape;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

void append_json(std::string& out, const JsonValue& value) {
    switch (value.kind) {
        case JsonValue::Kind::null: out += "null"; break;
        case JsonValue::Kind::boolean: out += value.boolean ? "true" : "false"; break;
        case JsonValue::Kind::number: out += value.text; break;
        case JsonValue::Kind::string: append_json_string(out, value.text); break;
        case JsonValue::Kind::array:
            out += '[';
            for (std::size_t i = 0; i < value.items.size(); ++i) {
                if (i > 0) out += ", ";
                append_json(out, value.items[i]);
            }
            out += ']';
            break;
        case JsonValue::Kind::object:
            out += '{';
            for (std::size_t i = 0; i < value.members.size(); ++i) {
                if (i > 0) out += ", ";
                append_json_string(out, value.members[i].first);
                out += ": ";
                append_json(out, value.members[i].second);
            }
            out += '}';
            break;
    }
}

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
    if (kind != Kind::object) return nullptr;
    for (const auto& member : members)
        if (member.first == key) return &member.second;
    return nullptr;
}

const JsonValue* JsonValue::find(std::initializer_list<std::string_view> path) const {
    const JsonValue* value = this;
    for (std::string_view key : path) {
        value = value->find(key);
        if (value == nullptr) return nullptr;
    }
    return value;
}

double JsonValue::number(double fallback) const {
    if (kind != Kind::number) return fallback;
    return std::strtod(text.c_str(), nullptr);
}

std::string JsonValue::display() const {
    switch (kind) {
        case Kind::null: return "";
        case Kind::boolean: return boolean ? "true" : "false";
        case Kind::number:
        case Kind::string: return text;
        case Kind::array: {
            bool scalars = true;
            for (const JsonValue& item : items)
                if (item.is_array() || item.is_object()) scalars = false;
            if (!scalars) return to_json(*this);
            std::string out;
            for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? " " : "") + items[i].display();
            return out;
        }
        case Kind::object: return to_json(*this);
    }
    return "";
}

JsonValue parse_json(std::string_view text, std::size_t max_items) { return Parser(text, max_items).document(); }

std::string to_json(const JsonValue& value) {
    std::string out;
    append_json(out, value);
    return out;
}

}  // namespace strata::analysis::report
