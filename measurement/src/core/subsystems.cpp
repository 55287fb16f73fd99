// SPDX-License-Identifier: BSD-3-Clause
// The subsystems (subsystem.hpp): registered by the adapters themselves,
// before main, and by the core's counters, and initialised then; the core
// asks whether one measures the job's processes together, initialises each
// new location in every one and ends them at the measurement's end.
#include <atomic>
#include <string>

#include "core/runtime.hpp"
#include "core/runtime_internal.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"

namespace strata::runtime::internal {

namespace {
constexpr int kMaxSubsystems = 16;
/// Filled in order from the start; registration and the readers need no lock.
std::atomic<const events::Subsystem*> g_subsystems[kMaxSubsystems];
}  // namespace

bool processes_measure_together() {
    for (const auto& slot : g_subsystems) {
        const events::Subsystem* s = slot.load(std::memory_order_acquire);
        if (s != nullptr && s->processes_measure_together) return true;
    }
    return false;
}

void finalize_subsystems() {
    for (int i = kMaxSubsystems - 1; i >= 0; --i) {
        const events::Subsystem* s = g_subsystems[i].load(std::memory_order_acquire);
        if (s != nullptr && s->finalize != nullptr) s->finalize();
    }
}

std::string subsystem_names() {
    std::string names;
    for (const auto& slot : g_subsystems) {
        if (const events::Subsystem* s = slot.load(std::memory_order_acquire))
            names += (names.empty() ? "" : ", ") + std::string(s->name);
    }
    return names;
}

}  // namespace strata::runtime::internal

namespace strata::runtime {

void init_location_in_subsystems(Location& location) {
    for (const auto& slot : internal::g_subsystems) {
        const events::Subsystem* s = slot.load(std::memory_order_acquire);
        if (s == nullptr) break;  // filled in order from the start
        if (s->init_location != nullptr) s->init_location(location);
    }
}

}  // namespace strata::runtime

namespace strata::events {

void register_subsystem(const Subsystem* subsystem) {
    using namespace runtime::internal;
    if (subsystem == nullptr) return;
    const bool first_together = subsystem->processes_measure_together && !processes_measure_together();
    bool known = false;
    for (auto& slot : g_subsystems) {
        const Subsystem* seen = nullptr;
        if (slot.compare_exchange_strong(seen, subsystem)) {
            known = true;
            break;
        }
        if (seen == subsystem) return;  // registered before: initialised then
    }
    if (!known) {
        // Still initialised below: it records; only its end is not called.
        runtime::warn_once("subsystems-full", "strata: warning: too many adapters registered; the adapter '" +
                                                  std::string(subsystem->name) + "' is not ended by the measurement");
    }
    // The job's directory is agreed on at MPI_Init; that it is free is known now.
    if (first_together && known) check_job_directory_before_main();
    if (subsystem->init != nullptr) {
        if (const Error problem = subsystem->init()) stop_before_main(problem.message());
    }
}

}  // namespace strata::events
