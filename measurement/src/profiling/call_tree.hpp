// SPDX-License-Identifier: BSD-3-Clause
// The call-path tree of one location: visits and inclusive time per call path.
//
//   root (virtual)
//    └─ main            visits 1, inclusive 10 s
//        ├─ compute     visits 3, inclusive  8 s
//        │   └─ n=4     (parameter node: time below 'compute' while n was 4)
//        └─ io          visits 1, inclusive  1 s
//
// Nodes live in pages of the process page pool and never move, so the tree
// links and the stack of open call paths are plain pointers.  enter() and
// exit() are inline: on the hot path, entering the same child as last time
// is one compare (Node::hint), entering the sibling that followed it last
// time (Node::successor) one more, leaving is a pop and an add.  Exclusive time
// is derived when the profile is written.  When the pool has no page left,
// new call paths are folded into their parent (the time stays in the
// parent's inclusive time) and counted in dropped(); the call paths they
// would have made are counted (missing_callpaths(), a bounded table of
// (recorded ancestor, region, depth below it)), so that the warning can say
// how much memory would have kept them.
//
// With counters (enable_metrics), every node also sums, per counter, the
// increments between its enters and exits (the counter's inclusive value);
// they live in blocks beside the node pages, one per node page.
#pragma once

#include <cstdint>
#include <vector>

#include "core/memory_pool.hpp"
#include "strata/measurement/types.hpp"

namespace strata::profiling {

class CallTree {
public:
    struct Node {
        RegionHandle region = 0;        ///< the region, or for parameter nodes the enclosing one
        ParameterHandle parameter = 0;  ///< 0 for region nodes
        std::int64_t value = 0;         ///< parameter value (a StringHandle when is_string)
        std::uint32_t is_string = 0;
        std::uint32_t index = 0;        ///< creation order; parents come before their children
        Node* parent = nullptr;
        Node* first_child = nullptr;
        Node* next_sibling = nullptr;
        Node* hint = nullptr;           ///< the child entered last
        Node* successor = nullptr;      ///< the sibling entered right after this node last time
        std::uint64_t visits = 0;
        Ticks inclusive = 0;
        std::uint64_t bytes_sent = 0;      ///< by MPI calls of this call path itself
        std::uint64_t bytes_received = 0;
    };

    /// `busy` is set while the tree allocates (see Location::busy); may be nullptr.
    explicit CallTree(PagePool& pool, bool* busy = nullptr);
    ~CallTree();
    CallTree(const CallTree&) = delete;
    CallTree& operator=(const CallTree&) = delete;

    inline void enter(Ticks time, RegionHandle region) {
        Node* const current = top_->node;
        Node* child = current->hint;
        if (__builtin_expect(child == nullptr || child->region != region || child->parameter != 0, 0)) {
            // Calls that alternate (MPI_Send, MPI_Recv, ...) repeat their order:
            // the sibling that followed the last child last time is the next guess.
            Node* const previous = child;
            child = previous != nullptr ? previous->successor : nullptr;
            if (child != nullptr && child->region == region && child->parameter == 0) {
                current->hint = child;
            } else {
                child = find_or_add(current, region, 0, 0, 0);
                if (__builtin_expect(child == nullptr, 0)) return push_folded(time, region);
                if (previous != nullptr) previous->successor = child;
            }
        }
        ++child->visits;
        if (__builtin_expect(top_ + 1 == stack_end_, 0)) grow_stack();
        ++top_;
        top_->node = child;
        top_->start = time;
        top_->kind = kRegion;
    }

    /// Leaves the innermost region (and the parameter nodes opened inside it).
    inline void exit(Ticks time) {
        if (__builtin_expect(top_->kind != kRegion, 0)) return exit_slow(time);
        top_->node->inclusive += time - top_->start;
        --top_;
    }

    /// `metric_values`: the counters at this moment when metrics are enabled, else nullptr.
    /// Message bytes of an MPI call, counted on the innermost open call path.
    void add_bytes(std::uint64_t sent, std::uint64_t received) {
        top_->node->bytes_sent += sent;
        top_->node->bytes_received += received;
    }

    void parameter(Ticks time, ParameterHandle parameter, std::int64_t value, bool is_string,
                   const std::uint64_t* metric_values = nullptr);

    /// Sums `count` counters per node from now on (before the first event).
    /// Returns false when the memory for them is not available.
    bool enable_metrics(std::uint32_t count);
    std::uint32_t metric_count() const { return metric_count_; }

    /// enter()/exit() that also take the counters at this moment.
    void enter_with_metrics(Ticks time, RegionHandle region, const std::uint64_t* values) {
        enter(time, region);
        std::uint64_t* start = frame_metrics(top_);
        for (std::uint32_t k = 0; k < metric_count_; ++k) start[k] = values[k];
    }
    void exit_with_metrics(Ticks time, const std::uint64_t* values);

    /// The inclusive counter sums of a node (metric_count() values; not for the hot path).
    const std::uint64_t* metric_inclusive(std::uint32_t index) const {
        return metric_pages_[index / per_page_] + (index % per_page_) * metric_count_;
    }

    /// A thread of a team continues the call path `path[0..depth)` open on the
    /// thread that forked it: those call paths are opened here without counting
    /// a visit (the forking thread counts them), so this thread's work appears
    /// below them and their inclusive time is this thread's time inside them.
    void inherit(Ticks time, const RegionHandle* path, std::uint32_t depth);
    /// Closes the `depth` call paths opened by inherit().
    void leave_inherited(Ticks time, std::uint32_t depth);

    std::uint32_t size() const { return size_; }
    /// Node by creation index (not for the hot path).
    const Node& node(std::uint32_t index) const { return pages_[index / per_page_][index % per_page_]; }
    std::uint64_t dropped() const { return dropped_; }
    /// Distinct call paths that were folded (not recorded); a lower bound when
    /// missing_is_lower_bound() (the table that counts them is full).
    std::uint64_t missing_callpaths() const { return missing_; }
    bool missing_is_lower_bound() const { return missing_saturated_; }
    /// Call-path nodes in one page of the pool.
    std::size_t nodes_per_page() const { return per_page_; }

private:
    enum : std::uint32_t { kRegion = 0, kParameter = 1, kFolded = 2, kRoot = 3, kInherited = 4 };
    struct Frame {
        Node* node;
        Ticks start;
        std::uint32_t kind;
    };

    Node* find_or_add(Node* parent, RegionHandle region, ParameterHandle parameter, std::int64_t value,
                      std::uint32_t is_string);
    Node* add_node();
    void push_folded(Ticks time, RegionHandle region);
    /// Counts a call path that could not be recorded below `parent`, `what`
    /// naming it (a region, or a parameter and its value), at the current fold depth.
    void note_missing(const Node* parent, std::uint64_t what);
    void exit_slow(Ticks time);
    void grow_stack();
    std::uint64_t* frame_metrics(const Frame* frame) {
        return frame_metrics_.data() + static_cast<std::size_t>(frame - stack_.data()) * metric_count_;
    }
    std::uint64_t* node_metrics(const Node* node) {
        return metric_pages_[node->index / per_page_] + (node->index % per_page_) * metric_count_;
    }
    /// Closes the innermost frame (a region or parameter node) with counters.
    void close_frame_with_metrics(Ticks time, const std::uint64_t* values);

    PagePool& pool_;
    bool* busy_;
    bool unused_busy_ = false;
    std::vector<Node*> pages_;
    std::size_t per_page_ = 1;
    std::uint32_t size_ = 0;
    std::vector<Frame> stack_;
    Frame* top_ = nullptr;        ///< innermost open call path; stack_[0] is the root
    Frame* stack_end_ = nullptr;  ///< one past the last usable frame
    Node fallback_root_;          ///< used when not even the root got a page
    std::uint64_t dropped_ = 0;
    std::uint32_t folded_depth_ = 0;           ///< folded frames on top of the stack
    std::vector<std::uint64_t> missing_keys_;  ///< open addressing, 0 = empty; made at the first fold
    std::uint64_t missing_ = 0;
    bool missing_saturated_ = false;
    std::uint32_t metric_count_ = 0;
    std::vector<std::uint64_t*> metric_pages_;  ///< counter sums of the nodes of pages_[i]
    std::vector<std::uint64_t> frame_metrics_;  ///< counters at the start of each frame of stack_
};

}  // namespace strata::profiling
