// SPDX-License-Identifier: BSD-3-Clause
// Strata configuration: strict value parsers and the registry of STRATA_* variables.
//
// Every variable is one row (config.hpp: Variable).  The same rows drive parsing
// (Registry::load), the record of a run (write_cfg -> strata.cfg) and the user
// documentation (describe -> `strata-info config-vars`, write_markdown -> the
// generated reference page), so the three can never disagree:
//
//     rows (core_variables.cpp, adapters) --add--> Registry --load()----> Variable::store -> Settings
//                                                      |------write_cfg()-> strata.cfg
//                                                      |------describe()--> strata-info config-vars [--full]
//                                                      '------write_markdown() -> share/doc/configuration.md
//
// Usage:
//     auto& registry = strata::config::Registry::instance();
//     if (auto error = registry.load(nullptr)) { std::cerr << *error << '\n'; return false; }
//     if (strata::config::settings().enable_tracing) { ... }
#include "config/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace strata::config {

void register_core_variables(Registry& registry);  // core_variables.cpp
void register_metric_variables(Registry& registry);  // metrics/metric_variables.cpp

namespace {

constexpr const char* size_expected = "expected a size such as 4096, 64K, 512M or 2G (powers of 1024)";
constexpr const char* integer_expected = "expected a base-10 integer such as 42 or -7";
constexpr const char* boolean_expected = "expected true, false, yes, no, on, off, 1 or 0";

std::string trim(std::string_view s) {
    const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return std::string(s);
}

std::string to_lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string to_upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += separator;
        out += items[i];
    }
    return out;
}

Error good(std::string* normalized, std::string text) {
    *normalized = std::move(text);
    return {};
}
Error bad(std::string error) {
    return error;
}

/// Optimal-string-alignment distance (Levenshtein plus swapped neighbours), for typos.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
}

/// Splits `text` into paragraphs at blank lines.  A paragraph whose lines all start
/// with two spaces is preformatted (an example) and is never re-wrapped.
std::vector<std::string> paragraphs(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line, current;
    while (std::getline(in, line)) {
        if (trim(line).empty()) {
            if (!current.empty()) out.push_back(current);
            current.clear();
        } else {
            current += current.empty() ? line : "\n" + line;
        }
    }
    if (!current.empty()) out.push_back(current);
    return out;
}

bool is_preformatted(const std::string& paragraph) {
    std::istringstream in(paragraph);
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, 2, "  ") != 0) return false;
    return true;
}

/// Fills `text` into lines of at most `width` columns, each starting with `indent`.
void write_wrapped(std::ostream& out, const std::string& text, const std::string& indent,
                   std::size_t width = 78) {
    bool first_paragraph = true;
    for (const std::string& paragraph : paragraphs(text)) {
        if (!first_paragraph) out << '\n';
        first_paragraph = false;
        if (is_preformatted(paragraph)) {
            std::istringstream in(paragraph);
            std::string line;
            while (std::getline(in, line)) out << indent << line << '\n';
            continue;
        }
        std::istringstream words(paragraph);
        std::string word, line;
        while (words >> word) {
            if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
                out << indent << line << '\n';
                line.clear();
            }
            line += line.empty() ? word : " " + word;
        }
        if (!line.empty()) out << indent << line << '\n';
    }
}

std::string shell_quote(const std::string& value) {
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
        out += c;
    }
    return out + "\"";
}

/// Prose for Markdown: characters that would start markup are escaped ("<id>" would
/// otherwise vanish as an HTML tag, "*" start emphasis).
std::string markdown_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '\\' || c == '*' || c == '[' || c == ']' || c == '`' || c == '|') out += '\\', out += c;
        else out += c;
    }
    return out;
}

std::string markdown_cell(const std::string& text) {
    std::string out = markdown_text(text);
    std::replace(out.begin(), out.end(), '\n', ' ');
    return out;
}

std::string display_default(const std::string& value) { return value.empty() ? "\"\"" : value; }

bool valid_name_part(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
    });
}

}  // namespace

std::string Variable::env_name() const { return "STRATA_" + (ns.empty() ? "" : ns + "_") + name; }

const char* type_name(Type type) {
    switch (type) {
        case Type::boolean: return "Boolean";
        case Type::size: return "Size";
        case Type::integer: return "Integer";
        case Type::string: return "String";
        case Type::path: return "Path";
        case Type::enumeration: return "Enumeration";
        case Type::list: return "List";
    }
    return "String";
}

std::string format_size(std::uint64_t bytes) {
    static constexpr struct { int shift; char suffix; } units[] = {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
    if (bytes != 0) {
        for (const auto& unit : units) {
            const std::uint64_t factor = std::uint64_t{1} << unit.shift;
            if (bytes % factor == 0) return std::to_string(bytes / factor) + unit.suffix;
        }
    }
    return std::to_string(bytes);
}

Error parse_boolean(const std::string& text, std::string* normalized) {
    const std::string t = to_lower(trim(text));
    if (t == "true" || t == "yes" || t == "on" || t == "1") return good(normalized, "true");
    if (t == "false" || t == "no" || t == "off" || t == "0") return good(normalized, "false");
    return bad(boolean_expected);
}

// Fractions ("1.5G") are rejected on purpose: the byte count would depend on rounding.
Error parse_size(const std::string& text, std::string* normalized) {
    const std::string t = trim(text);
    const std::string expected = size_expected;
    if (!t.empty() && t[0] == '-') return bad("a size cannot be negative; " + expected);
    if (!t.empty() && t[0] == '.') return bad("fractions are not accepted (write 1536M, not 1.5G); " + expected);
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t value = 0;
    std::size_t i = 0;
    for (; i < t.size() && is_digit(t[i]); ++i) {
        const auto digit = static_cast<std::uint64_t>(t[i] - '0');
        if (value > (max - digit) / 10) return bad("too large for 64 bits; " + expected);
        value = value * 10 + digit;
    }
    if (i == 0) return bad(expected);
    if (i < t.size() && (t[i] == '.' || t[i] == ',') && i + 1 < t.size() && is_digit(t[i + 1]))
        return bad("fractions are not accepted (write 1536M, not 1.5G); " + expected);
    while (i < t.size() && t[i] == ' ') ++i;  // "64 MB" reads like "64MB"
    const std::string suffix = to_lower(t.substr(i));
    int shift = -1;
    if (suffix.empty() || suffix == "b") shift = 0;
    static constexpr struct { char letter; int shift; } units[] = {{'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}};
    for (const auto& unit : units) {
        const std::string l(1, unit.letter);
        if (suffix == l || suffix == l + "b" || suffix == l + "ib") shift = unit.shift;
    }
    if (shift < 0) return bad(expected);
    if (shift > 0 && value > (max >> shift)) return bad("too large for 64 bits; " + expected);
    return good(normalized, std::to_string(value << shift));
}

Error parse_integer(const std::string& text, std::string* normalized) {
    const std::string t = trim(text);
    std::size_t i = 0;
    const bool negative = !t.empty() && t[0] == '-';
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) ++i;
    if (i == t.size()) return bad(integer_expected);
    // Accumulate the magnitude; |INT64_MIN| = INT64_MAX + 1 still fits an unsigned 64-bit value.
    const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
    std::uint64_t magnitude = 0;
    for (; i < t.size(); ++i) {
        if (!is_digit(t[i])) return bad(integer_expected);
        const auto digit = static_cast<std::uint64_t>(t[i] - '0');
        if (magnitude > (limit - digit) / 10)
            return bad(std::string("out of range; expected a base-10 integer from ") +
                       std::to_string(std::numeric_limits<std::int64_t>::min()) + " to " +
                       std::to_string(std::numeric_limits<std::int64_t>::max()));
        magnitude = magnitude * 10 + digit;
    }
    if (magnitude == 0) return good(normalized, "0");
    return good(normalized, (negative ? "-" : "") + std::to_string(magnitude));
}

Error parse_enumeration(const std::string& text, const std::vector<std::string>& accepted,
                        std::string* normalized) {
    const std::string t = to_lower(trim(text));
    for (const std::string& a : accepted)
        if (to_lower(a) == t) return good(normalized, a);
    return bad("expected one of: " + join(accepted, ", "));
}

Error parse_list(const std::string& text, const std::vector<std::string>& accepted, std::string* normalized) {
    const std::string expected = accepted.empty()
                                     ? std::string("expected a comma-separated list of non-empty items")
                                     : "expected a comma-separated list of: " + join(accepted, ", ");
    const std::string whole = trim(text);
    const bool none_accepted = std::find(accepted.begin(), accepted.end(), "none") != accepted.end();
    // Where "none" selects nothing, an empty value is more likely an unset shell variable
    // ("STRATA_MPI_ENABLE_GROUPS=$GROUPS") than a wish to record nothing.
    if (whole.empty() && none_accepted) return bad("the value is empty; " + expected + " ('none' selects nothing)");
    if (whole.empty()) return good(normalized, "");  // the empty list
    std::vector<std::string> items;
    std::size_t begin = 0;
    while (true) {
        const std::size_t comma = whole.find(',', begin);
        std::string item = trim(whole.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        if (item.empty()) return bad("empty item in the list; " + expected);
        if (!accepted.empty()) {
            std::string member;
            if (parse_enumeration(item, accepted, &member)) return bad("unknown item '" + item + "'; " + expected);
            item = member;
        }
        if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    if (none_accepted && items.size() > 1 && std::find(items.begin(), items.end(), "none") != items.end())
        return bad("'none' cannot be combined with other items; " + expected);
    return good(normalized, join(items, ","));
}

Error parse_value(Type type, const std::string& text, const std::vector<std::string>& accepted,
                  std::string* normalized) {
    switch (type) {
        case Type::boolean: return parse_boolean(text, normalized);
        case Type::size: return parse_size(text, normalized);
        case Type::integer: return parse_integer(text, normalized);
        case Type::enumeration: return parse_enumeration(text, accepted, normalized);
        case Type::list: return parse_list(text, accepted, normalized);
        case Type::string:
        case Type::path: break;
    }
    return good(normalized, text);
}

Registry& Registry::instance() {
    // Never destroyed: finalisation writes strata.cfg from an atexit handler,
    // which may run after the destructors of function-local statics.
    static Registry* registry = new Registry();
    return *registry;
}

Registry::Registry() {
    register_core_variables(*this);
    register_metric_variables(*this);
}

void Registry::add(Variable v) {
    const std::string env = v.env_name();
    if (!valid_name_part(v.name) || (!v.ns.empty() && !valid_name_part(v.ns)))
        throw std::invalid_argument("strata: configuration variable " + env + ": name must be upper-case letters, digits and _");
    for (const Variable& existing : vars_)
        if (existing.env_name() == env)
            throw std::invalid_argument("strata: configuration variable " + env + " is registered twice");
    if (v.type == Type::enumeration && v.accepted.empty())
        throw std::invalid_argument("strata: configuration variable " + env + ": enumeration without accepted values");
    std::string normalized;
    if (const Error bad_default = parse_value(v.type, v.default_value, v.accepted, &normalized))
        throw std::invalid_argument("strata: configuration variable " + env + ": default '" + v.default_value +
                                    "' is not valid: " + *bad_default);
    values_.push_back(normalized);
    vars_.push_back(std::move(v));
}

void Registry::add_check(Check check) { checks_.push_back(std::move(check)); }

std::vector<std::string> Registry::unknown_variables(const std::vector<std::string>* environment) const {
    std::vector<std::string> names;
    if (environment != nullptr) {
        for (const std::string& entry : *environment) names.push_back(entry.substr(0, entry.find('=')));
    } else {
        for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
            const std::string entry(*e);
            names.push_back(entry.substr(0, entry.find('=')));
        }
    }
    // The adapters' namespaces: their rows exist only where the adapter started, so a
    // variable of one is not a typo where it did not (STRATA_OPENMP_ENABLE in an MPI-only
    // program), though strata-info lists it.
    struct AdapterNamespace {
        const char* ns;
        const char* what;
    };
    static constexpr AdapterNamespace adapters[] = {
        {"MPI", "Strata's MPI adapter is not part of it (a program without MPI, or one neither built with "
                "the strata wrapper nor run with strata-preload)"},
        {"OPENMP", "it started no OpenMP runtime with OMPT (such as LLVM's libomp), so Strata's OpenMP "
                   "adapter is not active"},
    };
    std::vector<std::string> warnings;
    for (const std::string& name : names) {
        if (name.compare(0, 7, "STRATA_") != 0) continue;
        const bool known = std::any_of(vars_.begin(), vars_.end(),
                                       [&](const Variable& v) { return v.env_name() == name; });
        if (known) continue;
        const AdapterNamespace* adapter = nullptr;
        for (const AdapterNamespace& a : adapters) {
            const std::string prefix = std::string("STRATA_") + a.ns + "_";
            const bool started =
                std::any_of(vars_.begin(), vars_.end(), [&](const Variable& v) { return v.ns == a.ns; });
            if (name.compare(0, prefix.size(), prefix) == 0 && !started) adapter = &a;
        }
        if (adapter != nullptr) {
            warnings.push_back("strata: warning: " + name + " has no effect in this program: " + adapter->what);
            continue;
        }
        std::string message = "strata: warning: " + name + " is not a Strata variable";
        // Suggest the closest name when it is close: at most 3 edits and a third of the name.
        std::size_t best = std::numeric_limits<std::size_t>::max();
        std::string suggestion;
        for (const Variable& v : vars_) {
            const std::size_t d = edit_distance(to_upper(name), v.env_name());
            if (d < best) best = d, suggestion = v.env_name();
        }
        if (!suggestion.empty() && best <= 3 && best * 3 <= name.size())
            message += " (did you mean " + suggestion + "?)";
        else
            message += " (`strata-info config-vars` lists them)";
        warnings.push_back(message);
    }
    return warnings;
}

Error Registry::load(const std::function<const char*(const char*)>& lookup,
                     std::vector<std::string>* warnings, const std::vector<std::string>* environment) {
    // Typos first, so that they are reported even when a value below is bad.
    for (const std::string& message : unknown_variables(environment)) {
        if (warnings != nullptr)
            warnings->push_back(message);
        else
            std::cerr << message << '\n';
    }
    return load_values(lookup);
}

Error Registry::load_one(std::size_t i) {
    const Variable& v = vars_[i];
    (void)parse_value(v.type, v.default_value, v.accepted, &values_[i]);  // checked by add()
    if (v.store) v.store(values_[i]);
    const char* raw = lookup_ ? lookup_(v.env_name().c_str()) : std::getenv(v.env_name().c_str());
    if (raw == nullptr) return Error();
    std::string normalized;
    if (const Error error = parse_value(v.type, raw, v.accepted, &normalized))
        return "strata: " + v.env_name() + "='" + raw + "' is not valid: " + *error;
    values_[i] = normalized;
    if (v.store) v.store(values_[i]);
    return Error();
}

Error Registry::load_values(const std::function<const char*(const char*)>& lookup) {
    lookup_ = lookup;
    loaded_ = true;
    for (std::size_t i = 0; i < vars_.size(); ++i) {
        (void)parse_value(vars_[i].type, vars_[i].default_value, vars_[i].accepted, &values_[i]);  // checked by add()
        if (vars_[i].store) vars_[i].store(values_[i]);
    }
    for (std::size_t i = 0; i < vars_.size(); ++i) {
        if (auto error = load_one(i)) return error;
    }
    for (const Check& check : checks_)
        if (auto message = check()) return "strata: " + *message;
    return Error();
}

Error Registry::add_and_load(Variable v) {
    add(std::move(v));
    if (!loaded_) return Error();  // load_values() will parse it with the others
    return load_one(vars_.size() - 1);
}

void Registry::write_cfg(std::ostream& out) const {
    out << "# Strata configuration in effect for this run (can be read by a POSIX shell with '.')\n";
    for (std::size_t i = 0; i < vars_.size(); ++i) {
        out << "# " << vars_[i].short_help << '\n';
        out << vars_[i].env_name() << '=' << shell_quote(values_[i]) << '\n';
    }
}

void Registry::describe(std::ostream& out, bool full) const {
    for (const Variable& v : vars_) {
        out << v.env_name() << '\n';
        out << "    Type:        " << type_name(v.type) << '\n';
        out << "    Default:     " << display_default(v.default_value) << '\n';
        out << "    Description: " << v.short_help << '\n';
        if (!full) continue;
        if (!v.accepted.empty()) {
            // Long lists (STRATA_METRIC_RUSAGE) continue under the first item.
            const std::string label = "    Accepted:    ";
            std::string line = label;
            for (std::size_t i = 0; i < v.accepted.size(); ++i) {
                const std::string item = v.accepted[i] + (i + 1 < v.accepted.size() ? "," : "");
                if (line.size() > label.size() && line.size() + 1 + item.size() > 78) {
                    out << line << '\n';
                    line = std::string(label.size(), ' ');
                } else if (line.size() > label.size()) {
                    line += ' ';
                }
                line += item;
            }
            out << line << '\n';
        }
        if (!v.long_help.empty()) {
            out << '\n';
            write_wrapped(out, v.long_help, "    ");
        }
        out << '\n';
    }
}

void Registry::write_markdown(std::ostream& out) const {
    out << "# Strata configuration variables\n\n"
           "<!-- Generated by `strata-info config-vars --doc` from the configuration registry; "
           "do not edit. -->\n\n"
           "Strata is configured by environment variables set before the program starts, for\n"
           "example `export STRATA_ENABLE_TRACING=true`.  A value that is not valid stops the run\n"
           "with a message naming the variable, the value and what is accepted; a `STRATA_`\n"
           "variable that Strata does not know (a typo) gives a warning.  The values in effect\n"
           "are written to `strata.cfg` in the experiment directory.  `strata-info config-vars\n"
           "--full` prints the same descriptions.\n\n"
           "## Values\n\n"
           "- **Boolean**: `true`, `false`, `yes`, `no`, `on`, `off`, `1` or `0`, in any case.\n"
           "- **Size**: a number of bytes, optionally followed by `K`, `M`, `G` or `T` (powers of\n"
           "  1024; `KB`, `KiB`, `MB`, ... and lower case are accepted too), e.g. `4096`, `64K`,\n"
           "  `512M`, `2G`.  Fractions (`1.5G`) and negative values are not accepted.\n"
           "- **Integer**: a base-10 integer with an optional sign.\n"
           "- **Enumeration**: one of the accepted values, in any case.\n"
           "- **List**: comma-separated items, e.g. `a,b`; spaces around items are ignored,\n"
           "  empty items are not accepted.\n"
           "- **String**, **Path**: taken as they are.\n\n"
           "## Summary\n\n"
           "| Variable | Type | Default | Description |\n"
           "| --- | --- | --- | --- |\n";
    for (const Variable& v : vars_) {
        out << "| [`" << v.env_name() << "`](#" << to_lower(v.env_name()) << ") | " << type_name(v.type)
            << " | `" << display_default(v.default_value) << "` | " << markdown_cell(v.short_help)
            << " |\n";
    }
    for (const Variable& v : vars_) {
        out << "\n## `" << v.env_name() << "`\n\n" << markdown_text(v.short_help) << ".\n\n";
        out << "- **Type:** " << type_name(v.type) << '\n';
        out << "- **Default:** `" << display_default(v.default_value) << "`\n";
        if (!v.accepted.empty()) out << "- **Accepted values:** `" << join(v.accepted, "`, `") << "`\n";
        for (const std::string& paragraph : paragraphs(v.long_help)) {
            if (is_preformatted(paragraph)) {
                out << "\n```\n";
                std::istringstream in(paragraph);
                std::string line;
                while (std::getline(in, line)) out << line.substr(2) << '\n';  // drop the marker indent
                out << "```\n";
            } else {
                out << '\n' << markdown_text(paragraph) << '\n';
            }
        }
    }
}

std::string Registry::value_of(const std::string& env_name) const {
    for (std::size_t i = 0; i < vars_.size(); ++i)
        if (vars_[i].env_name() == env_name) return values_[i];
    return {};
}

Settings& settings() {
    static Settings s;
    return s;
}

}  // namespace strata::config
