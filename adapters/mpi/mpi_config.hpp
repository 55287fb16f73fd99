// SPDX-License-Identifier: BSD-3-Clause
// STRATA_MPI_ENABLE_GROUPS: its registry row and the group mask it selects.
// Needs no MPI, so that tools such as strata-info can list the row too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "strata/measurement/error.hpp"

namespace strata::config {
class Registry;
}

namespace strata::mpi {

/// The full environment variable name.
inline constexpr const char* enable_groups_variable = "STRATA_MPI_ENABLE_GROUPS";

/// The group mask of a value of STRATA_MPI_ENABLE_GROUPS as the registry normalises
/// it (lower-case names joined by commas, already checked): "default", "all" and
/// "none" expand, derived groups are added.  "" selects nothing.
std::uint32_t group_mask(const std::string& normalized);

/// Adds the STRATA_MPI_ENABLE_GROUPS row; `store` receives the group mask each
/// time the registry loads the variable (default first, then the user's value).
/// When the registry has already been loaded (the core starts first), the value is
/// parsed at once: returns the registry's message for a bad value.
Error register_variables(config::Registry& registry, std::function<void(std::uint32_t)> store);

}  // namespace strata::mpi
