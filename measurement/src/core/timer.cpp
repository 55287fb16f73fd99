// SPDX-License-Identifier: BSD-3-Clause
// Timer selection and TSC calibration.
#include "core/timer.hpp"

#include <atomic>
#include <cstdint>
#include <fstream>
#include <mutex>
#if STRATA_HAVE_TSC
#include <cpuid.h>
#endif

namespace strata::timer {

namespace detail {
bool use_tsc = false;
bool use_steps = false;

__attribute__((noinline)) Ticks next_step() {
    // Every thread starts at the same time, 1 s, so that a thread's readings
    // depend only on what that thread did.
    thread_local Ticks t_last = 1000000000;
    t_last += 1000;
    return t_last;
}
}  // namespace detail

namespace {
Epoch g_epoch;
std::once_flag g_calibrated;
double g_resolution = 1e9;

Ticks realtime_ns() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<Ticks>(ts.tv_sec) * 1000000000 + static_cast<Ticks>(ts.tv_nsec);
}
}  // namespace

bool tsc_is_invariant() {
#if STRATA_HAVE_TSC
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
    __cpuid(0x80000007u, eax, ebx, ecx, edx);
    return (edx & (1u << 8)) != 0;
#else
    return false;
#endif
}

std::string initialize(config::TimerKind requested) {
    std::string warning;
    detail::use_tsc = false;
    detail::use_steps = requested == config::TimerKind::steps;
    if (requested == config::TimerKind::tsc) {
        if (tsc_is_invariant()) {
            detail::use_tsc = true;
        } else {
            warning = "strata: warning: STRATA_TIMER=tsc, but this CPU does not report an invariant "
                      "TSC; using clock_gettime(CLOCK_MONOTONIC) instead";
        }
    }
    g_epoch.monotonic = monotonic_ns();
    g_epoch.ticks = now();
    g_epoch.realtime_ns = realtime_ns();
    g_resolution = 1e9;
    return warning;
}

const char* name() { return detail::use_tsc ? "tsc" : detail::use_steps ? "steps" : "clock_gettime"; }

double resolution() {
    if (!detail::use_tsc) return 1e9;
    std::call_once(g_calibrated, [] {
        // A short run is calibrated over at least 20 ms; a long run over its whole length.
        while (monotonic_ns() - g_epoch.monotonic < Ticks{20000000}) {
        }
        const Ticks ticks = now();
        const Ticks mono = monotonic_ns();
        g_resolution = static_cast<double>(ticks - g_epoch.ticks) * 1e9 /
                       static_cast<double>(mono - g_epoch.monotonic);
    });
    return g_resolution;
}

double to_seconds(Ticks interval) { return static_cast<double>(interval) / resolution(); }

const Epoch& epoch() { return g_epoch; }

namespace {
/// The first line of a small file, "" when it cannot be read.
std::string first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    return line;
}
}  // namespace

std::uint64_t clock_domain(const char* boot_id_file, const char* clocksource_file) {
    const std::string boot = first_line(boot_id_file);
    if (boot.empty()) return 0;
    if (detail::use_tsc && first_line(clocksource_file) != "tsc") return 0;
    // FNV-1a over the boot id and the clock's name.
    std::uint64_t id = 14695981039346656037ull;
    for (const char c : boot + '/' + name()) id = (id ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return id == 0 ? 1 : id;
}

std::uint64_t clock_domain() {
    if (detail::use_steps) return 1;
    return clock_domain("/proc/sys/kernel/random/boot_id",
                        "/sys/devices/system/clocksource/clocksource0/current_clocksource");
}

}  // namespace strata::timer
