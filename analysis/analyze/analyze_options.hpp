// SPDX-License-Identifier: BSD-3-Clause
// The command line of strata-analyze: the experiment, where the reports go,
// and the thresholds of the advice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::analysis {

/// Everything strata-analyze was asked to do.
struct AnalyzeOptions {
    std::string experiment;            ///< the experiment directory
    std::string output;                ///< --output; empty: <experiment>/analysis
    bool force = false;                ///< --force: overwrite reports written before
    double imbalance_threshold = 0.1;  ///< --imbalance-threshold: (max - mean) / max above it is advice
    double mpi_threshold = 0.2;        ///< --mpi-threshold: MPI share of the time above it is advice
    double io_threshold = 0.1;         ///< --io-threshold: file I/O share of the time above it is advice
    double openmp_threshold = 0.2;     ///< --openmp-threshold: OpenMP synchronisation share above it is advice
    double min_finding_share = 0.01;   ///< --min-finding-share: findings with less of the run time at stake are left out
    double wait_threshold = 0.1;       ///< --wait-threshold: a wait state's share of the MPI time above it is advice
    std::uint64_t timeline_events = 1000000;  ///< --timeline-events: slices in trace.json at most; 0: no trace.json
    std::size_t top = 10;              ///< --top: regions in the summary, findings per kind in the advice
    bool include_mpi_init = false;  ///< --include-mpi-init: MPI_Init/MPI_Finalize count as run time and MPI
    bool cube = true;               ///< false with --no-cube: profile.cubex is not written
    bool help = false;              ///< --help: print the usage and stop
    std::string key_region;         ///< --key-region: the region that cuts iterations ("" : a phase, if any)
    std::int64_t iter_start = -1;   ///< --iter-start: first iteration aggregated (-1: the first)
    std::int64_t iter_stop = -1;    ///< --iter-stop: last iteration aggregated, inclusive (-1: the last)
    double gpu_idle_threshold = 0.2;  ///< --gpu-idle-threshold: a GPU idle above it is advice
    double gpu_gap_threshold = 0.5;   ///< --gpu-gap-threshold: idle stretches longer (s) are gaps
    std::vector<std::string> tensor_core_patterns;  ///< --tensor-core-patterns; empty: DLProf's list
    std::vector<std::string> tc_eligible_patterns;  ///< --tc-eligible-patterns; empty: op_analysis.hpp's list
    // The step trace's findings (trace/step_trace.hpp): shares above them are advice.
    double step_gap_threshold = 0.2;        ///< --step-gap-threshold: a rank's gap / iteration time
    double short_kernel_threshold = 10e-6;  ///< --short-kernel-threshold: kernels shorter (s) are short
    double short_kernel_share = 0.5;        ///< --short-kernel-share: short kernels / all kernels
    double copy_share_threshold = 0.2;      ///< --copy-share-threshold: HtoD + DtoH / GPU busy time
    double step_comm_threshold = 0.3;       ///< --step-comm-threshold: a rank's communication / iteration
    bool decode_directly = true;  ///< --event-reader direct (default); otf2: event files through OTF2's reader
    bool logical_clock = true;    ///< false: --no-logical-clock (trace/logical_clock.hpp)
    std::vector<std::uint32_t> timeline_ranks;  ///< --timeline-ranks (empty: the first ranks)
    double timeline_window_begin = -1, timeline_window_end = -1;  ///< --timeline-window (-1: chosen)

    /// The directory the reports go to.
    std::string output_directory() const;
};

/// A command line that cannot be followed; what() says why.
class AnalyzeUsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Parses the arguments after the program name (`--opt value` or
/// `--opt=value`).  Throws AnalyzeUsageError.
AnalyzeOptions parse_analyze_options(const std::vector<std::string>& args);

/// The usage text, ending in a newline.
const char* analyze_usage();

}  // namespace strata::analysis
