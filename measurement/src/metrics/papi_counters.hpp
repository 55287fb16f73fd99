// SPDX-License-Identifier: BSD-3-Clause
// PAPI event sets (STRATA_METRIC_PAPI): checking the names once per process,
// one event set per thread, read with a single PAPI_read().
//
// Built from papi_counters.cpp when PAPI was found at build time, else from
// papi_unavailable.cpp, whose functions say that this build has no PAPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metric_spec.hpp"
#include "strata/measurement/error.hpp"

namespace strata::metrics::papi {

/// False when this build has no PAPI (STRATA_HAVE_PAPI off).
bool available_in_build();

/// Initialises PAPI (once) and checks that `names` can be counted together on
/// the calling thread: they exist, fit the counters and the kernel accepts
/// them, and fills `specs` (name, unit, description); the error names the
/// first event that failed and why.
Error check_events(const std::vector<std::string>& names, std::vector<MetricSpec>* specs);

/// Why PAPI does not count the kernel's software events (perf::TASK-CLOCK, ...)
/// on this machine, none when it does: e.g. that libpfm4 switched its
/// perf_event component off, or that this build has no PAPI.
Error kernel_events_problem();

/// The event set of the calling thread with the events of the last successful
/// check_events(), started: `event_set` is the PAPI event set id, or -1 with the error.
Error start_thread(int* event_set);

/// Reads every event of `event_set` into `values` (one PAPI_read call).
void read(int event_set, std::uint64_t* values);

/// Stops and frees the calling thread's event set and forgets the thread (at thread exit).
void stop_thread(int event_set);

/// An event that strata-info metrics lists.
struct EventInfo {
    std::string name;
    std::string description;
    std::string component;  ///< "perf_event", ... ("preset" for PAPI presets)
    bool hardware = false;  ///< counts in the processor's PMU (not a kernel software event)
};

/// The events that can be added to an event set on this machine; `note` gets
/// what limits the list (no PAPI, disabled components, no hardware counters).
std::vector<EventInfo> usable_events(std::string* note);

}  // namespace strata::metrics::papi
