// SPDX-License-Identifier: BSD-3-Clause
// The predefined datatypes' size cache (see datatype_sizes.hpp).
#include "datatype_sizes.hpp"

namespace strata::mpi::detail {

std::atomic<std::uint64_t> type_size_slots[1u << kTypeSizeSlotBits];

std::uint64_t datatype_size_uncached(MPI_Datatype type) {
    if (type == MPI_DATATYPE_NULL) return 0;
    MPI_Count size = 0;
    PMPI_Type_size_x(type, &size);
    if (size <= 0) return 0;  // MPI_UNDEFINED: the size does not fit an MPI_Count
    const std::uintptr_t key = handle_key(type);
    int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
    // An entry holds the handle in 48 bits and the size in 16.
    if (key != 0 && (key >> 48) == 0 && size < (1 << 16) &&
        PMPI_Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner) == MPI_SUCCESS &&
        combiner == MPI_COMBINER_NAMED) {
        type_size_slots[type_size_slot(key)].store((std::uint64_t{key} << 16) | static_cast<std::uint64_t>(size),
                                                   std::memory_order_relaxed);
    }
    return static_cast<std::uint64_t>(size);
}

}  // namespace strata::mpi::detail
