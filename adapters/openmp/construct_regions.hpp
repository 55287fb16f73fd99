// SPDX-License-Identifier: BSD-3-Clause
// The region of an OpenMP construct at a call site: "!$omp parallel @jacobi.c:42".
//
// One region per (construct, return address), so two parallel loops of a
// program are told apart.  The first event of a call site defines the region
// (a lock, the DWARF look-up); afterwards each thread finds it in a small
// direct-mapped cache of its own, without a lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "strata/measurement/types.hpp"

namespace strata::openmp {

enum class Construct : std::uint8_t {
    parallel,
    loop,
    sections,
    single,
    workshare,
    distribute,
    taskloop,
    scope,
    masked,
    barrier,
    implicit_barrier,
    runtime_barrier,
    taskwait,
    taskgroup,
    reduction,
    critical,
    critical_sblock,
    ordered,
    ordered_sblock,
    atomic,
    lock,
    nest_lock,
    task,
    task_create,
    count_,
};

namespace detail {
struct CacheEntry {
    const void* address;
    std::uint32_t construct;
    RegionHandle region;
};
constexpr std::size_t kCacheSize = 64;
extern __thread CacheEntry t_cache[kCacheSize] __attribute__((tls_model("initial-exec")));
/// Defines the region (or finds it in the process-wide table) and caches it.
RegionHandle define_and_cache(Construct construct, const void* return_address, CacheEntry& entry);
}  // namespace detail

/// The region of `construct` at `return_address` (0 when it could not be defined).
/// Inline: a cache hit (every call but a call site's first on a thread) is a
/// few instructions in the callback itself.
inline RegionHandle construct_region(Construct construct, const void* return_address) {
    const auto c = static_cast<std::uint32_t>(construct);
    const std::size_t slot =
        ((reinterpret_cast<std::uintptr_t>(return_address) >> 2) ^ (c * 7)) % detail::kCacheSize;
    detail::CacheEntry& entry = detail::t_cache[slot];
    if (__builtin_expect(entry.address == return_address && entry.construct == c && entry.region != 0, 1)) {
        return entry.region;
    }
    return detail::define_and_cache(construct, return_address, entry);
}

}  // namespace strata::openmp
