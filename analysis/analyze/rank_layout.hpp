// SPDX-License-Identifier: BSD-3-Clause
// Which measured ranks a profile holds, and how K analysis ranks share them.
//
//   profile columns:   0    1    2    3    4    5    6    7      (locations)
//   measured rank:     0    0    1    1    2    2    3    3      (2 CPU threads each)
//   K = 3 analysis ranks, contiguous blocks by location, never splitting a rank:
//   analysis rank:     0    0    0    0    1    1    2    2
//
// A measured rank's locations always go to one analysis rank, so its
// per-rank figures (its threads summed) are computed where it is read; an
// analysis rank reads the column range that covers its measured ranks with
// one hyperslab.  Analysis ranks beyond the number of measured ranks get
// nothing and contribute the neutral element of every reduction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "profile/profile.hpp"

namespace strata::analysis {

/// One measured (MPI) rank: the profile columns of its CPU threads.
struct MeasuredRank {
    std::uint32_t rank = 0;
    std::vector<std::size_t> columns;  ///< CPU-thread locations, in table order
};

/// The measured ranks of a profile; only CPU-thread locations are analysed.
struct RankLayout {
    std::vector<MeasuredRank> ranks;  ///< by rank number
    std::size_t cpu_threads = 0;      ///< CPU-thread locations
    std::size_t gpu_streams = 0;      ///< GPU-stream locations (not analysed by this version)
    std::size_t other_locations = 0;  ///< metric sources and kinds a newer Strata may add
};

/// The measured ranks and CPU threads of `profile` (its locations table).
RankLayout rank_layout(const Profile& profile);

/// What one analysis rank reads and analyses.
struct AnalysisShare {
    std::size_t first_rank = 0;    ///< index into RankLayout::ranks
    std::size_t rank_count = 0;    ///< measured ranks analysed here
    std::size_t first_column = 0;  ///< the column range covering their CPU threads
    std::size_t column_count = 0;  ///< 0 when there is nothing to read
};

/// The share of analysis rank `analysis_rank` of `analysis_ranks`: measured
/// rank i goes to analysis rank floor(s_i * K / T), where s_i counts the
/// CPU threads of the measured ranks before it and T all CPU threads.
AnalysisShare analysis_share(const RankLayout& layout, std::size_t analysis_rank, std::size_t analysis_ranks);

}  // namespace strata::analysis
