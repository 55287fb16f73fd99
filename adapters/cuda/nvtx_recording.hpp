// SPDX-License-Identifier: BSD-3-Clause
// What NVTX capture records (internal to adapters/cuda; share/doc/nvtx.md):
// the state every copy of NVTX in the process shares (domains, registered
// strings, counters), each thread's open ranges and cache of regions by
// message, and the recording of pushes, pops, marks and start/end ranges
// through the event API.  nvtx_injection.cpp receives NVTX's calls and hands
// them here.  The usual push and pop (a message seen before on the thread)
// are inline in this header: no lock, no allocation, no call but the event's.
#pragma once

#ifndef NVTX_NO_IMPL
#define NVTX_NO_IMPL  // types and declarations only: we implement the calls, not the dispatch
#endif
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"

#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)

namespace strata::cuda::nvtx::recording {

using strata::RegionHandle;
namespace events = strata::events;

/// The domain every call without one (nvtxRangePushA, ...) uses, and a NULL domain handle.
inline constexpr std::uint32_t default_domain = 0;
inline constexpr std::uint32_t invalid_domain = UINT32_MAX;
/// Ranges in this domain are iterations: their regions carry the phase flag.
inline constexpr std::string_view phase_domain_name = "strata.phase";

/// Entries appended under a lock and read without one: chunks never move and
/// an entry never changes once the size that covers it is published.
template <typename T, std::uint32_t MaxChunks>
class StableTable {
public:
    std::uint32_t size() const { return size_.load(std::memory_order_acquire); }

    /// The entry at `index`, or nullptr past the end.
    const T* get(std::uint32_t index) const {
        if (index >= size()) return nullptr;
        // The acquire load of size_ above orders this load after the chunk's store.
        return &chunks_[index / chunk_size].load(std::memory_order_relaxed)[index % chunk_size];
    }

    /// Appends `value` (the caller serialises appends); false when full.
    bool append(T value, std::uint32_t* index) {
        const std::uint32_t n = size_.load(std::memory_order_relaxed);
        if (n >= MaxChunks * chunk_size) return false;
        T* chunk = chunks_[n / chunk_size].load(std::memory_order_relaxed);
        if (chunk == nullptr) {
            chunk = new T[chunk_size];
            chunks_[n / chunk_size].store(chunk, std::memory_order_relaxed);
        }
        chunk[n % chunk_size] = std::move(value);
        size_.store(n + 1, std::memory_order_release);
        *index = n;
        return true;
    }

private:
    static constexpr std::uint32_t chunk_size = 256;
    std::atomic<T*> chunks_[MaxChunks] = {};
    std::atomic<std::uint32_t> size_{0};
};

enum class DomainKind : std::uint8_t { plain, phase };

struct Domain {
    std::string name;  ///< "" for the default domain
    DomainKind kind = DomainKind::plain;
};

/// What the copies of NVTX in the process share.  Never destroyed: NVTX calls
/// may come from other libraries' destructors at exit.
struct Shared {
    std::atomic<bool> enabled{true};
    std::atomic<std::uint64_t> unmatched_pops{0}, unknown_ends{0}, ignored_calls{0}, crossed_pops{0};
    std::atomic<std::uint64_t> initialisations{0};

    std::mutex definitions_mutex;            ///< guards the maps below and appends to the tables
    StableTable<Domain, 16> domains;         // up to 4096 domains; index 0 is the default domain
    StableTable<std::string, 4096> strings;  // registered strings; handle = index + 1
    std::unordered_map<std::string, std::uint32_t> domain_by_name;
    std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> string_by_text;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> category_names;
    // There is no event API for naming threads: the names are kept (for a later
    // one) and otherwise ignored.

    Shared() {
        std::uint32_t index = 0;
        domains.append(Domain{}, &index);
    }
};

/// The one Shared of the process.
Shared& shared();

inline void count(std::atomic<std::uint64_t>& counter) {
    counter.fetch_add(1, std::memory_order_relaxed);
}

// --- text ----------------------------------------------------------------------

/// `text` (wchar_t: UTF-32 code points on the platforms Strata runs on) as UTF-8;
/// what is no code point becomes U+FFFD.
void to_utf8(const wchar_t* text, std::string& out);

/// A hash of (key, text), eight bytes at a time: messages are hashed on every push.
inline std::uint64_t hash_text(std::uint32_t key, std::string_view text) {
    std::uint64_t h = (0x9E3779B97F4A7C15ull * (key + 1ull)) ^ text.size();
    const char* p = text.data();
    std::size_t n = text.size();
    for (; n >= 8; p += 8, n -= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
    }
    if (n > 0) {
        std::uint64_t word = 0;
        std::memcpy(&word, p, n);
        h = (h ^ word) * 0xC4CEB9FE1A85EC53ull;
    }
    return h ^ (h >> 32);
}

// --- per thread ----------------------------------------------------------------

/// Regions by (key, message), open addressing with linear probing, at most half full.
class RegionCache {
public:
    RegionHandle find(std::uint32_t key, std::string_view text, std::uint64_t hash) const {
        if (slots_.empty()) return 0;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.region == 0) return 0;
            if (s.hash == hash && s.key == key && s.text == text) return s.region;
        }
    }

    void insert(std::uint32_t key, std::string_view text, std::uint64_t hash, RegionHandle region) {
        if ((used_ + 1) * 2 > slots_.size()) {
            std::vector<Slot> old = std::move(slots_);
            slots_ = std::vector<Slot>(old.empty() ? 64 : old.size() * 2);
            for (Slot& s : old) {
                if (s.region != 0) place(std::move(s));
            }
        }
        place(Slot{hash, key, region, std::string(text)});
        ++used_;
    }

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t key = 0;
        RegionHandle region = 0;  ///< 0: empty
        std::string text;
    };

    void place(Slot&& slot) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = slot.hash & mask;
        while (slots_[i].region != 0) i = (i + 1) & mask;
        slots_[i] = std::move(slot);
    }

    std::vector<Slot> slots_;
    std::size_t used_ = 0;
};

/// A pushed range.  NVTX keeps one stack per domain and thread; Strata keeps
/// one per thread, so that its regions nest (see pop_range).
struct StackEntry {
    RegionHandle region;  ///< 0: a push that is not recorded (no message), popped silently
    std::uint32_t domain;
    std::uint32_t level;  ///< the range's depth among its domain's ranges: what push and pop return
};

/// The region last found for a message address: programs pass the same literal
/// every time, so one strcmp against a copy replaces strlen, hash and probe.
/// The copy is compared because the address may hold another text by now.
struct RecentMessage {
    const char* message = nullptr;
    std::uint32_t key = 0;
    RegionHandle region = 0;
    std::string text;
};
inline constexpr std::size_t recent_messages = 64;

struct ThreadState {
    RecentMessage recent[recent_messages];
    RegionCache regions;
    std::vector<StackEntry> stack;
    std::string scratch;  ///< a wchar_t message converted to UTF-8
};

// A plain pointer (no thread_local destructor), freed by a pthread key's
// destructor, which runs after every C++ thread_local destructor: those may
// still call NVTX.  A call after that makes a new state, freed the same way.
// Initial-exec, as the core's own thread pointer: no __tls_get_addr per call
// (NVTX may dlopen this library; one pointer fits glibc's static TLS reserve).
extern __thread ThreadState* t_state __attribute__((tls_model("initial-exec")));

/// A new state for this thread (its first NVTX call, or one after its state was freed).
ThreadState& make_thread_state();

inline ThreadState& thread_state() {
    ThreadState* state = t_state;
    if (STRATA_LIKELY(state != nullptr)) return *state;
    return make_thread_state();
}

// --- regions -------------------------------------------------------------------

enum class Use : std::uint32_t { range = 0, mark = 1 };

/// Defines the region of `text` in `domain` and caches it (the lock of
/// define_region is taken once per thread, domain and message).  Names: the
/// message in the default domain and in strata.phase (whose ranges carry the
/// phase flag; its marks do not: a mark is no iteration), "<message> [<domain>]"
/// in any other domain, so that equal messages of two domains stay apart.
RegionHandle define_region(ThreadState& t, std::uint32_t domain, Use use, std::uint32_t key, std::string_view text,
                           std::uint64_t hash);

inline RegionHandle region_of(ThreadState& t, std::uint32_t domain, Use use, std::string_view text) {
    const std::uint32_t key = domain * 2 + static_cast<std::uint32_t>(use);
    const std::uint64_t hash = hash_text(key, text);
    const RegionHandle region = t.regions.find(key, text, hash);
    if (STRATA_LIKELY(region != 0)) return region;
    return define_region(t, domain, use, key, text, hash);
}

/// region_of for a NUL-terminated message, by its address first.
inline RegionHandle region_of(ThreadState& t, std::uint32_t domain, Use use, const char* message) {
    const std::uint32_t key = domain * 2 + static_cast<std::uint32_t>(use);
    RecentMessage& recent =
        t.recent[((reinterpret_cast<std::uintptr_t>(message) >> 3) ^ key) % recent_messages];
    if (STRATA_LIKELY(recent.message == message && recent.key == key &&
                      std::strcmp(recent.text.c_str(), message) == 0)) {
        return recent.region;
    }
    const RegionHandle region = region_of(t, domain, use, std::string_view(message));
    if (region != 0) {
        recent.text = message;
        recent.message = message;
        recent.key = key;
        recent.region = region;
    }
    return region;
}

/// The domain index of a handle we gave out (0 for NULL), or invalid_domain.
inline std::uint32_t domain_of(nvtxDomainHandle_t handle) {
    const auto value = reinterpret_cast<std::uintptr_t>(handle);
    if (value == 0) return default_domain;
    if (value < shared().domains.size()) return static_cast<std::uint32_t>(value);
    return invalid_domain;
}

/// A registered string's text, nullptr for a handle we did not give out.
const std::string* registered_string(nvtxStringHandle_t handle);

/// A message from event attributes: its text, and its address when it is an ASCII one.
struct Message {
    std::string_view text;
    const char* ascii = nullptr;
};

inline RegionHandle region_of(ThreadState& t, std::uint32_t domain, Use use, const Message& message) {
    if (message.ascii != nullptr) return region_of(t, domain, use, message.ascii);
    return region_of(t, domain, use, message.text);
}

/// The message of `attributes`; false when there is none Strata can use (no
/// attributes, an unknown version or size, a null message, an unknown type).
/// A wide message is converted into t.scratch.
bool message_of(const nvtxEventAttributes_t* attributes, ThreadState& t, Message* text);

// --- push and pop --------------------------------------------------------------

/// Pushes `region` (0: a push not recorded) on this thread's stack, in `domain`; returns its level.
int push_region(ThreadState& t, std::uint32_t domain, RegionHandle region);

/// Text: a std::string_view, or a NUL-terminated message (looked up by its address first).
template <typename Text>
inline int push_range(ThreadState& t, std::uint32_t domain, Text text) {
    return push_region(t, domain, region_of(t, domain, Use::range, text));
}

/// A push without a usable message: nothing is recorded, but its pop must
/// still end it and not the range around it.
int push_ignored(ThreadState& t, std::uint32_t domain);

/// Ends the innermost open range of `domain` on this thread.  When ranges of
/// other domains were pushed after it (NVTX allows that: one stack per domain),
/// they are left, the range is left, and they are entered again, so that the
/// thread's regions stay nested.
int pop_range(std::uint32_t domain);

/// A mark: an instant region.
template <typename Text>
inline void mark(ThreadState& t, std::uint32_t domain, Text text) {
    const RegionHandle region = region_of(t, domain, Use::mark, text);
    if (region == 0) return;
    const strata::Ticks now = events::now();
    events::enter_at(now, region);
    events::exit_at(now, region);
}

// --- start and end: lanes ------------------------------------------------------

/// A start/end range of `region` on a lane of its own; returns its id, or 0
/// when it is not recorded (not measuring, no lane).
nvtxRangeId_t start_range(RegionHandle region);
/// Ends the range `id` (0: one not recorded).
void end_range(nvtxRangeId_t id);
/// At the end of the measurement: closes the ranges still open on lanes (so
/// that every lane nests) and reports what was ignored.
void at_measurement_end();

// --- names: domains, strings, categories, threads --------------------------------

/// The handle of the domain `name` (made at its first use); nullptr for the default domain or when full.
nvtxDomainHandle_t create_domain(std::string_view name);
/// The handle of `text` in a domain (one per text and domain); nullptr when it cannot be given.
nvtxStringHandle_t register_string(nvtxDomainHandle_t domain_handle, std::string_view text);
/// Keeps a category's name (categories are not recorded).
void name_category(nvtxDomainHandle_t domain_handle, std::uint32_t category, std::string_view name);
/// nvtxNameOsThread: `thread` is the Linux thread id; the trace and profile show the name.
void name_thread(std::uint32_t thread, std::string_view name);

}  // namespace strata::cuda::nvtx::recording
