// SPDX-License-Identifier: BSD-3-Clause
// The CUDA adapter: CUPTI callbacks and activity buffers into events.
//
//   load (before main): STRATA_CUDA_* rows, NVTX injection announced, CUPTI
//     loaded and subscribed; Strata's clock registered with CUPTI once,
//     before any activity kind is enabled
//   CUDA API call     -> callback -> enter_correlated / exit on the calling thread
//   activity buffer   -> decode -> GpuStreams -> location_enter / location_exit
//   measurement end, context destroyed -> forced flush of every buffer
//   context created   -> its GPU sampled (STRATA_CUDA_SAMPLING_INTERVAL, gpu_metrics_sampler.hpp)
//
// Nothing here may stop the program: where CUPTI cannot be used (no driver,
// no device, another profiler subscribed) one line says so, and the program
// and the NVTX capture go on.
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

#include "activity_pipeline.hpp"
#include "strata/measurement/config_registry.hpp"
#include "cuda_config.hpp"
#include "cupti_library.hpp"
#include "gpu_metrics_sampler.hpp"
#include "gpu_streams.hpp"
#include "nvtx_injection.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"

namespace strata::cuda {

namespace {

// The adapter's objects are made once and never destroyed: CUPTI calls back
// while the process exits (a context destroyed, the measurement's last flush),
// after the static objects of this library are gone.
Settings& settings() {
    static auto* s = new Settings();
    return *s;
}
CuptiLibrary& cupti() {
    static auto* c = new CuptiLibrary();
    return *c;
}
CUpti_SubscriberHandle g_subscriber = nullptr;
bool g_activity = false;  ///< activity kinds are enabled
bool g_cupti_started = false;  ///< CUPTI records activity: its buffers are handed over at the end
GpuMetricsSampler* g_sampler = nullptr;  ///< STRATA_CUDA_SAMPLING_INTERVAL is on (never destroyed)
void* g_driver = nullptr;                ///< libcuda.so.1

// --- API calls as regions ---------------------------------------------------------

constexpr RegionHandle kSkipped = UINT32_MAX;
/// In a cached region: the call starts GPU work (a launch, copy, memset,
/// prefetch): its enter carries the correlation id that joins it to that work.
/// Other calls carry none: their ids would join nothing.
constexpr RegionHandle kStartsWork = 0x40000000u;

bool starts_work(const std::string& name) {
    for (const char* part : {"Launch", "Memcpy", "Memset", "Prefetch"}) {
        if (name.find(part) != std::string::npos) return true;
    }
    return false;
}
std::atomic<RegionHandle> g_runtime_regions[CUPTI_RUNTIME_TRACE_CBID_SIZE];
std::atomic<RegionHandle> g_driver_regions[CUPTI_DRIVER_TRACE_CBID_SIZE];

/// CUPTI names functions with the version that introduced them
/// ("cudaLaunchKernel_v7000"); the API's own suffixes (_v2, _v3) stay.
std::string api_name(const char* function) {
    std::string name = function != nullptr ? function : "(unknown CUDA call)";
    const std::size_t v = name.rfind("_v");
    if (v != std::string::npos && name.size() - v >= 6 &&
        name.find_first_not_of("0123456789", v + 2) == std::string::npos) {
        name.resize(v);
    }
    return name;
}

RegionHandle define_api_region(std::atomic<RegionHandle>& slot, const char* function) {
    const std::string name = api_name(function);
    RegionHandle region = kSkipped;
    bool skipped = false;
    for (const std::string& s : settings().api_skip) skipped |= s == name;
    if (!skipped) {
        region = define_cuda_region(name, RegionRole::function);
        if (region == 0 || (region & kStartsWork) != 0) {
            region = kSkipped;  // none, or beyond the handles the flag leaves
        } else if (starts_work(name)) {
            region |= kStartsWork;
        }
    }
    slot.store(region, std::memory_order_relaxed);
    return region;
}

/// Runtime API calls open on this thread: a driver launch inside one is the
/// runtime's own (recorded once, as the runtime call).
thread_local int t_runtime_depth = 0;

/// Driver calls that launch GPU work.  Libraries such as cuBLAS launch through
/// the driver: without these their kernels would have no launching call path.
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

/// The adapter's own driver calls (the GPU metrics sampler's): not the program's.
thread_local bool t_own_call = false;

void api_call(std::atomic<RegionHandle>* regions, std::size_t size, CUpti_CallbackId id,
              const CUpti_CallbackData* data) {
    if (id >= size || data == nullptr || t_own_call) return;
    if (regions == g_runtime_regions) {
        t_runtime_depth += data->callbackSite == CUPTI_API_ENTER ? 1 : -1;
    } else if (t_runtime_depth > 0 && (settings().features & feature_driver) == 0) {
        return;  // a launch the runtime call around it stands for
    }
    RegionHandle region = regions[id].load(std::memory_order_relaxed);
    if (region == 0) region = define_api_region(regions[id], data->functionName);
    if (region == kSkipped) return;
    const bool correlated = (region & kStartsWork) != 0;
    region &= ~kStartsWork;
    if (data->callbackSite != CUPTI_API_ENTER) {
        events::exit(region);
    } else if (correlated) {
        events::enter_correlated(region, data->correlationId);
    } else {
        events::enter(region);
    }
}

// --- activity buffers --------------------------------------------------------------

/// At most max_buffers buffers, reused: the adapter's memory is bounded.
struct BufferPool {
    std::mutex mutex;
    std::vector<std::uint8_t*> free;
    std::uint32_t made = 0;
};
BufferPool& pool() {
    static auto* p = new BufferPool();
    return *p;
}

bool g_cupti_clock = false;  ///< CUPTI kept its own clock: convert from cuptiGetTimestamp

std::uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

uint64_t CUPTIAPI cupti_clock() {
    return monotonic_ns();
}

/// The clock CUPTI's records are on.
std::uint64_t record_clock() {
    if (!g_cupti_clock) return monotonic_ns();
    std::uint64_t ns = 0;
    return cupti().get_timestamp(&ns) == CUPTI_SUCCESS ? ns : 0;
}

ActivityPipeline& pipeline() {
    static auto* p = new ActivityPipeline(cupti(), record_clock);  // never destroyed: used at exit
    return *p;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *max_records = 0;
    BufferPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.free.empty()) {
        *buffer = p.free.back();
        p.free.pop_back();
    } else if (p.made < max_buffers) {
        *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, settings().buffer_size));
        if (*buffer != nullptr) ++p.made;
    } else {
        *buffer = nullptr;
    }
    if (*buffer == nullptr) {
        // CUPTI drops what it cannot store, and counts it (see buffer_completed).
        pipeline().buffer_refused();
        *size = 0;
        return;
    }
    *size = settings().buffer_size;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
    size_t dropped = 0;
    if (cupti().activity_get_num_dropped_records(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pipeline().completed(buffer, valid, dropped);
    if (buffer == nullptr) return;
    BufferPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.free.push_back(buffer);
}

void flush_activity() {
    if (g_activity) cupti().activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/// A context was made: its device is sampled from now on.  No driver call
/// here: the driver is inside its context creation.
void sample_device_of(const CUpti_ResourceData* resource) {
    std::uint32_t ordinal = 0;
    if (g_sampler != nullptr && cupti().get_device_id != nullptr &&
        cupti().get_device_id(resource->context, &ordinal) == CUPTI_SUCCESS) {
        g_sampler->add_device(ordinal);
    }
}

/// The PCI bus id of a CUDA device, by which NVML finds it (CUDA's and NVML's
/// device numbers differ in general).  On the sampler's thread.
Error pci_bus_id(std::uint32_t ordinal, std::string* bus_id_text) {
    using DeviceGet = CUresult (*)(CUdevice*, int);
    using BusId = CUresult (*)(char*, int, CUdevice);
    const auto device_get = reinterpret_cast<DeviceGet>(dlsym(g_driver, "cuDeviceGet"));
    const auto bus_id = reinterpret_cast<BusId>(dlsym(g_driver, "cuDeviceGetPCIBusId"));
    if (device_get == nullptr || bus_id == nullptr) return "the CUDA driver has no cuDeviceGetPCIBusId";
    t_own_call = true;
    CUdevice device = 0;
    char pci[32] = {};
    const CUresult rc = device_get(&device, static_cast<int>(ordinal));
    const CUresult rc_bus = rc == CUDA_SUCCESS ? bus_id(pci, sizeof pci, device) : rc;
    t_own_call = false;
    if (rc_bus != CUDA_SUCCESS) {
        return "the CUDA driver gives no PCI bus id for it (CUresult " + std::to_string(rc_bus) + ")";
    }
    *bus_id_text = pci;
    return {};
}

void CUPTIAPI cupti_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    switch (domain) {
        case CUPTI_CB_DOMAIN_RUNTIME_API:
            api_call(g_runtime_regions, CUPTI_RUNTIME_TRACE_CBID_SIZE, id,
                     static_cast<const CUpti_CallbackData*>(data));
            break;
        case CUPTI_CB_DOMAIN_DRIVER_API:
            api_call(g_driver_regions, CUPTI_DRIVER_TRACE_CBID_SIZE, id,
                     static_cast<const CUpti_CallbackData*>(data));
            break;
        case CUPTI_CB_DOMAIN_RESOURCE:
            // The context's records must be taken while it exists.
            if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) flush_activity();
            if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
                sample_device_of(static_cast<const CUpti_ResourceData*>(data));
            }
            break;
        default:
            break;
    }
}

void say(const std::string& message) {
    std::fprintf(stderr, "strata: %s\n", message.c_str());
}

/// At the end of the measurement: the last records, then what was lost.
void at_end() {
    flush_activity();
    const std::string setting =
        "STRATA_CUDA_BUFFER_SIZE (now " + std::to_string(settings().buffer_size >> 10) + "K)";
    for (const ActivityPipeline::Loss& loss : pipeline().losses(setting)) {
        say("warning: CUDA: " + loss.message());
        events::report_loss(loss.what, loss.count, loss.remedy);
    }
    events::verbose("CUDA: " + pipeline().summary() + "; CUPTI from " + cupti().origin);
}

/// Sets CUPTI up; the error says why GPU activity is not recorded.
Error start_cupti() {
    // CUPTI answers "unknown error" without a driver: say what is missing.
    g_driver = dlopen("libcuda.so.1", RTLD_LAZY);
    if (g_driver == nullptr) return "no CUDA driver (libcuda.so.1 cannot be loaded)";
    std::string note;
    const Error not_loaded = load_cupti(&cupti(), settings().cupti_library, &note);
    if (!note.empty()) say("CUDA: " + note);
    if (not_loaded) return not_loaded;
    uint32_t version = 0;
    if (cupti().get_version(&version) != CUPTI_SUCCESS || version < kOldestCuptiApi) {
        return "CUPTI " + cupti().origin + " has API version " + std::to_string(version) +
               ", older than CUDA 12.0's (" + std::to_string(kOldestCuptiApi) + ")";
    }
    CUptiResult rc = cupti().subscribe(&g_subscriber, cupti_callback, nullptr);
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        return "another profiler (Nsight Systems, a framework's profiler) is already attached to CUPTI";
    }
    if (rc != CUPTI_SUCCESS) return "CUPTI refused the subscription: " + cupti().describe(rc);
    const std::uint32_t f = settings().features;
    if (f & feature_runtime) cupti().enable_domain(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (f & feature_driver) {
        cupti().enable_domain(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    } else if (f & feature_runtime) {
        for (CUpti_CallbackId id : kDriverLaunches)
            cupti().enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
    if (g_sampler != nullptr) {
        cupti().enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    }
    if ((f & activity_features) == 0) return {};
    cupti().enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    // Once, before any activity kind: records made earlier would be on CUPTI's clock.
    g_cupti_clock = cupti().activity_register_timestamp_callback == nullptr ||
                    cupti().activity_register_timestamp_callback(cupti_clock) != CUPTI_SUCCESS;
    pipeline().add_clock_point();
    rc = cupti().activity_register_callbacks(buffer_requested, buffer_completed);
    if (rc != CUPTI_SUCCESS) return "CUPTI refused the activity buffers: " + cupti().describe(rc);
    const struct {
        std::uint32_t feature;
        CUpti_ActivityKind kind;
    } kinds[] = {
        // CONCURRENT_KERNEL, never KERNEL: KERNEL serialises the program's kernels.
        {feature_kernel, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
        {feature_memcpy, CUPTI_ACTIVITY_KIND_MEMCPY},
        {feature_memcpy, CUPTI_ACTIVITY_KIND_MEMCPY2},
        {feature_memset, CUPTI_ACTIVITY_KIND_MEMSET},
        {feature_sync, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
        {feature_overhead, CUPTI_ACTIVITY_KIND_OVERHEAD},
    };
    for (const auto& k : kinds) {
        if ((f & k.feature) == 0) continue;
        rc = cupti().activity_enable(k.kind);
        if (rc != CUPTI_SUCCESS) return "CUPTI cannot record GPU activity: " + cupti().describe(rc);
        g_activity = true;
    }
    g_cupti_started = true;
    return {};
}

void stop_sampler() {
    g_sampler->stop();
    events::verbose("CUDA: GPU metrics: " + g_sampler->summary());
}

/// GPU metrics over time, when asked for and where they can be recorded.
void start_sampler() {
    const std::uint64_t interval = settings().sampling_interval_ns;
    if (interval == 0) return;
    if (!events::is_tracing()) {
        say("CUDA: GPU metrics not sampled: they are recorded only in the trace, and tracing is off "
            "(STRATA_CUDA_SAMPLING_INTERVAL needs STRATA_ENABLE_TRACING=1)");
        return;
    }
    g_sampler = new GpuMetricsSampler(nvml_source(settings().nvml_library),
                                      std::chrono::nanoseconds(interval), pci_bus_id, say);
}

/// At the measurement's end: the last GPU metrics, then CUPTI's buffers.
void finalize_cuda() {
    if (g_sampler != nullptr) stop_sampler();
    if (g_cupti_started) at_end();
}

/// Before main: STRATA_CUDA_* (a bad value stops the program: subsystem.hpp,
/// init), then NVTX, the GPU metrics sampler and CUPTI, as the settings ask.
/// What cannot start (no driver, no CUPTI) is said and the rest runs.
Error init_cuda_adapter() {
    if (Error failure = register_variables(config::Registry::instance(), &settings())) return failure;
    nvtx::set_enabled((settings().features & feature_nvtx) != 0);
    if (settings().features & feature_nvtx) nvtx::announce_injection_library();
    start_sampler();
    if ((settings().features & ~feature_nvtx) == 0 && g_sampler == nullptr) return {};
    if (const Error problem = start_cupti()) {
        // The sampler learns of GPUs through CUPTI: without it, none are sampled.
        say("CUDA: " + *problem + "; GPU activity not recorded" +
            ((settings().features & feature_nvtx) ? " (NVTX ranges are)" : "") +
            (g_sampler != nullptr ? ", GPU metrics not sampled" : ""));
    }
    return {};
}

constexpr events::Subsystem kCudaSubsystem{"cuda", false, init_cuda_adapter, finalize_cuda};

__attribute__((constructor)) void start_cuda_adapter() {
    if (!events::is_active()) return;
    events::register_subsystem(&kCudaSubsystem);
}

}  // namespace

}  // namespace strata::cuda
