// SPDX-License-Identifier: BSD-3-Clause
// What one analysis rank contributes: per call path and per region, the
// statistics over its measured ranks, and one record per measured rank.
//
//   profile slice (seconds, doubles)
//        |  every cell converted to whole nanoseconds once (to_ns)
//        v
//   per measured rank p with T_p CPU threads, per call path c:
//        S = sum over p's threads of t_excl(c, thread)    (integer ns)
//        x = round(S / T_p)                                (p's time on c)
//        |  p takes part in c when a thread visited c or spent time there
//        v
//   RowStatistics[c]: ranks += 1, sum += x, sum_squares += x^2,
//        max/min with the rank (MAXLOC/MINLOC semantics), the 3 largest
//        and 3 smallest (value, rank) pairs
//
// Every field combines with an associative, commutative and *exact*
// operation (integer sums, max, min, ordered top-3), so the combined
// statistics are the same whichever analysis rank held which measured rank:
// K = 1, 2, 3 ... give identical numbers.  merge_partial() is the in-process
// form of the MPI reduction in mpi_reduction.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyze/rank_layout.hpp"
#include "analyze/time_classes.hpp"
#include "profile/profile.hpp"

namespace strata::analysis {

/// An exact sum: 128 bits, so that sums of squares of nanoseconds fit.
using WideSum = unsigned __int128;

/// The largest time accepted in one cell of a profile (s): 10^9 s, about 31
/// years.  A larger, negative or NaN time is a damaged profile.
inline constexpr double max_cell_seconds = 1e9;

/// `seconds` as whole nanoseconds (rounded); tiny negative values from
/// floating-point subtraction (above -1 us) count as 0.  Throws
/// ProfileError "<file>: /metrics/<metric> row R, column C: <value> is not a
/// valid time" for anything else outside [0, max_cell_seconds].
std::int64_t to_ns(double seconds, const Profile& profile, const Metric& metric, std::size_t row,
                   std::size_t column);

/// A value with its measured rank, laid out as MPI_LONG_INT (long, int).
struct ValueRank {
    long value;
    int rank;
};

/// The number of largest and smallest values kept per row.
inline constexpr std::size_t extreme_count = 3;

/// The `extreme_count` largest values (largest first) and smallest values
/// (smallest first), ties by lower rank; a rank of -1 marks an empty slot.
struct Extremes {
    std::int64_t high_value[extreme_count];
    std::int64_t high_rank[extreme_count];
    std::int64_t low_value[extreme_count];
    std::int64_t low_rank[extreme_count];
};

/// Extremes with every slot empty.
Extremes empty_extremes();

/// Adds the value of one rank.
void add_extreme(Extremes& extremes, std::int64_t value, std::int64_t rank);

/// Combines `from` into `into` (each rank appears in at most one of them).
void merge_extremes(Extremes& into, const Extremes& from);

/// Statistics over measured ranks, one entry per row (call path or region), as arrays.
struct RowStatistics {
    std::vector<std::uint64_t> ranks;   ///< measured ranks taking part
    std::vector<WideSum> sum;           ///< sum of the ranks' times (ns)
    std::vector<WideSum> sum_squares;   ///< sum of their squares (ns^2)
    std::vector<WideSum> visits;        ///< visits summed over CPU threads
    std::vector<WideSum> thread_total;  ///< exclusive time summed over CPU threads (ns)
    /// Inclusive time summed over CPU threads (ns); for a region only its call paths not nested
    /// in one of the same region (recursion counted once, as strata-score counts it).
    std::vector<WideSum> thread_inclusive;
    std::vector<ValueRank> max;         ///< the largest time and its rank; {-1, INT_MAX} when none
    std::vector<ValueRank> min;         ///< the smallest time and its rank; {LONG_MAX, INT_MAX} when none
    std::vector<Extremes> extremes;

    RowStatistics() = default;
    /// `rows` rows holding the neutral element of every combination.
    explicit RowStatistics(std::size_t rows);

    std::size_t size() const { return ranks.size(); }
    /// Records that `rank` took part in `row` with `value_ns`.
    void add(std::size_t row, std::int64_t value_ns, std::uint32_t rank);
    /// Combines another analysis rank's statistics into these.
    void merge(const RowStatistics& other);
};

/// One measured rank; integers only, so that it travels as MPI_INT64_T.
struct RankRecord {
    std::int64_t rank = 0;
    std::int64_t threads = 0;                      ///< CPU threads
    std::int64_t class_ns[time_class_count] = {};  ///< exclusive time per TimeClass, summed over the threads
    std::int64_t run_ns = 0;  ///< max over threads: root call paths' inclusive time without MPI_Init/Finalize
    std::int64_t wall_ns = 0;  ///< max over threads: root call paths' inclusive time
    /// Summed over the threads: wall_ns minus the thread's root call paths'
    /// inclusive time (the time it was in no measured region while the rank ran).
    std::int64_t idle_ns = 0;
};

/// The number of int64 fields of a RankRecord.
inline constexpr std::size_t rank_record_fields = 5 + time_class_count;
static_assert(sizeof(RankRecord) == rank_record_fields * sizeof(std::int64_t),
              "RankRecord must be int64 fields only");

/// Everything one analysis rank contributes.
struct Partial {
    RowStatistics callpaths;        ///< one row per call path
    RowStatistics regions;          ///< one row per region (a rank's time: its call paths summed)
    std::vector<RankRecord> ranks;  ///< the measured ranks analysed here, by rank
};

/// The contribution of the measured ranks of `share`.  `slice` holds the
/// metrics visits, time_inclusive and time_exclusive for the share's column
/// range (or whole).  Throws ProfileError for a damaged value.
Partial accumulate_share(const Profile& slice, const RankLayout& layout, const AnalysisShare& share,
                         const CallPathClasses& classes);

/// Combines `from` into `into`, exactly as the MPI reduction does; rank
/// records are concatenated and kept ordered by rank.
void merge_partial(Partial& into, const Partial& from);

}  // namespace strata::analysis
