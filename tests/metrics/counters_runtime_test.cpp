// SPDX-License-Identifier: BSD-3-Clause
// Counters through the runtime: configuration errors, real rusage counters in
// the profile, threads with their own counters.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>

#include "config/config.hpp"
#include "core/location.hpp"
#include "core/runtime.hpp"
#include "metrics/metrics.hpp"
#include "profiling/profiling_substrate.hpp"
#include "strata/measurement/events.hpp"

namespace strata {
namespace {

class CountersTest : public ::testing::Test {
protected:
    std::string start(const std::string& papi, const std::string& rusage) {
        runtime::Options options;
        options.settings.timer = config::TimerKind::clock_gettime;
        options.settings.metric_papi = papi;
        options.settings.metric_rusage = rusage;
        options.substrates = {&profiling::substrate_callbacks()};
        if (const Error failure = runtime::initialize(options)) return *failure;
        return {};
    }
    void TearDown() override { runtime::reset_for_tests(); }

    RegionHandle region(const char* name) {
        events::RegionSpec spec;
        spec.name = name;
        return events::define_region(spec);
    }
};

/// Index of a metric matrix by name.
const profiling::ProfileData::Metric& metric(const profiling::ProfileData& data, const std::string& name) {
    for (const auto& m : data.metrics) {
        if (m.name == name) return m;
    }
    throw std::runtime_error("no metric " + name);
}

/// Call path index by region name (top-level or below another).
std::int64_t callpath(const profiling::ProfileData& data, const std::string& name, std::int64_t parent) {
    for (std::size_t i = 0; i < data.callpaths.size(); ++i) {
        const auto& c = data.callpaths[i];
        if (c.parent == parent && c.parameter < 0 && data.strings[data.regions[c.region].name] == name) {
            return static_cast<std::int64_t>(i);
        }
    }
    return -2;
}

TEST_F(CountersTest, RusageCountersGiveInclusiveAndExclusiveSumsPerCallPath) {
    ASSERT_EQ(start("", "ru_minflt,ru_utime"), "");
    const RegionHandle outer = region("outer"), touch = region("touch");
    const long page = sysconf(_SC_PAGESIZE);
    constexpr int kPages = 64;
    events::enter(outer);
    auto* memory = static_cast<char*>(
        mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(memory, MAP_FAILED);
    events::enter(touch);
    for (int p = 0; p < kPages; ++p) memory[p * page] = 1;
    events::exit(touch);
    events::exit(outer);
    munmap(memory, kPages * page);

    const profiling::ProfileData data = profiling::collect();
    const auto& incl = metric(data, "rusage:ru_minflt_inclusive");
    const auto& excl = metric(data, "rusage:ru_minflt_exclusive");
    EXPECT_EQ(incl.unit, "count");
    EXPECT_TRUE(incl.integral);
    EXPECT_EQ(metric(data, "rusage:ru_utime_inclusive").unit, "us");
    const std::int64_t o = callpath(data, "outer", -1), t = callpath(data, "touch", o);
    ASSERT_GE(o, 0);
    ASSERT_GE(t, 0);
    const std::size_t n_loc = data.locations.size();
    EXPECT_GE(incl.counts[t * n_loc], static_cast<std::uint64_t>(kPages));
    EXPECT_EQ(incl.counts[t * n_loc], excl.counts[t * n_loc]);  // a leaf
    EXPECT_EQ(incl.counts[o * n_loc], excl.counts[o * n_loc] + incl.counts[t * n_loc]);
}

TEST_F(CountersTest, EveryThreadReadsItsOwnCounters) {
    ASSERT_EQ(start("", "ru_utime"), "");
    const RegionHandle work = region("work");
    location::current();  // the main thread is location 0
    std::thread worker([&] {
        events::enter(work);
        volatile double sink = 0;
        for (int i = 0; i < 20000000; ++i) sink = sink + 1e-9;
        events::exit(work);
    });
    worker.join();
    events::enter(work);
    events::exit(work);
    const auto locations = location::all();
    ASSERT_EQ(locations.size(), 2u);
    for (Location* loc : locations) {
        ASSERT_NE(loc->metric_values, nullptr);
        EXPECT_NE(loc->counters, nullptr);
    }
    const profiling::ProfileData data = profiling::collect();
    const auto& incl = metric(data, "rusage:ru_utime_inclusive");
    const std::int64_t w = callpath(data, "work", -1);
    ASSERT_GE(w, 0);
    // The worker (location 1) spun; the main thread's visit was empty.
    EXPECT_GT(incl.counts[w * 2 + 1], incl.counts[w * 2 + 0]);
}

TEST_F(CountersTest, WithoutCountersLocationsHaveNone) {
    ASSERT_EQ(start("", ""), "");
    events::enter(region("a"));
    events::exit(region("a"));
    EXPECT_EQ(location::current()->metric_values, nullptr);
    EXPECT_FALSE(metrics::active());
    for (const auto& m : profiling::collect().metrics) EXPECT_EQ(m.name.find("rusage:"), std::string::npos);
}

TEST_F(CountersTest, UnknownPapiEventIsNamedWithHowToListTheValidOnes) {
    const std::string error = start("PAPI_NO_SUCH_EVENT", "");
    EXPECT_NE(error.find("PAPI_NO_SUCH_EVENT"), std::string::npos) << error;
    EXPECT_NE(error.find(STRATA_TEST_HAVE_PAPI ? "strata-info metrics" : "no PAPI support"), std::string::npos)
        << error;
    EXPECT_FALSE(events::is_active());
}

TEST_F(CountersTest, TooManyCountersAreRefused) {
    std::string papi;
    for (int i = 0; i < 9; ++i) papi += (i ? "," : "") + std::string("EVENT_") + std::to_string(i);
    const std::string error = start(papi, "all");
    EXPECT_NE(error.find("18 counters"), std::string::npos) << error;
    EXPECT_NE(error.find("at most 16"), std::string::npos) << error;
}

TEST(CounterVariables, RusageMembersAreCheckedByTheRegistry) {
    auto& registry = config::Registry::instance();
    std::map<std::string, std::string> env = {{"STRATA_METRIC_RUSAGE", "ru_utime,ru_bogus"}};
    const auto error = registry.load([&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    ASSERT_TRUE(error);
    EXPECT_NE(error->find("ru_bogus"), std::string::npos) << *error;
    EXPECT_NE(error->find("ru_minflt"), std::string::npos) << *error;  // what is accepted
    env = {{"STRATA_METRIC_RUSAGE", "all"}, {"STRATA_METRIC_PAPI", "perf::TASK-CLOCK, perf::PAGE-FAULTS"}};
    ASSERT_FALSE(registry.load([&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    }));
    EXPECT_EQ(config::settings().metric_rusage, "all");
    EXPECT_EQ(config::settings().metric_papi, "perf::TASK-CLOCK,perf::PAGE-FAULTS");
    ASSERT_FALSE(registry.load([](const char*) -> const char* { return nullptr; }));
}

}  // namespace
}  // namespace strata
