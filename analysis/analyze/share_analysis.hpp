// SPDX-License-Identifier: BSD-3-Clause
// The work of one analysis rank, without MPI: read the definitions and its
// column slice of profile.h5, and accumulate its measured ranks.
//
//   analysis rank a of K:  read_profile(definitions + columns of a's share)
//                          -> classify_callpaths -> accumulate_share -> Partial
//   then (mpi_reduction):  reduce every Partial onto rank 0
//   then on rank 0:        finish_analysis -> advise -> render_reports
//
// Tests run the K shares in one process and combine them with merge_partial().
#pragma once

#include <cstddef>
#include <string>

#include "analyze/partial.hpp"
#include "analyze/rank_layout.hpp"
#include "analyze/time_classes.hpp"
#include "profile/profile.hpp"

namespace strata::analysis {

/// What one analysis rank has read and computed.
struct ShareAnalysis {
    Profile profile;  ///< whole definitions; metrics only for the share's columns
    RankLayout layout;
    AnalysisShare share;
    CallPathClasses classes;
    Partial partial;
};

/// The metrics strata-analyze reads.
const std::vector<std::string>& analyzed_metrics();

/// Reads `profile_path` for analysis rank `analysis_rank` of
/// `analysis_ranks` and accumulates its share.  Throws ProfileError.
ShareAnalysis analyze_share(const std::string& profile_path, std::size_t analysis_rank,
                            std::size_t analysis_ranks, bool include_mpi_init);

}  // namespace strata::analysis
