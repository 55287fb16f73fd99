// SPDX-License-Identifier: BSD-3-Clause
// Call-path tree: the slow paths (new children, parameters, folding, growth).
#include "profiling/call_tree.hpp"

#include <cstdlib>
#include <new>

#include "core/runtime.hpp"

namespace strata::profiling {

CallTree::CallTree(PagePool& pool, bool* busy) : pool_(pool), busy_(busy != nullptr ? busy : &unused_busy_) {
    per_page_ = pool_.page_size() / sizeof(Node);
    if (per_page_ == 0) per_page_ = 1;
    stack_.resize(64);
    Node* root = add_node();
    if (root == nullptr) {
        // No memory at all: every call path folds into a root that is never written.
        root = &fallback_root_;
        ++dropped_;
    }
    stack_[0] = Frame{root, 0, kRoot};
    top_ = stack_.data();
    stack_end_ = stack_.data() + stack_.size();
}

CallTree::~CallTree() {
    for (Node* page : pages_) pool_.release(page);
    for (std::uint64_t* block : metric_pages_) std::free(block);
}

bool CallTree::enable_metrics(std::uint32_t count) {
    // Blocks for the node pages that exist already (the root's).
    for (std::size_t i = metric_pages_.size(); i < pages_.size(); ++i) {
        auto* block = static_cast<std::uint64_t*>(std::calloc(per_page_ * count, sizeof(std::uint64_t)));
        if (block == nullptr) return false;
        metric_pages_.push_back(block);
    }
    metric_count_ = count;
    frame_metrics_.assign(stack_.size() * count, 0);
    return true;
}

CallTree::Node* CallTree::add_node() {
    if (size_ == pages_.size() * per_page_) {
        // The first page (the root and its first call paths) may exceed the budget, as a
        // location's first trace page does: a thread created while others' trace buffers
        // hold every page would otherwise lose its call paths until one is flushed.
        void* page = pool_.acquire(pages_.empty() ? PagePool::Purpose::guaranteed : PagePool::Purpose::profile);
        if (page == nullptr) return nullptr;
        if (metric_count_ > 0) {
            auto* block = static_cast<std::uint64_t*>(std::calloc(per_page_ * metric_count_, sizeof(std::uint64_t)));
            if (block == nullptr) {
                pool_.release(page);
                return nullptr;
            }
            metric_pages_.push_back(block);
        }
        pages_.push_back(static_cast<Node*>(page));
    }
    Node* n = new (&pages_[size_ / per_page_][size_ % per_page_]) Node();
    n->index = size_++;
    return n;
}

CallTree::Node* CallTree::find_or_add(Node* parent, RegionHandle region, ParameterHandle parameter,
                                      std::int64_t value, std::uint32_t is_string) {
    for (Node* c = parent->first_child; c != nullptr; c = c->next_sibling) {
        if (c->region == region && c->parameter == parameter && c->value == value) {
            parent->hint = c;
            return c;
        }
    }
    struct BusyScope {  // a new node may allocate a page or grow pages_
        bool* flag;
        explicit BusyScope(bool* f) : flag(f) { *flag = true; }
        ~BusyScope() {
            *flag = false;
            runtime::busy_ended();
        }
    } busy(busy_);
    Node* n = add_node();
    if (n == nullptr) return nullptr;
    n->region = region;
    n->parent = parent;
    n->parameter = parameter;
    n->value = value;
    n->is_string = is_string;
    n->next_sibling = parent->first_child;
    parent->first_child = n;
    parent->hint = n;
    return n;
}

void CallTree::grow_stack() {
    *busy_ = true;
    const std::size_t depth = static_cast<std::size_t>(top_ - stack_.data());
    stack_.resize(stack_.size() * 2);
    frame_metrics_.resize(stack_.size() * metric_count_);
    top_ = stack_.data() + depth;
    stack_end_ = stack_.data() + stack_.size();
    *busy_ = false;
    runtime::busy_ended();
}

void CallTree::note_missing(const Node* parent, std::uint64_t what) {
    if (missing_saturated_) return;
    // Outside the budget, bounded: 64 Ki slots at the first fold, doubled up to
    // 1 Mi (8 MiB) as they fill; beyond that the count is a lower bound.
    constexpr std::size_t first_slots = std::size_t{1} << 16, max_slots = std::size_t{1} << 20;
    auto insert = [this](std::uint64_t key) {
        const std::size_t mask = missing_keys_.size() - 1;
        for (std::size_t i = key & mask;; i = (i + 1) & mask) {
            if (missing_keys_[i] == key) return false;
            if (missing_keys_[i] == 0) {
                missing_keys_[i] = key;
                return true;
            }
        }
    };
    if (missing_keys_.empty() || (missing_ + 1) * 4 > missing_keys_.size() * 3) {
        if (missing_keys_.size() >= max_slots) {
            missing_saturated_ = true;
            return;
        }
        *busy_ = true;
        std::vector<std::uint64_t> old(missing_keys_.empty() ? first_slots : 2 * missing_keys_.size(), 0);
        old.swap(missing_keys_);
        for (std::uint64_t key : old)
            if (key != 0) insert(key);
        *busy_ = false;
        runtime::busy_ended();
    }
    // The key: (recorded ancestor, what, depth of folded frames below it), mixed (splitmix64).
    std::uint64_t key = (parent != nullptr ? parent->index : 0) * 0x9E3779B97F4A7C15ull ^ what * 0xBF58476D1CE4E5B9ull ^
                        static_cast<std::uint64_t>(folded_depth_) * 0x94D049BB133111EBull;
    key ^= key >> 31;
    key *= 0xBF58476D1CE4E5B9ull;
    key ^= key >> 29;
    key |= 1;
    if (insert(key)) ++missing_;
}

void CallTree::push_folded(Ticks time, RegionHandle region) {
    ++dropped_;
    Node* const current = top_->node;
    note_missing(current, region);
    if (top_ + 1 == stack_end_) grow_stack();
    ++top_;
    *top_ = Frame{current, time, kFolded};
    ++folded_depth_;
}

void CallTree::exit_slow(Ticks time) {
    // Parameter nodes end with the region in which they were set.
    while (top_->kind == kParameter) {
        top_->node->inclusive += time - top_->start;
        --top_;
    }
    if (top_->kind == kRegion) {
        top_->node->inclusive += time - top_->start;
        --top_;
    } else if (top_->kind == kFolded) {
        --top_;  // its time stays in the parent
        --folded_depth_;
    }
    // kRoot, kInherited: an exit without an enter; the core never sends one.
}

void CallTree::inherit(Ticks time, const RegionHandle* path, std::uint32_t depth) {
    for (std::uint32_t i = 0; i < depth; ++i) {
        Node* const current = top_->node;
        // The same team again and again: the child inherited last time (find_or_add sets the hint).
        Node* child = current->hint;
        if (child == nullptr || child->region != path[i] || child->parameter != 0) {
            child = find_or_add(current, path[i], 0, 0, 0);
        }
        if (child == nullptr) {  // out of memory: the time stays in the parent
            ++dropped_;
            note_missing(current, path[i]);
            child = current;
        }
        if (top_ + 1 == stack_end_) grow_stack();
        ++top_;
        *top_ = Frame{child, time, kInherited};
    }
}

void CallTree::leave_inherited(Ticks time, std::uint32_t depth) {
    for (; depth > 0 && top_->kind == kInherited; --depth) {
        if (top_ != stack_.data() && top_->node != (top_ - 1)->node) top_->node->inclusive += time - top_->start;
        --top_;
    }
}

void CallTree::close_frame_with_metrics(Ticks time, const std::uint64_t* values) {
    Node* const node = top_->node;
    node->inclusive += time - top_->start;
    std::uint64_t* sums = node_metrics(node);
    const std::uint64_t* start = frame_metrics(top_);
    // Counters only grow; a value below its start (a counter that could not be
    // read on this thread) adds nothing rather than wrapping around.
    for (std::uint32_t k = 0; k < metric_count_; ++k) sums[k] += values[k] > start[k] ? values[k] - start[k] : 0;
    --top_;
}

void CallTree::exit_with_metrics(Ticks time, const std::uint64_t* values) {
    while (top_->kind == kParameter) close_frame_with_metrics(time, values);
    if (top_->kind == kRegion) {
        close_frame_with_metrics(time, values);
    } else if (top_->kind == kFolded) {
        --top_;  // time and counters stay in the parent
        --folded_depth_;
    }
}

void CallTree::parameter(Ticks time, ParameterHandle parameter, std::int64_t value, bool is_string,
                         const std::uint64_t* metric_values) {
    Node* const current = top_->node;
    Node* n = find_or_add(current, current->region, parameter, value, is_string ? 1u : 0u);
    if (n == nullptr) {
        ++dropped_;
        note_missing(current, (static_cast<std::uint64_t>(parameter) << 40) ^ static_cast<std::uint64_t>(value) ^
                                  (1ull << 63));
        return;
    }
    ++n->visits;
    if (top_ + 1 == stack_end_) grow_stack();
    ++top_;
    *top_ = Frame{n, time, kParameter};
    if (metric_values != nullptr && metric_count_ > 0) {
        std::uint64_t* start = frame_metrics(top_);
        for (std::uint32_t k = 0; k < metric_count_; ++k) start[k] = metric_values[k];
    }
}

}  // namespace strata::profiling
