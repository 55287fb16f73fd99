// SPDX-License-Identifier: BSD-3-Clause
// One thread's counters: start, read, stop.
#include "metrics/thread_counters.hpp"

#include "metrics/papi_counters.hpp"
#include "metrics/rusage_counters.hpp"

namespace strata::metrics {

ThreadCounters::ThreadCounters(int papi_count, const int* rusage_members, int rusage_count, std::string* problem)
    : papi_count_(papi_count), rusage_count_(rusage_count) {
    for (int i = 0; i < rusage_count; ++i) rusage_members_[i] = rusage_members[i];
    if (papi_count_ > 0) papi_event_set_ = papi::start_thread(problem);
    read();
}

ThreadCounters::~ThreadCounters() {
    // A location outlives its thread; its event set was stopped at thread exit
    // (stop()), or it is the thread that finalises, whose set PAPI frees at exit.
}

void ThreadCounters::read() {
    if (papi_event_set_ >= 0) papi::read(papi_event_set_, values_);
    if (rusage_count_ > 0) rusage::read(rusage_members_, rusage_count_, values_ + papi_count_);
}

void ThreadCounters::stop() {
    if (papi_event_set_ < 0) return;
    papi::stop_thread(papi_event_set_);
    papi_event_set_ = -1;
}

}  // namespace strata::metrics
