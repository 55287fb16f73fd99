// SPDX-License-Identifier: BSD-3-Clause
// The CUDA adapter's cost on the host: ns per kernel launch (an empty kernel,
// asynchronous, a stream synchronisation every 1000 launches) and per NVTX
// push/pop pair.  Run plain and under Strata by tests/gpu/check.sh (the
// machine with a GPU) or by hand; prints one JSON line.
//
//   cuda_launch [LAUNCHES] [RANGES]
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
    const long launches = argc > 1 ? std::atol(argv[1]) : 100000;
    const long ranges = argc > 2 ? std::atol(argv[2]) : 1000000;
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
    std::printf("{\"launch_ns\": %.1f, \"nvtx_range_ns\": %.1f, \"launches\": %ld, \"ranges\": %ld}\n",
                launch_ns, range_ns, launches, ranges);
    return 0;
}
