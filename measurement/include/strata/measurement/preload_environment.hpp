// SPDX-License-Identifier: BSD-3-Clause
// What strata-preload tells the runtime of the program it starts.
#pragma once

namespace strata {

/// Set by strata-preload to the LD_PRELOAD it found (empty: none).  The runtime puts it back
/// into LD_PRELOAD at start-up, so that the programs the measured one starts (a shell of
/// system(), Open MPI's orted for a singleton) run without Strata and write no experiment of
/// their own; it then removes this variable.
constexpr const char* preload_original_variable = "STRATA_PRELOAD_ORIGINAL_LD_PRELOAD";

}  // namespace strata
