// SPDX-License-Identifier: BSD-3-Clause
// GPU metrics over time (STRATA_CUDA_SAMPLING_INTERVAL): a thread of its own
// reads each GPU the process has a CUDA context on, at a fixed interval, and
// records the values on a location of type metric per GPU ("GPU[d] metrics",
// experiment-format.md).  Where the values come from is an interface: NVML in
// a measured program (nvml_source.cpp), a fake in the tests.
//
//   CUPTI: context created -> add_device(ordinal)   (any thread; the first starts the thread)
//   sampler thread: the device's PCI bus id (bus_id_of), found in the source
//                   every interval -> source.read(each device) -> events::location_metric
//   measurement end -> stop(): one last sample, the thread ended
//
// Nothing the sampler waits for may hold up the program: the thread starts
// only once a GPU is in use, the callback that announces a device makes no
// driver call, and stop() waits a bounded time for the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "strata/measurement/events.hpp"

namespace strata::cuda {

inline constexpr std::uint32_t kDeviceMetrics = static_cast<std::uint32_t>(DeviceMetric::count);

/// What a device reported at one moment: value[m] where bit m of `present` is set.
struct DeviceReading {
    std::uint64_t value[kDeviceMetrics] = {};
    std::uint32_t present = 0;
    void set(DeviceMetric metric, std::uint64_t v) {
        value[static_cast<std::uint32_t>(metric)] = v;
        present |= 1u << static_cast<std::uint32_t>(metric);
    }
};

/// Where samples come from.  Called from the sampler's thread only.
class DeviceMetricsSource {
public:
    virtual ~DeviceMetricsSource() = default;
    /// Makes the source ready (loads and initialises NVML); the error says why it cannot be used.
    virtual Error open() = 0;
    /// The source's number for the device with PCI bus id `pci_bus_id`
    /// ("0000:3b:00.0"); the error says why it has none.
    virtual Error find(const std::string& pci_bus_id, std::size_t* device) = 0;
    /// What the device reports now; values it cannot read are left out.
    virtual DeviceReading read(std::size_t device) = 0;
    /// Where the source came from (a library path), for messages.
    virtual std::string origin() const = 0;
};

/// NVML, loaded at run time: `library` ("" chooses libnvidia-ml.so.1, the driver's).
std::unique_ptr<DeviceMetricsSource> nvml_source(const std::string& library);

class GpuMetricsSampler {
public:
    /// Sets `bus_id` to the PCI bus id of CUDA device `ordinal`; the error says
    /// why it has none (called on the sampler's thread).
    using BusIdFn = Error (*)(std::uint32_t ordinal, std::string* bus_id);

    /// The thread starts with the first device; it opens `source` first.
    /// `say` prints one line (a source that cannot be opened, a device it
    /// cannot find, a thread that did not end).
    GpuMetricsSampler(std::unique_ptr<DeviceMetricsSource> source, std::chrono::nanoseconds interval,
                      BusIdFn bus_id_of, void (*say)(const std::string&));
    ~GpuMetricsSampler();
    GpuMetricsSampler(const GpuMetricsSampler&) = delete;
    GpuMetricsSampler& operator=(const GpuMetricsSampler&) = delete;

    /// The process uses CUDA device `ordinal` (a context was made on it); it is
    /// sampled from now on.  Thread-safe, cheap; a device added twice counts once.
    void add_device(std::uint32_t ordinal);
    /// Takes a last sample of every device and ends the thread, waiting at
    /// most `patience` for it (a source that hangs is left behind, and said
    /// so).  Idempotent.
    void stop(std::chrono::milliseconds patience = std::chrono::milliseconds(2000));
    /// "N samples of M GPUs every T ms", for the adapter's summary.
    std::string summary() const;

private:
    struct Device {
        std::uint32_t ordinal;
        std::size_t source_device = 0;
        events::LocationHandle location = 0;  ///< 0: not sampled (the source lacks it, no location)
    };

    void run();
    void take_new_devices();
    void sample_all();

    std::unique_ptr<DeviceMetricsSource> source_;
    const std::chrono::nanoseconds interval_;
    BusIdFn bus_id_of_;
    void (*say_)(const std::string&);
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable ended_;
    bool stopping_ = false;
    bool running_ = false;  ///< the thread was started and has not ended (under mutex_)
    std::vector<Device> pending_;  ///< added, not yet taken by the thread (under mutex_)
    std::vector<Device> devices_;  ///< the thread's own
    std::uint64_t samples_ = 0;    ///< under mutex_ when read from outside the thread
    std::size_t sampled_devices_ = 0;
    std::thread thread_;
};

}  // namespace strata::cuda
