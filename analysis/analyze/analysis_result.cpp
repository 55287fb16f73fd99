// SPDX-License-Identifier: BSD-3-Clause
// The report figures from the combined statistics (see analysis_result.hpp).
//
// Every figure is computed from exact integers (nanoseconds and their sums)
// with the same operations on every run, so the same profile always gives
// the same doubles, whatever the number of analysis ranks.
#include "analyze/analysis_result.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "profile/profile_aggregates.hpp"

namespace strata::analysis {

std::int64_t AnalysisResult::threads_of(std::int64_t rank) const {
    for (const RankResult& r : ranks)
        if (r.rank == rank) return r.threads;
    return 0;
}

bool AnalysisResult::threaded() const {
    return std::any_of(ranks.begin(), ranks.end(), [](const RankResult& r) { return r.threads > 1; });
}

double seconds(long double ns) {
    return static_cast<double>(ns / 1e9L);
}

std::optional<double> SummaryResult::share(TimeClass time_class) const {
    if (!(program_s > 0)) return std::nullopt;
    return class_s[static_cast<std::size_t>(time_class)] / program_s;
}

namespace {

/// Population standard deviation from exact sums: sqrt((n*S2 - S1^2) / n^2),
/// exact in 128 bits when it fits, else in long double.
long double standard_deviation(WideSum sum, WideSum sum_squares, std::uint64_t n) {
    if (n == 0) return 0;
    const WideSum limit = std::numeric_limits<WideSum>::max();
    long double variance = 0;
    if (sum <= (WideSum{1} << 63) && sum_squares <= limit / n) {
        const WideSum n_s2 = sum_squares * n, s1_s1 = sum * sum;
        variance =
            n_s2 > s1_s1 ? static_cast<long double>(n_s2 - s1_s1) / (static_cast<long double>(n) * n) : 0;
    } else {
        const long double mean = static_cast<long double>(sum) / n;
        variance = std::max<long double>(0, static_cast<long double>(sum_squares) / n - mean * mean);
    }
    return std::sqrt(variance);
}

std::vector<RowResult> make_rows(const Profile& p, const RowStatistics& stats, RowResult::Level level,
                                 const CallPathClasses& classes, bool include_mpi_init) {
    std::vector<RowResult> rows;
    const std::vector<std::string> names =
        level == RowResult::Level::callpath ? callpath_names(p) : std::vector<std::string>();
    for (std::size_t i = 0; i < stats.size(); ++i) {
        if (stats.ranks[i] == 0) continue;  // no CPU thread took part (e.g. a GPU stream's call path)
        RowResult row;
        row.level = level;
        row.index = i;
        const std::uint32_t region =
            level == RowResult::Level::region ? static_cast<std::uint32_t>(i) : p.callpaths[i].region;
        row.region = p.region_name(region);
        row.name = level == RowResult::Level::region ? row.region : names[i];
        row.paradigm = p.paradigm_names.name(static_cast<std::uint8_t>(p.regions[region].paradigm));
        row.role = p.regions[region].role;
        if (level == RowResult::Level::callpath) {
            row.time_class = classes.time_class[i];
        } else if (!include_mpi_init && is_mpi_init_finalize(p, region)) {
            row.time_class = TimeClass::mpi_init_finalize;
        } else {
            row.time_class = region_time_class(p, region);
        }
        const std::uint64_t n = stats.ranks[i];
        const long double mean_ns = static_cast<long double>(stats.sum[i]) / n;
        const long double max_ns = stats.max[i].value;
        row.ranks = n;
        row.single_participant = n == 1;
        row.min_s = seconds(stats.min[i].value);
        row.max_s = seconds(max_ns);
        row.mean_s = seconds(mean_ns);
        row.stddev_s = seconds(standard_deviation(stats.sum[i], stats.sum_squares[i], n));
        row.rank_at_min = stats.min[i].rank;
        row.rank_at_max = stats.max[i].rank;
        row.saved_s = seconds(max_ns - mean_ns);
        row.imbalance = max_ns > 0 ? static_cast<double>((max_ns - mean_ns) / max_ns) : 0.0;
        row.total_s = seconds(static_cast<long double>(stats.thread_total[i]));
        row.inclusive_total_s = seconds(static_cast<long double>(stats.thread_inclusive[i]));
        row.visits = stats.visits[i];
        row.extremes = stats.extremes[i];
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const RowResult& a, const RowResult& b) {
        if (a.saved_s != b.saved_s) return a.saved_s > b.saved_s;
        if (a.name != b.name) return a.name < b.name;
        return a.index < b.index;
    });
    return rows;
}

/// The INCOMPLETE note a rank that stopped alone leaves in its experiment, as
/// one line (at most 2000 characters); "" without one.
std::string incomplete_note(const std::string& experiment) {
    if (experiment.empty()) return "";
    std::ifstream in(experiment + "/INCOMPLETE");
    if (!in) return "";
    std::string text(2000, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    for (char& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

}  // namespace

AnalysisResult finish_analysis(const Profile& p, const RankLayout& layout, const CallPathClasses& classes,
                               const Partial& combined, const AnalysisContext& context) {
    AnalysisResult result;
    SummaryResult& s = result.summary;
    s.experiment = context.experiment;
    s.strata_version = p.strata_version;
    s.creation_time = p.creation_time;
    s.timer = p.timer;
    s.dropped_callpaths = p.dropped_callpaths;
    s.incomplete = incomplete_note(context.experiment);
    s.ranks = layout.ranks.size();
    s.cpu_threads = layout.cpu_threads;
    s.gpu_streams = layout.gpu_streams;
    s.other_locations = layout.other_locations;
    s.include_mpi_init = context.include_mpi_init;
    s.trace_present = context.trace_present;

    // Per rank (the records arrive ordered by rank), and the POP figures.
    WideSum class_total[time_class_count] = {};
    WideSum useful_sum = 0;
    std::int64_t useful_max = -1, useful_min = std::numeric_limits<std::int64_t>::max();
    std::int64_t run_max = -1, wall_max = -1;
    WideSum idle_total = 0, thread_total = 0;
    for (const RankRecord& record : combined.ranks) {
        RankResult rank;
        rank.rank = record.rank;
        rank.threads = record.threads;
        for (std::size_t c = 0; c < time_class_count; ++c) {
            class_total[c] += static_cast<WideSum>(record.class_ns[c]);
            const std::int64_t per_thread =
                record.threads > 0 ? (record.class_ns[c] + record.threads / 2) / record.threads : 0;
            rank.class_s[c] = seconds(per_thread);
            if (c == static_cast<std::size_t>(TimeClass::computation)) {
                useful_sum += static_cast<WideSum>(per_thread);
                if (per_thread > useful_max) useful_max = per_thread, s.pop.rank_at_max = record.rank;
                if (per_thread < useful_min) useful_min = per_thread, s.pop.rank_at_min = record.rank;
            }
        }
        rank.run_s = seconds(record.run_ns);
        rank.wall_s = seconds(record.wall_ns);
        rank.idle_s = seconds(record.idle_ns);
        idle_total += static_cast<WideSum>(record.idle_ns);
        thread_total += static_cast<WideSum>(record.wall_ns) * static_cast<WideSum>(record.threads);
        if (record.run_ns > run_max) run_max = record.run_ns, s.run_rank = record.rank;
        if (record.wall_ns > wall_max) wall_max = record.wall_ns, s.wall_rank = record.rank;
        result.ranks.push_back(rank);
    }
    std::stable_sort(result.ranks.begin(), result.ranks.end(),
                     [](const RankResult& a, const RankResult& b) { return a.useful_s() > b.useful_s(); });

    WideSum program = 0;
    for (std::size_t c = 0; c < time_class_count; ++c) {
        s.class_s[c] = seconds(static_cast<long double>(class_total[c]));
        if (c != static_cast<std::size_t>(TimeClass::mpi_init_finalize)) program += class_total[c];
    }
    s.program_s = seconds(static_cast<long double>(program));
    s.idle_s = seconds(static_cast<long double>(idle_total));
    s.thread_s = seconds(static_cast<long double>(thread_total));
    s.wall_s = seconds(std::max<std::int64_t>(0, wall_max));
    s.run_s = seconds(std::max<std::int64_t>(0, run_max));

    if (!combined.ranks.empty()) {
        const long double mean_useful = static_cast<long double>(useful_sum) / combined.ranks.size();
        s.pop.mean_useful_s = seconds(mean_useful);
        s.pop.max_useful_s = seconds(useful_max);
        s.pop.min_useful_s = seconds(useful_min);
        if (useful_max > 0) s.pop.load_balance = static_cast<double>(mean_useful / useful_max);
        if (run_max > 0) {
            s.pop.communication_efficiency =
                static_cast<double>(static_cast<long double>(useful_max) / run_max);
            s.pop.parallel_efficiency = static_cast<double>(mean_useful / run_max);
        }
    }

    result.regions =
        make_rows(p, combined.regions, RowResult::Level::region, classes, context.include_mpi_init);
    result.callpaths =
        make_rows(p, combined.callpaths, RowResult::Level::callpath, classes, context.include_mpi_init);
    return result;
}

}  // namespace strata::analysis
