// SPDX-License-Identifier: BSD-3-Clause
// A CUDA program whose GPU activity is known exactly, for the real-GPU check
// (tests/gpu/check.sh): per iteration a 1 MiB copy to the device, a timed
// kernel and a 1 MiB copy back on stream A, two kernels and a 64 KiB memset on
// stream B; then a CUDA graph of three kernels replayed four times.  It writes
// what it did, with the kernel times CUDA events measured, as JSON.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e = (call);                                                            \
        if (e != cudaSuccess) {                                                            \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

/// Spins for about `cycles` clock cycles: a kernel of a known length.
__global__ void busy_a(float* data, long long cycles) {
    const long long begin = clock64();
    while (clock64() - begin < cycles) {
    }
    data[threadIdx.x] += 1.0f;
}

__global__ void busy_b(float* data, long long cycles) {
    const long long begin = clock64();
    while (clock64() - begin < cycles) {
    }
    data[threadIdx.x] *= 0.5f;
}

__global__ void graph_kernel(float* data, int step) { data[threadIdx.x] += static_cast<float>(step); }

int main() {
    constexpr int iterations = 5;
    constexpr size_t copy_bytes = 1 << 20;
    constexpr size_t memset_bytes = 64 << 10;
    constexpr int graph_kernels = 3, graph_launches = 4;
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    float *host = nullptr, *da = nullptr, *db = nullptr;
    CHECK(cudaMallocHost(&host, copy_bytes));
    CHECK(cudaMalloc(&da, copy_bytes));
    CHECK(cudaMalloc(&db, copy_bytes));
    cudaEvent_t before, after;
    CHECK(cudaEventCreate(&before));
    CHECK(cudaEventCreate(&after));
    float event_ms[iterations];
    for (int i = 0; i < iterations; ++i) {
        nvtxRangePushA("iteration");
        CHECK(cudaMemcpyAsync(da, host, copy_bytes, cudaMemcpyHostToDevice, a));
        CHECK(cudaEventRecord(before, a));
        busy_a<<<1, 32, 0, a>>>(da, 2000000LL * (i + 1));  // about 1 ms more each iteration
        CHECK(cudaEventRecord(after, a));
        CHECK(cudaMemcpyAsync(host, da, copy_bytes, cudaMemcpyDeviceToHost, a));
        busy_b<<<1, 32, 0, b>>>(db, 500000LL);
        busy_b<<<1, 32, 0, b>>>(db, 500000LL);
        CHECK(cudaMemsetAsync(db, 0, memset_bytes, b));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventElapsedTime(&event_ms[i], before, after));
        nvtxRangePop();
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(b, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < graph_kernels; ++k) graph_kernel<<<1, 32, 0, b>>>(db, k);
    CHECK(cudaStreamEndCapture(b, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int l = 0; l < graph_launches; ++l) CHECK(cudaGraphLaunch(exec, b));
    CHECK(cudaStreamSynchronize(b));
    const char* out = std::getenv("KNOWN_ANSWERS");
    FILE* f = std::fopen(out != nullptr ? out : "known_answers.json", "w");
    if (f == nullptr) return 1;
    std::fprintf(f, "{\"kernels\": {\"busy_a\": %d, \"busy_b\": %d, \"graph_kernel\": %d},\n", iterations,
                 2 * iterations, graph_kernels * graph_launches);
    std::fprintf(f, " \"copies\": {\"HtoD\": [%d, %zu], \"DtoH\": [%d, %zu]},\n", iterations,
                 iterations * copy_bytes, iterations, iterations * copy_bytes);
    std::fprintf(f, " \"memsets\": [%d, %zu], \"streams_used\": 2, \"iterations\": %d,\n", iterations,
                 iterations * memset_bytes, iterations);
    std::fprintf(f, " \"busy_a_event_ms\": [");
    for (int i = 0; i < iterations; ++i) std::fprintf(f, "%s%.6f", i ? ", " : "", event_ms[i]);
    std::fprintf(f, "]}\n");
    std::fclose(f);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFreeHost(host));
    std::puts("known_answers: done");
    return 0;
}
