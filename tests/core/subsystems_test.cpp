// SPDX-License-Identifier: BSD-3-Clause
// The subsystems' lifecycle (subsystem.hpp): init at registration, once; an
// init error stops the program before main with its message; init_location
// for each new location, on its thread, before the substrates' location_created;
// finalize at the measurement's end, newest first.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/location.hpp"
#include "core/runtime_internal.hpp"
#include "runtime_fixture.hpp"
#include "strata/measurement/subsystem.hpp"

namespace strata::testing {
namespace {

int g_inits = 0;
std::vector<std::string> g_ends;

Error count_init() {
    ++g_inits;
    return {};
}
Error refuse() { return "strata: STRATA_TEST_SETTING='x' is not valid: accepted are 'on' and 'off'"; }
void end_first() { g_ends.push_back("first"); }
void end_second() { g_ends.push_back("second"); }

TEST(SubsystemTest, InitRunsOnceWhenTheSubsystemRegisters) {
    static constexpr events::Subsystem subsystem{"test-init", false, count_init, nullptr};
    g_inits = 0;
    events::register_subsystem(&subsystem);
    EXPECT_EQ(g_inits, 1);
    events::register_subsystem(&subsystem);  // again: nothing happens
    EXPECT_EQ(g_inits, 1);
    EXPECT_NE(runtime::internal::subsystem_names().find("test-init"), std::string::npos);
}

TEST(SubsystemTest, AnInitErrorStopsTheProgramWithItsMessage) {
    static constexpr events::Subsystem subsystem{"test-refuses", false, refuse, nullptr};
    EXPECT_EXIT(events::register_subsystem(&subsystem), ::testing::ExitedWithCode(1),
                "strata: STRATA_TEST_SETTING='x' is not valid: accepted are 'on' and 'off'");
}

TEST(SubsystemTest, FinalizeRunsNewestFirst) {
    static constexpr events::Subsystem first{"test-first", false, nullptr, end_first};
    static constexpr events::Subsystem second{"test-second", false, nullptr, end_second};
    events::register_subsystem(&first);
    events::register_subsystem(&second);
    g_ends.clear();
    runtime::internal::finalize_subsystems();
    EXPECT_EQ(g_ends, (std::vector<std::string>{"second", "first"}));
}

// What happened to locations, in order: "init <name> <os thread>" from the
// subsystem, "created <name>" from the substrate.
std::vector<std::string> g_location_steps;
void init_location_seen(Location& loc) {
    g_location_steps.push_back("init " + loc.name + " " + std::to_string(loc.os_thread));
}
void location_created_seen(Location& loc) { g_location_steps.push_back("created " + loc.name); }

constexpr substrate::Callbacks seeing_locations() {
    substrate::Callbacks c;
    c.management.name = "locations";
    c.management.location_created = location_created_seen;
    return c;
}
constexpr substrate::Callbacks kSeeingLocations = seeing_locations();

class SubsystemLocationTest : public RuntimeTest {};

TEST_F(SubsystemLocationTest, InitLocationRunsForEachNewLocationOnItsThreadBeforeTheSubstrates) {
    static constexpr events::Subsystem subsystem{"test-locations", false, nullptr, nullptr, init_location_seen};
    events::register_subsystem(&subsystem);
    start({&kSeeingLocations});
    g_location_steps.clear();
    const RegionHandle work = region("work");
    events::enter(work);  // the main thread's location is made here
    events::exit(work);
    const std::uint32_t main_thread = location::current()->os_thread;
    std::uint32_t worker_thread = 0;
    std::thread worker([&] {
        events::enter(work);
        events::exit(work);
        worker_thread = location::current()->os_thread;
    });
    worker.join();
    events::LocationSpec stream;
    stream.name = "CUDA[0:7]";
    ASSERT_NE(events::define_location(stream), 0u);
    // Each on its own thread (its id), once; a GPU stream on the thread that defines it.
    EXPECT_EQ(g_location_steps,
              (std::vector<std::string>{"init thread 0 " + std::to_string(main_thread), "created thread 0",
                                        "init thread 1 " + std::to_string(worker_thread), "created thread 1",
                                        "init CUDA[0:7] 0", "created CUDA[0:7]"}));
}

TEST_F(SubsystemLocationTest, TheCountersStartInTheirInitLocation) {
    runtime::Options options;
    options.settings.metric_rusage = "ru_utime";
    options.settings.timer = config::TimerKind::clock_gettime;
    options.substrates = {&kSeeingLocations};
    ASSERT_FALSE(runtime::initialize(options));
    // Registered by the runtime, once counters are configured.
    EXPECT_NE(runtime::internal::subsystem_names().find("metrics"), std::string::npos);
    const RegionHandle work = region("work");
    std::thread worker([&] {
        events::enter(work);
        Location* loc = location::current();
        ASSERT_NE(loc, nullptr);
        EXPECT_NE(loc->counters, nullptr);
        EXPECT_NE(loc->metric_values, nullptr);
        events::exit(work);
    });
    worker.join();
    events::LocationSpec stream;
    stream.name = "CUDA[0:7]";
    const events::LocationHandle gpu = events::define_location(stream);
    ASSERT_NE(gpu, 0u);
    EXPECT_EQ(location::own(gpu - 1)->counters, nullptr);  // no thread of the program runs there
}

}  // namespace
}  // namespace strata::testing
