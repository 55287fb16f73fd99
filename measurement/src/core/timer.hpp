// SPDX-License-Identifier: BSD-3-Clause
// The process timer: TSC ticks or CLOCK_MONOTONIC nanoseconds (STRATA_TIMER).
// STRATA_TIMER=steps reads no clock: each reading on a thread is 1000 ticks
// (1 µs) after that thread's previous one, for tests that compare whole
// traces and profiles byte for byte.
//
// now() is inline and branch-predictable: it is on the hot path of every event.
// The TSC frequency is calibrated against CLOCK_MONOTONIC over the whole run
// (first reading at initialise(), second at finalisation), so no start-up time
// is spent calibrating.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

#include "config/config.hpp"
#include "strata/measurement/types.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define STRATA_HAVE_TSC 1
#else
#define STRATA_HAVE_TSC 0
#endif

namespace strata::timer {

namespace detail {
/// True when the TSC is in use.  Written once at initialisation, before any event.
extern bool use_tsc;
/// True when STRATA_TIMER=steps.  Written once at initialisation, before any event.
extern bool use_steps;
/// The calling thread's next step reading.
Ticks next_step();
}  // namespace detail

inline Ticks monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<Ticks>(ts.tv_sec) * 1000000000 + static_cast<Ticks>(ts.tv_nsec);
}

inline Ticks now() {
#if STRATA_HAVE_TSC
    if (__builtin_expect(detail::use_tsc, 1)) return __rdtsc();
#endif
    if (__builtin_expect(detail::use_steps, 0)) return detail::next_step();
    return monotonic_ns();
}

/// Chooses the clock.  Returns a warning text when the TSC was asked for but
/// cannot be trusted (not invariant), in which case clock_gettime is used.
std::string initialize(config::TimerKind requested);

/// The clock in use, "tsc", "clock_gettime" or "steps".
const char* name();

/// Ticks per second.  For the TSC, calibrated between initialize() and the
/// call (at least ~20 ms apart; waits if needed).
double resolution();

/// Converts a tick interval to seconds.
double to_seconds(Ticks interval);

/// Wall-clock time (ns since the epoch) and tick reading taken together at initialize().
struct Epoch {
    Ticks ticks = 0;
    Ticks monotonic = 0;
    std::uint64_t realtime_ns = 0;
};
const Epoch& epoch();

/// True when the CPU reports an invariant TSC (CPUID 0x80000007, EDX bit 8).
bool tsc_is_invariant();

/// An id shared by exactly the processes whose now() reads one clock, 0 when
/// that cannot be known.  CLOCK_MONOTONIC is one clock for every process of a
/// running kernel (its boot id, which containers on that kernel share); so is
/// the TSC where the kernel itself keeps time with it (clocksource "tsc": it
/// found the CPUs' TSCs synchronised and watches them).  Ranks with equal ids
/// need no clock correction: their offsets are zero by construction.  With
/// steps, every process is in one domain: no offsets are measured into a trace
/// that must come out the same in every run.
std::uint64_t clock_domain();

/// clock_domain() from the given files (tests).
std::uint64_t clock_domain(const char* boot_id_file, const char* clocksource_file);

}  // namespace strata::timer
