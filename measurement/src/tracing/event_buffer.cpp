// SPDX-License-Identifier: BSD-3-Clause
// Trace buffer pages.
#include "tracing/event_buffer.hpp"

namespace strata::tracing {

bool EventBuffer::add_page() {
    void* page = pool_.acquire(pages_.empty() ? PagePool::Purpose::guaranteed : PagePool::Purpose::trace);
    if (page == nullptr) return false;
    if (!pages_.empty()) pages_.back().used = static_cast<std::size_t>(cur_ - pages_.back().data);
    pages_.push_back(Page{static_cast<std::uint8_t*>(page), 0});
    cur_ = pages_.back().data;
    end_ = cur_ + pool_.page_size();
    return true;
}

void EventBuffer::release_pages() {
    for (const Page& page : pages_) pool_.release(page.data);
    pages_.clear();
    cur_ = end_ = nullptr;
    last_time_ = 0;
    records_ = 0;
}

void EventBuffer::clear_keep_first_page() {
    if (pages_.empty()) return release_pages();
    for (std::size_t i = 1; i < pages_.size(); ++i) pool_.release(pages_[i].data);
    pages_.resize(1);
    pages_[0].used = 0;
    cur_ = pages_[0].data;
    end_ = cur_ + pool_.page_size();
    last_time_ = 0;
    records_ = 0;
}

std::uint64_t EventBuffer::bytes() const {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i + 1 < pages_.size(); ++i) total += pages_[i].used;
    if (!pages_.empty()) total += static_cast<std::uint64_t>(cur_ - pages_.back().data);
    return total;
}

}  // namespace strata::tracing
