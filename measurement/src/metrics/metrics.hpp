// SPDX-License-Identifier: BSD-3-Clause
// Counters read at every enter and exit (STRATA_METRIC_PAPI, STRATA_METRIC_RUSAGE).
//
//   start-up:        configure()         names checked, PAPI event set tried once,
//                                        metric definitions created; a bad name stops the run
//   new location:    subsystem()'s       the thread's counters start (ThreadCounters),
//                    init_location       Location::metric_values points at their values
//   enter / exit:    read()              the core reads all counters of the thread (one
//                                        PAPI_read, one getrusage) before the substrates run
//   thread exit:     the thread's PAPI event set is stopped and freed
//
// With no counter configured, nothing here runs on the hot path: the runtime
// then keeps its single-substrate fast path, which never looks at counters.
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/location.hpp"
#include "metrics/metric_spec.hpp"
#include "metrics/thread_counters.hpp"
#include "strata/measurement/subsystem.hpp"

namespace strata::metrics {

/// Sets up the counters named by `settings` (replacing an earlier set-up) and
/// defines them.  The error is one line saying which name is wrong and how to
/// list the valid ones.
Error configure(const config::Settings& settings);

/// The configured counters in the order of Location::metric_values.
const std::vector<MetricSpec>& configured();

/// True when at least one counter is configured.
bool active();

/// The counters' part in the measurement's life (subsystem.hpp), which the
/// runtime registers once counters are configured: its init_location starts
/// the counters of a thread's new location, on that thread (other locations
/// get none: no thread of the program runs there).
const events::Subsystem& subsystem();

/// Reads the calling thread's counters into loc.metric_values (loc must be
/// the calling thread's location and have counters).
inline void read(Location& loc) { loc.counters->read(); }

/// Forgets the configuration (tests).
void reset();

}  // namespace strata::metrics
