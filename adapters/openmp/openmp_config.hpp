// SPDX-License-Identifier: BSD-3-Clause
// STRATA_OPENMP_ENABLE: its registry row and the event groups it selects.
// Needs no OpenMP runtime, so that tools such as strata-info can list the row too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "strata/measurement/error.hpp"

namespace strata::config {
class Registry;
}

namespace strata::openmp {

/// The OpenMP event groups (bits of the mask STRATA_OPENMP_ENABLE selects).
enum Group : std::uint32_t {
    group_parallel = 1u << 0,     ///< parallel regions, thread teams (fork/join)
    group_worksharing = 1u << 1,  ///< loop, sections, single, workshare, distribute, taskloop, masked
    group_sync = 1u << 2,         ///< barriers, taskwait, taskgroup, reductions
    group_locks = 1u << 3,        ///< critical, ordered, atomic, OpenMP locks
    group_tasks = 1u << 4,        ///< explicit task creation and execution
};
inline constexpr std::uint32_t all_groups =
    group_parallel | group_worksharing | group_sync | group_locks | group_tasks;

inline constexpr const char* enable_variable = "STRATA_OPENMP_ENABLE";

/// The mask of a value as the registry normalises it ("all", "none" or group names).
std::uint32_t group_mask(const std::string& normalized);

/// Adds the STRATA_OPENMP_ENABLE row; `store` receives the mask each time the
/// registry loads it.  When the registry is already loaded, the value is parsed
/// at once: returns the registry's message for a bad value.  When the row is
/// there already (the other OpenMP adapter added it), `store` receives its
/// value once.
Error register_variables(config::Registry& registry, std::function<void(std::uint32_t)> store);

}  // namespace strata::openmp
