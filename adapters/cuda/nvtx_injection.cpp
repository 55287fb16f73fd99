// SPDX-License-Identifier: BSD-3-Clause
// NVTX capture: Strata as an NVTX v3 injection library (share/doc/nvtx.md).
//
//   program: nvtxRangePushA("step")          (NVTX v3 is header-only: every library that
//      -> its copy of NVTX, first call:        carries NVTX has its own copy and initialises once)
//         dlopen($NVTX_INJECTION64_PATH), InitializeInjectionNvtx2(getExportTable)
//      -> we fill that copy's CORE and CORE2 tables with the functions below
//      -> later calls come straight here:
//           push/pop, marks   -> events::enter / exit on the calling thread (thread-local cache
//                                of regions by (domain, message): no lock after the first call)
//           start/end         -> events::location_enter / exit on lanes of their own (mutex)
//
// Nothing here may throw into the program or crash on what a program passes:
// every callback catches, and handles we hand out are table indexes, checked
// before use.  Everything the copies of NVTX share (domains, strings, lanes)
// lives here, once per process.
#define NVTX_NO_IMPL  // types and declarations only: we implement the calls, not the dispatch
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <unistd.h>

#define NVTX_EXT_TYPES_GUARD  // as nvToolsExtPayload.h does, for nvtxExtModuleInfo_t
#include <nvtx3/nvtxDetail/nvtxExtTypes.h>
#undef NVTX_EXT_TYPES_GUARD

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nvtx_injection.hpp"
#include "strata/measurement/events.hpp"

#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)

namespace {

using strata::LocationType;
using strata::Paradigm;
using strata::RegionHandle;
using strata::RegionRole;
namespace events = strata::events;

/// The domain every call without one (nvtxRangePushA, ...) uses, and a NULL domain handle.
constexpr std::uint32_t default_domain = 0;
constexpr std::uint32_t invalid_domain = UINT32_MAX;
/// Ranges in this domain are iterations: their regions carry the phase flag.
constexpr std::string_view phase_domain_name = "strata.phase";

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
    std::atomic<bool> end_hook_registered{false};
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

Shared& shared() {
    // Function-local and leaked: usable from any constructor or destructor.
    static Shared* const s = new Shared();
    return *s;
}

void count(std::atomic<std::uint64_t>& counter) {
    counter.fetch_add(1, std::memory_order_relaxed);
}

// --- text ----------------------------------------------------------------------

/// `text` (wchar_t: UTF-32 code points on the platforms Strata runs on) as UTF-8;
/// what is no code point becomes U+FFFD.
void to_utf8(const wchar_t* text, std::string& out) {
    out.clear();
    for (; *text != 0; ++text) {
        auto c = static_cast<std::uint32_t>(*text);
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (c < 0x800) {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += static_cast<char>(0xE0 | (c >> 12));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (c >> 18));
            out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
}

/// A hash of (key, text), eight bytes at a time: messages are hashed on every push.
std::uint64_t hash_text(std::uint32_t key, std::string_view text) {
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
constexpr std::size_t recent_messages = 64;

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
__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

void release_thread_state(void* state) {
    delete static_cast<ThreadState*>(state);
    t_state = nullptr;
}

pthread_key_t state_key() {
    static const pthread_key_t key = [] {
        pthread_key_t k{};
        pthread_key_create(&k, &release_thread_state);
        return k;
    }();
    return key;
}

__attribute__((noinline)) ThreadState& make_thread_state() {
    auto* state = new ThreadState();
    t_state = state;
    pthread_setspecific(state_key(), state);
    return *state;
}

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
__attribute__((noinline)) RegionHandle define_region(ThreadState& t, std::uint32_t domain, Use use,
                                                     std::uint32_t key, std::string_view text,
                                                     std::uint64_t hash) {
    const Domain* d = shared().domains.get(domain);
    events::RegionSpec spec;
    spec.name = text;
    spec.file = "";
    spec.line = 0;
    spec.paradigm = Paradigm::user;
    spec.role = RegionRole::code;
    std::string name;
    if (d != nullptr && d->kind == DomainKind::phase) {
        if (use == Use::range) spec.flags = strata::region_flag_phase;
    } else if (d != nullptr && !d->name.empty()) {
        name.reserve(text.size() + d->name.size() + 3);
        name.append(text).append(" [").append(d->name).append("]");
        spec.name = name;
    }
    const RegionHandle region = events::define_region(spec);
    if (region != 0) t.regions.insert(key, text, hash, region);  // 0: not measuring (yet); ask again
    return region;
}

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

const std::string* registered_string(nvtxStringHandle_t handle) {
    const auto value = reinterpret_cast<std::uintptr_t>(handle);
    if (value == 0 || value > UINT32_MAX) return nullptr;
    return shared().strings.get(static_cast<std::uint32_t>(value - 1));
}

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
bool message_of(const nvtxEventAttributes_t* attributes, ThreadState& t, Message* text) {
    // Versions 1 to 3 share this layout; a later one may only add fields at the end.
    constexpr std::size_t needed = offsetof(nvtxEventAttributes_t, message) + sizeof(nvtxMessageValue_t);
    if (attributes == nullptr || attributes->version == 0 || attributes->size < needed) return false;
    switch (attributes->messageType) {
        case NVTX_MESSAGE_TYPE_ASCII:
            if (attributes->message.ascii == nullptr) return false;
            *text = Message{attributes->message.ascii, attributes->message.ascii};
            return true;
        case NVTX_MESSAGE_TYPE_UNICODE:
            if (attributes->message.unicode == nullptr) return false;
            to_utf8(attributes->message.unicode, t.scratch);
            *text = Message{t.scratch, nullptr};
            return true;
        case NVTX_MESSAGE_TYPE_REGISTERED: {
            const std::string* s = registered_string(attributes->message.registered);
            if (s == nullptr) return false;
            *text = Message{*s, nullptr};
            return true;
        }
        default:
            return false;
    }
}

// --- push and pop --------------------------------------------------------------

int push_region(ThreadState& t, std::uint32_t domain, RegionHandle region) {
    std::uint32_t level = 0;
    for (auto it = t.stack.rbegin(); it != t.stack.rend(); ++it) {
        if (it->domain == domain) {
            level = it->level + 1;
            break;
        }
    }
    t.stack.push_back(StackEntry{region, domain, level});
    if (region != 0) events::enter(region);
    return static_cast<int>(level);
}

/// Text: a std::string_view, or a NUL-terminated message (looked up by its address first).
template <typename Text>
inline int push_range(ThreadState& t, std::uint32_t domain, Text text) {
    return push_region(t, domain, region_of(t, domain, Use::range, text));
}

/// A push without a usable message: nothing is recorded, but its pop must
/// still end it and not the range around it.
int push_ignored(ThreadState& t, std::uint32_t domain) {
    count(shared().ignored_calls);
    return push_region(t, domain, 0);
}

/// Ends the innermost open range of `domain` on this thread.  When ranges of
/// other domains were pushed after it (NVTX allows that: one stack per domain),
/// they are left, the range is left, and they are entered again, so that the
/// thread's regions stay nested.
int pop_range(std::uint32_t domain) {
    ThreadState& t = thread_state();
    std::vector<StackEntry>& stack = t.stack;
    std::size_t i = stack.size();
    while (i > 0 && stack[i - 1].domain != domain) --i;
    if (i == 0) {
        count(shared().unmatched_pops);
        return -1;
    }
    const StackEntry ended = stack[i - 1];
    if (STRATA_LIKELY(i == stack.size())) {
        stack.pop_back();
        if (ended.region != 0) events::exit(ended.region);
        return static_cast<int>(ended.level);
    }
    count(shared().crossed_pops);
    for (std::size_t k = stack.size(); k > i; --k) {
        if (stack[k - 1].region != 0) events::exit(stack[k - 1].region);
    }
    if (ended.region != 0) events::exit(ended.region);
    stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i - 1));
    for (std::size_t k = i - 1; k < stack.size(); ++k) {
        if (stack[k].region != 0) events::enter(stack[k].region);
    }
    return static_cast<int>(ended.level);
}

template <typename Text>
void mark(ThreadState& t, std::uint32_t domain, Text text) {
    const RegionHandle region = region_of(t, domain, Use::mark, text);
    if (region == 0) return;
    const strata::Ticks now = events::now();
    events::enter_at(now, region);
    events::exit_at(now, region);
}

// --- start and end: lanes ------------------------------------------------------

/// Start/end ranges may overlap and end on another thread, so they do not nest
/// on a thread.  Each goes on the first lane (a location of its own) with no
/// open range: on one lane ranges follow each other and nest trivially.
struct Lane {
    events::LocationHandle location = 0;
    nvtxRangeId_t open = 0;  ///< the id of the range open on it; 0: free
    RegionHandle region = 0;
};

struct Lanes {
    std::mutex mutex;  // start/end are rarer than push/pop; one lock is simple and enough
    std::vector<Lane> lanes;
    std::unordered_map<nvtxRangeId_t, std::uint32_t> open;  ///< range id -> lane
    nvtxRangeId_t next_id = 1;
    bool ended = false;  ///< the measurement has ended: ranges were closed
};

Lanes& lanes() {
    static Lanes* const l = new Lanes();
    return *l;
}

std::string lane_name(std::size_t index) {
    return index == 0 ? std::string("NVTX ranges") : "NVTX ranges " + std::to_string(index + 1);
}

/// Returns the range's id, or 0 when it is not recorded (not measuring, no lane).
nvtxRangeId_t start_range(RegionHandle region) {
    if (region == 0) return 0;
    Lanes& l = lanes();
    std::unique_lock<std::mutex> lock(l.mutex);
    for (;;) {
        if (l.ended) return 0;
        std::size_t lane = 0;
        while (lane < l.lanes.size() && l.lanes[lane].open != 0) ++lane;
        if (lane < l.lanes.size()) {
            const nvtxRangeId_t id = l.next_id++;
            Lane& free = l.lanes[lane];
            free.open = id;
            free.region = region;
            l.open.emplace(id, static_cast<std::uint32_t>(lane));
            // Under the lock, so that times on a lane never decrease.
            events::location_enter(free.location, events::now(), region, 0);
            return id;
        }
        // A new lane; define_location takes the core's lock: not while holding ours.
        const std::string name = lane_name(lane);
        lock.unlock();
        const events::LocationHandle location =
            events::define_location(events::LocationSpec{name, LocationType::cpu_thread, 0});
        lock.lock();
        if (location == 0) return 0;
        l.lanes.push_back(Lane{location, 0, 0});
    }
}

void end_range(nvtxRangeId_t id) {
    if (id == 0) return;  // a range that was not recorded
    Lanes& l = lanes();
    const std::lock_guard<std::mutex> lock(l.mutex);
    if (l.ended) return;
    const auto it = l.open.find(id);
    if (it == l.open.end()) {
        count(shared().unknown_ends);
        return;
    }
    Lane& lane = l.lanes[it->second];
    events::location_exit(lane.location, events::now(), lane.region);
    lane.open = 0;
    lane.region = 0;
    l.open.erase(it);
}

/// At the end of the measurement: closes the ranges still open on lanes (so
/// that every lane nests) and reports what was ignored.
void at_measurement_end() {
    std::uint64_t closed = 0;
    {
        Lanes& l = lanes();
        const std::lock_guard<std::mutex> lock(l.mutex);
        l.ended = true;
        const strata::Ticks now = events::now();
        for (Lane& lane : l.lanes) {
            if (lane.open == 0) continue;
            events::location_exit(lane.location, now, lane.region);
            lane.open = 0;
            ++closed;
        }
        l.open.clear();
    }
    const strata::cuda::nvtx::Statistics s = strata::cuda::nvtx::statistics();
    const auto report = [](std::uint64_t n, const char* kind, const char* what) {
        if (n == 0) return;
        std::fprintf(stderr, "strata: %s: NVTX: %llu %s\n", kind, static_cast<unsigned long long>(n), what);
    };
    report(s.unmatched_pops, "warning", "range pops without an open range of their domain were ignored");
    report(s.unknown_ends, "warning", "range ends of an id that was not open were ignored");
    report(s.ignored_calls, "warning", "calls without a usable message, attributes or domain were ignored");
    report(s.crossed_pops, "note", "range pops ended a range that ranges of other domains were nested in");
    report(closed, "note", "start/end ranges still open at the end of the measurement were closed there");
}

// --- names: domains, strings, categories, threads --------------------------------

nvtxDomainHandle_t create_domain(std::string_view name) {
    if (name.empty()) return nullptr;  // no name: the default domain
    Shared& s = shared();
    const std::lock_guard<std::mutex> lock(s.definitions_mutex);
    const auto found = s.domain_by_name.find(std::string(name));
    std::uint32_t index = 0;
    if (found != s.domain_by_name.end()) {
        index = found->second;
    } else {
        const DomainKind kind = name == phase_domain_name ? DomainKind::phase : DomainKind::plain;
        if (!s.domains.append(Domain{std::string(name), kind}, &index)) return nullptr;
        s.domain_by_name.emplace(std::string(name), index);
    }
    return reinterpret_cast<nvtxDomainHandle_t>(static_cast<std::uintptr_t>(index));
}

nvtxStringHandle_t register_string(nvtxDomainHandle_t domain_handle, std::string_view text) {
    const std::uint32_t domain = domain_of(domain_handle);
    if (domain == invalid_domain) {
        count(shared().ignored_calls);
        return nullptr;
    }
    Shared& s = shared();
    const std::lock_guard<std::mutex> lock(s.definitions_mutex);
    auto key = std::make_pair(domain, std::string(text));
    const auto found = s.string_by_text.find(key);
    std::uint32_t index = 0;
    if (found != s.string_by_text.end()) {
        index = found->second;
    } else {
        if (!s.strings.append(std::string(text), &index)) return nullptr;
        s.string_by_text.emplace(std::move(key), index);
    }
    return reinterpret_cast<nvtxStringHandle_t>(static_cast<std::uintptr_t>(index) + 1);
}

void name_category(nvtxDomainHandle_t domain_handle, std::uint32_t category, std::string_view name) {
    const std::uint32_t domain = domain_of(domain_handle);
    if (domain == invalid_domain) {
        count(shared().ignored_calls);
        return;
    }
    // Categories are not recorded (no event or region carries them); the names are kept.
    Shared& s = shared();
    const std::lock_guard<std::mutex> lock(s.definitions_mutex);
    s.category_names[{domain, category}] = std::string(name);
}

/// nvtxNameOsThread: `thread` is the Linux thread id; the trace and profile show the name.
void name_thread(std::uint32_t thread, std::string_view name) { events::name_thread(thread, name); }

// --- the callbacks NVTX calls --------------------------------------------------

/// Runs `body`; what it throws (out of memory) becomes `fallback`: nothing may
/// leave a callback into the program's C code.
template <typename R, typename Body>
inline R guarded(R fallback, Body&& body) noexcept {
    try {
        return body();
    } catch (...) {
        return fallback;
    }
}
template <typename Body>
inline void guarded_void(Body&& body) noexcept {
    try {
        body();
    } catch (...) {
    }
}

void ignore() {
    count(shared().ignored_calls);
}

std::string utf8(const wchar_t* text) {
    std::string out;
    to_utf8(text, out);
    return out;
}

// Push and pop
int push_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    return guarded(-1, [&] {
        const std::uint32_t domain = domain_of(domain_handle);
        if (domain == invalid_domain) return ignore(), -1;  // its pop is ignored too
        ThreadState& t = thread_state();
        Message text;
        if (!message_of(attributes, t, &text)) return push_ignored(t, domain);
        return push_range(t, domain, text);
    });
}
int range_push_ex(const nvtxEventAttributes_t* attributes) {
    return push_ex(nullptr, attributes);
}
int range_push_a(const char* message) {
    return guarded(-1, [&] {
        ThreadState& t = thread_state();
        if (message == nullptr) return push_ignored(t, default_domain);
        return push_range(t, default_domain, message);
    });
}
int range_push_w(const wchar_t* message) {
    return guarded(-1, [&] {
        ThreadState& t = thread_state();
        if (message == nullptr) return push_ignored(t, default_domain);
        to_utf8(message, t.scratch);
        return push_range(t, default_domain, t.scratch);
    });
}
int range_pop() {
    return guarded(-1, [] { return pop_range(default_domain); });
}
int domain_range_pop(nvtxDomainHandle_t domain_handle) {
    return guarded(-1, [&] {
        const std::uint32_t domain = domain_of(domain_handle);
        if (domain == invalid_domain) return ignore(), -1;
        return pop_range(domain);
    });
}

// Marks
void mark_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    guarded_void([&] {
        const std::uint32_t domain = domain_of(domain_handle);
        ThreadState& t = thread_state();
        Message text;
        if (domain == invalid_domain || !message_of(attributes, t, &text)) return ignore();
        mark(t, domain, text);
    });
}
void range_mark_ex(const nvtxEventAttributes_t* attributes) {
    mark_ex(nullptr, attributes);
}
void mark_a(const char* message) {
    guarded_void([&] {
        if (message == nullptr) return ignore();
        mark(thread_state(), default_domain, message);
    });
}
void mark_w(const wchar_t* message) {
    guarded_void([&] {
        if (message == nullptr) return ignore();
        ThreadState& t = thread_state();
        to_utf8(message, t.scratch);
        mark(t, default_domain, t.scratch);
    });
}

// Start and end
nvtxRangeId_t start_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        const std::uint32_t domain = domain_of(domain_handle);
        ThreadState& t = thread_state();
        Message text;
        if (domain == invalid_domain || !message_of(attributes, t, &text)) return ignore(), 0;
        return start_range(region_of(t, domain, Use::range, text));
    });
}
nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t* attributes) {
    return start_ex(nullptr, attributes);
}
nvtxRangeId_t range_start_a(const char* message) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        if (message == nullptr) return ignore(), 0;
        return start_range(region_of(thread_state(), default_domain, Use::range, message));
    });
}
nvtxRangeId_t range_start_w(const wchar_t* message) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        if (message == nullptr) return ignore(), 0;
        ThreadState& t = thread_state();
        to_utf8(message, t.scratch);
        return start_range(region_of(t, default_domain, Use::range, t.scratch));
    });
}
void range_end(nvtxRangeId_t id) {
    guarded_void([&] { end_range(id); });
}
// Range ids are unique in the process, whatever their domain.
void domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) {
    range_end(id);
}

// Domains and registered strings
nvtxDomainHandle_t domain_create_a(const char* name) {
    return guarded<nvtxDomainHandle_t>(nullptr, [&] { return create_domain(name ? name : ""); });
}
nvtxDomainHandle_t domain_create_w(const wchar_t* name) {
    return guarded<nvtxDomainHandle_t>(nullptr, [&] { return create_domain(name ? utf8(name) : ""); });
}
// Handles stay valid: the regions cached for a domain refer to it, and another
// library may hold a handle of the same name.
void domain_destroy(nvtxDomainHandle_t) {}
nvtxStringHandle_t register_string_a(nvtxDomainHandle_t domain, const char* text) {
    return guarded<nvtxStringHandle_t>(nullptr, [&]() -> nvtxStringHandle_t {
        if (text == nullptr) return ignore(), nullptr;
        return register_string(domain, text);
    });
}
nvtxStringHandle_t register_string_w(nvtxDomainHandle_t domain, const wchar_t* text) {
    return guarded<nvtxStringHandle_t>(nullptr, [&]() -> nvtxStringHandle_t {
        if (text == nullptr) return ignore(), nullptr;
        return register_string(domain, utf8(text));
    });
}

// Categories and thread names
void domain_name_category_a(nvtxDomainHandle_t domain, std::uint32_t category, const char* name) {
    guarded_void([&] { name != nullptr ? name_category(domain, category, name) : ignore(); });
}
void domain_name_category_w(nvtxDomainHandle_t domain, std::uint32_t category, const wchar_t* name) {
    guarded_void([&] { name != nullptr ? name_category(domain, category, utf8(name)) : ignore(); });
}
void name_category_a(std::uint32_t category, const char* name) {
    domain_name_category_a(nullptr, category, name);
}
void name_category_w(std::uint32_t category, const wchar_t* name) {
    domain_name_category_w(nullptr, category, name);
}
void name_os_thread_a(std::uint32_t thread, const char* name) {
    guarded_void([&] { name != nullptr ? name_thread(thread, name) : ignore(); });
}
void name_os_thread_w(std::uint32_t thread, const wchar_t* name) {
    guarded_void([&] { name != nullptr ? name_thread(thread, utf8(name)) : ignore(); });
}

// --- the tables ------------------------------------------------------------------

struct Slot {
    unsigned id;
    NvtxFunctionPointer function;
};

/// `function` as NVTX stores it; Fn spelled out checks its signature against NVTX's.
template <typename Fn>
NvtxFunctionPointer entry(Fn function) {
    return reinterpret_cast<NvtxFunctionPointer>(function);
}

// Built at the first initialisation (not by a static initialiser, which may not
// have run when a library's constructor makes the first NVTX call).
template <std::size_t N>
using Slots = Slot[N];

const Slots<15>& core_slots() {
    static const Slots<15> slots = {
        {NVTX_CBID_CORE_MarkEx, entry<nvtxMarkEx_impl_fntype>(range_mark_ex)},
        {NVTX_CBID_CORE_MarkA, entry<nvtxMarkA_impl_fntype>(mark_a)},
        {NVTX_CBID_CORE_MarkW, entry<nvtxMarkW_impl_fntype>(mark_w)},
        {NVTX_CBID_CORE_RangeStartEx, entry<nvtxRangeStartEx_impl_fntype>(range_start_ex)},
        {NVTX_CBID_CORE_RangeStartA, entry<nvtxRangeStartA_impl_fntype>(range_start_a)},
        {NVTX_CBID_CORE_RangeStartW, entry<nvtxRangeStartW_impl_fntype>(range_start_w)},
        {NVTX_CBID_CORE_RangeEnd, entry<nvtxRangeEnd_impl_fntype>(range_end)},
        {NVTX_CBID_CORE_RangePushEx, entry<nvtxRangePushEx_impl_fntype>(range_push_ex)},
        {NVTX_CBID_CORE_RangePushA, entry<nvtxRangePushA_impl_fntype>(range_push_a)},
        {NVTX_CBID_CORE_RangePushW, entry<nvtxRangePushW_impl_fntype>(range_push_w)},
        {NVTX_CBID_CORE_RangePop, entry<nvtxRangePop_impl_fntype>(range_pop)},
        {NVTX_CBID_CORE_NameCategoryA, entry<nvtxNameCategoryA_impl_fntype>(name_category_a)},
        {NVTX_CBID_CORE_NameCategoryW, entry<nvtxNameCategoryW_impl_fntype>(name_category_w)},
        {NVTX_CBID_CORE_NameOsThreadA, entry<nvtxNameOsThreadA_impl_fntype>(name_os_thread_a)},
        {NVTX_CBID_CORE_NameOsThreadW, entry<nvtxNameOsThreadW_impl_fntype>(name_os_thread_w)},
    };
    return slots;
}

// Resources, nvtxInitialize and the CUDA, OpenCL and sync modules stay NVTX's no-ops.
const Slots<12>& core2_slots() {
    static const Slots<12> slots = {
        {NVTX_CBID_CORE2_DomainMarkEx, entry<nvtxDomainMarkEx_impl_fntype>(mark_ex)},
        {NVTX_CBID_CORE2_DomainRangeStartEx, entry<nvtxDomainRangeStartEx_impl_fntype>(start_ex)},
        {NVTX_CBID_CORE2_DomainRangeEnd, entry<nvtxDomainRangeEnd_impl_fntype>(domain_range_end)},
        {NVTX_CBID_CORE2_DomainRangePushEx, entry<nvtxDomainRangePushEx_impl_fntype>(push_ex)},
        {NVTX_CBID_CORE2_DomainRangePop, entry<nvtxDomainRangePop_impl_fntype>(domain_range_pop)},
        {NVTX_CBID_CORE2_DomainNameCategoryA,
         entry<nvtxDomainNameCategoryA_impl_fntype>(domain_name_category_a)},
        {NVTX_CBID_CORE2_DomainNameCategoryW,
         entry<nvtxDomainNameCategoryW_impl_fntype>(domain_name_category_w)},
        {NVTX_CBID_CORE2_DomainRegisterStringA,
         entry<nvtxDomainRegisterStringA_impl_fntype>(register_string_a)},
        {NVTX_CBID_CORE2_DomainRegisterStringW,
         entry<nvtxDomainRegisterStringW_impl_fntype>(register_string_w)},
        {NVTX_CBID_CORE2_DomainCreateA, entry<nvtxDomainCreateA_impl_fntype>(domain_create_a)},
        {NVTX_CBID_CORE2_DomainCreateW, entry<nvtxDomainCreateW_impl_fntype>(domain_create_w)},
        {NVTX_CBID_CORE2_DomainDestroy, entry<nvtxDomainDestroy_impl_fntype>(domain_destroy)},
    };
    return slots;
}

/// Writes `slots` into one module's table of one copy of NVTX; false when it has no such module.
template <std::size_t N>
bool fill(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module, const Slot (&slots)[N]) {
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;  // entries, without the null at the end
    if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return false;
    for (const Slot& slot : slots) {
        // An older copy has fewer entries: only those it has.
        if (slot.id < size && table[slot.id] != nullptr) *table[slot.id] = slot.function;
    }
    return true;
}

}  // namespace

namespace strata::cuda::nvtx {

void announce_injection_library() {
    if (!shared().enabled.load(std::memory_order_relaxed)) return;
    if (std::getenv("NVTX_INJECTION64_PATH") != nullptr) return;  // the user's choice (or another tool's)
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&announce_injection_library), &info) == 0 ||
        info.dli_fname == nullptr || info.dli_fname[0] == '\0') {
        return;
    }
    // NVTX dlopens the path later, maybe from another directory: make it absolute.
    // A bare name (no '/') is found as the loaded library's name.
    std::string path = info.dli_fname;
    if (path.find('/') != std::string::npos) {
        if (char* real = realpath(info.dli_fname, nullptr)) {
            path = real;
            std::free(real);
        }
    }
    // The variable reaches the program's child processes: name the forwarder
    // beside this library (nvtx_forwarder.c), which loads nothing of Strata's
    // into a child that is not measured.  This library itself only without it.
    const std::size_t slash = path.rfind('/');
    if (slash != std::string::npos) {
        const std::string forwarder = path.substr(0, slash + 1) + "libstrata-nvtx.so";
        if (access(forwarder.c_str(), R_OK) == 0) path = forwarder;
    }
    setenv("NVTX_INJECTION64_PATH", path.c_str(), 0);
}

void set_enabled(bool enabled) {
    shared().enabled.store(enabled, std::memory_order_relaxed);
}

Statistics statistics() {
    const Shared& s = shared();
    Statistics result;
    result.unmatched_pops = s.unmatched_pops.load(std::memory_order_relaxed);
    result.unknown_ends = s.unknown_ends.load(std::memory_order_relaxed);
    result.ignored_calls = s.ignored_calls.load(std::memory_order_relaxed);
    result.crossed_pops = s.crossed_pops.load(std::memory_order_relaxed);
    result.initialisations = s.initialisations.load(std::memory_order_relaxed);
    return result;
}

}  // namespace strata::cuda::nvtx

/// NVTX's entry point, called once by every copy of NVTX in the process (each
/// library that carries the NVTX v3 headers) at its first NVTX call, through
/// libstrata-nvtx (nvtx_forwarder.c) or directly when NVTX_INJECTION64_PATH
/// names this library.  Returns 1 when that copy's tables are filled, 0 to
/// decline (NVTX capture disabled).
extern "C" __attribute__((visibility("default"))) int strata_nvtx_initialize(
    NvtxGetExportTableFunc_t get_export_table) {
    Shared& s = shared();
    if (!s.enabled.load(std::memory_order_relaxed) || get_export_table == nullptr) return 0;
    return guarded(0, [&] {
        const auto* callbacks =
            static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
        if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
            callbacks->GetModuleFunctionTable == nullptr) {
            return 0;
        }
        if (!fill(*callbacks, NVTX_CB_MODULE_CORE, core_slots())) return 0;
        fill(*callbacks, NVTX_CB_MODULE_CORE2, core2_slots());  // a copy without domains (NVTX 1) has none
        const auto* version =
            static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
        if (version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
            version->SetInjectionNvtxVersion != nullptr) {
            version->SetInjectionNvtxVersion(NVTX_VERSION);
        }
        if (!s.end_hook_registered.exchange(true)) events::at_measurement_end(&at_measurement_end);
        count(s.initialisations);
        return 1;
    });
}

/// The entry point of NVTX extensions (payloads, counters, memory): Strata
/// records none of them; success with no function registered leaves their
/// calls no-ops.
extern "C" __attribute__((visibility("default"))) int strata_nvtx_initialize_extension(
    nvtxExtModuleInfo_t* module_info) {
    (void)module_info;
    return 1;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
    return strata_nvtx_initialize(get_export_table);
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    nvtxExtModuleInfo_t* module_info) {
    return strata_nvtx_initialize_extension(module_info);
}
