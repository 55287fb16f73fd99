// SPDX-License-Identifier: BSD-3-Clause
// The command line of strata-analyze (see analyze_options.hpp).
#include "analyze/analyze_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "cli/command_line.hpp"

namespace strata::analysis {
namespace {

/// A fraction in [0, 1], e.g. "0.1"; `name` is the option, for the message.
double parse_fraction(const std::string& name, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const double fraction = value.empty() ? NAN : std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !(fraction >= 0.0 && fraction <= 1.0))
        throw AnalyzeUsageError(name + " needs a fraction from 0 to 1 (e.g. 0.1 for 10 %), not '" + value +
                                "'");
    return fraction;
}

std::size_t parse_count(const std::string& name, const std::string& value) {
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const unsigned long long n = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE || n == 0)
        throw AnalyzeUsageError(name + " needs a positive number, not '" + value + "'");
    return static_cast<std::size_t>(n);
}

/// An iteration number: 0 or more.
std::int64_t parse_iteration(const std::string& name, const std::string& value) {
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const unsigned long long n = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE || n > static_cast<unsigned long long>(INT32_MAX))
        throw AnalyzeUsageError(name + " needs an iteration number (0, 1, 2, ...), not '" + value + "'");
    return static_cast<std::int64_t>(n);
}

/// A duration in seconds, more than 0.
double parse_seconds(const std::string& name, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const double seconds = value.empty() ? NAN : std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !(seconds > 0.0 && seconds < 1e9))
        throw AnalyzeUsageError(name + " needs a duration in seconds above 0 (e.g. 0.5), not '" + value +
                                "'");
    return seconds;
}

/// "a,b,c" -> {a, b, c}; empty items are refused (`name`: the option, for the message).
std::vector<std::string> parse_patterns(const std::string& value,
                                        const std::string& name = "--tensor-core-patterns") {
    std::vector<std::string> patterns;
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = value.find(',', from);
        const std::string item =
            value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (item.empty() && name != "--tensor-core-patterns")
            throw AnalyzeUsageError(name + " needs a comma-separated list of op name parts "
                                           "(e.g. matmul,linear,conv), not '" + value + "'");
        if (item.empty())
            throw AnalyzeUsageError(
                "--tensor-core-patterns needs a comma-separated list of kernel name parts "
                "(e.g. h884,hmma,xmma_gemm), not '" +
                value + "'");
        patterns.push_back(item);
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    return patterns;
}

/// "0-3,8" -> {0, 1, 2, 3, 8}: ranks and inclusive ranges, comma-separated.
std::vector<std::uint32_t> parse_ranks(const std::string& name, const std::string& value) {
    const std::string usage = name + " needs ranks and ranges of ranks, comma-separated (e.g. 0-3,8), not '" +
                              value + "'";
    std::vector<std::uint32_t> ranks;
    const auto number = [&](const std::string& text) {
        const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) throw AnalyzeUsageError(usage);
        return static_cast<std::uint32_t>(std::strtoul(text.c_str(), nullptr, 10));
    };
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = value.find(',', from);
        const std::string item = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        const std::size_t dash = item.find('-');
        const std::uint32_t first = number(item.substr(0, dash));
        const std::uint32_t last = dash == std::string::npos ? first : number(item.substr(dash + 1));
        if (last < first || last - first >= (1u << 20)) throw AnalyzeUsageError(usage);
        for (std::uint32_t r = first; r <= last; ++r) ranks.push_back(r);
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    return ranks;
}

/// "A:B" in seconds from the trace start, 0 <= A < B.
std::pair<double, double> parse_window(const std::string& name, const std::string& value) {
    const std::size_t colon = value.find(':');
    char* end = nullptr;
    double from = NAN, to = NAN;
    bool good = colon != std::string::npos;
    if (good) {
        const std::string a = value.substr(0, colon), b = value.substr(colon + 1);
        from = a.empty() ? NAN : std::strtod(a.c_str(), &end);
        good = !a.empty() && *end == '\0';
        to = b.empty() ? NAN : std::strtod(b.c_str(), &end);
        good = good && !b.empty() && *end == '\0';
    }
    if (!good || !(from >= 0.0) || !(to > from) || !(to < 1e9))
        throw AnalyzeUsageError(name + " needs a time window A:B in seconds from the trace start, with 0 <= A < B "
                                       "(e.g. 2.5:2.6, the times of trace.json), not '" + value + "'");
    return {from, to};
}

/// Applies `--name value` (or `--name=value`) at args[i]; advances i past the value.
/// The options that take a value.
const std::vector<std::string> kValued = {
    "--output", "--imbalance-threshold", "--mpi-threshold", "--io-threshold", "--openmp-threshold",
    "--min-finding-share", "--top", "--wait-threshold", "--timeline-events", "--key-region", "--iter-start",
    "--iter-stop", "--gpu-idle-threshold", "--tensor-core-patterns", "--gpu-gap-threshold", "--event-reader",
    "--tc-eligible-patterns", "--step-gap-threshold", "--short-kernel-threshold", "--short-kernel-share",
    "--copy-share-threshold", "--step-comm-threshold", "--timeline-ranks", "--timeline-window"};

/// Applies `name` (one of kValued) with `value`.
void apply_value(const std::string& name, const std::string& value, AnalyzeOptions& options) {
    if (name == "--output") {
        if (value.empty()) throw AnalyzeUsageError("--output needs a directory");
        options.output = value;
    }
    if (name == "--imbalance-threshold") options.imbalance_threshold = parse_fraction(name, value);
    if (name == "--mpi-threshold") options.mpi_threshold = parse_fraction(name, value);
    if (name == "--io-threshold") options.io_threshold = parse_fraction(name, value);
    if (name == "--openmp-threshold") options.openmp_threshold = parse_fraction(name, value);
    if (name == "--min-finding-share") options.min_finding_share = parse_fraction(name, value);
    if (name == "--wait-threshold") options.wait_threshold = parse_fraction(name, value);
    if (name == "--timeline-events") {
        options.timeline_events = value == "0" ? 0 : parse_count(name, value);
    }
    if (name == "--timeline-ranks") options.timeline_ranks = parse_ranks(name, value);
    if (name == "--timeline-window") {
        const auto [from, to] = parse_window(name, value);
        options.timeline_window_begin = from;
        options.timeline_window_end = to;
    }
    if (name == "--top") options.top = parse_count(name, value);
    if (name == "--key-region") {
        if (value.empty()) throw AnalyzeUsageError("--key-region needs a region name");
        options.key_region = value;
    }
    if (name == "--iter-start") options.iter_start = parse_iteration(name, value);
    if (name == "--iter-stop") options.iter_stop = parse_iteration(name, value);
    if (name == "--gpu-idle-threshold") options.gpu_idle_threshold = parse_fraction(name, value);
    if (name == "--gpu-gap-threshold") options.gpu_gap_threshold = parse_seconds(name, value);
    if (name == "--tensor-core-patterns") options.tensor_core_patterns = parse_patterns(value);
    if (name == "--tc-eligible-patterns") options.tc_eligible_patterns = parse_patterns(value, name);
    if (name == "--step-gap-threshold") options.step_gap_threshold = parse_fraction(name, value);
    if (name == "--short-kernel-threshold") options.short_kernel_threshold = parse_seconds(name, value);
    if (name == "--short-kernel-share") options.short_kernel_share = parse_fraction(name, value);
    if (name == "--copy-share-threshold") options.copy_share_threshold = parse_fraction(name, value);
    if (name == "--step-comm-threshold") options.step_comm_threshold = parse_fraction(name, value);
    if (name == "--event-reader") {
        if (value != "direct" && value != "otf2")
            throw AnalyzeUsageError("--event-reader needs 'direct' or 'otf2', not '" + value + "'");
        options.decode_directly = value == "direct";
    }
}

}  // namespace

std::string AnalyzeOptions::output_directory() const {
    if (!output.empty()) return output;
    return (std::filesystem::path(experiment) / "analysis").string();
}

AnalyzeOptions parse_analyze_options(const std::vector<std::string>& args) {
    AnalyzeOptions options;
    bool have_experiment = false;
    walk_command_line<AnalyzeUsageError>(
        args, kValued,
        [&](const std::string& arg) {
            if (arg == "-h" || arg == "--help") {
                options.help = true;
            } else if (arg == "--force") {
                options.force = true;
            } else if (arg == "--include-mpi-init") {
                options.include_mpi_init = true;
            } else if (arg == "--no-cube") {
                options.cube = false;
            } else if (arg == "--no-logical-clock") {
                options.logical_clock = false;
            } else {
                return false;
            }
            return true;
        },
        [&](const std::string& name, const std::string& value) { apply_value(name, value, options); },
        [&](const std::string& arg) {
            if (have_experiment)
                throw AnalyzeUsageError("more than one experiment given ('" + options.experiment + "' and '" + arg +
                                        "')");
            options.experiment = arg;
            have_experiment = true;
        });
    if (!have_experiment && !options.help) throw AnalyzeUsageError("no experiment directory given");
    if (options.iter_start >= 0 && options.iter_stop >= 0 && options.iter_stop < options.iter_start)
        throw AnalyzeUsageError("--iter-stop " + std::to_string(options.iter_stop) +
                                " is before --iter-start " + std::to_string(options.iter_start) +
                                " (the range is inclusive: stop >= start)");
    return options;
}

const char* analyze_usage() {
    return "usage: mpirun -np K strata-analyze [options] <experiment-dir>\n"
           "       strata-analyze [options] <experiment-dir>\n"
           "\n"
           "Analyses a Strata experiment with K MPI ranks (any K, 1 included; without mpirun\n"
           "it runs as one rank) and writes the reports summary, loadbalance,\n"
           "loadbalance_ranks, advice and (with a trace) waitstates, iterations and, with GPU\n"
           "streams, gpu, gpu_kernels, ops, op_kernels and step_trace, with GPU metric samples\n"
           "gpu_metrics, as .csv and .json, and summary.txt, which is also printed.\n"
           "With a profile it also writes calltree.json (every metric per call path and location,\n"
           "for report.html's call tree) and profile.cubex, the profile and the wait states for Cube\n"
           "(cube_stat, cube_diff, the Cube GUI), with Score-P's and Scalasca's metric names.\n"
           "\n"
           "  --output DIR               write the reports to DIR (default <experiment-dir>/analysis)\n"
           "  --force                    overwrite reports that exist (otherwise: refuse)\n"
           "  --imbalance-threshold X    advise on call paths whose imbalance (max - mean) / max\n"
           "                             is above X (default 0.1 = 10 %)\n"
           "  --mpi-threshold X          advise when MPI takes more than X of the time (default 0.2)\n"
           "  --io-threshold X           advise when file I/O (MPI-IO) takes more than X of the time\n"
           "                             (default 0.1)\n"
           "  --openmp-threshold X       advise when OpenMP synchronisation takes more than X of the\n"
           "                             time (default 0.2)\n"
           "  --min-finding-share X      leave out findings with less than X of the run time at stake\n"
           "                             (default 0.01); the others come most at stake first\n"
           "  --wait-threshold X         advise on a wait state that takes X of the MPI time\n"
           "                             or more (default 0.1)\n"
           "  --timeline-events N        at most N slices in trace.json, the Perfetto timeline\n"
           "                             written with a trace (default 1000000; 0: none)\n"
           "  --timeline-ranks L         the ranks in report.html's timeline, e.g. 0-3,8 (default: the\n"
           "                             first ranks, up to 128 threads and GPU streams; 512 at most)\n"
           "  --timeline-window A:B      the stretch of the run (seconds from the trace start, as in\n"
           "                             trace.json) whose region instances and messages report.html's\n"
           "                             timeline shows one by one (default: the whole run where they\n"
           "                             fit, else the middle of the run: 20000 instances in all); the\n"
           "                             rest of the run shows what each lane spends its time on\n"
           "  --top N                    regions in the summary, findings per kind (default 10)\n"
           "  --key-region NAME          cut iterations at the ends of region NAME (default: the region\n"
           "                             marked as a phase; without one, candidates are listed)\n"
           "  --iter-start N, --iter-stop M\n"
           "                             aggregate iterations N to M (inclusive): the wait states and\n"
           "                             GPU reports are restricted to them, the profile reports are not\n"
           "  --gpu-idle-threshold X     advise on a GPU idle more than X of its span (default 0.2)\n"
           "  --gpu-gap-threshold S      count idle stretches of a GPU longer than S seconds as gaps\n"
           "                             (default 0.5, as Nsight Systems)\n"
           "  --tensor-core-patterns L   kernel name parts that mark Tensor Core kernels, comma-separated\n"
           "                             (default: DLProf's list, e.g. h884,hmma,xmma_gemm,wgmma)\n"
           "  --tc-eligible-patterns L   op names that may use Tensor Cores: a word of the op's name\n"
           "                             begins with one of L, comma-separated (default: matmul,mm,\n"
           "                             bmm,addmm,baddbmm,addbmm,gemm,linear,conv,einsum,batchmatmul,\n"
           "                             attention); ops.csv flags those whose kernels use none\n"
           "  --step-gap-threshold X     advise when a rank's iteration gap (GPU idle while the host\n"
           "                             prepares the next step) exceeds X of its iteration time (0.2)\n"
           "  --short-kernel-threshold S kernels shorter than S seconds are short (default 1e-05)\n"
           "  --short-kernel-share X     advise when short kernels are more than X of all (default 0.5)\n"
           "  --copy-share-threshold X   advise when HtoD and DtoH copies take more than X of the GPU\n"
           "                             busy time (default 0.2)\n"
           "  --step-comm-threshold X    advise when NCCL kernels and MPI calls take more than X of a\n"
           "                             rank's iteration time (default 0.3)\n"
           "  --include-mpi-init         count MPI_Init and MPI_Finalize as run time and MPI time\n"
           "                             (default: set apart as start-up and shut-down)\n"
           "  --no-cube                  do not write profile.cubex\n"
           "  --no-logical-clock         keep the trace's times where a receive ends before its send\n"
           "                             began or a rank leaves a collective before the rank it waits\n"
           "                             for entered it (default: such times are moved later, as\n"
           "                             Scalasca's controlled logical clock does, and the wait-state\n"
           "                             report says how far)\n"
           "  --event-reader R           how the event files are read: direct (default: decoded\n"
           "                             here, 2-3 times faster) or otf2 (OTF2's own reader,\n"
           "                             which compressed archives always use; the same results)\n"
           "  -h, --help                 this text\n"
           "\n"
           "Exit status: 0 reports written, 1 the experiment cannot be read or the reports\n"
           "cannot be written, 2 bad arguments.\n";
}

}  // namespace strata::analysis
