// SPDX-License-Identifier: BSD-3-Clause
// What NVTX capture records (see nvtx_recording.hpp).
#include "nvtx_recording.hpp"

#include <pthread.h>

#include <cstdio>

#include "nvtx_injection.hpp"

namespace strata::cuda::nvtx::recording {

using strata::LocationType;
using strata::Paradigm;
using strata::RegionRole;

Shared& shared() {
    // Function-local and leaked: usable from any constructor or destructor.
    static Shared* const s = new Shared();
    return *s;
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

// --- per thread ----------------------------------------------------------------

__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

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

}  // namespace

__attribute__((noinline)) ThreadState& make_thread_state() {
    auto* state = new ThreadState();
    t_state = state;
    pthread_setspecific(state_key(), state);
    return *state;
}

// --- regions -------------------------------------------------------------------

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

const std::string* registered_string(nvtxStringHandle_t handle) {
    const auto value = reinterpret_cast<std::uintptr_t>(handle);
    if (value == 0 || value > UINT32_MAX) return nullptr;
    return shared().strings.get(static_cast<std::uint32_t>(value - 1));
}

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

int push_ignored(ThreadState& t, std::uint32_t domain) {
    count(shared().ignored_calls);
    return push_region(t, domain, 0);
}

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

// --- start and end: lanes ------------------------------------------------------

/// Start/end ranges may overlap and end on another thread, so they do not nest
/// on a thread.  Each goes on the first lane (a location of its own) with no
/// open range: on one lane ranges follow each other and nest trivially.
namespace {

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

}  // namespace

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

void name_thread(std::uint32_t thread, std::string_view name) { events::name_thread(thread, name); }

}  // namespace strata::cuda::nvtx::recording
