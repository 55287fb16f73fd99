// SPDX-License-Identifier: BSD-3-Clause
// The advice: findings in plain language, each with the numbers behind it
// and where to look, from what the profile supports.
//
//   kind                 when
//   load_imbalance       a computation call path: imbalance > --imbalance-threshold
//                        and saved time (max - mean) >= 1 % of max_p U_p, the useful
//                        work whose balance it spoils (it costs a point of LB)
//   wait_imbalance       an MPI or OpenMP call path: imbalance > the threshold and
//                        saved time >= 1 % of the run time R (in a collective the
//                        ranks that wait least arrive last)
//   mpi_share            MPI time (file I/O apart) / program time > --mpi-threshold
//   io_share             file I/O time (MPI-IO) / program time > --io-threshold (10 %)
//   openmp_share         OpenMP synchronisation time / program time > --openmp-threshold (20 %)
//   gpu_wait_share       time the host waits for the GPU (gpu_wait) / program
//                        time > gpu_wait_threshold (20 %)
//   idle_threads         CPU threads in no measured region while their rank's busiest
//                        thread ran (OpenMP threads outside parallel regions): at least
//                        idle_threshold (20 %) of the thread time
//   unmeasured_computation  the program region's own time (the program's work
//                        outside every measured region) is at least half of all
//                        computation: no function instrumentation tells where it goes
//   short_frequent_functions  functions (paradigm compiler) of at most 1 us mean inclusive
//                        time per call and at least 1 % of all visits each were called, together, at
//                        least filter_visit_rate times per second of thread time: their
//                        measurement costs a noticeable part of the run (strata-score
//                        --suggest-filter writes a filter for them)
//   trace_buffer_flush   STRATA_TRACE_BUFFER_FLUSH was entered (Strata wrote its buffers during the run)
//   dropped_callpaths    the profile ran out of memory and folded call paths into their parents
//   measurement_loss     what the measurement wrote into losses/ (measurement_losses.hpp): records
//                        CUPTI dropped, trace records lost for lack of memory, ... with the setting
//
// Call paths inside MPI_Init/MPI_Finalize and Strata's own (measurement)
// call paths never give imbalance findings.  advise() gives the findings in
// the order of the table above, within a kind by saved time, largest first
// (ties by name); rank_findings() then puts the ones with most time at stake
// first and notes on the measurement last, so the same profile always gives
// the same advice.
//
// The stake of a finding is the share of the job's time it concerns, as if
// each rank's time were one column of width R: an imbalance saves max - mean
// on each rank (saved / R); a class share or a wait state is its share of
// the time summed over ranks or threads; a GPU finding its share of the
// GPU's time.  A finding about the measurement itself (no instrumentation,
// short frequent functions, dropped call paths, iterations not found) has
// none: it is a note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis_result.hpp"

namespace strata::analysis {

/// An imbalance finding needs this much to be saved: this share of max_p U_p
/// for a computation call path, of the run time R for MPI or OpenMP.
inline constexpr double imbalance_significance = 0.01;

/// The name of Strata's region for trace buffer flushes.
inline constexpr const char* trace_buffer_flush_region = "STRATA_TRACE_BUFFER_FLUSH";

/// The thresholds of the advice.
struct AdviceOptions {
    double imbalance_threshold = 0.1;
    double min_stake = 0.01;  ///< findings with less at stake are left out (--min-finding-share)
    double mpi_threshold = 0.2;
    double io_threshold = 0.1;
    double openmp_threshold = 0.2;
    double gpu_wait_threshold = 0.2;
    double wait_threshold = 0.1;  ///< a wait state's share of the trace's MPI time (trace/wait_state_report.hpp)
    double unmeasured_threshold = 0.5;  ///< the program region's share of the computation
    double idle_threshold = 0.2;        ///< idle CPU threads' share of the thread time
    /// Visits per second of thread time of short, frequent functions: a measured call costs tens
    /// of nanoseconds (bench/README.md), so a million a second is several percent of the run.
    double filter_visit_rate = 1e6;
};

/// One finding.
struct Finding {
    std::string kind;                 ///< see the table above
    std::string region;               ///< the region concerned, or ""
    std::string callpath;             ///< the call path concerned, or ""
    std::vector<std::int64_t> ranks;  ///< the ranks to look at, most telling first
    std::string
        metric;  ///< what `value` is: imbalance, mpi_share, gpu_wait_share, flush_share_of_run_time, dropped_callpaths
    double value = 0;
    double threshold = 0;
    std::optional<double> time_s;  ///< the time at stake (s): saved, MPI time, flush time
    std::string message;           ///< the finding in words, with its numbers
    /// The share of the job's time at stake (see above); nullopt: a note on the measurement.
    std::optional<double> stake;
};

/// The findings for `result`, in their deterministic order.
std::vector<Finding> advise(const AnalysisResult& result, const AdviceOptions& options);

/// Orders findings by stake, largest first (stable: ties keep their order),
/// notes last, and leaves out those whose stake is below `min_stake`;
/// returns how many it left out.
std::size_t rank_findings(std::vector<Finding>& findings, double min_stake);

}  // namespace strata::analysis
