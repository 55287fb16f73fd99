// SPDX-License-Identifier: BSD-3-Clause
// Strata configuration: the settings the core's STRATA_* variables produce.
// The registry of every variable, which adapters add their rows to, is
// strata/measurement/config_registry.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "strata/measurement/config_registry.hpp"
#include "strata/measurement/types.hpp"

namespace strata::config {

/// Which clock the measurement reads (STRATA_TIMER).
/// `steps` is for reproducible tests: no real time (core/timer.hpp).
enum class TimerKind { tsc, clock_gettime, steps };

/// The effective configuration of the core runtime, filled from the environment.
/// Adapters declare their own variables in the registry (see Registry::add).
struct Settings {
    bool enable_profiling = true;              ///< STRATA_ENABLE_PROFILING
    bool enable_tracing = false;               ///< STRATA_ENABLE_TRACING
    std::uint64_t trace_max_size = 0;          ///< STRATA_TRACE_MAX_SIZE in bytes, 0: no bound
    std::string experiment_directory;          ///< STRATA_EXPERIMENT_DIRECTORY ("" = strata-<date>_<time>_<id>)
    bool overwrite_experiment_directory = false;  ///< STRATA_OVERWRITE_EXPERIMENT_DIRECTORY
    std::uint64_t total_memory = 64ull << 20;  ///< STRATA_TOTAL_MEMORY in bytes
    std::uint64_t page_size = 64ull << 10;     ///< STRATA_PAGE_SIZE in bytes
    TimerKind timer = TimerKind::tsc;          ///< STRATA_TIMER
    bool verbose = false;                      ///< STRATA_VERBOSE
    std::string filtering_file;                ///< STRATA_FILTERING_FILE ("" = no filter)
    std::string metric_papi;                   ///< STRATA_METRIC_PAPI, comma-separated ("" = none)
    std::string metric_rusage;                 ///< STRATA_METRIC_RUSAGE, comma-separated ("" = none)
};

/// The core settings, filled by Registry::load.
Settings& settings();

}  // namespace strata::config
