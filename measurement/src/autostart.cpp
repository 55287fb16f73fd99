// SPDX-License-Identifier: BSD-3-Clause
// Starts measurement when libstrata-measurement is loaded, before main().
// This object is linked last, so that the static initialisers of the rest of
// the library have run when the constructor below runs.
#include "core/runtime.hpp"

namespace {
__attribute__((constructor)) void strata_autostart() {
    strata::runtime::initialize_from_environment();
}
}  // namespace
