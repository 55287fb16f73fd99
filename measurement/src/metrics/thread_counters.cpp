// SPDX-License-Identifier: BSD-3-Clause
// One thread's counters: start, read, stop.
#include "metrics/thread_counters.hpp"

#include <pthread.h>

#include "metrics/papi_counters.hpp"
#include "metrics/rusage_counters.hpp"

namespace strata::metrics {

namespace {

/// Runs when a thread with PAPI counters exits: its perf file descriptors are
/// closed, so that programs creating many threads do not run out of them.
void stop_at_thread_exit(void* counters) { static_cast<ThreadCounters*>(counters)->stop(); }

/// The key whose destructor stops a thread's counters; nullptr if none is left.
const pthread_key_t* thread_exit_key() {
    static pthread_key_t key;
    static const bool created = pthread_key_create(&key, stop_at_thread_exit) == 0;
    return created ? &key : nullptr;
}

}  // namespace

ThreadCounters::ThreadCounters(int papi_count, bool kernel_events, const int* rusage_members,
                               int rusage_count, Error* problem)
    : papi_count_(papi_count), rusage_count_(rusage_count) {
    for (int i = 0; i < rusage_count; ++i) rusage_members_[i] = rusage_members[i];
    if (papi_count_ > 0 && kernel_events) {
        *problem = kernel_group_.start();
    } else if (papi_count_ > 0) {
        *problem = papi::start_thread(&papi_event_set_);
    }
    const bool open = papi_event_set_ >= 0 || kernel_group_.started();
    if (open && thread_exit_key() != nullptr) pthread_setspecific(*thread_exit_key(), this);
    owner_ = pthread_self();
    read();
}

ThreadCounters::~ThreadCounters() {
    // A location outlives its thread, whose exit stopped the event set.  Only
    // tests destroy the location of a running thread, their own.
    if ((papi_event_set_ >= 0 || kernel_group_.started()) && pthread_equal(owner_, pthread_self())) {
        if (thread_exit_key() != nullptr) pthread_setspecific(*thread_exit_key(), nullptr);
        stop();
    }
}

void ThreadCounters::read() {
    if (papi_event_set_ >= 0) {
        papi::read(papi_event_set_, values_);
    } else {
        kernel_group_.read(values_);
    }
    if (rusage_count_ > 0) rusage::read(rusage_members_, rusage_count_, values_ + papi_count_);
}

void ThreadCounters::stop() {
    kernel_group_.stop();
    if (papi_event_set_ < 0) return;
    papi::stop_thread(papi_event_set_);
    papi_event_set_ = -1;
}

}  // namespace strata::metrics
