// SPDX-License-Identifier: BSD-3-Clause
// The hot-path cache of the compiler adapter: function address -> region handle (or "filtered").
//
//   hook(fn) -> find(fn): an AND of the address, then the primary table's slot at a fixed address
//            -> kUnknown: find_overflow(fn), then the slow path resolves fn and insert()s it
//
// Open addressing with linear probing.  Readers take no lock: a writer fills a slot's value
// before it publishes the key with a release store, so a reader that sees the key sees the
// value; entries are never removed or moved.  The primary table is a fixed array in the
// library's .bss (no pointer to follow on the hot path; only the pages touched become
// memory); once it is half full, further functions go to an overflow table that grows by
// doubling: a larger copy is published and the old one stays readable for readers still in it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "strata/measurement/types.hpp"

namespace strata::compiler {

class AddressMap {
public:
    /// The answer for an address that was never inserted.
    static constexpr RegionHandle kUnknown = 0;
    /// Slots of the primary table: half of them (16384 functions) are used before the overflow.
    static constexpr unsigned kPrimaryBits = 15;

    constexpr AddressMap() = default;
    AddressMap(const AddressMap&) = delete;
    AddressMap& operator=(const AddressMap&) = delete;

    /// The value stored for `key` in the primary table, or kUnknown (never inserted, or stored
    /// in the overflow table).  Lock-free, never allocates.
    __attribute__((no_instrument_function, always_inline)) RegionHandle find(std::uintptr_t key) const {
        // Slot i starts at byte 16 * i, and index() is (key >> 4) & mask: the slot's byte offset
        // is key & (mask << 4), one instruction.
        constexpr std::uintptr_t offsets = ((std::uintptr_t{1} << kPrimaryBits) - 1) * sizeof(Slot);
        const char* base = reinterpret_cast<const char*>(primary_);
        for (std::uintptr_t at = key & offsets;; at = (at + sizeof(Slot)) & offsets) {
            const Slot& slot = *reinterpret_cast<const Slot*>(base + at);
            // Acquire pairs with the release of the key in put(): the value was stored before.
            const std::uintptr_t k = slot.key.load(std::memory_order_acquire);
            if (__builtin_expect(k == key, 1)) {
                const RegionHandle value = slot.value.load(std::memory_order_relaxed);
                // A published key always has its value (never kUnknown): tell the compiler, so
                // that callers test kUnknown only on the not-found path.
                if (value == kUnknown) __builtin_unreachable();
                return value;
            }
            if (k == 0) return kUnknown;
        }
    }

    /// The value stored for `key` in the overflow table, or kUnknown.  Lock-free.
    __attribute__((no_instrument_function)) RegionHandle find_overflow(std::uintptr_t key) const {
        // Acquire pairs with the release in grow(): the table's slots are filled before.
        const Table* t = overflow_.load(std::memory_order_acquire);
        return t == nullptr ? kUnknown : probe(*t, key);
    }

    /// Stores `value` (not kUnknown) for `key` (not 0).  Callers serialise inserts.
    /// Returns false when no memory for a larger overflow table can be had (the entry is then
    /// not stored, and the caller resolves the address again next time).
    __attribute__((no_instrument_function)) bool insert(std::uintptr_t key, RegionHandle value) {
        if (2 * (primary_count_ + 1) <= (std::size_t{1} << kPrimaryBits)) {
            if (put(primary_table(), key, value)) ++primary_count_;
            return true;
        }
        const Table* t = overflow_.load(std::memory_order_relaxed);
        if (t == nullptr || 2 * (overflow_count_ + 1) > t->mask + 1) {
            t = grow(t);
            if (t == nullptr) return false;
        }
        if (put(*t, key, value)) ++overflow_count_;
        return true;
    }

    /// Number of addresses stored.
    std::size_t size() const { return primary_count_ + overflow_count_; }

private:
    struct Slot {
        std::atomic<std::uintptr_t> key{0};
        std::atomic<RegionHandle> value{0};
    };
    struct Table {
        std::size_t mask;  // size - 1, size a power of two
        Slot* slots;
    };

    static_assert(sizeof(Slot) == 16, "find() computes slot offsets as multiples of 16");

    /// The first slot to probe.  Functions are usually 16-byte aligned and never overlap, so
    /// the address bits above the alignment spread them without a multiplication.
    __attribute__((no_instrument_function, always_inline)) static std::size_t index(std::uintptr_t key,
                                                                                    std::size_t mask) {
        return static_cast<std::size_t>(key >> 4) & mask;
    }

    __attribute__((no_instrument_function)) static RegionHandle probe(const Table& t, std::uintptr_t key) {
        for (std::size_t i = index(key, t.mask);; i = (i + 1) & t.mask) {
            const std::uintptr_t k = t.slots[i].key.load(std::memory_order_acquire);
            if (k == key) return t.slots[i].value.load(std::memory_order_relaxed);
            if (k == 0) return kUnknown;
        }
    }

    Table primary_table() { return Table{(std::size_t{1} << kPrimaryBits) - 1, primary_}; }

    /// Stores into `t`; false when the key was already there (its value is then replaced).
    __attribute__((no_instrument_function)) static bool put(const Table& t, std::uintptr_t key,
                                                            RegionHandle value) {
        for (std::size_t i = index(key, t.mask);; i = (i + 1) & t.mask) {
            const std::uintptr_t k = t.slots[i].key.load(std::memory_order_relaxed);
            if (k == key) {
                t.slots[i].value.store(value, std::memory_order_relaxed);
                return false;
            }
            if (k == 0) {
                t.slots[i].value.store(value, std::memory_order_relaxed);
                t.slots[i].key.store(key, std::memory_order_release);
                return true;
            }
        }
    }

    __attribute__((no_instrument_function)) const Table* grow(const Table* old) {
        const std::size_t size = old == nullptr ? std::size_t{1} << 12 : 2 * (old->mask + 1);
        auto* slots = new (std::nothrow) Slot[size];
        auto* t = new (std::nothrow) Table{size - 1, slots};
        if (slots == nullptr || t == nullptr) {
            delete[] slots;
            delete t;
            return nullptr;
        }
        for (std::size_t i = 0; old != nullptr && i <= old->mask; ++i) {
            const std::uintptr_t k = old->slots[i].key.load(std::memory_order_relaxed);
            if (k != 0) put(*t, k, old->slots[i].value.load(std::memory_order_relaxed));
        }
        // Release: readers that load the new table see its slots filled.  The old table
        // is never freed: a reader may still be probing it.
        overflow_.store(t, std::memory_order_release);
        return t;
    }

    Slot primary_[std::size_t{1} << kPrimaryBits];
    std::atomic<const Table*> overflow_{nullptr};
    std::size_t primary_count_ = 0;
    std::size_t overflow_count_ = 0;
};

}  // namespace strata::compiler
