// SPDX-License-Identifier: BSD-3-Clause
// The STRATA_CUDA_* rows.
#include "cuda_config.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "strata/measurement/config_registry.hpp"

namespace strata::cuda {

namespace {

constexpr config::EventGroup kFeatures[] = {
    {"runtime", feature_runtime,
     "CUDA runtime API calls (cudaLaunchKernel, cudaMemcpy, ...) as regions, and the driver calls that "
     "launch "
     "work outside them (cuLaunchKernel, cuGraphLaunch, ...: cuBLAS launches so)"},
    {"driver", feature_driver, "CUDA driver API calls (cuLaunchKernel, ...) as regions"},
    {"kernel", feature_kernel, "kernels on their GPU streams, with grid, block, registers, shared memory"},
    {"memcpy", feature_memcpy, "copies on their GPU streams, with bytes and direction"},
    {"memset", feature_memset, "memsets on their GPU streams"},
    {"sync", feature_sync,
     "CUPTI's synchronisation records, counted in the summary (the waits are the API calls' regions)"},
    {"overhead", feature_overhead,
     "CUPTI's and the driver's own overhead, counted and summed in the summary"},
    {"nvtx", feature_nvtx, "NVTX ranges, marks, domains and thread names (no GPU needed)"},
};

/// Calls made so often, and so cheap, that recording them would only add cost
/// and clutter (Nsight Systems leaves them out of its summaries too).
constexpr const char* kDefaultSkip =
    "cudaGetDevice,cudaGetLastError,cudaPeekAtLastError,cudaGetDeviceCount,cudaDeviceGetAttribute,"
    "cudaStreamIsCapturing,cudaGetDeviceProperties_v2,cudaPointerGetAttributes,cudaFuncGetAttributes,"
    "cudaDriverGetVersion,cudaRuntimeGetVersion,cudaGetFuncBySymbol,cudaGetDriverEntryPoint,"
    "cudaGetDriverEntryPointByVersion,cudaStreamGetCaptureInfo_v2,cudaStreamGetCaptureInfo_v3,"
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,"
    "cuCtxGetCurrent,cuCtxSetCurrent,cuCtxGetDevice,cuDeviceGet,cuDeviceGetAttribute,cuGetErrorString,"
    "cuGetProcAddress,cuGetProcAddress_v2,cuStreamIsCapturing,cuPointerGetAttribute,cuPointerGetAttributes,"
    "cuCtxGetStreamPriorityRange,cuDriverGetVersion,cuModuleGetFunction,cuFuncGetAttribute,"
    "cuKernelGetFunction,"
    "cuLibraryGetKernel,cuKernelGetAttribute,cuStreamGetCaptureInfo,cuStreamGetCaptureInfo_v2";

}  // namespace

std::uint32_t feature_mask(const std::string& normalized) {
    return config::group_bits(normalized, kFeatures, default_features);
}

/// What a value of STRATA_CUDA_SAMPLING_INTERVAL that parse_interval refuses stores.
constexpr std::uint64_t kBadInterval = UINT64_MAX;

Error register_variables(config::Registry& registry, Settings* settings) {
    config::Variable enable;
    enable.ns = "CUDA";
    enable.name = "ENABLE";
    enable.type = config::Type::list;
    enable.default_value = "default";
    enable.accepted = config::group_values({"default", "all", "none"}, kFeatures);
    enable.short_help = "CUDA and NVTX events recorded";
    std::ostringstream help;
    help << "What the CUDA adapter records: a comma-separated list of the names below, \"default\" "
            "(runtime, kernel, memcpy, memset, nvtx), \"all\" or \"none\".  GPU activity comes from "
            "CUPTI's activity buffers, each (device, context, stream) a location of its own; API "
            "calls are regions on the calling thread, joined to the GPU work they launched by "
            "CUPTI's correlation id.\n\n";
    help << config::group_help(kFeatures, 10);
    enable.long_help = help.str();
    enable.store = [settings](const std::string& normalized) {
        settings->features = feature_mask(normalized);
    };
    if (auto failure = registry.add_and_load(std::move(enable))) return failure;

    config::Variable buffer;
    buffer.ns = "CUDA";
    buffer.name = "BUFFER_SIZE";
    buffer.type = config::Type::size;
    buffer.default_value = "4M";
    buffer.short_help = "size of one CUPTI activity buffer";
    buffer.long_help =
        "The size of each buffer handed to CUPTI for GPU activity records (a kernel record takes "
        "about 200 bytes).  At most 16 are in use at once, so the adapter holds at most 16 times "
        "this much; when all are full CUPTI drops records, which are counted, written into the "
        "experiment and named by the analysis with this setting to raise.  From 64K to 256M.";
    buffer.store = [settings](const std::string& normalized) {
        settings->buffer_size = std::stoull(normalized);
    };
    if (auto failure = registry.add_and_load(std::move(buffer))) return failure;
    if (settings->buffer_size < (64u << 10) || settings->buffer_size > (256u << 20)) {
        return "strata: STRATA_CUDA_BUFFER_SIZE is " + std::to_string(settings->buffer_size) +
               " bytes, out of range; accepted: from 64K to 256M (a size such as 4M)";
    }

    config::Variable skip;
    skip.ns = "CUDA";
    skip.name = "API_SKIP";
    skip.type = config::Type::list;
    skip.default_value = kDefaultSkip;
    skip.short_help = "CUDA API calls not recorded as regions";
    skip.long_help =
        "CUDA runtime and driver functions that are not recorded as regions although their group "
        "(runtime, driver) is on: by default cheap, frequent queries such as cudaGetDevice and "
        "cudaGetLastError.  A comma-separated list of function names; \"\" records every call.";
    skip.store = [settings](const std::string& normalized) {
        settings->api_skip.clear();
        std::istringstream items(normalized);
        std::string item;
        while (std::getline(items, item, ',')) {
            if (!item.empty()) settings->api_skip.push_back(item);
        }
    };
    if (auto failure = registry.add_and_load(std::move(skip))) return failure;

    config::Variable library;
    library.ns = "CUDA";
    library.name = "CUPTI_LIBRARY";
    library.type = config::Type::path;
    library.default_value = "";
    library.short_help = "the libcupti to use (empty: found automatically)";
    library.long_help =
        "The CUPTI library the CUDA adapter loads, as a path or a library name.  Empty (the default): "
        "the libcupti the process has loaded already (PyTorch brings its own), else libcupti.so.13 or "
        "libcupti.so from the library path, else the CUDA toolkit's found when Strata was built.  A "
        "process that has a libcupti loaded already keeps it (two would both attach to the driver).";
    library.store = [settings](const std::string& normalized) { settings->cupti_library = normalized; };
    if (auto failure = registry.add_and_load(std::move(library))) return failure;

    config::Variable interval;
    interval.ns = "CUDA";
    interval.name = "SAMPLING_INTERVAL";
    interval.type = config::Type::string;
    interval.default_value = "off";
    interval.short_help = "sample GPU metrics (NVML) at this interval; off by default";
    interval.long_help =
        "Every this often, each GPU the process has a CUDA context on is read through NVML: "
        "utilisation, memory utilisation, memory used, power and SM clock.  The samples are a "
        "location of their own per GPU in the trace (\"GPU[d] metrics\"), so they need "
        "STRATA_ENABLE_TRACING; strata-analyze shows them over time per GPU.  \"off\" or 0 (the "
        "default), or a time from 1ms to 1h: 100ms, 0.5s, 250us (a number alone is milliseconds).  "
        "NVML updates utilisation every 1/6 s to 1 s, depending on the GPU.";
    interval.store = [settings](const std::string& normalized) {
        settings->sampling_interval_ns = parse_interval(normalized).value_or(kBadInterval);
    };
    if (auto failure = registry.add_and_load(std::move(interval))) return failure;
    if (settings->sampling_interval_ns == kBadInterval) {
        const char* value = std::getenv("STRATA_CUDA_SAMPLING_INTERVAL");
        return "strata: STRATA_CUDA_SAMPLING_INTERVAL='" + std::string(value ? value : "") +
               "' is not valid; accepted: off or 0 (no sampling), or a time from 1ms to 1h such as 100ms, "
               "0.5s or 250us (a number alone is milliseconds)";
    }

    config::Variable nvml;
    nvml.ns = "CUDA";
    nvml.name = "NVML_LIBRARY";
    nvml.type = config::Type::path;
    nvml.default_value = "";
    nvml.short_help = "the NVML library GPU metrics are read with (empty: the driver's)";
    nvml.long_help =
        "The NVML library STRATA_CUDA_SAMPLING_INTERVAL reads GPU metrics with, as a path or a "
        "library name.  Empty (the default): libnvidia-ml.so.1, which the NVIDIA driver installs.";
    nvml.store = [settings](const std::string& normalized) { settings->nvml_library = normalized; };
    return registry.add_and_load(std::move(nvml));
}

std::optional<std::uint64_t> parse_interval(const std::string& text) {
    if (text == "off" || text == "0") return 0;
    std::size_t used = 0;
    double number = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const std::string unit = text.substr(used);
    double ns_per_unit = 0;
    if (unit.empty() || unit == "ms") {
        ns_per_unit = 1e6;
    } else if (unit == "us") {
        ns_per_unit = 1e3;
    } else if (unit == "s") {
        ns_per_unit = 1e9;
    } else {
        return std::nullopt;
    }
    const double ns = number * ns_per_unit;
    // std::stod also takes exponents, signs, hexadecimal, inf and nan: none is a time here.
    if (!(ns >= 1e6 && ns <= 3600e9) || text.find_first_of("eE+-xXnNiI") != std::string::npos) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(ns);
}

}  // namespace strata::cuda
