// SPDX-License-Identifier: BSD-3-Clause
// CUDA 13 activity records, byte-exact as CUPTI writes them, through the
// adapter's real buffer path (ActivityPipeline) and the real libcupti's
// record walker, with no GPU and no driver.  Run under Strata (tracing on,
// STRATA_TIMER=clock_gettime); check_record_replay.py reads what it wrote.
//
// Times from t0, right after the host call that launched saxpy returned.
// Stream 7: init() at +1..5 us, then saxpy() launched by a host call
// (correlation 41) at +10..60 us, then a 4 KiB copy to the device at
// +70..80 us, and next() at +55..65 us, started before saxpy ended (as
// programmatic dependent launch allows); stream 13: a 1 KiB memset at +20..25 us.  A second GPU
// (device 1, context 2) whose stream is also numbered 7: halo() at +15..45 us,
// then an 8 KiB peer copy from GPU 0 at +50..58 us.  Also a kernel without
// a start time, a synchronisation and an overhead record, a record of a kind
// the adapter does not know, and 3 records CUPTI reports as dropped.
//
// Then GPU metrics from a fake source through the real sampler: GPU 0 read
// three times (utilisation 10, 20, 30 %; 1 GiB used; 150 W; 1980 MHz), GPU 1
// twice (utilisation 11, 21 %; 2 GiB; no power, as some boards).
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include <atomic>
#include <chrono>
#include <thread>

#include "activity_pipeline.hpp"
#include "cupti_library.hpp"
#include "gpu_metrics_sampler.hpp"
#include "strata/measurement/events.hpp"

namespace {

class FakeNvml : public strata::cuda::DeviceMetricsSource {
public:
    std::atomic<int> reads{0};
    strata::Error open() override { return {}; }
    strata::Error find(const std::string& pci_bus_id, std::size_t* device) override {
        *device = pci_bus_id == "0000:3b:00.0" ? 0 : 1;
        return {};
    }
    strata::cuda::DeviceReading read(std::size_t device) override {
        strata::cuda::DeviceReading r;
        r.set(strata::DeviceMetric::utilization, 10 * ++count_[device] + device);
        r.set(strata::DeviceMetric::memory_utilization, 5);
        r.set(strata::DeviceMetric::memory_used, std::uint64_t{device + 1} << 30);
        if (device == 0) r.set(strata::DeviceMetric::power, 150000);
        r.set(strata::DeviceMetric::sm_clock, 1980);
        ++reads;
        return r;
    }
    std::string origin() const override { return "fake"; }

private:
    std::uint64_t count_[2] = {};
};

strata::Error bus_id(std::uint32_t ordinal, std::string* id) {
    *id = ordinal == 0 ? "0000:3b:00.0" : "0000:86:00.0";
    return {};
}

void say(const std::string& line) { std::fprintf(stderr, "strata: %s\n", line.c_str()); }

/// GPU 0 sampled at its add, at GPU 1's add and at the end; GPU 1 at its add and at the end.
void sample_gpus() {
    auto source = std::make_unique<FakeNvml>();
    FakeNvml& fake = *source;
    strata::cuda::GpuMetricsSampler sampler(std::move(source), std::chrono::hours(1), bus_id, say);
    const auto wait_for_reads = [&](int n) {
        for (int i = 0; i < 5000 && fake.reads < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    sampler.add_device(0);
    wait_for_reads(1);
    sampler.add_device(1);
    wait_for_reads(3);
    sampler.stop();
}

std::uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct Buffer {
    alignas(8) std::uint8_t bytes[8192] = {};
    std::size_t used = 0;
    template <typename Record>
    void put(const Record& record) {
        std::memcpy(bytes + used, &record, sizeof record);
        used += (sizeof record + 7) & ~std::size_t{7};
    }
};

CUpti_ActivityKernel10 kernel(const char* name, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                              std::uint32_t correlation, std::uint32_t device = 0) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.deviceId = device;
    k.contextId = device + 1;
    k.streamId = stream;
    k.start = start;
    k.end = end;
    k.correlationId = correlation;
    k.name = name;
    k.gridX = 128;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    return k;
}

}  // namespace

int main() {
    using namespace strata;
    cuda::CuptiLibrary cupti;
    if (const Error error = cuda::load_cupti(&cupti, "", nullptr)) {
        std::fprintf(stderr, "record_replay: %s\n", error->c_str());
        return 2;
    }
    cuda::ActivityPipeline pipeline(cupti, monotonic_ns);
    pipeline.add_clock_point();

    events::RegionSpec launch;
    launch.name = "cudaLaunchKernel";
    launch.paradigm = Paradigm::cuda;
    const RegionHandle launch_region = events::define_region(launch);
    events::enter_correlated(launch_region, 41);
    events::exit(launch_region);
    const std::uint64_t t0 = monotonic_ns();  // the GPU work runs after its launch

    Buffer buffer;
    buffer.put(kernel("_Z5saxpyfPfS_", 7, t0 + 10000, t0 + 60000, 41));
    buffer.put(kernel("_Z4initPf", 7, t0 + 1000, t0 + 5000, 40));   // earlier, later in the buffer
    buffer.put(kernel("_Z4lostv", 7, 0, t0 + 90000, 45));           // no start time
    buffer.put(kernel("_Z4nextv", 7, t0 + 55000, t0 + 65000, 46));  // starts before saxpy ends
    CUpti_ActivityMemcpy6 copy{};
    copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    copy.bytes = 4096;
    copy.start = t0 + 70000;
    copy.end = t0 + 80000;
    copy.contextId = 1;
    copy.streamId = 7;
    copy.correlationId = 42;
    buffer.put(copy);
    buffer.put(kernel("_Z4halov", 7, t0 + 15000, t0 + 45000, 44, 1));  // the second GPU's stream 7
    CUpti_ActivityMemcpyPtoP4 peer{};
    peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    peer.bytes = 8192;
    peer.start = t0 + 50000;
    peer.end = t0 + 58000;
    peer.deviceId = 1;
    peer.contextId = 2;
    peer.streamId = 7;
    peer.srcDeviceId = 0;
    peer.srcContextId = 1;
    peer.dstDeviceId = 1;
    peer.dstContextId = 2;
    peer.correlationId = 47;
    buffer.put(peer);
    CUpti_ActivityMemset4 memset{};
    memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    memset.bytes = 1024;
    memset.start = t0 + 20000;
    memset.end = t0 + 25000;
    memset.contextId = 1;
    memset.streamId = 13;
    memset.correlationId = 43;
    buffer.put(memset);
    CUpti_ActivitySynchronization2 sync{};
    sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    sync.start = t0 + 60000;
    sync.end = t0 + 81000;
    buffer.put(sync);
    CUpti_ActivityOverhead3 overhead{};
    overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    overhead.start = t0 + 100;
    overhead.end = t0 + 600;
    buffer.put(overhead);
    CUpti_ActivityName name{};  // a kind the adapter does not decode
    name.kind = CUPTI_ACTIVITY_KIND_NAME;
    name.name = "a thread";
    buffer.put(name);

    pipeline.completed(buffer.bytes, buffer.used, 3);
    for (const cuda::ActivityPipeline::Loss& loss : pipeline.losses("STRATA_CUDA_BUFFER_SIZE")) {
        std::fprintf(stderr, "loss: %s\n", loss.message().c_str());
        events::report_loss(loss.what, loss.count, loss.remedy);
    }
    sample_gpus();
    std::printf("{\"t0\": %llu, \"summary\": \"%s\"}\n", static_cast<unsigned long long>(t0),
                pipeline.summary().c_str());
    return 0;
}
