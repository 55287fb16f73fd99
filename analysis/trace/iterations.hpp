// SPDX-License-Identifier: BSD-3-Clause
// Iterations cut by a key region (METRICS.md "Iterations (DLProf)").
//
//   key region     --key-region NAME, else the region defined with
//                  OTF2_REGION_FLAG_PHASE (the user API's phase; the CUDA
//                  adapter flags the NVTX ranges it records as phases the same
//                  way), else none: the whole run is one iteration and the
//                  candidates are listed, the most regularly recurring first
//   boundaries     on each rank the ends k_1 < ... < k_N of the key region's
//                  instances on its first CPU thread that calls it (normally
//                  the master thread); B_n = max over ranks of the
//                  n-th end (DLProf's multi-GPU rule; counts that differ are
//                  aligned by index up to the smallest count, and said so)
//   intervals      [T0, B_1), [B_1, B_2), ..., [B_N, T1]: N + 1 iterations,
//                  T0 / T1 the first / last timestamp of the trace
//   per rank       iteration n of rank r: from its (n-1)-th to its n-th end
//   flags          |duration - median| > outlier_tolerance * median: an
//                  outlier; outliers before the first regular iteration are
//                  warm-up; the stable range is the longest run of regular
//                  iterations (the first on ties)
//
// Every analysis rank computes the same plan from the same exchanged
// records, so the restriction window (--iter-start/--iter-stop) is known
// everywhere before the wait states and GPU times are charged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/trace_definitions.hpp"
#include "trace/trace_records.hpp"

namespace strata::analysis::trace {

/// Relative distance from the median duration above which an iteration is an outlier.
inline constexpr double outlier_tolerance = 0.2;

/// What the iterations were asked for (strata-analyze's options).
struct IterationOptions {
    std::string key_region;       ///< --key-region; "" : the phase-flagged region, if any
    std::int64_t start = -1;      ///< --iter-start, -1: from the first
    std::int64_t stop = -1;       ///< --iter-stop (inclusive), -1: to the last
    std::size_t candidates = 10;  ///< candidate regions listed when there is no key region
};

/// The key region chosen from the definitions (before the replay).
struct KeyChoice {
    std::vector<char> is_key;               ///< per region reference
    std::string name;                       ///< "" : none
    std::string how;                        ///< "--key-region", "phase flag"
    bool unknown = false;                   ///< --key-region names no region of the trace
    std::vector<std::string> other_phases;  ///< phase-flagged regions not chosen
};

KeyChoice choose_key_region(const TraceDefinitions& definitions, const IterationOptions& options);

/// One candidate key region.
struct Candidate {
    std::string name;
    std::uint64_t min_calls = 0, max_calls = 0;  ///< per rank, over the ranks that call it
    std::size_t ranks = 0;                       ///< ranks that call it
    Ticks first = 0;                             ///< first Enter on any rank
    Ticks last = 0;                              ///< last Enter on any rank
    /// Its calls are spread over at least half of the run (last - first >= (T1 - T0) / 2), as a
    /// step's are; listed before the others.
    bool spans_run = false;
    /// The times between consecutive calls (on each location): their sums, and their standard
    /// deviation over their mean, how regularly it recurs (-1: unknown, one call per location).
    std::uint64_t gaps = 0;
    double gap_sum = 0, gap_squares = 0;
    double variation = -1;
};

/// The plan every analysis rank agrees on.
struct IterationPlan {
    KeyChoice key;
    Ticks begin = 0, end = 0;              ///< T0, T1
    std::vector<std::uint32_t> ranks;      ///< measured ranks with a CPU location read
    std::vector<std::vector<Ticks>> ends;  ///< per rank (as `ranks`): key ends, sorted
    std::size_t instances = 0;             ///< aligned instances N (iterations: N + 1)
    bool counts_differ = false;
    std::uint64_t min_count = 0, max_count = 0;
    std::vector<Ticks> bounds;         ///< T0, B_1 .. B_N, T1
    std::int64_t first = 0, last = 0;  ///< the iterations aggregated (inclusive)
    bool restricted = false;           ///< --iter-start/--iter-stop given
    Ticks window_begin = INT64_MIN, window_end = INT64_MAX;
    std::string problem;                ///< a usage problem (unknown region, range beyond the iterations)
    std::vector<Candidate> candidates;  ///< on analysis rank 0 only
    /// The trace has functions of compiler instrumentation (built with the strata wrapper):
    /// the advice does not tell to build with it.
    bool instrumented = false;
    std::size_t iterations() const { return bounds.size() < 2 ? 0 : bounds.size() - 1; }
};

/// This share's iteration records for analysis rank `to` (rank 0 also gets the visit counts).
std::string iteration_box(const ShareRecords& records, bool with_visits);

/// The plan from every analysis rank's box.
IterationPlan make_plan(const KeyChoice& key, const std::vector<std::string>& boxes,
                        const TraceDefinitions& definitions, const IterationOptions& options);

/// One row of iterations.csv.
struct IterationRow {
    std::size_t index = 0;
    Ticks begin = 0, end = 0;
    std::vector<Ticks> rank_times;  ///< as IterationPlan::ranks
    std::size_t slowest = 0;        ///< index into the ranks
    Ticks spread = 0;               ///< max - min of rank_times
    bool outlier = false, warmup = false, aggregated = true, stable = false;
    std::size_t gpus = 0;                  ///< GPUs with figures for this iteration (0: none)
    Ticks gpu_busy = 0, gpu_busy_max = 0;  ///< their busy time summed, and the largest
    std::string least_busy_gpu;            ///< "GPU d of rank r"
};

/// The iteration report (analysis rank 0).
struct IterationReport {
    IterationPlan plan;
    std::vector<IterationRow> rows;
    double mean_s = 0, stddev_s = 0, median_s = 0;  ///< over the aggregated iterations (median: all)
    std::int64_t stable_first = -1, stable_last = -1;
    std::uint64_t timer_resolution = 1;
    double seconds(Ticks ticks) const {
        return static_cast<double>(ticks) / static_cast<double>(timer_resolution);
    }
};

IterationReport iteration_report(const IterationPlan& plan, std::uint64_t timer_resolution);

/// Adds the GPU busy time of each device per iteration (GpuReport::iterations, by rank and device).
struct DeviceIterations;
void add_gpu_iterations(IterationReport& report, const std::vector<DeviceIterations>& devices);

/// iterations.csv and iterations.json.
std::string iterations_csv(const IterationReport& report);
std::string iterations_json(const IterationReport& report);
/// The lines of the text summary and of summary.csv.
std::string iterations_text(const IterationReport& report);
std::string iterations_summary_csv(const IterationReport& report);

/// "unknown key region ... candidates: ..." for exit status 2.
std::string unknown_key_message(const IterationReport& report);

}  // namespace strata::analysis::trace
