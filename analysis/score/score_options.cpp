// SPDX-License-Identifier: BSD-3-Clause
// The command line of strata-score (see score_options.hpp).
#include "score/score_options.hpp"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <cstdlib>

#include "cli/command_line.hpp"

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

/// A non-negative finite number for `name`.
double parse_limit(const std::string& name, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const double v = value.empty() ? -1.0 : std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !(v >= 0.0) || v > 1e15)
        throw UsageError(name + " needs a number of 0 or more, not '" + value + "'");
    return v;
}

/// The options that take a value.
const std::vector<std::string> kValued = {"--by", "--top", "--sort", "--filter", "--suggest-filter",
                                          "--max-us-per-visit", "--min-visit-percent"};

/// Applies `name` (one of kValued) with `value`.
void apply_value(const std::string& name, const std::string& value, ScoreOptions& options) {
    if (name == "--by") options.by = parse_grouping(value);
    if (name == "--top") options.top = parse_top(value);
    if (name == "--sort") options.sort = parse_sort(value);
    if ((name == "--filter" || name == "--suggest-filter") && value.empty())
        throw UsageError(name + " needs a file name");
    if (name == "--filter") options.filter_file = value;
    if (name == "--suggest-filter") options.suggest_filter = value;
    if (name == "--max-us-per-visit") options.criteria.max_us_per_visit = parse_limit(name, value);
    if (name == "--min-visit-percent") {
        options.criteria.min_visit_percent = parse_limit(name, value);
        if (options.criteria.min_visit_percent > 100.0)
            throw UsageError("--min-visit-percent needs a number from 0 to 100, not '" + value + "'");
    }
}

}  // namespace

ScoreOptions parse_score_options(const std::vector<std::string>& args) {
    ScoreOptions options;
    bool have_input = false;
    walk_command_line<UsageError>(
        args, kValued,
        [&](const std::string& arg) {
            if (arg == "-h" || arg == "--help") {
                options.help = true;
            } else if (arg == "--csv") {
                options.csv = true;
            } else {
                return false;
            }
            return true;
        },
        [&](const std::string& name, const std::string& value) { apply_value(name, value, options); },
        [&](const std::string& arg) {
            if (have_input)
                throw UsageError("more than one experiment given ('" + options.input + "' and '" + arg + "')");
            options.input = arg;
            have_input = true;
        });
    if (!have_input && !options.help) throw UsageError("no experiment directory or profile.h5 given");
    const bool criteria_given = std::any_of(args.begin(), args.end(), [](const std::string& a) {
        return a.rfind("--max-us-per-visit", 0) == 0 || a.rfind("--min-visit-percent", 0) == 0;
    });
    if (criteria_given && options.suggest_filter.empty())
        throw UsageError("--max-us-per-visit and --min-visit-percent apply to --suggest-filter FILE only");
    return options;
}

const char* score_usage() {
    return "usage: strata-score <experiment-dir or profile.h5> [--by callpath|region] [--top N]\n"
           "                    [--sort excl|incl|visits] [--csv] [--filter FILE]\n"
           "                    [--suggest-filter FILE [--max-us-per-visit US] [--min-visit-percent P]]\n"
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
           "  --filter FILE    mark (flt '-') the functions this filter file (Score-P syntax,\n"
           "                   as STRATA_FILTERING_FILE reads it) would leave out, and sum them\n"
           "  --suggest-filter FILE\n"
           "                   write a filter file that leaves out the functions that are short\n"
           "                   and called often: mean inclusive time per visit at most US\n"
           "                   microseconds (--max-us-per-visit, default 1) and at least P % of\n"
           "                   all visits (--min-visit-percent, default 1)\n"
           "  -h, --help       this text\n"
           "\n"
           "Exit status: 0 success, 1 the profile cannot be read or the filter file cannot be\n"
           "written, 2 bad arguments or a filter file that cannot be read.\n";
}

}  // namespace strata::analysis
