// SPDX-License-Identifier: BSD-3-Clause
// Score-P's matching of filter rules: fnmatch(3) patterns, rules in order, the last match decides.
#include <cxxabi.h>
#include <fnmatch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "filter/filter_rules.hpp"

namespace strata::filter {
namespace {

/// A pattern as a sequence of elements: literal characters, '*', or another wildcard.
struct PatternElement {
    enum Kind { literal, star, wildcard } kind;
    char c;
};

std::vector<PatternElement> pattern_elements(std::string_view pattern) {
    std::vector<PatternElement> elements;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            elements.push_back({PatternElement::literal, pattern[++i]});
        } else if (c == '*') {
            elements.push_back({PatternElement::star, c});
        } else if (c == '?' || c == '[') {
            elements.push_back({PatternElement::wildcard, c});
        } else {
            elements.push_back({PatternElement::literal, c});
        }
    }
    return elements;
}

/// Applies the rules of `target` in order.  Score-P starts from "included"; while included
/// only EXCLUDE rules are tried, while excluded only INCLUDE rules, so the last rule that
/// matches decides.
template <typename Matches>
bool verdict(const std::vector<FilterRule>& rules, FilterTarget target, Matches matches) {
    bool excluded = false;
    for (const auto& rule : rules) {
        if (rule.target != target) continue;
        const bool exclude = rule.action == FilterAction::exclude;
        if (exclude != excluded && matches(rule)) excluded = exclude;
    }
    return excluded;
}

}  // namespace

std::optional<std::string> substring_pattern(std::string_view pattern) {
    const auto elements = pattern_elements(pattern);
    std::size_t first = 0;
    while (first < elements.size() && elements[first].kind == PatternElement::star) ++first;
    std::size_t last = elements.size();
    while (last > first && elements[last - 1].kind == PatternElement::star) --last;
    if (first == 0 || last == elements.size() || first == last) return std::nullopt;
    std::string text;
    for (std::size_t i = first; i < last; ++i) {
        if (elements[i].kind != PatternElement::literal) return std::nullopt;
        text += elements[i].c;
    }
    return text;
}

std::optional<std::string> literal_pattern(std::string_view pattern) {
    std::string text;
    for (const auto& element : pattern_elements(pattern)) {
        if (element.kind != PatternElement::literal) return std::nullopt;
        text += element.c;
    }
    return text;
}

bool pattern_matches(const std::string& pattern, const std::string& text) {
    // Score-P treats a pattern fnmatch cannot evaluate as not matching.
    return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

bool FilterFile::file_excluded(const std::string& file) const {
    if (file.empty()) return false;
    return verdict(rules, FilterTarget::file,
                   [&](const FilterRule& rule) { return pattern_matches(rule.pattern, file); });
}

bool FilterFile::region_excluded(const std::string& region_name, const std::string& mangled_name) const {
    return verdict(rules, FilterTarget::region, [&](const FilterRule& rule) {
        const bool use_mangled = rule.mangled && !mangled_name.empty();
        return pattern_matches(rule.pattern, use_mangled ? mangled_name : region_name);
    });
}

bool FilterFile::excluded(const std::string& region_name, const std::string& mangled_name,
                          const std::string& file) const {
    return file_excluded(file) || region_excluded(region_name, mangled_name);
}

std::string demangled_name(const char* symbol) {
    // Only "_Z..." names are mangled functions: __cxa_demangle would read a C
    // name such as "f" or "g" as a type ("float", "__float128").
    if (symbol == nullptr || symbol[0] != '_' || symbol[1] != 'Z') return symbol != nullptr ? symbol : "";
    int status = 0;
    char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    if (status != 0 || text == nullptr) return symbol;
    std::string result(text);
    std::free(text);
    return result;
}

std::string visible_text(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, code = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, code = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, code = lead & 0x07u;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
        code = code << 6 | (byte(i + k) & 0x3Fu);
    }
    static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
    return length;
}

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(text[i]));
            out += escaped;
            ++i;
        } else {
            out.append(text, i, length);
            i += length;
        }
    }
    return out;
}

FilterFile FilterFile::mpi_rules() const {
    FilterFile mpi;
    mpi.path = path;
    for (const FilterRule& rule : rules)
        if (rule.target == FilterTarget::region && !rule.mangled && rule.pattern.rfind("MPI_", 0) == 0)
            mpi.rules.push_back(rule);
    return mpi;
}

}  // namespace strata::filter
