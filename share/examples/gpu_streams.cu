// SPDX-License-Identifier: BSD-3-Clause
// The CUDA example: each MPI rank drives its GPU with two streams, per
// iteration (an NVTX range "iteration" in the domain strata.phase, the
// iteration marker strata-analyze uses):
//   stream 0: copy the field to the GPU, relax it (a kernel whose length grows
//             with the rank: a known GPU imbalance), copy it back
//   stream 1: a short "halo" kernel and a memset, overlapping stream 0
// then the ranks exchange a value with MPI_Allreduce.  Without MPI
// (-DSTRATA_EXAMPLE_NO_MPI) it runs as one process.  Several ranks share one
// GPU when there are fewer GPUs than ranks.
//
//   strata nvcc -O2 gpu_streams.cu -o gpu_streams        (mpicxx as host compiler: see demo.sh)
//   STRATA_ENABLE_TRACING=1 mpirun -np 2 ./gpu_streams [-n ITERATIONS] [-s ELEMENTS]
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef STRATA_EXAMPLE_NO_MPI
#include <mpi.h>
#endif

namespace {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "gpu_streams: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
}

/// `sweeps` Jacobi sweeps over a 1-D field: more sweeps, a longer kernel.
__global__ void relax(float* field, float* scratch, int n, int sweeps) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i >= n - 1) return;
    for (int s = 0; s < sweeps; ++s) {
        scratch[i] = 0.5f * field[i] + 0.25f * (field[i - 1] + field[i + 1]);
        __syncthreads();
        field[i] = scratch[i];
        __syncthreads();
    }
}

__global__ void halo(float* edges, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) edges[i] = edges[i] * 0.5f + 1.0f;
}

}  // namespace

int main(int argc, char** argv) {
    int rank = 0, size = 1;
#ifndef STRATA_EXAMPLE_NO_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    int iterations = 10, n = 1 << 20;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (std::strcmp(argv[a], "-n") == 0) iterations = std::atoi(argv[a + 1]);
        if (std::strcmp(argv[a], "-s") == 0) n = std::atoi(argv[a + 1]);
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        if (rank == 0) std::fprintf(stderr, "gpu_streams: no CUDA device; nothing to do\n");
#ifndef STRATA_EXAMPLE_NO_MPI
        MPI_Finalize();
#endif
        return 0;
    }
    check(cudaSetDevice(rank % devices), "cudaSetDevice");
    cudaStream_t streams[2];
    for (auto& s : streams) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    float *host = nullptr, *field = nullptr, *scratch = nullptr, *edges = nullptr;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    check(cudaMallocHost(&host, bytes), "cudaMallocHost");
    check(cudaMalloc(&field, bytes), "cudaMalloc");
    check(cudaMalloc(&scratch, bytes), "cudaMalloc");
    check(cudaMalloc(&edges, 4096 * sizeof(float)), "cudaMalloc");
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 17);

    const nvtxDomainHandle_t phase = nvtxDomainCreateA("strata.phase");
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "iteration";
    const int sweeps = 20 * (rank + 1);  // rank r's kernel works (r + 1) times as long
    double total = 0;
    for (int it = 0; it < iterations; ++it) {
        nvtxDomainRangePushEx(phase, &attributes);
        check(cudaMemcpyAsync(field, host, bytes, cudaMemcpyHostToDevice, streams[0]), "copy to GPU");
        relax<<<(n + 255) / 256, 256, 0, streams[0]>>>(field, scratch, n, sweeps);
        check(cudaMemcpyAsync(host, field, bytes, cudaMemcpyDeviceToHost, streams[0]), "copy from GPU");
        halo<<<16, 256, 0, streams[1]>>>(edges, 4096);
        check(cudaMemsetAsync(scratch, 0, 4096 * sizeof(float), streams[1]), "memset");
        check(cudaDeviceSynchronize(), "synchronize");
        double local = host[n / 2], sum = local;
#ifndef STRATA_EXAMPLE_NO_MPI
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
        total += sum;
        nvtxDomainRangePop(phase);
    }
    if (rank == 0) {
        std::printf("gpu_streams: %d ranks, %d iterations, checksum %.3f\n", size, iterations, total);
    }
    for (auto& s : streams) cudaStreamDestroy(s);
    cudaFree(field);
    cudaFree(scratch);
    cudaFree(edges);
    cudaFreeHost(host);
#ifndef STRATA_EXAMPLE_NO_MPI
    MPI_Finalize();
#endif
    return 0;
}
