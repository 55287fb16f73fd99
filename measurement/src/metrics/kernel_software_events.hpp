// SPDX-License-Identifier: BSD-3-Clause
// The kernel's software events (perf::TASK-CLOCK, perf::PAGE-FAULTS, ...)
// counted through perf_event_open() directly, for when PAPI cannot count them.
//
// PAPI reaches these events through its perf_event component, which libpfm4
// switches off as a whole when it does not know the processor ("no default
// PMU found": a processor newer than the installed libpfm4), although the
// kernel counts its software events on any processor.  Strata then opens the
// same kernel counters itself: the same values, the same names, one read()
// of the thread's group per enter and exit, as PAPI would do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/substrate.hpp"
#include "metrics/metric_spec.hpp"

namespace strata::metrics::kernel_events {

/// The perf software event (PERF_COUNT_SW_*) that `name` means, as PAPI names
/// it: "perf::TASK-CLOCK", "perf::PERF_COUNT_SW_TASK_CLOCK", "TASK-CLOCK"
/// (any case); -1 for any other name.
int software_event(const std::string& name);

/// Checks that every name is a software event and that the calling thread can
/// count them together, and fills `specs`; the error names the first event
/// that failed.  `why_not_papi` says why PAPI does not
/// count them; it goes into the descriptions.
Error check_events(const std::vector<std::string>& names, const std::string& why_not_papi,
                   std::vector<MetricSpec>* specs);

/// A software event the calling thread can count (for `strata-info metrics`).
struct UsableEvent {
    std::string name;  ///< "perf::TASK-CLOCK"
    std::string description;
};

/// The software events the calling thread can count, in the kernel's order.
std::vector<UsableEvent> usable_events();

/// One thread's counters of the events of the last successful check_events(),
/// read with a single read() of the group.
class Group {
public:
    /// Opens and starts the group on the calling thread; the error says what the kernel refused.
    Error start();
    /// Reads every event of the group into `values`; leaves them as they were if the group is closed.
    void read(std::uint64_t* values) const;
    /// Closes the group's file descriptors (at thread exit).
    void stop();
    bool started() const { return count_ > 0; }

private:
    int fds_[substrate::kMaxMetrics] = {};
    int count_ = 0;
};

}  // namespace strata::metrics::kernel_events
