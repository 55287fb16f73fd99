// SPDX-License-Identifier: BSD-3-Clause
// The counters of one thread: its PAPI event set and its rusage members,
// read together into one array that the substrates find in the Location.
//
//   values_: [ PAPI event 0 .. PAPI event p-1 | rusage member 0 .. r-1 ]
//             one PAPI_read()                   one getrusage(RUSAGE_THREAD)
#pragma once

#include <pthread.h>

#include <cstdint>
#include <string>

#include "core/substrate.hpp"

namespace strata::metrics {

class ThreadCounters {
public:
    /// Starts the counters of the calling thread.  A PAPI event set that the
    /// kernel refuses for this thread (it was accepted at start-up) leaves its
    /// values at 0 and sets `problem`; the program goes on.
    ThreadCounters(int papi_count, const int* rusage_members, int rusage_count, std::string* problem);
    ~ThreadCounters();
    ThreadCounters(const ThreadCounters&) = delete;
    ThreadCounters& operator=(const ThreadCounters&) = delete;

    /// Reads every counter of the calling thread, which must be the owner.
    void read();

    /// At thread exit: stops and frees the PAPI event set (a perf file
    /// descriptor per event); later reads leave the PAPI values as they were.
    void stop();

    std::uint64_t* values() { return values_; }

private:
    std::uint64_t values_[substrate::kMaxMetrics] = {};
    int papi_event_set_ = -1;
    int papi_count_ = 0;
    int rusage_members_[substrate::kMaxMetrics] = {};
    int rusage_count_ = 0;
    pthread_t owner_{};
};

}  // namespace strata::metrics
