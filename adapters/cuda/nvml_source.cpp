// SPDX-License-Identifier: BSD-3-Clause
// NVML as a DeviceMetricsSource, loaded at run time: the driver installs
// libnvidia-ml.so.1, and a machine without a driver has none (the sampler
// then says so in one line).  The few declarations needed are written out
// here, as NVML's documented ABI has them, since the toolkit need not ship
// nvml.h.
#include <dlfcn.h>

#include <string>
#include <type_traits>
#include <vector>

#include "gpu_metrics_sampler.hpp"

namespace strata::cuda {

namespace {

using NvmlReturn = int;  // nvmlReturn_t: 0 is NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {  // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlMemory {  // nvmlMemory_t (version 1)
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

class NvmlSource final : public DeviceMetricsSource {
public:
    explicit NvmlSource(std::string library) : library_(std::move(library)) {}

    Error open() override {
        const std::string name = library_.empty() ? "libnvidia-ml.so.1" : library_;
        void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            return name + " cannot be loaded (" + (why ? why : "unknown reason") + ")" +
                   (library_.empty() ? "; is the NVIDIA driver installed?" : "");
        }
        origin_ = name;
        const auto bind = [&](auto& f, const char* symbol) {
            f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(handle, symbol));
            if (f == nullptr && missing_.empty()) missing_ = symbol;
        };
        bind(init_, "nvmlInit_v2");
        bind(error_string_, "nvmlErrorString");
        bind(by_pci_bus_id_, "nvmlDeviceGetHandleByPciBusId_v2");
        bind(utilization_, "nvmlDeviceGetUtilizationRates");
        bind(memory_, "nvmlDeviceGetMemoryInfo");
        bind(power_, "nvmlDeviceGetPowerUsage");
        bind(clock_, "nvmlDeviceGetClockInfo");
        if (!missing_.empty()) return name + " has no " + missing_ + " (not NVML?)";
        const NvmlReturn rc = init_();
        if (rc != 0) return "NVML could not start: " + describe(rc);
        return {};
    }

    Error find(const std::string& pci_bus_id, std::size_t* device) override {
        NvmlDevice d = nullptr;
        const NvmlReturn rc = by_pci_bus_id_(pci_bus_id.c_str(), &d);
        if (rc != 0) return "NVML has no device at that PCI bus id: " + describe(rc);
        devices_.push_back(d);
        *device = devices_.size() - 1;
        return {};
    }

    DeviceReading read(std::size_t device) override {
        DeviceReading r;
        NvmlDevice d = devices_[device];
        NvmlUtilization u{};
        if (utilization_(d, &u) == 0) {
            r.set(DeviceMetric::utilization, u.gpu);
            r.set(DeviceMetric::memory_utilization, u.memory);
        }
        NvmlMemory m{};
        if (memory_(d, &m) == 0) r.set(DeviceMetric::memory_used, m.used);
        unsigned int milliwatts = 0;
        if (power_(d, &milliwatts) == 0) r.set(DeviceMetric::power, milliwatts);
        unsigned int mhz = 0;
        if (clock_(d, kNvmlClockSm, &mhz) == 0) r.set(DeviceMetric::sm_clock, mhz);
        return r;
    }

    std::string origin() const override { return origin_; }

private:
    std::string describe(NvmlReturn rc) const {
        const char* text = error_string_ ? error_string_(rc) : nullptr;
        return text ? std::string(text) : "NVML error " + std::to_string(rc);
    }

    std::string library_, origin_, missing_;
    std::vector<NvmlDevice> devices_;
    NvmlReturn (*init_)() = nullptr;
    const char* (*error_string_)(NvmlReturn) = nullptr;
    NvmlReturn (*by_pci_bus_id_)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*utilization_)(NvmlDevice, NvmlUtilization*) = nullptr;
    NvmlReturn (*memory_)(NvmlDevice, NvmlMemory*) = nullptr;
    NvmlReturn (*power_)(NvmlDevice, unsigned int*) = nullptr;
    NvmlReturn (*clock_)(NvmlDevice, int, unsigned int*) = nullptr;
};

}  // namespace

std::unique_ptr<DeviceMetricsSource> nvml_source(const std::string& library) {
    return std::make_unique<NvmlSource>(library);
}

}  // namespace strata::cuda
