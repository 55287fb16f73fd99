// SPDX-License-Identifier: BSD-3-Clause
// Page pool: a budget, a free list and a reserve for non-trace storage.
#include "core/memory_pool.hpp"

#include <algorithm>
#include <cstdlib>

namespace strata {

PagePool::~PagePool() {
    for (void* p : all_) std::free(p);
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
        page = std::malloc(page_size_);
        if (page == nullptr) {
            ++stats_.refused[static_cast<int>(purpose)];
            return nullptr;
        }
        all_.push_back(page);
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
