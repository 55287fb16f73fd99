// SPDX-License-Identifier: BSD-3-Clause
// The compact trace buffer: encoding round trip, page chaining, sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/memory_pool.hpp"
#include "tracing/event_buffer.hpp"

namespace strata::tracing {
namespace {

/// What a region or parameter record decodes to (type, time, first two fields).
Record record(RecordType type, Ticks time, std::uint64_t a, std::uint64_t b) {
    Record r;
    r.type = type;
    r.time = time;
    r.a = a;
    r.b = b;
    return r;
}

TEST(EventBuffer, RoundTripAcrossPages) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    EventBuffer buffer(pool);
    std::vector<Record> written;
    Ticks t = 1000000000000ull;
    for (int i = 0; i < 5000; ++i) {
        if (!buffer.has_room()) {
            ASSERT_TRUE(buffer.add_page());
        }
        t += static_cast<Ticks>(i % 7) * 100;
        const auto type = (i % 2 == 0) ? RecordType::enter : RecordType::leave;
        buffer.write(type, t, static_cast<std::uint64_t>(i % 300));
        written.push_back(record(type, t, static_cast<std::uint64_t>(i % 300), 0));
        if (i % 100 == 0) {
            if (!buffer.has_room()) {
                ASSERT_TRUE(buffer.add_page());
            }
            buffer.write(RecordType::parameter_int, t, 3, zigzag(-i));
            written.push_back(record(RecordType::parameter_int, t, 3, zigzag(-i)));
        }
    }
    std::vector<Record> read;
    ASSERT_TRUE(buffer.for_each([&](const Record& r) { read.push_back(r); }));
    ASSERT_EQ(read.size(), written.size());
    for (size_t i = 0; i < read.size(); ++i) {
        EXPECT_EQ(read[i].type, written[i].type) << i;
        EXPECT_EQ(read[i].time, written[i].time) << i;
        EXPECT_EQ(read[i].a, written[i].a) << i;
        EXPECT_EQ(read[i].b, written[i].b) << i;
    }
    EXPECT_GT(pool.stats().pages_in_use, 1u);
    buffer.release_pages();
    EXPECT_EQ(pool.stats().pages_in_use, 0u);
    EXPECT_TRUE(buffer.empty());
}

TEST(EventBuffer, EnterLeaveInALoopTakesFewBytes) {
    PagePool pool;
    pool.configure(1 << 20, 64 << 10);
    EventBuffer buffer(pool);
    ASSERT_TRUE(buffer.add_page());
    Ticks t = 5000000000ull;
    buffer.write(RecordType::enter, t, 1);  // first record carries the absolute time
    const auto base = buffer.bytes();
    for (int i = 0; i < 1000; ++i) {
        buffer.write(RecordType::enter, t += 60, 2);
        buffer.write(RecordType::leave, t += 60, 2);
    }
    EXPECT_EQ(buffer.bytes() - base, 2000u * 3);  // type, 1-byte delta, 1-byte region
}

TEST(EventBuffer, TimeNeverGoesBackwards) {
    PagePool pool;
    pool.configure(1 << 20, 4096);
    EventBuffer buffer(pool);
    ASSERT_TRUE(buffer.add_page());
    buffer.write(RecordType::enter, 100, 1);
    buffer.write(RecordType::leave, 90, 1);
    std::vector<Ticks> times;
    buffer.for_each([&](const Record& r) { times.push_back(r.time); });
    EXPECT_EQ(times, (std::vector<Ticks>{100, 100}));
}

TEST(EventBuffer, ZigZag) {
    for (std::int64_t v : std::vector<std::int64_t>{0, 1, -1, 123456789, -123456789, INT64_MAX, INT64_MIN}) {
        EXPECT_EQ(unzigzag(zigzag(v)), v);
    }
}

TEST(PagePool, TraceLeavesAReserveForTheProfile) {
    PagePool pool;
    pool.configure(16 * 4096, 4096);  // 16 pages, reserve 2
    std::vector<void*> pages;
    while (void* p = pool.acquire(PagePool::Purpose::trace)) pages.push_back(p);
    EXPECT_EQ(pages.size(), 14u);
    void* profile_page = pool.acquire(PagePool::Purpose::profile);
    EXPECT_NE(profile_page, nullptr);
    pool.release(profile_page);
    for (void* p : pages) pool.release(p);
    EXPECT_EQ(pool.stats().pages_in_use, 0u);
    EXPECT_EQ(pool.stats().refused[0], 1u);
}

TEST(PagePool, PagesCutFromChunksAreDisjointForAnyPageSize) {
    // Pages come from 2 MiB chunks: a size that divides a chunk, one that does
    // not (the rest of a chunk stays unused), and one larger than a chunk.
    for (const std::size_t size : {std::size_t{64} << 10, std::size_t{96} << 10, std::size_t{3} << 20}) {
        PagePool pool;
        pool.configure(40 * size, size);
        std::vector<char*> pages;
        for (int i = 0; i < 40; ++i) {
            auto* p = static_cast<char*>(pool.acquire(PagePool::Purpose::profile));
            ASSERT_NE(p, nullptr) << "page " << i << " of " << size << " bytes";
            std::memset(p, i + 1, size);  // all of it is writable
            pages.push_back(p);
        }
        EXPECT_EQ(pool.acquire(PagePool::Purpose::profile), nullptr);  // the budget holds
        std::sort(pages.begin(), pages.end());
        for (std::size_t i = 1; i < pages.size(); ++i) EXPECT_GE(pages[i] - pages[i - 1], static_cast<std::ptrdiff_t>(size));
        // Released pages are handed out again, not new ones.
        pool.release(pages[7]);
        EXPECT_EQ(pool.acquire(PagePool::Purpose::profile), pages[7]);
    }
    // A new page size: the pages handed out stay valid, new ones have the new size.
    PagePool pool;
    pool.configure(std::size_t{64} << 20, std::size_t{64} << 10);
    auto* small = static_cast<char*>(pool.acquire(PagePool::Purpose::profile));
    ASSERT_NE(small, nullptr);
    std::memset(small, 1, std::size_t{64} << 10);
    pool.configure(std::size_t{64} << 20, std::size_t{3} << 20);
    auto* large = static_cast<char*>(pool.acquire(PagePool::Purpose::profile));
    ASSERT_NE(large, nullptr);
    std::memset(large, 2, std::size_t{3} << 20);
    EXPECT_EQ(small[(64 << 10) - 1], 1);
}

TEST(EventBuffer, EveryRecordOfTheSpecRoundTripsWithItsFields) {
    // trace_records.def drives both the encoder and the decoder: each row's
    // fields come back in order, and the count rows bring their values along.
    PagePool pool;
    pool.configure(1 << 20, 4096);
    EventBuffer buffer(pool);
    ASSERT_TRUE(buffer.add_page());
    std::vector<RecordType> types;
    Ticks t = 5000;
    for (int n = 0; n < spec_detail::Table::kSize; ++n) {
        if (!is_record_type(static_cast<std::uint8_t>(n))) continue;
        const auto type = static_cast<RecordType>(n);
        types.push_back(type);
        const std::uint64_t values[] = {7, 8};
        const std::uint8_t ids[] = {1, 2};
        if (type == RecordType::metrics) {
            buffer.write_metrics(2, values);  // at the previous record's time
            continue;
        }
        if (type == RecordType::gpu_attributes) {
            buffer.write_gpu_attributes(t, ids, values, 2);
            continue;
        }
        std::uint64_t fields[kMaxFields];
        for (int i = 0; i < kMaxFields; ++i) fields[i] = 100u * n + i + 1;
        buffer.write_fields(type, t += 10, fields);
    }
    std::size_t k = 0;
    ASSERT_TRUE(buffer.for_each([&](const Record& r) {
        ASSERT_LT(k, types.size());
        const int n = static_cast<int>(types[k++]);
        EXPECT_EQ(static_cast<int>(r.type), n);
        const RecordSpec& spec = record_spec(r.type);
        if (r.type == RecordType::metrics) {
            ASSERT_EQ(r.metric_count, 2u);
            EXPECT_EQ(r.metric_values[1], 8u);
        } else if (r.type == RecordType::gpu_attributes) {
            ASSERT_EQ(r.attribute_count, 2u);
            EXPECT_EQ(r.attributes[2], 2u);
            EXPECT_EQ(r.attributes[3], 8u);
        } else {
            for (int i = 0; i < spec.field_count; ++i) EXPECT_EQ(r.field[i], 100u * n + i + 1) << spec.name;
        }
    }));
    EXPECT_EQ(k, types.size());
    EXPECT_GE(types.size(), 27u);
}

TEST(EventBuffer, EverySubstrateEventHasTheRecordOfItsOwnRow) {
    for (int k = 0; k < substrate::MpiEvent::kind_count; ++k) {
        const RecordSpec& spec = record_spec(record_of(static_cast<substrate::MpiEvent::Kind>(k)));
        EXPECT_EQ(spec.source, Source::mpi);
        EXPECT_EQ(spec.event, k);
    }
    for (int k = 0; k <= substrate::ThreadEvent::task_complete; ++k) {
        const RecordSpec& spec = record_spec(record_of(static_cast<substrate::ThreadEvent::Kind>(k)));
        EXPECT_EQ(spec.source, Source::thread);
        EXPECT_EQ(spec.event, k);
    }
    EXPECT_STREQ(record_spec(record_of(substrate::MpiEvent::send)).name, "mpi_send");
    EXPECT_STREQ(record_spec(record_of(substrate::ThreadEvent::fork)).name, "thread_fork");
}

}  // namespace
}  // namespace strata::tracing
