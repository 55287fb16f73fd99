// SPDX-License-Identifier: BSD-3-Clause
// Parsing of Score-P filter files into rules, with messages that name the file, line and what was expected.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "filter/filter_rules.hpp"

namespace strata::filter {
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
    throw FilterError(visible_text(state.path + ":" + std::to_string(line) + ": " + what));
}

/// True when a '[' of `pattern` opens a set that no ']' closes.  fnmatch(3) then reads the
/// '[' sometimes as a literal and sometimes as a failed set ("f[a-" matches nothing), so
/// such a pattern is refused rather than left to match by accident.
bool has_unclosed_set(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\') {
            ++i;
            continue;
        }
        if (pattern[i] != '[') continue;
        std::size_t j = i + 1;
        if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
        if (j < pattern.size() && pattern[j] == ']') ++j;  // a leading ']' is a member
        for (;; ++j) {
            if (j >= pattern.size()) return true;
            if (pattern[j] == ']') break;
            if (pattern[j] == '\\') {  // fnmatch(3) reads escapes inside a set too
                ++j;
                continue;
            }
            if (pattern[j] == '[' && j + 1 < pattern.size() && pattern[j + 1] == ':') {
                const std::size_t close = pattern.find(":]", j + 2);  // a class such as [:digit:]
                if (close != std::string_view::npos) j = close + 1;
            }
        }
        i = j;
    }
    return false;
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
    if (has_unclosed_set(token)) {
        fail(state, line,
             "the pattern '" + token +
                 "' opens a set with '[' that no ']' closes; write '\\[' for a literal bracket, "
                 "as in 'operator\\[\\]'");
    }
    state.filter.rules.push_back({*state.block, *state.action, state.mangled, token, line});
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

namespace {

FilterFile read_or_throw(const std::string& path) {
    std::error_code ec;
    std::ifstream in;
    // A directory opens as a stream on Linux (and a FIFO blocks): only regular files (or links to them) are read.
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (ec) throw FilterError("cannot read filter file '" + visible_text(path) + "': " + ec.message());
    if (!std::filesystem::is_regular_file(status))
        throw FilterError("cannot read filter file '" + visible_text(path) + "': not a regular file");
    in.open(path, std::ios::binary);
    const int saved = errno;
    std::ostringstream text;
    if (in.is_open()) text << in.rdbuf();
    if (!in.is_open() || in.bad())
        throw FilterError("cannot read filter file '" + visible_text(path) +
                          "': " + std::strerror(in.is_open() ? errno : saved));
    std::string content = text.str();
    // A byte-order mark, as some editors write, is no part of the rules.
    if (content.rfind("\xEF\xBB\xBF", 0) == 0) content.erase(0, 3);
    return parse_filter_text(content, path);
}

}  // namespace

Error read_filter_file(const std::string& path, FilterFile* filter) {
    try {
        *filter = read_or_throw(path);
        return {};
    } catch (const FilterError& error) {
        return error.what();
    } catch (const std::bad_alloc&) {
        return "cannot read filter file '" + visible_text(path) + "': out of memory";
    }
}

Error read_configured_filter(std::optional<FilterFile>* filter) {
    filter->reset();
    const char* path = std::getenv("STRATA_FILTERING_FILE");
    if (path == nullptr || *path == '\0') return {};
    FilterFile rules;
    if (const Error error = read_filter_file(path, &rules))
        return "strata: STRATA_FILTERING_FILE='" + std::string(path) + "' is not valid: " + *error;
    *filter = std::move(rules);
    return {};
}

}  // namespace strata::filter
