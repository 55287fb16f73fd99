// SPDX-License-Identifier: BSD-3-Clause
// The process memory budget (STRATA_TOTAL_MEMORY), handed out in pages.
//
// Trace buffers, profile call-path nodes and other per-location storage take
// pages from one pool.  Trace buffers may not take the last `reserve` pages:
// a full trace buffer can be flushed to disk and refilled, the profile cannot,
// so the reserve keeps the profile alive when tracing is heavy.
// acquire() takes a lock; it is called once per page, never per event.
//
// Pages are cut from aligned 2 MiB chunks that the kernel may back with one
// huge page each (madvise): writing a trace otherwise takes a page fault every
// 4 KiB, which on a virtual machine costs microseconds, in the middle of the
// program's work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace strata {

class PagePool {
public:
    /// `guaranteed` may exceed the budget: the first trace page and the first
    /// profile page of a location, so that no thread is starved by others that
    /// hold every page.
    enum class Purpose { trace, profile, other, guaranteed };

    PagePool() = default;
    PagePool(const PagePool&) = delete;
    PagePool& operator=(const PagePool&) = delete;
    ~PagePool();

    /// Sets the budget.  Pages already handed out stay valid.
    void configure(std::uint64_t total_bytes, std::uint64_t page_size);

    /// A page of page_size() bytes, or nullptr when the budget (minus the
    /// reserve, for trace pages) is used up.  Never throws.
    void* acquire(Purpose purpose);
    void release(void* page);

    std::size_t page_size() const { return page_size_; }
    std::size_t total_pages() const { return total_pages_; }

    struct Stats {
        std::size_t pages_in_use = 0;
        std::size_t high_water = 0;
        std::uint64_t refused[4] = {0, 0, 0, 0};  ///< per Purpose
        std::size_t overdraft = 0;                ///< guaranteed pages beyond the budget
    };
    Stats stats() const;

private:
    mutable std::mutex mutex_;
    std::size_t page_size_ = 64 << 10;
    std::size_t total_pages_ = 1024;
    std::size_t reserve_ = 0;
    std::size_t created_ = 0;
    std::vector<void*> free_;
    std::vector<std::pair<char*, std::size_t>> chunks_;  ///< what was mapped, and its size (unmapped at the end)
    char* chunk_next_ = nullptr;  ///< the uncut rest of the newest chunk
    char* chunk_end_ = nullptr;
    Stats stats_;
};

/// The pool of this process.
PagePool& page_pool();

}  // namespace strata
