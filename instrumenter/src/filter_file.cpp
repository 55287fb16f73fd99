// SPDX-License-Identifier: BSD-3-Clause
// Parsing of Score-P filter files and their conversion to GCC's exclude lists.
#include "filter_file.hpp"

#include <algorithm>

#include "response_file.hpp"

namespace strata::instrumenter {
namespace {

constexpr std::string_view region_begin = "SCOREP_REGION_NAMES_BEGIN";
constexpr std::string_view region_end = "SCOREP_REGION_NAMES_END";
constexpr std::string_view file_begin = "SCOREP_FILE_NAMES_BEGIN";
constexpr std::string_view file_end = "SCOREP_FILE_NAMES_END";

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// The line without its comment: from the first '#' not escaped by a backslash.
std::string_view strip_comment(std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '#' && (i == 0 || line[i - 1] != '\\')) return line.substr(0, i);
    }
    return line;
}

/// Splits at white space not escaped by a backslash; escapes stay in the tokens.
std::vector<std::string> tokenize(std::string_view line) {
    std::vector<std::string> tokens;
    std::string current;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (is_blank(c) && !(i > 0 && line[i - 1] == '\\')) {
            if (!current.empty()) tokens.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) tokens.push_back(current);
    return tokens;
}

/// The parser's state between tokens.
struct ParseState {
    const std::string& path;
    FilterFile& filter;
    std::optional<FilterTarget> block;  // the open block, if any
    int block_line = 0;                 // where it was opened
    std::optional<FilterAction> action;
    bool mangled = false;
};

[[noreturn]] void fail(const ParseState& state, int line, const std::string& what) {
    throw FilterError(state.path + ":" + std::to_string(line) + ": " + what);
}

std::string_view end_keyword(FilterTarget target) {
    return target == FilterTarget::region ? region_end : file_end;
}

void process_token(ParseState& state, const std::string& token, int line) {
    const std::string found = ", found '" + token + "'";
    if (token == region_begin || token == file_begin) {
        if (state.block) {
            fail(state, line,
                 "expected " + std::string(end_keyword(*state.block)) +
                     " (to close the block opened at line " + std::to_string(state.block_line) + ")" + found);
        }
        state.block = token == region_begin ? FilterTarget::region : FilterTarget::file;
        state.block_line = line;
        state.action.reset();
        state.mangled = false;
        return;
    }
    if (!state.block) {
        fail(state, line, "expected " + std::string(region_begin) + " or " + std::string(file_begin) + found);
    }
    if (token == region_end || token == file_end) {
        if (token != end_keyword(*state.block)) {
            fail(state, line,
                 "expected " + std::string(end_keyword(*state.block)) +
                     " (to close the block opened at line " + std::to_string(state.block_line) + ")" + found);
        }
        state.block.reset();
        return;
    }
    if (token == "EXCLUDE" || token == "INCLUDE") {
        state.action = token == "EXCLUDE" ? FilterAction::exclude : FilterAction::include;
        state.mangled = false;
        return;
    }
    if (token == "MANGLED") {
        if (*state.block == FilterTarget::file) {
            fail(state, line,
                 "expected EXCLUDE, INCLUDE or a file name pattern" + found +
                     " (MANGLED applies to region names only)");
        }
        if (!state.action) fail(state, line, "expected EXCLUDE or INCLUDE before 'MANGLED'");
        state.mangled = true;
        return;
    }
    if (!state.action) fail(state, line, "expected EXCLUDE or INCLUDE before the pattern '" + token + "'");
    state.filter.rules.push_back({*state.block, *state.action, state.mangled, token, line});
}

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

/// Why a later INCLUDE rule may give back a name that contains `text`; empty when it cannot.
std::string overriding_include(const FilterFile& filter, std::size_t index, const std::string& text) {
    const auto& rule = filter.rules[index];
    for (std::size_t j = index + 1; j < filter.rules.size(); ++j) {
        const auto& later = filter.rules[j];
        if (later.target != rule.target || later.action != FilterAction::include) continue;
        const auto literal = later.mangled ? std::nullopt : literal_pattern(later.pattern);
        if (literal && literal->find(text) == std::string::npos) continue;
        return "the later rule 'INCLUDE " + std::string(later.mangled ? "MANGLED " : "") + later.pattern +
               "' (line " + std::to_string(later.line) + ") may include such names back";
    }
    return {};
}

std::string escape_commas(const std::string& text) {
    std::string escaped;
    for (char c : text) {
        if (c == ',') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

}  // namespace

FilterFile parse_filter_text(std::string_view text, const std::string& path) {
    FilterFile filter;
    filter.path = path;
    ParseState state{path, filter, std::nullopt, 0, std::nullopt, false};
    int line_number = 0;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        ++line_number;
        line = strip_comment(line);
        while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
        if (!line.empty() && line.back() == '\\' && (line.size() < 2 || line[line.size() - 2] != '\\')) {
            fail(state, line_number,
                 "expected a pattern or a keyword, found '\\' at the end of the line "
                 "(escaped line breaks are not supported)");
        }
        for (const auto& token : tokenize(line)) process_token(state, token, line_number);
    }
    if (state.block) {
        fail(state, state.block_line,
             "expected " + std::string(end_keyword(*state.block)) +
                 " before the end of the file to close the block opened here");
    }
    return filter;
}

FilterFile read_filter_file(const std::string& path) {
    const auto text = read_text_file(path);
    if (!text) throw FilterError("cannot read filter file '" + path + "'");
    return parse_filter_text(*text, path);
}

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

CompileTimeFilter compile_time_filter(const FilterFile& filter, bool through_nvcc) {
    CompileTimeFilter result;
    for (std::size_t i = 0; i < filter.rules.size(); ++i) {
        const auto& rule = filter.rules[i];
        if (rule.action != FilterAction::exclude) continue;
        std::string reason;
        const auto text = substring_pattern(rule.pattern);
        if (rule.mangled) {
            reason = "MANGLED names are known only at run time";
        } else if (!text) {
            reason = "GCC matches substrings, so only patterns of the form *text* are exact";
        } else if (text->back() == '\\') {
            reason = "GCC would read the final backslash as an escape";
        } else if (through_nvcc && text->find(',') != std::string::npos) {
            reason = "nvcc splits -Xcompiler values at commas";
        } else {
            reason = overriding_include(filter, i, *text);
        }
        if (!reason.empty()) {
            result.run_time_only.push_back(filter.path + ":" + std::to_string(rule.line) + ": EXCLUDE " +
                                           (rule.mangled ? "MANGLED " : "") + rule.pattern + ": " + reason);
            continue;
        }
        auto& list = rule.target == FilterTarget::region ? result.functions : result.files;
        if (std::find(list.begin(), list.end(), *text) == list.end()) list.push_back(*text);
    }
    return result;
}

std::vector<std::string> gcc_exclude_flags(const CompileTimeFilter& filter, bool through_nvcc) {
    std::vector<std::string> flags;
    const auto add = [&](const std::vector<std::string>& names, const std::string& option) {
        if (names.empty()) return;
        if (through_nvcc) {
            for (const auto& name : names) {
                flags.push_back("-Xcompiler");
                flags.push_back(option + name);
            }
            return;
        }
        std::string joined;
        for (const auto& name : names) {
            if (!joined.empty()) joined += ',';
            joined += escape_commas(name);
        }
        flags.push_back(option + joined);
    };
    add(filter.functions, "-finstrument-functions-exclude-function-list=");
    add(filter.files, "-finstrument-functions-exclude-file-list=");
    return flags;
}

}  // namespace strata::instrumenter
