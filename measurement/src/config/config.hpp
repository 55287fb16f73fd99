// SPDX-License-Identifier: BSD-3-Clause
// Strata configuration: the registry of STRATA_* variables and the settings they produce.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace strata::config {

/// Which clock the measurement reads (STRATA_TIMER).
enum class TimerKind { tsc, clock_gettime };

/// The effective configuration of the core runtime, filled from the environment.
/// Adapters declare their own variables in the registry (see Registry::add).
struct Settings {
    bool enable_profiling = true;              ///< STRATA_ENABLE_PROFILING
    bool enable_tracing = false;               ///< STRATA_ENABLE_TRACING
    std::string experiment_directory;          ///< STRATA_EXPERIMENT_DIRECTORY ("" = strata-<date>_<time>_<id>)
    bool overwrite_experiment_directory = false;  ///< STRATA_OVERWRITE_EXPERIMENT_DIRECTORY
    std::uint64_t total_memory = 64ull << 20;  ///< STRATA_TOTAL_MEMORY in bytes
    std::uint64_t page_size = 64ull << 10;     ///< STRATA_PAGE_SIZE in bytes
    TimerKind timer = TimerKind::tsc;          ///< STRATA_TIMER
    bool verbose = false;                      ///< STRATA_VERBOSE
    std::string filtering_file;                ///< STRATA_FILTERING_FILE ("" = no filter)
};

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

    std::string env_name() const;  ///< "STRATA_" + (ns.empty() ? "" : ns + "_") + name
};

/// Result of parsing one value.
struct ParseResult {
    bool ok = false;
    std::string normalized;  ///< the canonical text (see Variable::store)
    std::string error;       ///< "what is accepted", when !ok
};

/// Strict parsers, exposed for tests and for adapters that parse their own variables.
ParseResult parse_boolean(const std::string& text);     ///< true/false/yes/no/on/off/1/0, any case
ParseResult parse_size(const std::string& text);        ///< 4096, 64K, 64M, 1G, 1T (powers of 1024), optional "B"/"iB"
ParseResult parse_integer(const std::string& text);
ParseResult parse_enumeration(const std::string& text, const std::vector<std::string>& accepted);
ParseResult parse_list(const std::string& text, const std::vector<std::string>& accepted);

/// The process-wide registry.  Modules add their rows at static-initialisation time
/// or before load(); the core rows exist from the start.
class Registry {
public:
    static Registry& instance();
    void add(Variable v);
    const std::vector<Variable>& variables() const { return vars_; }

    /// Parses every variable from `lookup` (default: the environment).  On the first bad
    /// value returns the message naming the variable, the value and what is accepted.
    /// Unknown STRATA_* variables in the environment are reported as a warning (typos).
    std::optional<std::string> load(const std::function<const char*(const char*)>& lookup,
                                    std::vector<std::string>* warnings = nullptr,
                                    const std::vector<std::string>* environment = nullptr);

    /// Writes `NAME=value` for every variable as in effect, with a comment line each
    /// (the strata.cfg format).
    void write_cfg(std::ostream& out) const;

    /// `strata-info config-vars [--full]` text.
    void describe(std::ostream& out, bool full) const;

    /// Value in effect (normalised text) after load(), or the default.
    std::string value_of(const std::string& env_name) const;

private:
    Registry();
    std::vector<Variable> vars_;
    std::vector<std::string> values_;
};

/// The core settings, filled by Registry::load.
Settings& settings();

}  // namespace strata::config
