// SPDX-License-Identifier: BSD-3-Clause
// Counter sums per call path with given counter values: inclusive sums of the
// increments, parameter nodes, folded call paths, the trace's metric record.
#include <gtest/gtest.h>

#include <vector>

#include "core/memory_pool.hpp"
#include "profiling/call_tree.hpp"
#include "tracing/event_buffer.hpp"

namespace strata {
namespace {

using profiling::CallTree;

/// The child of `parent` for `region` (parameter 0), or nullptr.
const CallTree::Node* child(const CallTree::Node* parent, RegionHandle region) {
    for (const CallTree::Node* c = parent->first_child; c != nullptr; c = c->next_sibling) {
        if (c->region == region && c->parameter == 0) return c;
    }
    return nullptr;
}

std::vector<std::uint64_t> sums(const CallTree& tree, const CallTree::Node* node) {
    const std::uint64_t* p = tree.metric_inclusive(node->index);
    return {p[0], p[1]};
}

TEST(CallTreeMetrics, InclusiveSumsOfIncrementsPerCallPath) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    CallTree tree(pool);
    ASSERT_TRUE(tree.enable_metrics(2));
    // main { work x2 { leaf } } with two counters, the second one growing by 10 per step.
    std::uint64_t v[2] = {0, 0};
    auto at = [&](std::uint64_t a, std::uint64_t b) {
        v[0] = a;
        v[1] = b;
        return v;
    };
    tree.enter_with_metrics(0, 1, at(100, 0));
    tree.enter_with_metrics(1, 2, at(110, 10));
    tree.enter_with_metrics(2, 3, at(115, 20));
    tree.exit_with_metrics(3, at(130, 30));  // leaf +15
    tree.exit_with_metrics(4, at(140, 40));  // work +30
    tree.enter_with_metrics(5, 2, at(150, 50));
    tree.enter_with_metrics(6, 3, at(150, 60));
    tree.exit_with_metrics(7, at(151, 70));  // leaf +1
    tree.exit_with_metrics(8, at(160, 80));  // work +10
    tree.exit_with_metrics(9, at(200, 90));  // main +100
    const CallTree::Node* main = child(&tree.node(0), 1);
    ASSERT_NE(main, nullptr);
    const CallTree::Node* work = child(main, 2);
    const CallTree::Node* leaf = child(work, 3);
    ASSERT_NE(leaf, nullptr);
    EXPECT_EQ(sums(tree, main), (std::vector<std::uint64_t>{100, 90}));
    EXPECT_EQ(sums(tree, work), (std::vector<std::uint64_t>{40, 60}));
    EXPECT_EQ(sums(tree, leaf), (std::vector<std::uint64_t>{16, 20}));
    EXPECT_EQ(work->visits, 2u);
    EXPECT_EQ(main->inclusive, 9u);  // time is still summed as before
}

TEST(CallTreeMemory, ATreeMadeWhenOthersHoldEveryPageStillRecordsItsFirstPage) {
    // Other threads' trace buffers hold the whole budget when this thread starts.
    PagePool pool;
    pool.configure(16 << 10, 4096);
    std::vector<void*> held;
    while (void* page = pool.acquire(PagePool::Purpose::profile)) held.push_back(page);
    ASSERT_EQ(held.size(), 4u);
    CallTree tree(pool);
    for (Ticks t = 0; t < 100; t += 2) {
        tree.enter(t, 1);
        tree.exit(t + 1);
    }
    const CallTree::Node* a = child(&tree.node(0), 1);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->visits, 50u);
    EXPECT_EQ(tree.dropped(), 0u);
    EXPECT_EQ(pool.stats().overdraft, 1u);
    // Beyond its first page the tree keeps to the budget.
    for (RegionHandle r = 2; r < 2000; ++r) {
        tree.enter(0, r);
        tree.exit(1);
    }
    EXPECT_GT(tree.dropped(), 0u);
    EXPECT_EQ(pool.stats().overdraft, 1u);
    for (void* page : held) pool.release(page);
}

TEST(CallTreeMetrics, ParameterNodesStartAtTheParameterAndEndWithTheirRegion) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    CallTree tree(pool);
    ASSERT_TRUE(tree.enable_metrics(2));
    std::uint64_t v[2] = {0, 0};
    tree.enter_with_metrics(0, 1, v);
    v[0] = 5;
    tree.parameter(1, 7, 42, false, v);
    v[0] = 12;
    tree.exit_with_metrics(2, v);  // closes the parameter node and the region
    const CallTree::Node* region = child(&tree.node(0), 1);
    ASSERT_NE(region, nullptr);
    const CallTree::Node* parameter = region->first_child;
    ASSERT_NE(parameter, nullptr);
    EXPECT_EQ(parameter->parameter, 7u);
    EXPECT_EQ(sums(tree, region)[0], 12u);
    EXPECT_EQ(sums(tree, parameter)[0], 7u);
}

TEST(CallTreeMetrics, ACounterBelowItsStartAddsNothing) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    CallTree tree(pool);
    ASSERT_TRUE(tree.enable_metrics(2));
    std::uint64_t start[2] = {50, 50}, end[2] = {40, 60};
    tree.enter_with_metrics(0, 1, start);
    tree.exit_with_metrics(1, end);
    EXPECT_EQ(sums(tree, child(&tree.node(0), 1)), (std::vector<std::uint64_t>{0, 10}));
}

TEST(CallTreeMetrics, DeepRecursionGrowsTheStartValuesWithTheStack) {
    PagePool pool;
    pool.configure(4 << 20, 4096);
    CallTree tree(pool);
    ASSERT_TRUE(tree.enable_metrics(2));
    constexpr int kDepth = 500;  // beyond the initial 64 frames
    std::uint64_t v[2] = {0, 0};
    for (int d = 0; d < kDepth; ++d) {
        v[0] = static_cast<std::uint64_t>(d);
        tree.enter_with_metrics(static_cast<Ticks>(d), 1, v);
    }
    for (int d = 0; d < kDepth; ++d) {
        v[0] = static_cast<std::uint64_t>(kDepth + d);
        tree.exit_with_metrics(static_cast<Ticks>(kDepth + d), v);
    }
    // Level k (from the top) was entered at k and left at 2*kDepth - 1 - k.
    const CallTree::Node* n = &tree.node(0);
    for (int k = 0; k < kDepth; ++k) {
        n = child(n, 1);
        ASSERT_NE(n, nullptr) << k;
        ASSERT_EQ(sums(tree, n)[0], static_cast<std::uint64_t>(2 * kDepth - 1 - 2 * k)) << k;
    }
}

TEST(CallTreeMetrics, NodesOnLaterPagesHaveTheirOwnSums) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    CallTree tree(pool);
    ASSERT_TRUE(tree.enable_metrics(1));
    std::uint64_t v[2] = {0, 0};
    constexpr int kRegions = 300;  // several node pages of 4 KiB
    for (int r = 1; r <= kRegions; ++r) {
        tree.enter_with_metrics(0, static_cast<RegionHandle>(r), v);
        v[0] += static_cast<std::uint64_t>(r);
        tree.exit_with_metrics(1, v);
    }
    for (int r = 1; r <= kRegions; ++r) {
        const CallTree::Node* n = child(&tree.node(0), static_cast<RegionHandle>(r));
        ASSERT_NE(n, nullptr);
        EXPECT_EQ(tree.metric_inclusive(n->index)[0], static_cast<std::uint64_t>(r)) << r;
    }
}

TEST(TraceMetricRecord, RoundTripAfterTheRegionRecord) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    tracing::EventBuffer buffer(pool);
    ASSERT_TRUE(buffer.add_page());
    const std::uint64_t values[3] = {0, 1ull << 40, 12345};
    ASSERT_TRUE(buffer.has_room(tracing::kMaxRecordSize + tracing::metric_record_size(3)));
    buffer.write(tracing::RecordType::enter, 1000, 5);
    buffer.write_metrics(3, values);
    buffer.write(tracing::RecordType::leave, 2000, 5);
    buffer.write_metrics(3, values);
    std::vector<tracing::Record> read;
    ASSERT_TRUE(buffer.for_each([&](const tracing::Record& r) { read.push_back(r); }));
    ASSERT_EQ(read.size(), 4u);
    EXPECT_EQ(read[1].type, tracing::RecordType::metrics);
    EXPECT_EQ(read[1].time, 1000u);  // the time of the enter
    EXPECT_EQ(read[3].time, 2000u);
    ASSERT_EQ(read[3].metric_count, 3u);
    EXPECT_EQ(read[3].metric_values[1], 1ull << 40);
    EXPECT_EQ(read[3].metric_values[2], 12345u);
    EXPECT_EQ(read[2].a, 5u);
}

}  // namespace
}  // namespace strata
