// SPDX-License-Identifier: BSD-3-Clause
// One analysis rank's contribution and its exact combination (see partial.hpp).
#include "analyze/partial.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "profile/profile_aggregates.hpp"

namespace strata::analysis {

std::int64_t to_ns(double seconds, const Profile& profile, const Metric& metric, std::size_t row,
                   std::size_t column) {
    if (seconds > 0.0 && seconds <= max_cell_seconds) return std::llround(seconds * 1e9);
    if (seconds <= 0.0 && seconds > -1e-6) return 0;
    char value[32];
    std::snprintf(value, sizeof value, "%g", seconds);
    throw ProfileError(profile.path + ": /metrics/" + metric.name + " row " + std::to_string(row) +
                       ", column " + std::to_string(metric.first_column + column) + ": " + value +
                       " is not a valid time");
}

// ---- Extremes -------------------------------------------------------------

Extremes empty_extremes() {
    Extremes e{};
    for (std::size_t i = 0; i < extreme_count; ++i) {
        e.high_value[i] = e.low_value[i] = 0;
        e.high_rank[i] = e.low_rank[i] = -1;
    }
    return e;
}

namespace {

/// Inserts (value, rank) into a list sorted by `before`, keeping extreme_count entries.
template <typename Before>
void insert_sorted(std::int64_t* values, std::int64_t* ranks, std::int64_t value, std::int64_t rank,
                   Before before) {
    std::size_t at = 0;
    while (at < extreme_count && ranks[at] >= 0 && !before(value, rank, values[at], ranks[at])) ++at;
    if (at == extreme_count) return;
    for (std::size_t i = extreme_count - 1; i > at; --i) {
        values[i] = values[i - 1];
        ranks[i] = ranks[i - 1];
    }
    values[at] = value;
    ranks[at] = rank;
}

bool higher(std::int64_t v, std::int64_t r, std::int64_t w, std::int64_t s) {
    return v > w || (v == w && r < s);
}
bool lower(std::int64_t v, std::int64_t r, std::int64_t w, std::int64_t s) {
    return v < w || (v == w && r < s);
}

/// round(sum / count) in integers, halves up; saturates at INT64_MAX.
std::int64_t rounded_mean(WideSum sum, std::size_t count) {
    const WideSum mean = (sum + count / 2) / count;
    return mean > static_cast<WideSum>(std::numeric_limits<std::int64_t>::max())
               ? std::numeric_limits<std::int64_t>::max()
               : static_cast<std::int64_t>(mean);
}

std::int64_t saturate(WideSum value) {
    return value > static_cast<WideSum>(std::numeric_limits<std::int64_t>::max())
               ? std::numeric_limits<std::int64_t>::max()
               : static_cast<std::int64_t>(value);
}

}  // namespace

void add_extreme(Extremes& e, std::int64_t value, std::int64_t rank) {
    insert_sorted(e.high_value, e.high_rank, value, rank, higher);
    insert_sorted(e.low_value, e.low_rank, value, rank, lower);
}

void merge_extremes(Extremes& into, const Extremes& from) {
    for (std::size_t i = 0; i < extreme_count; ++i) {
        if (from.high_rank[i] >= 0)
            insert_sorted(into.high_value, into.high_rank, from.high_value[i], from.high_rank[i], higher);
        if (from.low_rank[i] >= 0)
            insert_sorted(into.low_value, into.low_rank, from.low_value[i], from.low_rank[i], lower);
    }
}

// ---- RowStatistics --------------------------------------------------------

RowStatistics::RowStatistics(std::size_t rows)
    : ranks(rows, 0),
      sum(rows, 0),
      sum_squares(rows, 0),
      visits(rows, 0),
      thread_total(rows, 0),
      thread_inclusive(rows, 0),
      max(rows, ValueRank{-1, INT_MAX}),
      min(rows, ValueRank{LONG_MAX, INT_MAX}),
      extremes(rows, empty_extremes()) {}

void RowStatistics::add(std::size_t row, std::int64_t value_ns, std::uint32_t rank) {
    const auto r = static_cast<int>(rank);
    ++ranks[row];
    sum[row] += static_cast<WideSum>(value_ns);
    sum_squares[row] += static_cast<WideSum>(value_ns) * static_cast<WideSum>(value_ns);
    if (value_ns > max[row].value || (value_ns == max[row].value && r < max[row].rank))
        max[row] = {value_ns, r};
    if (value_ns < min[row].value || (value_ns == min[row].value && r < min[row].rank))
        min[row] = {value_ns, r};
    add_extreme(extremes[row], value_ns, rank);
}

void RowStatistics::merge(const RowStatistics& other) {
    for (std::size_t row = 0; row < size(); ++row) {
        ranks[row] += other.ranks[row];
        sum[row] += other.sum[row];
        sum_squares[row] += other.sum_squares[row];
        visits[row] += other.visits[row];
        thread_total[row] += other.thread_total[row];
        thread_inclusive[row] += other.thread_inclusive[row];
        const ValueRank& high = other.max[row];
        if (high.value > max[row].value || (high.value == max[row].value && high.rank < max[row].rank))
            max[row] = high;
        const ValueRank& low = other.min[row];
        if (low.value < min[row].value || (low.value == min[row].value && low.rank < min[row].rank))
            min[row] = low;
        merge_extremes(extremes[row], other.extremes[row]);
    }
}

// ---- accumulation ---------------------------------------------------------

Partial accumulate_share(const Profile& slice, const RankLayout& layout, const AnalysisShare& share,
                         const CallPathClasses& classes) {
    const std::size_t callpaths = slice.callpaths.size();
    const std::size_t regions = slice.regions.size();
    Partial partial;
    partial.callpaths = RowStatistics(callpaths);
    partial.regions = RowStatistics(regions);
    if (share.rank_count == 0) return partial;

    const Metric& visits = slice.metric("visits");
    const Metric& inclusive = slice.metric("time_inclusive");
    const Metric& exclusive = slice.metric("time_exclusive");
    for (const Metric* m : {&visits, &inclusive, &exclusive}) {
        if (share.first_column < m->first_column ||
            share.first_column + share.column_count > m->first_column + m->columns)
            throw ProfileError(slice.path + ": /metrics/" + m->name +
                               " was not read for the columns analysed here");
    }

    const std::vector<bool> outermost = outermost_of_region(slice, index_call_tree(slice));
    std::vector<WideSum> region_time(regions), region_visits(regions), region_inclusive(regions);
    std::vector<bool> region_taken(regions);
    for (std::size_t i = share.first_rank; i < share.first_rank + share.rank_count; ++i) {
        const MeasuredRank& measured = layout.ranks[i];
        const std::size_t threads = measured.columns.size();
        std::fill(region_time.begin(), region_time.end(), 0);
        std::fill(region_visits.begin(), region_visits.end(), 0);
        std::fill(region_inclusive.begin(), region_inclusive.end(), 0);
        std::fill(region_taken.begin(), region_taken.end(), false);
        std::vector<std::int64_t> thread_total(threads, 0), thread_init(threads, 0);
        std::array<WideSum, time_class_count> class_time{};

        for (std::size_t cp = 0; cp < callpaths; ++cp) {
            WideSum time = 0, count = 0, inclusive_time = 0;
            for (std::size_t t = 0; t < threads; ++t) {
                const std::size_t column = measured.columns[t];
                // Columns relative to each metric's slice (all three were read alike).
                time += static_cast<WideSum>(to_ns(exclusive.at(cp, column - exclusive.first_column), slice,
                                                   exclusive, cp, column - exclusive.first_column));
                count += visits.count_at(cp, column - visits.first_column);
                const std::int64_t incl = to_ns(inclusive.at(cp, column - inclusive.first_column), slice, inclusive,
                                                cp, column - inclusive.first_column);
                inclusive_time += incl;
                if (classes.root[cp]) thread_total[t] += incl;
                if (classes.outermost_init_finalize[cp]) thread_init[t] += incl;
            }
            const CallPath& path = slice.callpaths[cp];
            class_time[static_cast<std::size_t>(classes.time_class[cp])] += time;
            partial.callpaths.thread_total[cp] += time;
            partial.callpaths.visits[cp] += count;
            partial.callpaths.thread_inclusive[cp] += inclusive_time;
            if (outermost[cp] && !path.is_parameter()) region_inclusive[path.region] += inclusive_time;
            const bool taken = time > 0 || count > 0;
            if (taken) partial.callpaths.add(cp, rounded_mean(time, threads), measured.rank);
            region_time[path.region] += time;
            if (!path.is_parameter()) region_visits[path.region] += count;  // as strata-score counts visits
            if (taken) region_taken[path.region] = true;
        }
        for (std::size_t r = 0; r < regions; ++r) {
            partial.regions.thread_total[r] += region_time[r];
            partial.regions.visits[r] += region_visits[r];
            partial.regions.thread_inclusive[r] += region_inclusive[r];
            if (region_taken[r]) partial.regions.add(r, rounded_mean(region_time[r], threads), measured.rank);
        }

        RankRecord record;
        record.rank = measured.rank;
        record.threads = static_cast<std::int64_t>(threads);
        for (std::size_t c = 0; c < time_class_count; ++c) record.class_ns[c] = saturate(class_time[c]);
        for (std::size_t t = 0; t < threads; ++t) {
            record.wall_ns = std::max(record.wall_ns, thread_total[t]);
            record.run_ns =
                std::max(record.run_ns, std::max<std::int64_t>(0, thread_total[t] - thread_init[t]));
        }
        for (std::size_t t = 0; t < threads; ++t) record.idle_ns += record.wall_ns - thread_total[t];
        partial.ranks.push_back(record);
    }
    return partial;
}

void merge_partial(Partial& into, const Partial& from) {
    into.callpaths.merge(from.callpaths);
    into.regions.merge(from.regions);
    into.ranks.insert(into.ranks.end(), from.ranks.begin(), from.ranks.end());
    std::sort(into.ranks.begin(), into.ranks.end(),
              [](const RankRecord& a, const RankRecord& b) { return a.rank < b.rank; });
}

}  // namespace strata::analysis
