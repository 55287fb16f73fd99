// SPDX-License-Identifier: BSD-3-Clause
// Test support: a runtime driven with explicit timestamps, and a substrate
// that records every event it receives.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/definitions.hpp"
#include "core/runtime.hpp"
#include "strata/measurement/events.hpp"

namespace strata::testing {

/// One event as a substrate saw it.
struct SeenEvent {
    char kind;  ///< 'E' enter, 'L' leave, 'P' integer parameter, 'S' string parameter, 'M' MPI event
    Ticks time;
    std::uint64_t id;
    std::int64_t value;
    bool operator==(const SeenEvent& o) const {
        return kind == o.kind && time == o.time && id == o.id && value == o.value;
    }
};
inline std::ostream& operator<<(std::ostream& os, const SeenEvent& e) {
    return os << e.kind << "@" << e.time << "#" << e.id << "=" << e.value;
}

/// A substrate that appends every event to seen_events() (single-threaded tests).
const substrate::Callbacks& recording_substrate();
/// The same, asking only for the thread events that carry an inherited call
/// path (as the profiling substrate does).
const substrate::Callbacks& recording_substrate_inherited_only();
std::vector<SeenEvent>& seen_events();
/// The thread events the recording substrate saw, whole.
std::vector<substrate::ThreadEvent>& seen_thread_events();
/// What the core gave the recording substrate when the measurement started (Management::init).
const substrate::CoreServices* core_services();

/// Starts the runtime with the clock_gettime timer (ticks are nanoseconds),
/// no experiment directory and the given substrates; resets it afterwards.
class RuntimeTest : public ::testing::Test {
protected:
    void start(std::vector<const substrate::Callbacks*> substrates,
               std::uint64_t total_memory = 64ull << 20, std::uint64_t page_size = 64ull << 10,
               const std::string& directory = "");
    void TearDown() override;

    RegionHandle region(const char* name, Paradigm paradigm = Paradigm::user, std::uint32_t flags = 0) {
        events::RegionSpec spec;
        spec.name = name;
        spec.paradigm = paradigm;
        spec.role = RegionRole::code;
        spec.flags = flags;
        return events::define_region(spec);
    }
};

}  // namespace strata::testing
