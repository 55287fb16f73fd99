// SPDX-License-Identifier: BSD-3-Clause
// A CUDA program for machines without a GPU or driver: its CUDA calls fail
// and it says so, its NVTX ranges work.  Under Strata it must finish normally,
// with one line saying why GPU activity is not recorded.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

__global__ void scale(float* data, float factor) { data[threadIdx.x] *= factor; }

int main() {
    nvtxRangePushA("set-up");
    float* data = nullptr;
    const cudaError_t error = cudaMalloc(&data, 256 * sizeof(float));
    nvtxRangePop();
    for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("step");
        if (error == cudaSuccess) scale<<<1, 256>>>(data, 2.0f);
        nvtxRangePop();
    }
    if (error == cudaSuccess) {
        cudaDeviceSynchronize();
        cudaFree(data);
        std::puts("no_driver: ran on a GPU");
    } else {
        std::printf("no_driver: no GPU (%s)\n", cudaGetErrorString(error));
    }
    return 0;
}
