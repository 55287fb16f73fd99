// SPDX-License-Identifier: BSD-3-Clause
// The figures of the reports, computed once on analysis rank 0 from the
// combined statistics: per call path and region (load balance), per rank,
// and the summary with the POP efficiencies.
//
// Definitions (../shared METRICS.md, "POP efficiency metrics" and "Load
// imbalance per call path"), with the choices Strata makes:
//
//   x_p(c)  time of measured rank p on call path c: exclusive time summed over
//           p's CPU threads, divided by their number (whole ns)
//   mean    over the ranks that take part in c (visited it or spent time there)
//   imbalance = (max - mean) / max,  saved = max - mean
//   U_p     x_p summed over the call paths of class computation (useful time)
//   R       max over ranks of the root call paths' inclusive time on the
//           rank's busiest thread, MPI_Init/MPI_Finalize set apart
//   LB = mean_p U_p / max_p U_p,  CommE = max_p U_p / R,  PE = LB x CommE
//           (means over all measured ranks: every rank that has a CPU thread)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/partial.hpp"
#include "analyze/rank_layout.hpp"
#include "analyze/time_classes.hpp"
#include "profile/profile.hpp"

namespace strata::analysis {

/// One row of the load-balance report: a region or a call path.
struct RowResult {
    enum class Level { region, callpath };
    Level level = Level::callpath;
    std::size_t index = 0;  ///< region or call path index in the profile
    std::string name;       ///< the region's name, or the full call path ("main/compute")
    std::string region;     ///< the region's name
    std::string paradigm;   ///< as the file names it
    TimeClass time_class = TimeClass::computation;
    RegionRole role = RegionRole::unknown;  ///< the region's role (collective, barrier, ...)
    std::uint64_t ranks = 0;                ///< ranks taking part
    bool single_participant = false;
    double min_s = 0, mean_s = 0, max_s = 0, stddev_s = 0;  ///< over the ranks taking part
    std::int64_t rank_at_min = -1, rank_at_max = -1;        ///< lowest rank on ties
    double imbalance = 0;                                   ///< (max - mean) / max; 0 when max is 0
    double saved_s = 0;                                     ///< max - mean
    double total_s = 0;                                     ///< exclusive time summed over all CPU threads
    double inclusive_total_s = 0;  ///< inclusive time summed over all CPU threads (per region: recursion once)
    WideSum visits = 0;                                     ///< summed over all CPU threads
    Extremes extremes{};                                    ///< the 3 slowest and 3 fastest ranks (ns)
};

/// One measured rank; class times are per-thread means like U_p.
struct RankResult {
    std::int64_t rank = 0;
    std::int64_t threads = 0;
    double class_s[time_class_count] = {};  ///< by TimeClass; [computation] is U_p
    double run_s = 0;                       ///< its busiest thread's run time (MPI_Init/Finalize apart)
    double wall_s = 0;                      ///< the same with MPI_Init/Finalize
    /// Summed over its CPU threads: the time each was in no measured region
    /// while its busiest thread ran (wall_s minus the thread's own).
    double idle_s = 0;

    double useful_s() const { return class_s[static_cast<std::size_t>(TimeClass::computation)]; }
};

/// The POP efficiencies; nullopt when a denominator is 0.
struct PopFigures {
    double mean_useful_s = 0, max_useful_s = 0, min_useful_s = 0;
    std::int64_t rank_at_max = -1, rank_at_min = -1;
    std::optional<double> load_balance, communication_efficiency, parallel_efficiency;
};

/// The trace part of the summary, rendered by the trace analysis
/// (trace/wait_state_report.hpp); empty when there is no trace.
struct TraceSummary {
    bool analysed = false;
    std::string note;  ///< what was done with the trace, or why it was not read
    std::string text;  ///< lines for summary.txt
    std::string json;  ///< the "wait_states" object of summary.json ("": null)
    std::string csv;   ///< rows for summary.csv
};

/// The whole-run figures.
struct SummaryResult {
    std::string experiment, strata_version, creation_time, timer;
    std::uint64_t dropped_callpaths = 0;
    /// The experiment's INCOMPLETE note (what one rank wrote when it stopped
    /// before the others: MPI_Abort, a signal); "" when there is none.
    std::string incomplete;
    std::size_t ranks = 0, cpu_threads = 0, gpu_streams = 0, other_locations = 0;
    double wall_s = 0, run_s = 0;
    std::int64_t wall_rank = -1, run_rank = -1;  ///< the rank with the longest wall / run time
    double class_s[time_class_count] = {};       ///< exclusive time summed over all CPU threads
    double program_s = 0;                        ///< the same, every class but mpi_init_finalize
    double idle_s = 0;    ///< summed over all ranks' RankResult::idle_s
    double thread_s = 0;  ///< summed over all ranks: CPU threads x wall_s (idle_s included)
    PopFigures pop;
    bool include_mpi_init = false;
    bool trace_present = false;
    TraceSummary trace;

    /// The share of `time_class` in program_s (nullopt when program_s is 0).
    std::optional<double> share(TimeClass time_class) const;
};

/// Everything the reports show.
struct AnalysisResult {
    SummaryResult summary;
    std::vector<RowResult> regions;    ///< by saved time, largest first; ties by name, then index
    std::vector<RowResult> callpaths;  ///< likewise
    std::vector<RankResult> ranks;     ///< by useful time, largest first; ties by rank

    /// The CPU threads of measured rank `rank` (0 when it is not measured).
    std::int64_t threads_of(std::int64_t rank) const;
    /// Some rank has more than one CPU thread: a rank's figure, the mean over
    /// its threads, is then not the time its own timer shows.
    bool threaded() const;
};

/// What finish_analysis() needs to know besides the numbers.
struct AnalysisContext {
    std::string experiment;
    bool include_mpi_init = false;
    bool trace_present = false;
};

/// The report figures from the statistics of every measured rank combined.
AnalysisResult finish_analysis(const Profile& definitions, const RankLayout& layout,
                               const CallPathClasses& classes, const Partial& combined,
                               const AnalysisContext& context);

/// Nanoseconds as seconds.
double seconds(long double ns);

}  // namespace strata::analysis
