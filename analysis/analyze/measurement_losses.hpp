// SPDX-License-Identifier: BSD-3-Clause
// What the measurement could not record, as it wrote it into the experiment
// (losses/rank-<r>.tsv, experiment-format.md): a note of the advice for each
// kind of loss, with its count, the ranks and what avoids it.
#pragma once

#include <string>
#include <vector>

#include "analyze/advice.hpp"

namespace strata::analysis {

/// The findings (kind measurement_loss, notes) for the losses of `experiment`;
/// none when it has no losses/ directory.  Lines that cannot be read are
/// skipped, and a note says how many.
std::vector<Finding> loss_findings(const std::string& experiment);

}  // namespace strata::analysis
