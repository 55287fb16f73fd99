// SPDX-License-Identifier: BSD-3-Clause
// The CUDA adapter's cost on the host: ns per kernel launch (an empty kernel,
// asynchronous, a stream synchronisation every 1000 launches) and per NVTX
// push/pop pair.  Run plain and under Strata by tests/gpu/check.sh (the
// machine with a GPU) or by hand; prints one JSON line.
//
//   cuda_launch [LAUNCHES] [RANGES] [plain|cupti|cupti+callbacks]
//
// `cupti` and `cupti+callbacks` measure what CUPTI itself costs, with no
// Strata: the program subscribes to CUPTI as a minimal tool would, with the
// activity kinds Strata records by default (concurrent kernels, copies,
// memsets; records read and dropped) and, for `cupti+callbacks`, an empty
// callback on every CUDA runtime call and on the driver's launches.  What
// Strata adds beyond CUPTI is the difference to the run under Strata.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if __has_include(<cupti.h>)
#include <cupti.h>
#include <dlfcn.h>
#define CUDA_LAUNCH_HAS_CUPTI 1

namespace cupti_baseline {
using GetNextRecord = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
GetNextRecord next_record = nullptr;
long records = 0;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = 4u << 20;  // Strata's default STRATA_CUDA_BUFFER_SIZE
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* record = nullptr;
    while (next_record(buffer, valid, &record) == CUPTI_SUCCESS) ++records;
    std::free(buffer);
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

template <typename Fn>
Fn bind(void* library, const char* name) {
    return reinterpret_cast<Fn>(dlsym(library, name));
}

/// "" when CUPTI records; otherwise why not.
const char* start(bool callbacks) {
    void* cupti = dlopen("libcupti.so.13", RTLD_NOW);
    if (cupti == nullptr) cupti = dlopen("libcupti.so", RTLD_NOW);
    if (cupti == nullptr) return "libcupti cannot be loaded";
    next_record = bind<GetNextRecord>(cupti, "cuptiActivityGetNextRecord");
    const auto register_callbacks =
        bind<CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc)>(
            cupti, "cuptiActivityRegisterCallbacks");
    const auto enable = bind<CUptiResult (*)(CUpti_ActivityKind)>(cupti, "cuptiActivityEnable");
    if (next_record == nullptr || register_callbacks == nullptr || enable == nullptr) return "libcupti lacks functions";
    if (callbacks) {
        const auto subscribe =
            bind<CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*)>(cupti, "cuptiSubscribe");
        const auto enable_domain =
            bind<CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain)>(cupti, "cuptiEnableDomain");
        const auto enable_callback =
            bind<CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId)>(
                cupti, "cuptiEnableCallback");
        CUpti_SubscriberHandle subscriber;
        if (subscribe == nullptr || subscribe(&subscriber, on_call, nullptr) != CUPTI_SUCCESS) return "no subscription";
        enable_domain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
        for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx})
            enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
    if (register_callbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) return "no activity buffers";
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET}) {
        if (enable(kind) != CUPTI_SUCCESS) return "an activity kind was refused";
    }
    return "";
}

void finish() {
    using Flush = CUptiResult (*)(uint32_t);
    void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (cupti == nullptr) cupti = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
    if (cupti == nullptr) return;
    if (const auto flush = bind<Flush>(cupti, "cuptiActivityFlushAll")) flush(1);
}
}  // namespace cupti_baseline
#endif

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
    const long launches = argc > 1 ? std::atol(argv[1]) : 100000;
    const long ranges = argc > 2 ? std::atol(argv[2]) : 1000000;
    const char* mode = argc > 3 ? argv[3] : "plain";
    if (std::strcmp(mode, "plain") != 0) {
#ifdef CUDA_LAUNCH_HAS_CUPTI
        if (std::strcmp(mode, "cupti") != 0 && std::strcmp(mode, "cupti+callbacks") != 0) {
            std::fprintf(stderr, "cuda_launch: mode '%s': plain, cupti or cupti+callbacks\n", mode);
            return 2;
        }
        if (const char* problem = cupti_baseline::start(std::strcmp(mode, "cupti+callbacks") == 0); *problem) {
            std::fprintf(stderr, "cuda_launch: %s\n", problem);
            return 1;
        }
#else
        std::fprintf(stderr, "cuda_launch: built without cupti.h: only the plain mode\n");
        return 2;
#endif
    }
    using clock = std::chrono::steady_clock;
    empty_kernel<<<1, 1>>>();  // module load, context: not measured
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "cuda_launch: no usable GPU\n");
        return 1;
    }
    const auto l0 = clock::now();
    for (long i = 0; i < launches; ++i) {
        empty_kernel<<<1, 1>>>();
        if (i % 1000 == 999) cudaStreamSynchronize(nullptr);
    }
    cudaDeviceSynchronize();
    const auto l1 = clock::now();
    for (long i = 0; i < ranges; ++i) {
        nvtxRangePushA("range");
        nvtxRangePop();
    }
    const auto r1 = clock::now();
    const double launch_ns = std::chrono::duration<double, std::nano>(l1 - l0).count() / launches;
    const double range_ns = std::chrono::duration<double, std::nano>(r1 - l1).count() / ranges;
    long records = -1;
#ifdef CUDA_LAUNCH_HAS_CUPTI
    if (std::strcmp(mode, "plain") != 0) {
        cupti_baseline::finish();
        records = cupti_baseline::records;
    }
#endif
    std::printf("{\"mode\": \"%s\", \"launch_ns\": %.1f, \"nvtx_range_ns\": %.1f, \"launches\": %ld, \"ranges\": %ld, "
                "\"cupti_records\": %ld}\n",
                mode, launch_ns, range_ns, launches, ranges, records);
    return 0;
}
