// SPDX-License-Identifier: BSD-3-Clause
// The GPU metrics sampler (adapters/cuda/gpu_metrics_sampler.hpp) driven by a
// fake source: which devices are sampled, on which locations, with which
// values, and what is said when the source or a device cannot be used.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/location.hpp"
#include "cuda_config.hpp"
#include "gpu_metrics_sampler.hpp"
#include "runtime_fixture.hpp"

namespace strata::testing {
namespace {

struct Sample {
    std::uint32_t location_index;
    Ticks time;
    DeviceMetric metric;
    std::uint64_t value;
};
std::mutex g_mutex;
std::vector<Sample> g_samples;
std::vector<std::string> g_said;

void on_device_metric(Location& loc, Ticks time, DeviceMetric metric, std::uint64_t value) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_samples.push_back({loc.index, time, metric, value});
}
void on_reset() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_samples.clear();
    g_said.clear();
}
void say(const std::string& line) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_said.push_back(line);
}
substrate::Callbacks samples_substrate() {
    substrate::Callbacks c;
    c.management.name = "samples";
    c.management.reset = on_reset;
    c.events.device_metric = on_device_metric;
    return c;
}
const substrate::Callbacks kSamples = samples_substrate();

/// CUDA devices 0 and 1 at two PCI bus ids; device 2 at one the source does not know; device 3 at none.
Error bus_id(std::uint32_t ordinal, std::string* id) {
    switch (ordinal) {
        case 0: *id = "0000:3b:00.0"; return {};
        case 1: *id = "0000:86:00.0"; return {};
        case 2: *id = "0000:ff:00.0"; return {};
        default: return "no PCI bus id";
    }
}

/// Two devices by PCI bus id; the second reports no power.  Each read of a
/// device returns the number of that device's reads so far as utilisation.
class FakeSource : public cuda::DeviceMetricsSource {
public:
    explicit FakeSource(std::string open_problem = "") : open_problem_(std::move(open_problem)) {}
    Error open() override { return open_problem_; }
    Error find(const std::string& pci_bus_id, std::size_t* device) override {
        if (pci_bus_id == "0000:3b:00.0") *device = 0;
        else if (pci_bus_id == "0000:86:00.0") *device = 1;
        else return "no such device";
        return {};
    }
    cuda::DeviceReading read(std::size_t device) override {
        cuda::DeviceReading r;
        r.set(DeviceMetric::utilization, ++reads_[device]);
        r.set(DeviceMetric::memory_used, (device + 1) << 30);
        if (device == 0) r.set(DeviceMetric::power, 250000);
        return r;
    }
    std::string origin() const override { return "fake"; }

private:
    std::string open_problem_;
    std::uint64_t reads_[2] = {};
};

class GpuMetricsSamplerTest : public RuntimeTest {
protected:
    void TearDown() override {
        RuntimeTest::TearDown();
        on_reset();
    }
    std::vector<Sample> samples() {
        std::lock_guard<std::mutex> lock(g_mutex);
        return g_samples;
    }
    std::vector<std::string> said() {
        std::lock_guard<std::mutex> lock(g_mutex);
        return g_said;
    }
};

TEST_F(GpuMetricsSamplerTest, EachDeviceIsALocationOfItsOwnFromItsFirstContextToTheEnd) {
    start({&kSamples});
    // A long interval: the samples are the one taken when a device is added and the last one at stop().
    cuda::GpuMetricsSampler sampler(std::make_unique<FakeSource>(), std::chrono::hours(1), bus_id, say);
    sampler.add_device(1);
    sampler.add_device(1);  // a second context on the same GPU
    // Wait for the first sample of device 1 before adding device 0, for a fixed order.
    for (int i = 0; i < 1000 && samples().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    sampler.add_device(0);
    for (int i = 0; i < 1000 && samples().size() < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    sampler.stop();
    sampler.stop();  // idempotent

    std::map<std::uint32_t, const Location*> by_index;
    for (const Location* loc : location::all()) by_index[loc->index] = loc;
    const std::vector<Sample> seen = samples();
    // Device 1: at its add, when device 0 was added, at stop; device 0: at its add and at stop.
    std::map<std::uint32_t, std::vector<std::uint64_t>> utilization;
    std::map<std::uint32_t, int> power, memory;
    Ticks last = 0;
    for (const Sample& s : seen) {
        EXPECT_GE(s.time, last);
        last = s.time;
        const Location* loc = by_index.at(s.location_index);
        EXPECT_EQ(loc->type, LocationType::metric);
        if (s.metric == DeviceMetric::utilization) utilization[loc->device].push_back(s.value);
        if (s.metric == DeviceMetric::power) ++power[loc->device];
        if (s.metric == DeviceMetric::memory_used) {
            ++memory[loc->device];
            EXPECT_EQ(s.value, std::uint64_t{loc->device + 1} << 30);
        }
        EXPECT_NE(s.metric, DeviceMetric::sm_clock);  // never read: never recorded
    }
    EXPECT_EQ(utilization[1], (std::vector<std::uint64_t>{1, 2, 3}));
    EXPECT_EQ(utilization[0], (std::vector<std::uint64_t>{1, 2}));
    EXPECT_EQ(power[0], 2);
    EXPECT_EQ(power.count(1), 0u);  // the fake's second device reports no power: absent, not 0
    EXPECT_EQ(memory[1], 3);
    int metric_locations = 0;
    for (const auto& [index, loc] : by_index) {
        if (loc->type != LocationType::metric) continue;
        ++metric_locations;
        EXPECT_EQ(loc->name, "GPU[" + std::to_string(loc->device) + "] metrics");
    }
    EXPECT_EQ(metric_locations, 2);
    EXPECT_TRUE(said().empty());
    EXPECT_EQ(sampler.summary(), "5 samples of 2 GPUs every 3.6e+06 ms");
}

TEST_F(GpuMetricsSamplerTest, SamplesEveryInterval) {
    start({&kSamples});
    cuda::GpuMetricsSampler sampler(std::make_unique<FakeSource>(), std::chrono::milliseconds(2), bus_id, say);
    sampler.add_device(0);
    for (int i = 0; i < 2000 && samples().size() < 3 * 10; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    sampler.stop();
    std::uint64_t expected = 0;
    for (const Sample& s : samples()) {
        if (s.metric == DeviceMetric::utilization) {
            EXPECT_EQ(s.value, ++expected);
        }
    }
    EXPECT_GE(expected, 10u);
}

TEST_F(GpuMetricsSamplerTest, ASourceThatCannotOpenOrADeviceItLacksIsSaidOnce) {
    start({&kSamples});
    {
        cuda::GpuMetricsSampler sampler(std::make_unique<FakeSource>("libnvidia-ml.so.1 cannot be loaded"),
                                        std::chrono::milliseconds(1), bus_id, say);
        sampler.add_device(0);
        sampler.stop();
    }
    {
        cuda::GpuMetricsSampler sampler(std::make_unique<FakeSource>(), std::chrono::milliseconds(1), bus_id, say);
        sampler.add_device(2);
        sampler.add_device(3);
        sampler.stop();
    }
    EXPECT_TRUE(samples().empty());
    EXPECT_EQ(said(), (std::vector<std::string>{
                          "CUDA: GPU metrics not sampled (STRATA_CUDA_SAMPLING_INTERVAL): libnvidia-ml.so.1 "
                          "cannot be loaded",
                          "CUDA: GPU 2 (0000:ff:00.0) not sampled: no such device",
                          "CUDA: GPU 3 not sampled: no PCI bus id"}));
}

/// A source that does not answer (a hung driver) leaves the program free to end.
class HangingSource : public FakeSource {
public:
    explicit HangingSource(std::atomic<bool>* release) : release_(release) {}
    Error open() override {
        while (!release_->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return "released";  // the thread then touches nothing of the measurement
    }

private:
    std::atomic<bool>* release_;
};

TEST_F(GpuMetricsSamplerTest, ASourceThatHangsDoesNotHoldUpTheEnd) {
    start({&kSamples});
    static std::atomic<bool> release{false};  // outlives the sampler's thread, which is left behind
    auto* sampler = new cuda::GpuMetricsSampler(std::make_unique<HangingSource>(&release), std::chrono::hours(1),
                                                bus_id, say);
    EXPECT_TRUE(said().empty());
    sampler->add_device(0);
    const auto begin = std::chrono::steady_clock::now();
    sampler->stop(std::chrono::milliseconds(50));
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
    EXPECT_EQ(said(), (std::vector<std::string>{
                          "CUDA: warning: the GPU metrics sampler did not end within 50 ms (NVML does not "
                          "answer); its last samples are missing"}));
    // The thread, released, ends on its own; the sampler is never destroyed, as in the adapter.
    release = true;
    for (int i = 0; i < 5000 && said().size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(said().size(), 2u);
}

TEST_F(GpuMetricsSamplerTest, IntervalsAsTheSettingTakesThem) {
    EXPECT_EQ(cuda::parse_interval("off"), 0u);
    EXPECT_EQ(cuda::parse_interval("0"), 0u);
    EXPECT_EQ(cuda::parse_interval("100ms"), 100000000u);
    EXPECT_EQ(cuda::parse_interval("100"), 100000000u);
    EXPECT_EQ(cuda::parse_interval("0.5s"), 500000000u);
    EXPECT_EQ(cuda::parse_interval("2500us"), 2500000u);
    EXPECT_EQ(cuda::parse_interval("1h"), std::nullopt);
    EXPECT_EQ(cuda::parse_interval("500us"), std::nullopt);  // below 1 ms
    EXPECT_EQ(cuda::parse_interval("3601s"), std::nullopt);
    EXPECT_EQ(cuda::parse_interval("fast"), std::nullopt);
    EXPECT_EQ(cuda::parse_interval("-5ms"), std::nullopt);
    EXPECT_EQ(cuda::parse_interval("1e3"), std::nullopt);
    EXPECT_EQ(cuda::parse_interval("10 ms"), std::nullopt);
}

}  // namespace
}  // namespace strata::testing
