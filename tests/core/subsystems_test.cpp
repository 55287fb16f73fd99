// SPDX-License-Identifier: BSD-3-Clause
// The adapters' lifecycle (subsystem.hpp): init at registration, once; an init
// error stops the program before main with its message; finalize at the
// measurement's end, newest first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/runtime_internal.hpp"
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

}  // namespace
}  // namespace strata::testing
