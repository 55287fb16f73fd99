// SPDX-License-Identifier: BSD-3-Clause
// OTF2's collective callbacks, implemented over a ProcessGroup (no MPI here).
#pragma once

#include <otf2/otf2.h>

#include "strata/measurement/process_group.hpp"

namespace strata::tracing {

/// Callbacks for OTF2_Archive_SetCollectiveCallbacks; userData is the ProcessGroup*.
const OTF2_CollectiveCallbacks& process_group_collectives();

}  // namespace strata::tracing
