// SPDX-License-Identifier: BSD-3-Clause
// CUPTI activity records, decoded into one plain form.
//
// CUPTI hands records of the struct versions of the library in use.  Each
// struct only ever grows at its end, and the fields read here sit in the part
// every version since CUDA 12.0 (CUPTI API 18) shares with CUDA 13's headers;
// an older CUPTI is refused when the adapter starts.  A kind this adapter does
// not know is skipped and counted by its number, never guessed at.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>

#include "cupti_library.hpp"

namespace strata::cuda {

/// The oldest CUPTI API version whose records this decoder reads (CUDA 12.0).
inline constexpr uint32_t kOldestCuptiApi = 18;

struct GpuActivity {
    enum Kind : std::uint8_t { kernel, memcpy, memset, synchronization, overhead };
    Kind kind = kernel;
    std::uint32_t device = 0;
    std::uint32_t context = 0;
    std::uint32_t stream = 0;
    std::uint64_t start = 0;  ///< CUPTI's time (ns of the clock CUPTI was given)
    std::uint64_t end = 0;
    std::uint32_t correlation = 0;
    const char* name = nullptr;  ///< kernel: the (mangled) name, valid until the buffer is released
    std::uint64_t bytes = 0;     ///< memcpy, memset
    std::uint8_t copy_kind = 0;  ///< memcpy: CUpti_ActivityMemcpyKind
    std::int32_t grid[3] = {0, 0, 0};
    std::int32_t block[3] = {0, 0, 0};
    std::uint16_t registers = 0;
    std::int32_t shared_memory = 0;  ///< static + dynamic bytes per block
    std::uint32_t graph_id = 0;
    std::uint64_t graph_node_id = 0;
};

struct DecodeCounts {
    std::uint64_t zero_timestamps = 0;  ///< kernels, copies, memsets with a start or end of 0 (skipped)
    std::uint64_t malformed = 0;        ///< buffers CUPTI could not walk to their end
    std::map<std::uint32_t, std::uint64_t> unknown_kinds;  ///< skipped records by CUpti_ActivityKind
};

/// Calls `deliver(const GpuActivity&)` for every record of the buffer that
/// it knows, in the buffer's order, counting what it skips.
template <typename Deliver>
void decode_buffer(const CuptiLibrary& cupti, std::uint8_t* buffer, std::size_t valid, DecodeCounts* counts,
                   Deliver&& deliver);

/// One record; false when its kind is unknown (counted) or its times are 0.
bool decode_record(const CUpti_Activity* record, GpuActivity* out, DecodeCounts* counts);

/// "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... for a CUpti_ActivityMemcpyKind.
std::string_view copy_direction(std::uint8_t copy_kind);

template <typename Deliver>
void decode_buffer(const CuptiLibrary& cupti, std::uint8_t* buffer, std::size_t valid, DecodeCounts* counts,
                   Deliver&& deliver) {
    CUpti_Activity* record = nullptr;
    while (true) {
        const CUptiResult rc = cupti.activity_get_next_record(buffer, valid, &record);
        if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the end of the buffer
        if (rc != CUPTI_SUCCESS || record == nullptr) {
            ++counts->malformed;
            break;
        }
        GpuActivity activity;
        if (decode_record(record, &activity, counts)) deliver(static_cast<const GpuActivity&>(activity));
    }
}

}  // namespace strata::cuda
