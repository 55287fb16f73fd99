// SPDX-License-Identifier: BSD-3-Clause
// The registry of STRATA_* variables: the core's rows and those adapters add
// for their own (STRATA_MPI_*, STRATA_OPENMP_*, STRATA_CUDA_*), their strict
// parsers, and what strata-info and strata.cfg print of them.  Adapters see
// this header, not the core's settings (src/config/config.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>

#include "strata/measurement/error.hpp"
#include <string>
#include <vector>

#include "strata/measurement/types.hpp"

namespace strata::config {

/// The kind of value a variable accepts; parsing is strict for every kind.
enum class Type { boolean, size, integer, string, path, enumeration, list };

/// One row of the registry.  `target` receives the parsed value.
struct Variable {
    std::string ns;            ///< namespace, "" for core ("STRATA_<NS>_<NAME>" otherwise)
    std::string name;          ///< upper-case name inside the namespace, e.g. "TOTAL_MEMORY"
    Type type = Type::string;
    std::string default_value; ///< as text, parsed like a user value
    std::vector<std::string> accepted;  ///< enumeration / list members (empty list: free text)
    std::string short_help;
    std::string long_help;
    /// Stores the parsed value; called once with the default, then with the user's value.
    /// Receives the already validated text (booleans normalised to "true"/"false",
    /// sizes as decimal bytes, lists comma-joined and trimmed).
    std::function<void(const std::string& normalized)> store;

    STRATA_API std::string env_name() const;  ///< "STRATA_" + (ns.empty() ? "" : ns + "_") + name
};

/// Strict parsers, exposed for tests and for adapters that parse their own
/// variables.  Each sets `normalized` to the canonical text (see
/// Variable::store); the error says what is accepted.

/// true/false/yes/no/on/off/1/0, any case
Error parse_boolean(const std::string& text, std::string* normalized);
/// 4096, 64K, 64M, 1G, 1T (powers of 1024), optional "B"/"iB"
Error parse_size(const std::string& text, std::string* normalized);
Error parse_integer(const std::string& text, std::string* normalized);
Error parse_enumeration(const std::string& text, const std::vector<std::string>& accepted,
                        std::string* normalized);
Error parse_list(const std::string& text, const std::vector<std::string>& accepted, std::string* normalized);
/// Parses `text` as a value of `type` (string and path values are taken as they are).
Error parse_value(Type type, const std::string& text, const std::vector<std::string>& accepted,
                  std::string* normalized);

/// "Boolean", "Size", "Integer", "String", "Path", "Enumeration" or "List".
const char* type_name(Type type);

/// A byte count in the shortest exact form a size variable accepts: 65536 -> "64K",
/// 3 << 30 -> "3G", 1000 -> "1000".
std::string format_size(std::uint64_t bytes);

/// The process-wide registry.  Modules add their rows at static-initialisation time
/// or before load(); the core rows exist from the start.
class Registry {
public:
    STRATA_API static Registry& instance();
    /// Adds a row.  Throws std::invalid_argument for a malformed name, a name that is
    /// already registered or a default value its own parser rejects (programming errors).
    STRATA_API void add(Variable v);

    /// A check of relations between variables, run by load() after every variable is
    /// parsed and stored.  Returns the message (without the "strata: " prefix) when the
    /// combination is not valid, Error() otherwise.
    using Check = std::function<Error()>;
    /// Adds a relation check (see Check).
    void add_check(Check check);

    const std::vector<Variable>& variables() const { return vars_; }

    /// Parses every variable from `lookup` (default: the environment).  On the first bad
    /// value returns the message naming the variable, the value and what is accepted.
    /// Unknown STRATA_* variables in the environment are reported as a warning (typos).
    ///
    /// Every row's default is stored first, so each call starts from a clean state; then
    /// the values `lookup` returns (nullptr: not set), then the relation checks
    /// (add_check).  Unknown names are taken from `environment` ("NAME=value" strings)
    /// or, without it, from `environ`; warnings go to `warnings` or, without it, to
    /// std::cerr.  After an error the rows before the bad one hold the user's values
    /// and the others their defaults.  Not thread-safe: call it before measuring.
    STRATA_API Error load(const std::function<const char*(const char*)>& lookup,
                          std::vector<std::string>* warnings = nullptr,
                          const std::vector<std::string>* environment = nullptr);

    /// Like load(), without the check for unknown names: the runtime loads the core
    /// rows when its library is loaded, before the adapters (other libraries) have
    /// added theirs, so it reports unknown names later (unknown_variables()).
    Error load_values(const std::function<const char*(const char*)>& lookup);

    /// Adds a row after load_values() has run (an adapter library starting after the
    /// core) and parses its value at once with the same lookup.  Returns the message
    /// for a bad value; the caller stops the program with it.
    STRATA_API Error add_and_load(Variable v);

    /// Warnings for STRATA_* names in the environment that no row declares.
    std::vector<std::string> unknown_variables(const std::vector<std::string>* environment = nullptr) const;

    /// Writes `NAME=value` for every variable as in effect, with a comment line each
    /// (the strata.cfg format).
    void write_cfg(std::ostream& out) const;

    /// `strata-info config-vars [--full]` text.
    void describe(std::ostream& out, bool full) const;

    /// `strata-info config-vars --doc`: a Markdown reference page of every variable.
    void write_markdown(std::ostream& out) const;

    /// Value in effect (normalised text) after load(), or the default.
    STRATA_API std::string value_of(const std::string& env_name) const;

private:
    Registry();
    std::vector<Variable> vars_;
    std::vector<std::string> values_;
    std::vector<Check> checks_;
    std::function<const char*(const char*)> lookup_;  ///< of the last load, for add_and_load
    bool loaded_ = false;

    Error load_one(std::size_t index);
};

/// One group of events that a list variable switches on (STRATA_OPENMP_ENABLE,
/// STRATA_CUDA_ENABLE): its name in the list, its bit, and a line of help.
struct EventGroup {
    const char* name;
    std::uint32_t bit;
    const char* description;
};

/// The bits of a normalised list of group names: each named group's, "all"
/// every group's, "default" `default_bits`; "none" (or "") nothing.
template <std::size_t N>
std::uint32_t group_bits(const std::string& normalized, const EventGroup (&groups)[N], std::uint32_t default_bits) {
    std::uint32_t bits = 0;
    std::size_t from = 0;
    while (from <= normalized.size()) {
        const std::size_t comma = std::min(normalized.find(',', from), normalized.size());
        const std::string item = normalized.substr(from, comma - from);
        if (item == "default") bits |= default_bits;
        for (const EventGroup& g : groups)
            if (item == "all" || item == g.name) bits |= g.bit;
        from = comma + 1;
    }
    return bits;
}

/// The accepted values of such a list: `words` ("all", "none", ...), then the groups' names.
template <std::size_t N>
std::vector<std::string> group_values(std::vector<std::string> words, const EventGroup (&groups)[N]) {
    for (const EventGroup& g : groups) words.emplace_back(g.name);
    return words;
}

/// The groups' lines of help, "  <name, padded to `width`><description>".
template <std::size_t N>
std::string group_help(const EventGroup (&groups)[N], std::size_t width) {
    std::string text;
    for (const EventGroup& g : groups) {
        std::string name = g.name;
        name.resize(std::max(width, name.size() + 1), ' ');
        text += "  " + name + g.description + "\n";
    }
    return text;
}

}  // namespace strata::config
