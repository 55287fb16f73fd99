// SPDX-License-Identifier: BSD-3-Clause
// The compiler adapter's address cache: lookups, the overflow table, readers during inserts.
#include "address_map.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::compiler {
namespace {

TEST(AddressMap, FindsWhatWasInserted) {
    auto map = std::make_unique<AddressMap>();
    EXPECT_EQ(map->find(0x401000), AddressMap::kUnknown);
    ASSERT_TRUE(map->insert(0x401000, 7));
    ASSERT_TRUE(map->insert(0x401010, 0xFFFFFFFFu));
    EXPECT_EQ(map->find(0x401000), 7u);
    EXPECT_EQ(map->find(0x401010), 0xFFFFFFFFu);
    EXPECT_EQ(map->find(0x401020), AddressMap::kUnknown);
    ASSERT_TRUE(map->insert(0x401000, 9));  // replaced, not added
    EXPECT_EQ(map->find(0x401000), 9u);
    EXPECT_EQ(map->size(), 2u);
}

TEST(AddressMap, MoreFunctionsThanThePrimaryTableHoldGoToTheOverflow) {
    auto map = std::make_unique<AddressMap>();
    const std::size_t primary = (std::size_t{1} << AddressMap::kPrimaryBits) / 2;
    const std::size_t n = primary + 20000;  // the overflow table grows several times
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_TRUE(map->insert(0x400000 + 16 * i, static_cast<RegionHandle>(i + 1)));
    EXPECT_EQ(map->size(), n);
    std::size_t in_primary = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uintptr_t key = 0x400000 + 16 * i;
        RegionHandle value = map->find(key);
        if (value != AddressMap::kUnknown) {
            ++in_primary;
        } else {
            value = map->find_overflow(key);
        }
        ASSERT_EQ(value, i + 1) << i;
    }
    EXPECT_EQ(in_primary, primary);
    EXPECT_EQ(map->find_overflow(0x10), AddressMap::kUnknown);
}

TEST(AddressMap, ReadersNeverSeeAKeyWithoutItsValue) {
    auto map = std::make_unique<AddressMap>();
    std::mutex writer;
    std::atomic<bool> done{false};
    std::atomic<long> wrong{0};
    const std::size_t n = 40000;  // primary and overflow, with growth while reading
    std::thread reader([&] {
        while (!done.load()) {
            for (std::size_t i = 0; i < n; i += 7) {
                const std::uintptr_t key = 0x10000 + 32 * i;
                RegionHandle v = map->find(key);
                if (v == AddressMap::kUnknown) v = map->find_overflow(key);
                if (v != AddressMap::kUnknown && v != i + 1) wrong.fetch_add(1);
            }
        }
    });
    for (std::size_t i = 0; i < n; ++i) {
        std::lock_guard<std::mutex> lock(writer);
        map->insert(0x10000 + 32 * i, static_cast<RegionHandle>(i + 1));
    }
    done.store(true);
    reader.join();
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace strata::compiler
