// SPDX-License-Identifier: BSD-3-Clause
// The launch-path table (see launch_paths.hpp).
#include "core/launch_paths.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core/location.hpp"

namespace strata::launch_paths {

namespace {

constexpr std::uint32_t kSlots = 1u << 14;  // about 2.3 MB, made at the first launch
constexpr RegionHandle kUndelivered = 0x80000000u;  // event_path.hpp: entered while recording was off

struct Slot {
    std::atomic<std::uint32_t> sequence;  ///< odd while being written
    std::atomic<std::uint64_t> correlation;
    // Relaxed atomics: a reader may copy while a writer rewrites (the sequence tells).
    std::atomic<std::uint32_t> depth;
    std::atomic<RegionHandle> path[kMaxDepth];
};

std::atomic<Slot*> g_table{nullptr};
std::atomic<std::uint64_t> g_not_found{0};

Slot* table() {
    Slot* t = g_table.load(std::memory_order_acquire);
    if (t != nullptr) return t;
    auto* made = static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)));  // zeroed: every slot empty
    if (made == nullptr) return nullptr;
    if (!g_table.compare_exchange_strong(t, made, std::memory_order_acq_rel)) {
        std::free(made);  // another thread made it first
        return t;
    }
    return made;
}

}  // namespace

void remember(std::uint64_t correlation, const Location& loc) {
    Slot* t = table();
    if (t == nullptr || correlation == 0) return;
    Slot& s = t[correlation % kSlots];
    const std::uint32_t seq = s.sequence.load(std::memory_order_relaxed);
    s.sequence.store(seq + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    std::uint32_t depth = 0;
    for (RegionHandle r : loc.inherited) {
        if (depth < kMaxDepth) s.path[depth++].store(r, std::memory_order_relaxed);
    }
    for (std::uint32_t i = 0; i < loc.depth && depth < kMaxDepth; ++i) {
        if ((loc.stack[i] & kUndelivered) == 0) {
            s.path[depth++].store(loc.stack[i], std::memory_order_relaxed);
        }
    }
    s.depth.store(depth, std::memory_order_relaxed);
    s.correlation.store(correlation, std::memory_order_relaxed);
    s.sequence.store(seq + 2, std::memory_order_release);
}

std::uint32_t find(std::uint64_t correlation, RegionHandle* out) {
    Slot* t = g_table.load(std::memory_order_acquire);
    if (t == nullptr || correlation == 0) return 0;
    const Slot& s = t[correlation % kSlots];
    const std::uint32_t before = s.sequence.load(std::memory_order_acquire);
    std::uint32_t depth = 0;
    if ((before & 1u) == 0 && s.correlation.load(std::memory_order_relaxed) == correlation) {
        depth = std::min(s.depth.load(std::memory_order_relaxed), kMaxDepth);
        for (std::uint32_t i = 0; i < depth; ++i) out[i] = s.path[i].load(std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (depth == 0 || s.sequence.load(std::memory_order_relaxed) != before) {
        g_not_found.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
    return depth;
}

std::uint64_t not_found() { return g_not_found.load(std::memory_order_relaxed); }

void reset() {
    std::free(g_table.exchange(nullptr));
    g_not_found.store(0);
}

}  // namespace strata::launch_paths
