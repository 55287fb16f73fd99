// SPDX-License-Identifier: BSD-3-Clause
// STRATA_CUDA_ENABLE, STRATA_CUDA_BUFFER_SIZE and STRATA_CUDA_API_SKIP: their
// registry rows and what they select.  Needs no CUDA, so that strata-info can
// list the rows too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/measurement/error.hpp"

namespace strata::config {
class Registry;
}

namespace strata::cuda {

/// What STRATA_CUDA_ENABLE selects (Score-P's SCOREP_CUDA_ENABLE names).
enum Feature : std::uint32_t {
    feature_runtime = 1u << 0,   ///< CUDA runtime API calls as regions
    feature_driver = 1u << 1,    ///< CUDA driver API calls as regions
    feature_kernel = 1u << 2,    ///< kernels on their streams (CONCURRENT_KERNEL)
    feature_memcpy = 1u << 3,    ///< copies on their streams
    feature_memset = 1u << 4,    ///< memsets on their streams
    feature_sync = 1u << 5,      ///< synchronisations (stream, event, context) as GPU-side records
    feature_overhead = 1u << 6,  ///< CUPTI's and the driver's own overhead
    feature_nvtx = 1u << 7,      ///< NVTX ranges, marks and names (the injection library)
};
inline constexpr std::uint32_t default_features =
    feature_runtime | feature_kernel | feature_memcpy | feature_memset | feature_nvtx;
inline constexpr std::uint32_t activity_features =
    feature_kernel | feature_memcpy | feature_memset | feature_sync | feature_overhead;

struct Settings {
    std::uint32_t features = default_features;
    std::uint64_t buffer_size = 4u << 20;  ///< bytes of one CUPTI activity buffer
    /// API functions not recorded as regions even when their group is on.
    std::vector<std::string> api_skip;
    std::string cupti_library;  ///< STRATA_CUDA_CUPTI_LIBRARY: "" chooses automatically
    /// STRATA_CUDA_SAMPLING_INTERVAL in nanoseconds: GPU metrics over time; 0: off.
    std::uint64_t sampling_interval_ns = 0;
    std::string nvml_library;  ///< STRATA_CUDA_NVML_LIBRARY: "" is the driver's libnvidia-ml.so.1
};

/// A sampling interval as STRATA_CUDA_SAMPLING_INTERVAL takes it: "0"/"off",
/// or a time from 1 ms to 1 h with a unit (us, ms, s; a number alone is
/// milliseconds).  Nanoseconds, or nothing when the text is not one.
std::optional<std::uint64_t> parse_interval(const std::string& text);

/// The largest number of activity buffers handed to CUPTI at once: the pool
/// holds at most this many times STRATA_CUDA_BUFFER_SIZE.
inline constexpr std::uint32_t max_buffers = 16;

/// The features of a value as the registry normalises it.
std::uint32_t feature_mask(const std::string& normalized);

/// Adds the rows; `settings` receives the values each time the registry loads
/// them.  Returns the registry's message for a bad value.
Error register_variables(config::Registry& registry, Settings* settings);

}  // namespace strata::cuda
