// SPDX-License-Identifier: BSD-3-Clause
// Score-P's matching of filter rules: fnmatch(3) patterns, rules in order, the last match decides.
#include <cxxabi.h>
#include <fnmatch.h>

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

FilterFile FilterFile::mpi_rules() const {
    FilterFile mpi;
    mpi.path = path;
    for (const FilterRule& rule : rules)
        if (rule.target == FilterTarget::region && !rule.mangled && rule.pattern.rfind("MPI_", 0) == 0)
            mpi.rules.push_back(rule);
    return mpi;
}

}  // namespace strata::filter
