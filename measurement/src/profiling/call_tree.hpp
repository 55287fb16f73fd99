// SPDX-License-Identifier: BSD-3-Clause
// The call-path tree of one location: visits and inclusive time per call path.
//
//   root (virtual)
//    └─ main            visits 1, inclusive 10 s
//        ├─ compute     visits 3, inclusive  8 s
//        │   └─ n=4     (parameter node: time below 'compute' while n was 4)
//        └─ io          visits 1, inclusive  1 s
//
// Nodes live in pages of the process page pool; the index of a node never
// changes.  Exclusive time is derived when the profile is written.  When the
// pool has no page left, new call paths are folded into their parent (the
// time stays in the parent's inclusive time) and counted in dropped().
#pragma once

#include <cstdint>
#include <vector>

#include "core/memory_pool.hpp"
#include "strata/measurement/types.hpp"

namespace strata::profiling {

class CallTree {
public:
    struct Node {
        RegionHandle region = 0;     ///< the region, or for parameter nodes the enclosing one
        std::uint32_t parent = 0;
        std::uint32_t first_child = 0;
        std::uint32_t next_sibling = 0;
        ParameterHandle parameter = 0;  ///< 0 for region nodes
        std::uint32_t is_string = 0;    ///< value is a StringHandle
        std::int64_t value = 0;
        std::uint64_t visits = 0;
        Ticks inclusive = 0;
    };

    explicit CallTree(PagePool& pool);
    ~CallTree();
    CallTree(const CallTree&) = delete;
    CallTree& operator=(const CallTree&) = delete;

    void enter(Ticks time, RegionHandle region);
    /// Leaves the innermost region (and the parameter nodes opened inside it).
    void exit(Ticks time);
    void parameter(Ticks time, ParameterHandle parameter, std::int64_t value, bool is_string);

    std::uint32_t size() const { return size_; }
    const Node& node(std::uint32_t index) const { return pages_[index >> shift_][index & mask_]; }
    std::uint64_t dropped() const { return dropped_; }
    std::uint32_t depth() const { return static_cast<std::uint32_t>(stack_.size()) - 1; }

private:
    struct Frame {
        std::uint32_t node;
        std::uint32_t kind;  ///< kRegion, kParameter, or kFolded (no node of its own)
        Ticks start;
    };
    enum : std::uint32_t { kRegion = 0, kParameter = 1, kFolded = 2 };

    Node& at(std::uint32_t index) { return pages_[index >> shift_][index & mask_]; }
    std::uint32_t child(std::uint32_t parent, RegionHandle region, ParameterHandle parameter,
                        std::int64_t value, std::uint32_t is_string);
    std::uint32_t add_node();
    void close_top(Ticks time);

    PagePool& pool_;
    std::vector<Node*> pages_;
    std::uint32_t shift_ = 0;
    std::uint32_t mask_ = 0;
    std::uint32_t size_ = 0;
    std::vector<Frame> stack_;
    std::uint64_t dropped_ = 0;
};

}  // namespace strata::profiling
