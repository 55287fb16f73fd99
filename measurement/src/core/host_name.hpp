// SPDX-License-Identifier: BSD-3-Clause
// The name of the host this process runs on, as the experiment records it:
// the trace's system tree and profile.h5's locations.
#pragma once

#include <string>

namespace strata {

/// gethostname(), made valid UTF-8 ("localhost" when it fails); read once.
const std::string& host_name();

}  // namespace strata
