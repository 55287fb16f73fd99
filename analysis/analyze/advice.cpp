// SPDX-License-Identifier: BSD-3-Clause
// The findings of the advice (see advice.hpp).
#include "analyze/advice.hpp"

#include <algorithm>
#include <cstdio>

#include "analyze/report_format.hpp"

namespace strata::analysis {
namespace {

/// A rate in millions with one decimal: "4.2".
std::string millions(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value / 1e6);
    return text;
}

/// A rank's time on a region or call path as the reports hold it: the mean over
/// its CPU threads.  For a rank of one thread that is its time; for one of
/// several the text says so and gives the sum too, which the program's own
/// timer on that rank would show for work on one thread: "4 s per thread, 8 s
/// summed over its 2 CPU threads".
std::string rank_time(const AnalysisResult& result, std::int64_t rank, double mean_s) {
    const std::int64_t threads = result.threads_of(rank);
    if (threads <= 1) return text_seconds(mean_s);
    return text_seconds(mean_s) + " per thread, " + text_seconds(mean_s * static_cast<double>(threads)) +
           " summed over its " + std::to_string(threads) + " CPU threads";
}

/// "on average", or for ranks of several threads "per CPU thread on average".
std::string on_average(const AnalysisResult& result) {
    return result.threaded() ? "per CPU thread on average" : "on average";
}

/// "rank 3 (4 s)", "ranks 3 (4 s), 0 (2.5 s)": with `result`, the times are
/// per-thread means (rank_time()); without, they are the rank's whole figure.
std::string rank_list(const std::vector<std::pair<std::int64_t, double>>& ranks,
                      const AnalysisResult* result = nullptr) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(ranks[i].first) + " (" +
                (result != nullptr ? rank_time(*result, ranks[i].first, ranks[i].second)
                                   : text_seconds(ranks[i].second)) +
                ")";
    }
    return text;
}

/// The slowest ranks above the mean (high = true) or the fastest below it.
std::vector<std::pair<std::int64_t, double>> outliers(const RowResult& row, bool high) {
    std::vector<std::pair<std::int64_t, double>> ranks;
    for (std::size_t i = 0; i < extreme_count; ++i) {
        const std::int64_t rank = high ? row.extremes.high_rank[i] : row.extremes.low_rank[i];
        const double value = seconds(high ? row.extremes.high_value[i] : row.extremes.low_value[i]);
        if (rank < 0) break;
        if (high ? value > row.mean_s : value < row.mean_s) ranks.emplace_back(rank, value);
    }
    return ranks;
}

/// The ranks with the largest values, largest first (at most extreme_count).
std::vector<std::pair<std::int64_t, double>> largest(const RowResult& row) {
    std::vector<std::pair<std::int64_t, double>> ranks;
    for (std::size_t i = 0; i < extreme_count && row.extremes.high_rank[i] >= 0; ++i)
        ranks.emplace_back(row.extremes.high_rank[i], seconds(row.extremes.high_value[i]));
    return ranks;
}

std::vector<std::int64_t> rank_numbers(const std::vector<std::pair<std::int64_t, double>>& ranks) {
    std::vector<std::int64_t> numbers;
    numbers.reserve(ranks.size());
    for (const auto& r : ranks) numbers.push_back(r.first);
    return numbers;
}

/// Above the threshold, more than one rank, and worth at least
/// imbalance_significance of `reference` (max_p U_p or R).
bool significant(const RowResult& row, double reference, const AdviceOptions& options) {
    return !row.single_participant && row.imbalance > options.imbalance_threshold && reference > 0 &&
           row.saved_s >= imbalance_significance * reference;
}

/// What a class-share finding says: its subject and the usual cures.
struct ClassAdvice {
    TimeClass time_class;
    const char* kind;
    const char* subject;  ///< "MPI takes", ...
    const char* cure;
};

constexpr ClassAdvice class_advice[] = {
    {TimeClass::mpi, "mpi_share", "MPI takes ",
     "Where ranks wait for each other (see the imbalance findings) the cure is balance, otherwise fewer or "
     "larger messages."},
    {TimeClass::io, "io_share", "File I/O takes ",
     "That is reading and writing files (MPI-IO), not communication: write less often or less, use "
     "collective I/O (MPI_File_write_all, MPI_File_read_all, ...) with larger requests instead of many "
     "independent ones, and tune the MPI-IO hints (cb_nodes, cb_buffer_size) and the file system's "
     "striping."},
    {TimeClass::openmp, "openmp_share", "OpenMP synchronisation takes ",
     "The threads wait there for each other (the barriers at the end of parallel regions and loops, "
     "critical sections, locks, taskwait): balance the iterations among the threads (schedule(dynamic) or "
     "guided), make parallel regions fewer and larger, leave out barriers the work does not need "
     "(nowait), and keep critical sections short."},
    {TimeClass::gpu_wait, "gpu_wait_share", "The host waits for the GPU in ",
     "The CPU idles there: give it work while the GPU runs (asynchronous copies and launches on streams, "
     "fewer device-wide synchronisations), or move more of the work to the GPU."},
};

/// A class's share of the program time above `threshold` (class_advice), with its largest call paths.
std::optional<Finding> class_share(const AnalysisResult& result, const ClassAdvice& advice, double threshold) {
    const TimeClass time_class = advice.time_class;
    const char* kind = advice.kind;
    const SummaryResult& s = result.summary;
    const std::optional<double> share = s.share(time_class);
    if (!share || *share <= threshold) return std::nullopt;
    std::vector<const RowResult*> rows;
    for (const RowResult& row : result.callpaths)
        if (row.time_class == time_class) rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(), [](const RowResult* a, const RowResult* b) {
        if (a->total_s != b->total_s) return a->total_s > b->total_s;
        return a->name < b->name;
    });
    std::string top;
    for (std::size_t i = 0; i < rows.size() && i < 3; ++i)
        top += std::string(i > 0 ? ", " : "") + display_name(rows[i]->name) + " (" + text_seconds(rows[i]->total_s) +
               ")";
    const double class_s = s.class_s[static_cast<std::size_t>(time_class)];
    Finding f{kind,      rows.empty() ? "" : rows[0]->region, rows.empty() ? "" : rows[0]->name, {}, kind, *share,
              threshold, class_s,                             "",                                 *share};
    f.message = std::string(advice.subject) + text_percent(*share) + " of the program's time (above " +
                text_percent(threshold) + "): " + text_seconds(class_s) + " of " + text_seconds(s.program_s) +
                " summed over all CPU threads" + (s.include_mpi_init ? "" : ", MPI_Init/MPI_Finalize apart") +
                ". Most of it in " + top + ". " + advice.cure;
    return f;
}

/// "in 'compute' (call path main/compute)" or "in 'compute'" for a root call path of that name
/// (C++ names shortened, display_name(); advice.csv has the full ones in its columns).
std::string where(const RowResult& row) {
    std::string text = "'" + display_name(row.region) + "'";
    if (row.name != row.region) text += " (call path " + display_name(row.name) + ")";
    return text;
}

Finding load_imbalance(const RowResult& row, const AnalysisResult& result, const AdviceOptions& options) {
    const SummaryResult& s = result.summary;
    const auto slow = outliers(row, true);
    Finding f{"load_imbalance",
              row.region,
              row.name,
              rank_numbers(slow),
              "imbalance",
              row.imbalance,
              options.imbalance_threshold,
              row.saved_s,
              "",
              std::nullopt};
    f.message = "Load imbalance in " + where(row) + ": the " + std::to_string(row.ranks) +
                " ranks that run it spend " + text_seconds(row.mean_s) + " there " + on_average(result) +
                ", rank " + std::to_string(row.rank_at_max) + " spends " +
                rank_time(result, row.rank_at_max, row.max_s) +
                " (imbalance (max - mean) / max = " + text_percent(row.imbalance) + ", above " +
                text_percent(options.imbalance_threshold) + "). Perfect balance would save " +
                text_seconds(row.saved_s) + ", " + text_percent(row.saved_s / s.pop.max_useful_s) +
                " of the slowest rank's useful time" +
                (s.run_s > 0 ? " and " + text_percent(row.saved_s / s.run_s) + " of the run time R" : "") +
                ". The slowest: " + rank_list(slow, &result) + ". Look at how the work of '" + display_name(row.region) +
                "' is divided among the ranks.";
    if (s.run_s > 0) f.stake = row.saved_s / s.run_s;
    return f;
}

/// A call that every rank of a communicator or team enters and that waits
/// for the last one: collectives and barriers.
bool waits_for_everyone(RegionRole role) {
    switch (role) {
        case RegionRole::barrier:
        case RegionRole::implicit_barrier:
        case RegionRole::coll_one2all:
        case RegionRole::coll_all2one:
        case RegionRole::coll_all2all:
        case RegionRole::coll_other:
            return true;
        default:
            return false;
    }
}

Finding wait_imbalance(const RowResult& row, const AnalysisResult& result, const AdviceOptions& options) {
    const SummaryResult& s = result.summary;
    // In a collective or barrier the ranks that wait least are the ones the
    // others wait for; elsewhere (point-to-point, waits) the ranks that wait
    // most are the ones to look at, with their partners.
    const bool collective = waits_for_everyone(row.role);
    const auto ranks = outliers(row, !collective);
    const std::string paradigm = row.time_class == TimeClass::openmp ? "OpenMP" : "MPI";
    Finding f{"wait_imbalance",
              row.region,
              row.name,
              rank_numbers(ranks),
              "imbalance",
              row.imbalance,
              options.imbalance_threshold,
              row.saved_s,
              "",
              std::nullopt};
    f.message = "Time in " + paradigm + " " + where(row) +
                " differs between ranks: " + text_seconds(row.mean_s) + " " + on_average(result) + ", " +
                rank_time(result, row.rank_at_max, row.max_s) + " on rank " + std::to_string(row.rank_at_max) +
                ", " + rank_time(result, row.rank_at_min, row.min_s) + " on rank " +
                std::to_string(row.rank_at_min) + " (imbalance " +
                text_percent(row.imbalance) + ", above " + text_percent(options.imbalance_threshold) + "; " +
                text_seconds(row.saved_s) + " = " + text_percent(row.saved_s / s.run_s) + " of R). ";
    if (collective)
        f.message +=
            "In a collective call the ranks that spend the least time usually arrive last, and the others "
            "wait for them: " +
            rank_list(ranks, &result) + ". Look at the work they do before it.";
    else
        f.message += "The ranks that spend the most time here wait for their partners: " + rank_list(ranks, &result) +
                     ". Look at the ranks they communicate with and the work those do before it.";
    if (s.run_s > 0) f.stake = row.saved_s / s.run_s;
    return f;
}

}  // namespace

std::vector<Finding> advise(const AnalysisResult& result, const AdviceOptions& options) {
    const SummaryResult& s = result.summary;
    std::vector<Finding> findings;

    for (const RowResult& row : result.callpaths)
        if (row.time_class == TimeClass::computation && significant(row, s.pop.max_useful_s, options))
            findings.push_back(load_imbalance(row, result, options));
    for (const RowResult& row : result.callpaths)
        if ((row.time_class == TimeClass::mpi || row.time_class == TimeClass::openmp) &&
            significant(row, s.run_s, options))
            findings.push_back(wait_imbalance(row, result, options));

    for (const ClassAdvice& advice : class_advice) {
        const double threshold = advice.time_class == TimeClass::mpi      ? options.mpi_threshold
                                 : advice.time_class == TimeClass::io     ? options.io_threshold
                                 : advice.time_class == TimeClass::openmp ? options.openmp_threshold
                                                                          : options.gpu_wait_threshold;
        if (std::optional<Finding> f = class_share(result, advice, threshold)) findings.push_back(std::move(*f));
    }

    // Threads idle while their rank runs: for OpenMP, the work outside parallel regions.
    if (s.thread_s > 0 && s.idle_s >= options.idle_threshold * s.thread_s) {
        std::vector<std::pair<std::int64_t, double>> idle;
        for (const RankResult& rank : result.ranks)
            if (rank.idle_s > 0) idle.emplace_back(rank.rank, rank.idle_s);
        std::sort(idle.begin(), idle.end(),
                  [](const auto& a, const auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
        if (idle.size() > 3) idle.resize(3);
        const double share = s.idle_s / s.thread_s;
        Finding f{"idle_threads", "", "", rank_numbers(idle), "idle_share_of_thread_time", share,
                  options.idle_threshold, s.idle_s, "", share};
        f.message = "The CPU threads were in no measured region for " + text_seconds(s.idle_s) + " of " +
                    text_seconds(s.thread_s) + " of thread time (" + text_percent(share) + ", above " +
                    text_percent(options.idle_threshold) +
                    "; thread time: each rank's wall time times its number of CPU threads, summed over the "
                    "ranks), most on " + rank_list(idle) +
                    ": while a rank's busiest thread worked, its other threads waited. For OpenMP threads that is "
                    "the time outside parallel regions, where the work runs on one thread: parallelise the work "
                    "the busiest thread does between parallel regions, or use fewer threads. (Threads of the "
                    "program's own that wait by design, for I/O or as helpers, count here too.)";
        findings.push_back(std::move(f));
    }

    // The program region (a root call path of role artificial, paradigm user;
    // experiment-format.md): the program's work outside every measured region.
    // Several programs of one job (MPMD) have one each: their time together.
    const double computation = s.class_s[static_cast<std::size_t>(TimeClass::computation)];
    const RowResult* largest_program = nullptr;
    std::string programs;
    std::size_t program_count = 0;
    double unmeasured = 0;
    for (const RowResult& row : result.callpaths) {
        if (row.role != RegionRole::artificial || row.paradigm != "user" || row.name != row.region) continue;
        unmeasured += row.total_s;
        programs += (programs.empty() ? "'" : ", '") + row.region + "'";
        ++program_count;
        if (largest_program == nullptr || row.total_s > largest_program->total_s) largest_program = &row;
    }
    if (largest_program != nullptr && computation > 0 && unmeasured >= options.unmeasured_threshold * computation) {
        const double share = unmeasured / computation;
        Finding f{"unmeasured_computation",
                  largest_program->region,
                  largest_program->name,
                  rank_numbers(largest(*largest_program)),
                  "share_of_computation",
                  share,
                  options.unmeasured_threshold,
                  unmeasured,
                  "",
                  std::nullopt};
        f.message = text_percent(share) + " of the computation (" + text_seconds(unmeasured) + " of " +
                    text_seconds(computation) + " summed over all CPU threads) is in the program region" +
                    (program_count > 1 ? "s " : " ") + programs +
                    " itself, outside every measured region: the program was measured without function "
                    "instrumentation (strata-preload, or strata --no-compiler), so the figures above cannot say "
                    "which code it is. Build it with the strata compiler wrapper (strata mpicc ...), or mark "
                    "its phases with the user API, and measure again to see where that time goes.";
        findings.push_back(std::move(f));
    }

    // Functions whose calls are too short to measure: their mean inclusive time per call is at
    // most 1 us and each has at least 1 % of all visits (strata-score --suggest-filter's rule).
    WideSum all_visits = 0;
    for (const RowResult& row : result.regions) all_visits += row.visits;
    std::vector<const RowResult*> frequent;
    WideSum frequent_visits = 0;
    for (const RowResult& row : result.regions) {
        const double visits = static_cast<double>(row.visits);
        if (row.paradigm != "compiler" || visits == 0 || visits < 0.01 * static_cast<double>(all_visits)) continue;
        if (!(row.inclusive_total_s / visits <= 1e-6)) continue;
        frequent.push_back(&row);
        frequent_visits += row.visits;
    }
    const double rate = s.thread_s > 0 ? static_cast<double>(frequent_visits) / s.thread_s : 0.0;
    if (!frequent.empty() && rate >= options.filter_visit_rate) {
        std::stable_sort(frequent.begin(), frequent.end(),
                         [](const RowResult* a, const RowResult* b) { return a->visits > b->visits; });
        std::string names;
        for (std::size_t i = 0; i < frequent.size() && i < 3; ++i)
            names += (i > 0 ? ", " : "") + std::string("'") + display_name(frequent[i]->region) + "'";
        if (frequent.size() > 3) names += ", ...";
        Finding f{"short_frequent_functions", frequent.front()->region, "", {}, "visits_per_thread_second", rate,
                  options.filter_visit_rate, std::nullopt, "", std::nullopt};
        f.message = std::to_string(frequent.size()) + (frequent.size() == 1 ? " function" : " functions") + " (" +
                    names + ") of at most 1 us per call (inclusive, on average) made " + format_wide(frequent_visits) +
                    " of the " + format_wide(all_visits) + " visits (" +
                    text_percent(static_cast<double>(frequent_visits) / static_cast<double>(all_visits)) + "), " +
                    millions(rate) +
                    " million per second of thread time: each measured call costs Strata tens of nanoseconds, "
                    "so these calls slow the run and inflate their callers' time. strata-score "
                    "--suggest-filter FILE on this experiment writes a filter file for them; measure again with "
                    "STRATA_FILTERING_FILE=FILE (or build with strata --instrument-filter=FILE).";
        findings.push_back(std::move(f));
    }

    for (const RowResult& row : result.regions) {
        if (row.region != trace_buffer_flush_region || row.visits == 0) continue;
        const double share = s.run_s > 0 ? row.max_s / s.run_s : 0.0;
        Finding f{"trace_buffer_flush",
                  row.region,
                  "",
                  rank_numbers(largest(row)),
                  "flush_share_of_run_time",
                  share,
                  0.0,
                  row.total_s,
                  "",
                  share};
        f.message =
            "Strata flushed its trace buffers " + format_wide(row.visits) + " times on " +
            std::to_string(row.ranks) + (row.ranks == 1 ? " rank" : " ranks") + ", for " +
            text_seconds(row.total_s) + " in total and up to " + rank_time(result, row.rank_at_max, row.max_s) +
            " on rank " +
            std::to_string(row.rank_at_max) + " (" + text_percent(share) +
            " of the run time R). That time is Strata writing to disk, not the program: the call paths "
            "around the flushes are disturbed. Raise STRATA_TOTAL_MEMORY so that the buffers hold the "
            "whole run (strata-score on this experiment estimates the value).";
        findings.push_back(std::move(f));
    }

    if (s.dropped_callpaths > 0) {
        Finding f{"dropped_callpaths",
                  "",
                  "",
                  {},
                  "dropped_callpaths",
                  static_cast<double>(s.dropped_callpaths),
                  0.0,
                  std::nullopt,
                  "",
                  std::nullopt};
        f.message =
            "The profile is incomplete: " + std::to_string(s.dropped_callpaths) +
            " call paths were not recorded because the profile ran out of memory; their time is counted "
            "in their parent call paths. Raise STRATA_TOTAL_MEMORY and measure again.";
        findings.push_back(std::move(f));
    }
    return findings;
}

std::size_t rank_findings(std::vector<Finding>& findings, double min_stake) {
    const std::size_t before = findings.size();
    findings.erase(std::remove_if(findings.begin(), findings.end(),
                                  [&](const Finding& f) { return f.stake && *f.stake < min_stake; }),
                   findings.end());
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        if (a.stake.has_value() != b.stake.has_value()) return a.stake.has_value();
        return a.stake && *a.stake > *b.stake;
    });
    return before - findings.size();
}

}  // namespace strata::analysis
