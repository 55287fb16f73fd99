// SPDX-License-Identifier: BSD-3-Clause
// The command line of strata-score (see score_options.hpp).
#include "score/score_options.hpp"

#include <cerrno>
#include <cstdlib>

namespace strata::analysis {
namespace {

ScoreGrouping parse_grouping(const std::string& value) {
    if (value == "region") return ScoreGrouping::region;
    if (value == "callpath") return ScoreGrouping::callpath;
    throw UsageError("--by must be callpath or region, not '" + value + "'");
}

ScoreSort parse_sort(const std::string& value) {
    if (value == "excl") return ScoreSort::exclusive;
    if (value == "incl") return ScoreSort::inclusive;
    if (value == "visits") return ScoreSort::visits;
    throw UsageError("--sort must be excl, incl or visits, not '" + value + "'");
}

std::size_t parse_top(const std::string& value) {
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const unsigned long long n = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE || n == 0) throw UsageError("--top needs a positive number, not '" + value + "'");
    return static_cast<std::size_t>(n);
}

/// Applies `--name value` (or `--name=value`) at args[i]; advances i past the value.
void parse_valued_option(const std::vector<std::string>& args, std::size_t& i, ScoreOptions& options) {
    const std::string& arg = args[i];
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    if (name != "--by" && name != "--top" && name != "--sort") throw UsageError("unknown option '" + arg + "'");
    std::string value;
    if (equals != std::string::npos)
        value = arg.substr(equals + 1);
    else if (i + 1 < args.size())
        value = args[++i];
    else
        throw UsageError(name + " needs a value");
    if (name == "--by") options.by = parse_grouping(value);
    if (name == "--top") options.top = parse_top(value);
    if (name == "--sort") options.sort = parse_sort(value);
}

}  // namespace

ScoreOptions parse_score_options(const std::vector<std::string>& args) {
    ScoreOptions options;
    bool have_input = false;
    bool options_end = false;  // after "--", every argument is a path
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool is_option = !options_end && arg.size() > 1 && arg[0] == '-';
        if (is_option && arg == "--") {
            options_end = true;
        } else if (is_option && (arg == "-h" || arg == "--help")) {
            options.help = true;
        } else if (is_option && arg == "--csv") {
            options.csv = true;
        } else if (is_option) {
            parse_valued_option(args, i, options);
        } else if (have_input) {
            throw UsageError("more than one experiment given ('" + options.input + "' and '" + arg + "')");
        } else {
            options.input = arg;
            have_input = true;
        }
    }
    if (!have_input && !options.help) throw UsageError("no experiment directory or profile.h5 given");
    return options;
}

const char* score_usage() {
    return "usage: strata-score <experiment-dir or profile.h5> [--by callpath|region] [--top N]\n"
           "                    [--sort excl|incl|visits] [--csv]\n"
           "\n"
           "Summarises a Strata call-path profile: time and visits per region (or per call\n"
           "path, as a tree), summed over all locations (ranks, threads, GPU streams).\n"
           "\n"
           "  --by region      one row per region (default); recursion is not counted twice\n"
           "  --by callpath    one row per call path, indented as the call tree\n"
           "  --top N          only the first N rows\n"
           "  --sort KEY       order by exclusive time (excl, default), inclusive time (incl)\n"
           "                   or visits, largest first; ties by name\n"
           "  --csv            comma-separated values on stdout, no header\n"
           "  -h, --help       this text\n"
           "\n"
           "Exit status: 0 success, 1 the profile cannot be read, 2 bad arguments.\n";
}

}  // namespace strata::analysis
