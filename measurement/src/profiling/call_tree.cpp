// SPDX-License-Identifier: BSD-3-Clause
// Call-path tree: find-or-create child, accumulate on exit.
#include "profiling/call_tree.hpp"

#include <new>

namespace strata::profiling {

CallTree::CallTree(PagePool& pool) : pool_(pool) {
    // Nodes per page: the largest power of two that fits, so index -> node is a shift and a mask.
    std::size_t per_page = 1;
    while (per_page * 2 * sizeof(Node) <= pool_.page_size()) per_page *= 2;
    mask_ = static_cast<std::uint32_t>(per_page - 1);
    while ((1u << shift_) < per_page) ++shift_;
    stack_.reserve(64);
    // The root always exists: without a page the tree cannot record anything.
    if (add_node() == 0) stack_.push_back(Frame{0, kRegion, 0});
}

CallTree::~CallTree() {
    for (Node* page : pages_) pool_.release(page);
}

std::uint32_t CallTree::add_node() {
    if ((size_ & mask_) == 0 && (size_ >> shift_) == pages_.size()) {
        void* page = pool_.acquire(PagePool::Purpose::profile);
        if (page == nullptr) return UINT32_MAX;
        pages_.push_back(static_cast<Node*>(page));
    }
    new (&at(size_)) Node();
    return size_++;
}

std::uint32_t CallTree::child(std::uint32_t parent, RegionHandle region, ParameterHandle parameter,
                              std::int64_t value, std::uint32_t is_string) {
    for (std::uint32_t c = at(parent).first_child; c != 0; c = at(c).next_sibling) {
        const Node& n = at(c);
        if (n.region == region && n.parameter == parameter && n.value == value) return c;
    }
    const std::uint32_t index = add_node();
    if (index == UINT32_MAX) return index;
    Node& n = at(index);
    n.region = region;
    n.parent = parent;
    n.parameter = parameter;
    n.value = value;
    n.is_string = is_string;
    // Newest first: a loop body's children are usually found at the head.
    n.next_sibling = at(parent).first_child;
    at(parent).first_child = index;
    return index;
}

void CallTree::enter(Ticks time, RegionHandle region) {
    if (stack_.empty()) return;  // no root: nothing can be recorded
    const Frame& top = stack_.back();
    const std::uint32_t index = child(top.node, region, 0, 0, 0);
    if (__builtin_expect(index == UINT32_MAX, 0)) {
        ++dropped_;
        stack_.push_back(Frame{top.node, kFolded, time});
        return;
    }
    ++at(index).visits;
    stack_.push_back(Frame{index, kRegion, time});
}

void CallTree::close_top(Ticks time) {
    const Frame f = stack_.back();
    stack_.pop_back();
    if (f.kind != kFolded) at(f.node).inclusive += time - f.start;
}

void CallTree::exit(Ticks time) {
    // Parameter nodes end with the region in which they were set.
    while (stack_.size() > 1 && stack_.back().kind == kParameter) close_top(time);
    if (stack_.size() > 1) close_top(time);
}

void CallTree::parameter(Ticks time, ParameterHandle parameter, std::int64_t value, bool is_string) {
    if (stack_.empty()) return;
    const Frame& top = stack_.back();
    const std::uint32_t index =
        child(top.node, at(top.node).region, parameter, value, is_string ? 1u : 0u);
    if (index == UINT32_MAX) {
        ++dropped_;
        return;
    }
    ++at(index).visits;
    stack_.push_back(Frame{index, kParameter, time});
}

}  // namespace strata::profiling
