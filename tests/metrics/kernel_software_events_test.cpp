// SPDX-License-Identifier: BSD-3-Clause
// The kernel's software events counted without PAPI: their names, the check
// at start-up and what one thread's group counts.
#include "metrics/kernel_software_events.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace strata::metrics::kernel_events {
namespace {

std::int64_t now_ns(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}
std::int64_t thread_cpu_ns() {
    return now_ns(CLOCK_THREAD_CPUTIME_ID);
}

TEST(KernelSoftwareEvents, NamesAreThoseOfPapiInAnyCase) {
    EXPECT_EQ(software_event("perf::TASK-CLOCK"), 1);
    EXPECT_EQ(software_event("perf::task-clock"), 1);
    EXPECT_EQ(software_event("TASK-CLOCK"), 1);
    EXPECT_EQ(software_event("perf::PERF_COUNT_SW_PAGE_FAULTS"), 2);
    EXPECT_EQ(software_event("perf::FAULTS"), 2);
    EXPECT_EQ(software_event("perf::CS"), 3);
    EXPECT_EQ(software_event("perf::MAJOR-FAULTS"), 6);
    EXPECT_EQ(software_event("perf::CGROUP-SWITCHES"), 11);
    // Hardware events, PAPI presets and modifiers are not Strata's to count.
    EXPECT_EQ(software_event("perf::CYCLES"), -1);
    EXPECT_EQ(software_event("PAPI_TOT_INS"), -1);
    EXPECT_EQ(software_event("perf::TASK-CLOCK:u=1"), -1);
    EXPECT_EQ(software_event("perf::"), -1);
    EXPECT_EQ(software_event(""), -1);
}

TEST(KernelSoftwareEvents, AnEventThatIsNotOneOfThemIsNamedWithTheReason) {
    std::vector<MetricSpec> specs;
    const std::string error = check_events({"perf::TASK-CLOCK", "perf::CYCLES"}, "PAPI is off here", &specs).message();
    EXPECT_NE(error.find("'perf::CYCLES'"), std::string::npos) << error;
    EXPECT_NE(error.find("PAPI is off here"), std::string::npos) << error;
    EXPECT_NE(error.find("strata-info metrics"), std::string::npos) << error;
    EXPECT_TRUE(specs.empty());
}

TEST(KernelSoftwareEvents, TheSameEventUnderTwoNamesIsRefused) {
    std::vector<MetricSpec> specs;
    const std::string error =
        check_events({"perf::PAGE-FAULTS", "perf::FAULTS"}, "PAPI is off here", &specs).message();
    EXPECT_NE(error.find("'perf::FAULTS' is the same event as 'perf::PAGE-FAULTS'"), std::string::npos)
        << error;
}

class KernelGroupTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string error =
            check_events({"perf::TASK-CLOCK", "perf::page-faults"}, "PAPI is off here", &specs).message();
        // A kernel or container that forbids perf_event_open leaves nothing to count.
        if (!error.empty()) GTEST_SKIP() << error;
    }
    std::vector<MetricSpec> specs;
};

TEST_F(KernelGroupTest, SpecsKeepTheNamesAsGivenWithUnits) {
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].name, "perf::TASK-CLOCK");
    EXPECT_EQ(specs[0].unit, "ns");
    EXPECT_EQ(specs[0].qualified_name(), "papi:perf::TASK-CLOCK");
    EXPECT_EQ(specs[1].name, "perf::page-faults");
    EXPECT_EQ(specs[1].unit, "count");
    EXPECT_NE(specs[1].description.find("PAPI is off here"), std::string::npos) << specs[1].description;
}

TEST_F(KernelGroupTest, ATouchedPageIsAFaultAndSpinningIsTaskClock) {
    Group group;
    const Error error = group.start();
    ASSERT_FALSE(error) << *error;
    std::uint64_t before[2] = {}, after[2] = {};
    group.read(before);
    const std::int64_t cpu_before = thread_cpu_ns();
    const std::int64_t wall_before = now_ns(CLOCK_MONOTONIC);
    const long page = sysconf(_SC_PAGESIZE);
    const int pages = 64;
    auto* memory = static_cast<char*>(
        mmap(nullptr, page * pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(memory, MAP_FAILED);
    for (int i = 0; i < pages; ++i) memory[i * page] = 1;
    volatile std::uint64_t sink = 0;
    while (thread_cpu_ns() - cpu_before < 20000000) sink = sink + 1;
    const std::int64_t cpu = thread_cpu_ns() - cpu_before;
    group.read(after);
    const std::int64_t wall = now_ns(CLOCK_MONOTONIC) - wall_before;
    munmap(memory, page * pages);
    EXPECT_GE(after[1] - before[1], static_cast<std::uint64_t>(pages));
    // The time on a CPU: most of the thread's CPU time, never more than the
    // wall time (a virtual machine's steal time can be in it, not in the CPU time).
    EXPECT_GE(static_cast<double>(after[0] - before[0]), 0.8 * static_cast<double>(cpu) - 2e6);
    EXPECT_LE(static_cast<double>(after[0] - before[0]), 1.02 * static_cast<double>(wall) + 2e6);
    group.stop();
    EXPECT_FALSE(group.started());
    std::uint64_t stopped[2] = {7, 8};
    group.read(stopped);  // closed: the values stay as they were
    EXPECT_EQ(stopped[0], 7u);
    EXPECT_EQ(stopped[1], 8u);
}

TEST_F(KernelGroupTest, AThreadWithoutFileDescriptorsLeftIsToldWhichEventFailed) {
    rlimit limit{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
    const int lowest_free = dup(0);  // every descriptor from here on is refused
    ASSERT_GE(lowest_free, 0);
    close(lowest_free);
    rlimit lowered = limit;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
    Group group;
    const std::string error = group.start().message();
    setrlimit(RLIMIT_NOFILE, &limit);
    EXPECT_FALSE(error.empty());
    EXPECT_FALSE(group.started());
    EXPECT_NE(error.find("no file descriptor is left to count 'perf::TASK-CLOCK'"), std::string::npos)
        << error;
    std::uint64_t values[2] = {3, 4};
    group.read(values);  // nothing open: nothing read
    EXPECT_EQ(values[0], 3u);
}

TEST_F(KernelGroupTest, StrataInfoListsWhatCanBeOpened) {
    bool task_clock = false;
    for (const UsableEvent& e : usable_events()) {
        EXPECT_EQ(e.name.compare(0, 6, "perf::"), 0) << e.name;
        EXPECT_GE(software_event(e.name), 0) << e.name;
        EXPECT_FALSE(e.description.empty()) << e.name;
        task_clock = task_clock || e.name == "perf::TASK-CLOCK";
    }
    EXPECT_TRUE(task_clock);
}

}  // namespace
}  // namespace strata::metrics::kernel_events
