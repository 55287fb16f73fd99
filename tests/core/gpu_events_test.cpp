// SPDX-License-Identifier: BSD-3-Clause
// Locations of their own (GPU streams), their events at explicit times, and
// GPU work delivered under the call path of the launch that started it
// (core/launch_paths.hpp), also while launches and deliveries run at once.
#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/launch_paths.hpp"
#include "core/location.hpp"
#include "runtime_fixture.hpp"

namespace strata::testing {
namespace {

/// What a substrate that places GPU work under its launch saw (thread-safe).
struct UnderEvent {
    Ticks time;
    RegionHandle region;
    std::vector<RegionHandle> path;  ///< empty: a plain enter
    std::uint64_t correlation;
};
std::mutex g_mutex;
std::vector<UnderEvent> g_under;
std::map<std::uint64_t, std::vector<RegionHandle>> g_paths;  ///< correlation -> path, the concurrent test
std::uint64_t g_exits_under = 0;

void on_enter(Location&, Ticks t, RegionHandle r) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_under.push_back({t, r, {}, 0});
}
void on_exit(Location&, Ticks, RegionHandle) {}
void on_enter_under(Location&, Ticks t, RegionHandle r, const RegionHandle* path, std::uint32_t depth,
                    std::uint64_t correlation) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_under.push_back({t, r, std::vector<RegionHandle>(path, path + depth), correlation});
    g_paths[correlation] = std::vector<RegionHandle>(path, path + depth);
}
void on_exit_under(Location&, Ticks, RegionHandle, std::uint32_t) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_exits_under;
}
void on_reset() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_under.clear();
    g_paths.clear();
    g_exits_under = 0;
}
substrate::Callbacks under_substrate() {
    substrate::Callbacks c;
    c.management.name = "under";
    c.management.reset = on_reset;
    c.events.enter = on_enter;
    c.events.exit = on_exit;
    c.events.enter_under = on_enter_under;
    c.events.exit_under = on_exit_under;
    return c;
}
const substrate::Callbacks kUnder = under_substrate();

class GpuEventsTest : public RuntimeTest {
protected:
    void TearDown() override {
        RuntimeTest::TearDown();
        on_reset();
    }
};

TEST_F(GpuEventsTest, StreamsAreLocationsOfTheirOwnWithExplicitTimes) {
    start({&recording_substrate()});
    const RegionHandle kernel = region("kernel", Paradigm::cuda);
    events::LocationSpec spec;
    spec.name = "CUDA[0:7]";
    spec.device = 3;
    const events::LocationHandle stream = events::define_location(spec);
    ASSERT_NE(stream, 0u);
    events::location_enter(stream, 100, kernel, 0);
    events::location_exit(stream, 90, kernel);  // earlier than its enter: moved to it
    events::location_enter(stream, 200, kernel, 0);
    events::location_exit(stream, 300, kernel);
    const std::vector<SeenEvent> expected = {
        {'E', 100, kernel, 0}, {'L', 100, kernel, 0}, {'E', 200, kernel, 0}, {'L', 300, kernel, 0}};
    EXPECT_EQ(seen_events(), expected);
    bool found = false;
    for (Location* loc : location::all()) {
        if (loc->type != LocationType::gpu_stream) continue;
        found = true;
        EXPECT_EQ(loc->index, location::kFirstOwnIndex);  // the trace's 0x10000 + n
        EXPECT_EQ(loc->device, 3u);
        EXPECT_EQ(loc->name, "CUDA[0:7]");
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(events::define_location(spec), 2u);  // a second stream: the next number
}

TEST_F(GpuEventsTest, WorkIsDeliveredUnderTheCallPathOfItsLaunch) {
    start({&kUnder});
    const RegionHandle main = region("main"), step = region("step");
    const RegionHandle launch = region("cudaLaunchKernel", Paradigm::cuda);
    const RegionHandle kernel = region("kernel", Paradigm::cuda);
    events::enter_at(1, main);
    events::enter_at(2, step);
    events::enter_correlated(launch, 41);
    events::exit(launch);
    events::exit_at(10, step);
    events::LocationSpec spec;
    spec.name = "CUDA[0:7]";
    const events::LocationHandle stream = events::define_location(spec);
    events::location_enter(stream, 20, kernel, 41);
    events::location_exit(stream, 30, kernel);
    events::location_enter(stream, 40, kernel, 99);  // a launch never seen: at the stream's root
    events::location_exit(stream, 50, kernel);
    ASSERT_GE(g_under.size(), 2u);
    const UnderEvent& under = g_under[g_under.size() - 2];
    EXPECT_EQ(under.region, kernel);
    EXPECT_EQ(under.correlation, 41u);
    EXPECT_EQ(under.path, (std::vector<RegionHandle>{main, step, launch}));
    EXPECT_TRUE(g_under.back().path.empty());
    EXPECT_EQ(g_exits_under, 1u);
    EXPECT_GE(launch_paths::not_found(), 1u);
}

TEST_F(GpuEventsTest, LaunchesAndTheirWorkOnSeveralThreadsAtOnce) {
    start({&kUnder});
    const RegionHandle launch = region("cudaLaunchKernel", Paradigm::cuda);
    const RegionHandle kernel = region("kernel", Paradigm::cuda);
    const RegionHandle outer[2] = {region("thread 0 work"), region("thread 1 work")};
    events::LocationSpec spec;
    spec.name = "CUDA[0:7]";
    const events::LocationHandle stream = events::define_location(spec);
    // Correlation ids come from one counter, as CUPTI's do; owner[id] is the launching thread.
    constexpr std::uint64_t launches = 8000;  // fewer than the table's slots: every path is still kept
    std::atomic<std::uint64_t> next_id{1};
    std::vector<std::atomic<int>> owner(launches + 1);
    for (auto& o : owner) o.store(-1);
    std::vector<std::thread> hosts;
    for (int t = 0; t < 2; ++t) {
        hosts.emplace_back([&, t] {
            events::enter(outer[t]);
            while (true) {
                const std::uint64_t id = next_id.fetch_add(1);
                if (id > launches) break;
                events::enter_correlated(launch, id);
                events::exit(launch);
                owner[id].store(t, std::memory_order_release);
            }
            events::exit(outer[t]);
        });
    }
    // The CUPTI thread's part: the work of launches made so far, while more are made.
    std::thread gpu([&] {
        Ticks time = 1;
        for (std::uint64_t id = 1; id <= launches; ++id) {
            while (owner[id].load(std::memory_order_acquire) < 0) std::this_thread::yield();
            events::location_enter(stream, time++, kernel, id);
            events::location_exit(stream, time++, kernel);
        }
    });
    for (auto& h : hosts) h.join();
    gpu.join();
    std::lock_guard<std::mutex> lock(g_mutex);
    ASSERT_EQ(g_paths.size(), launches);
    for (const auto& [id, path] : g_paths) {
        ASSERT_EQ(path, (std::vector<RegionHandle>{outer[owner[id].load()], launch})) << id;
    }
}

TEST_F(GpuEventsTest, ThreadsAreNamedNowOrAtTheirFirstEvent) {
    // nvtxNameOsThread: by Linux thread id, from any thread, before or after its first event.
    start({&recording_substrate()});
    const RegionHandle work = region("work");
    std::uint32_t early_tid = 0;
    std::mutex m;
    std::condition_variable cv;
    bool named = false;
    std::thread early([&] {
        {
            std::unique_lock<std::mutex> lock(m);
            early_tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
            cv.notify_all();
            cv.wait(lock, [&] { return named; });
        }
        events::enter(work);  // its first event: the location is made with the name
        events::exit(work);
    });
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return early_tid != 0; });
        events::name_thread(early_tid, "data loader");
        named = true;
        cv.notify_all();
    }
    early.join();
    events::enter(work);
    events::name_thread(0, "main loop");  // the calling thread, after its first event
    events::exit(work);
    std::set<std::string> names;
    for (Location* loc : location::all()) names.insert(loc->display_name());
    // The early thread recorded first here: its location is thread 0.
    EXPECT_EQ(names, (std::set<std::string>{"data loader (thread 0)", "main loop (thread 1)"}));
}

}  // namespace
}  // namespace strata::testing
