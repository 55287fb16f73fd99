// SPDX-License-Identifier: BSD-3-Clause
// Element sizes of datatypes for the message and collective byte counts, with
// a cache in front of PMPI_Type_size_x for the predefined datatypes.
//
//   MPI_Send(buf, 1, MPI_DOUBLE, ...)  -> datatype_size(MPI_DOUBLE)
//     cache slot of the handle holds (handle << 16 | size)?  yes -> size   (one load)
//                                                            no  -> PMPI_Type_size_x, and
//                                                                   MPI_COMBINER_NAMED -> fill the slot
//
// Only predefined (named) datatypes are cached: they live as long as the
// process and their handles are never reused, so an entry can never become
// wrong.  A derived datatype may be freed and its handle given to another one,
// so its size is asked from MPI every time.  Each slot is one 64-bit word,
// read and written atomically: threads never see a handle with another
// handle's size.
#pragma once

#include <atomic>
#include <cstdint>

#include "mpi_adapter.hpp"
#include "mpi_handles.hpp"

namespace strata::mpi {

namespace detail {
inline constexpr int kTypeSizeSlotBits = 6;
extern std::atomic<std::uint64_t> type_size_slots[1u << kTypeSizeSlotBits];

inline std::uint32_t type_size_slot(std::uintptr_t key) {
    return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kTypeSizeSlotBits));
}

/// Asks MPI, and caches the size of a named datatype.
std::uint64_t datatype_size_uncached(MPI_Datatype type);
}  // namespace detail

/// Bytes of one element of `type`; 0 for MPI_DATATYPE_NULL and for sizes MPI
/// cannot express (MPI_UNDEFINED).
inline std::uint64_t datatype_size(MPI_Datatype type) {
    const std::uintptr_t key = handle_key(type);
    const std::uint64_t entry =
        detail::type_size_slots[detail::type_size_slot(key)].load(std::memory_order_relaxed);
    if (entry != 0 && (entry >> 16) == key) return entry & 0xffff;
    return detail::datatype_size_uncached(type);
}

}  // namespace strata::mpi
