// SPDX-License-Identifier: BSD-3-Clause
// The counters of one thread: its PAPI event set and its rusage members,
// read together into one array that the substrates find in the Location.
//
//   values_: [ PAPI event 0 .. PAPI event p-1 | rusage member 0 .. r-1 ]
//             one PAPI_read() (or one read() of   one getrusage(RUSAGE_THREAD)
//             the kernel events' group)
#pragma once

#include <pthread.h>

#include <cstdint>
#include <string>

#include "core/substrate.hpp"
#include "metrics/kernel_software_events.hpp"

namespace strata::metrics {

class ThreadCounters {
public:
    /// Starts the counters of the calling thread: `papi_count` events through
    /// PAPI, or, with `kernel_events`, the kernel's software events that Strata
    /// counts itself.  Events that the kernel refuses for this thread (they
    /// were accepted at start-up) leave their values at 0 and set `problem`;
    /// the program goes on.
    ThreadCounters(int papi_count, bool kernel_events, const int* rusage_members, int rusage_count,
                   Error* problem);
    ~ThreadCounters();
    ThreadCounters(const ThreadCounters&) = delete;
    ThreadCounters& operator=(const ThreadCounters&) = delete;

    /// Reads every counter of the calling thread, which must be the owner.
    void read();

    /// At thread exit: stops and frees the PAPI event set or the kernel events
    /// (a perf file descriptor per event); later reads leave their values as they were.
    void stop();

    std::uint64_t* values() { return values_; }

private:
    std::uint64_t values_[substrate::kMaxMetrics] = {};
    int papi_event_set_ = -1;
    kernel_events::Group kernel_group_;
    int papi_count_ = 0;
    int rusage_members_[substrate::kMaxMetrics] = {};
    int rusage_count_ = 0;
    pthread_t owner_{};
};

}  // namespace strata::metrics
