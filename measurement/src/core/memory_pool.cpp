// SPDX-License-Identifier: BSD-3-Clause
// Page pool: a budget, a free list and a reserve for non-trace storage.
#include "core/memory_pool.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace strata {

namespace {
constexpr std::size_t kChunk = std::size_t{2} << 20;  // one x86-64 huge page

std::size_t chunk_bytes(std::size_t page_size) { return (page_size + kChunk - 1) / kChunk * kChunk; }

/// `bytes` (a multiple of kChunk) at a kChunk-aligned address, mapped directly:
/// from malloc, the alignment would leave slack in the program's heap.
char* map_chunk(std::size_t bytes) {
    void* mapped = mmap(nullptr, bytes + kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    auto* start = static_cast<char*>(mapped);
    auto* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(start) + kChunk - 1) & ~(kChunk - 1));
    if (aligned != start) munmap(start, static_cast<std::size_t>(aligned - start));
    const std::size_t tail = static_cast<std::size_t>(start + bytes + kChunk - (aligned + bytes));
    if (tail != 0) munmap(aligned + bytes, tail);
#ifdef MADV_HUGEPAGE
    madvise(aligned, bytes, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
#endif
    return aligned;
}
}  // namespace

PagePool::~PagePool() {
    for (const auto& [chunk, bytes] : chunks_) munmap(chunk, bytes);
}

void PagePool::configure(std::uint64_t total_bytes, std::uint64_t page_size) {
    std::lock_guard<std::mutex> lock(mutex_);
    page_size_ = static_cast<std::size_t>(page_size);
    total_pages_ = static_cast<std::size_t>(std::max<std::uint64_t>(total_bytes / page_size, 4));
    // An eighth of the budget (at least two pages) is kept for the profile and definitions.
    reserve_ = std::max<std::size_t>(total_pages_ / 8, 2);
}

void* PagePool::acquire(Purpose purpose) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t limit = purpose == Purpose::trace ? total_pages_ - reserve_ : total_pages_;
    if (purpose == Purpose::guaranteed && stats_.pages_in_use >= limit) {
        ++stats_.overdraft;
    } else if (stats_.pages_in_use >= limit) {
        ++stats_.refused[static_cast<int>(purpose)];
        return nullptr;
    }
    void* page = nullptr;
    if (!free_.empty()) {
        page = free_.back();
        free_.pop_back();
    } else {
        if (static_cast<std::size_t>(chunk_end_ - chunk_next_) < page_size_) {
            // A new chunk; the rest of the old one (less than a page) stays unused.
            const std::size_t bytes = chunk_bytes(page_size_);
            char* chunk = map_chunk(bytes);
            if (chunk == nullptr) {
                ++stats_.refused[static_cast<int>(purpose)];
                return nullptr;
            }
            chunks_.emplace_back(chunk, bytes);
            chunk_next_ = chunk;
            chunk_end_ = chunk + bytes;
        }
        page = chunk_next_;
        chunk_next_ += page_size_;
        ++created_;
    }
    ++stats_.pages_in_use;
    stats_.high_water = std::max(stats_.high_water, stats_.pages_in_use);
    return page;
}

void PagePool::release(void* page) {
    if (page == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(page);
    --stats_.pages_in_use;
}

PagePool::Stats PagePool::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

PagePool& page_pool() {
    // Never destroyed: locations may still hold pages while the process exits.
    static PagePool* pool = new PagePool();
    return *pool;
}

}  // namespace strata
