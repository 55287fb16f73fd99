// SPDX-License-Identifier: BSD-3-Clause
// Creation and registry of locations.
#include "core/location.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "core/definitions.hpp"
#include "core/host_name.hpp"
#include "core/runtime.hpp"
#include "metrics/thread_counters.hpp"  // a location owns its counters (deleted with it)

namespace strata {

Location::~Location() {
    events::detail::free_fork_contexts(*this);
    std::free(stack);
    delete counters;
}

void Location::grow_stack() {
    const std::uint32_t new_capacity = capacity == 0 ? 64 : capacity * 2;
    auto* grown = static_cast<RegionHandle*>(std::realloc(stack, new_capacity * sizeof(RegionHandle)));
    if (grown == nullptr) std::abort();  // unreachable in practice: a few KiB
    stack = grown;
    capacity = new_capacity;
}

namespace location {

namespace {
std::mutex g_mutex;
std::vector<Location*>& registry() {
    static auto* list = new std::vector<Location*>();
    return *list;
}
std::uint32_t g_threads = 0;  ///< thread locations made so far (under g_mutex)
/// Names given to OS threads without a location yet (under g_mutex).
std::map<std::uint32_t, std::string>& pending_names() {
    static auto* names = new std::map<std::uint32_t, std::string>();
    return *names;
}
std::uint32_t g_own = 0;      ///< locations of their own made so far (under g_mutex)
/// The locations of their own by number, for a look-up without the lock (a
/// number is handed out only after its slot is set).
constexpr std::uint32_t kMaxOwn = 0xFFFF;
std::atomic<Location*> g_own_slots[kMaxOwn];
}  // namespace

namespace detail {
__thread Location* current __attribute__((tls_model("initial-exec"))) = nullptr;

Location* create_current() {
    // Creating a location allocates; a program whose own allocator is
    // instrumented would come back here from inside `new` and recurse without
    // end.  Events of that inner call are not recorded (nullptr) instead.
    static __thread bool creating = false;
    if (creating) return nullptr;
    creating = true;
    auto* loc = new Location();
    loc->grow_stack();
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        loc->index = g_threads++;
        loc->os_thread = static_cast<std::uint32_t>(syscall(SYS_gettid));
        auto named = pending_names().find(loc->os_thread);
        if (named != pending_names().end()) {
            loc->given_name = std::move(named->second);
            pending_names().erase(named);
        }
        registry().push_back(loc);
    }
    loc->name = "thread " + std::to_string(loc->index);
    definitions().intern(loc->name);  // a job-wide string: profile.h5 names its columns with it
    if (!loc->given_name.empty()) definitions().intern(loc->display_name());
    if (loc->index == 0) definitions().intern(host_name());  // and their hosts
    if (loc->index == 0) runtime::first_location_created();
    // The subsystems first (the counters): the substrates' per-location state may size itself by them.
    runtime::init_location_in_subsystems(*loc);
    for (const substrate::Callbacks* s : runtime::substrates()) {
        if (s->management.location_created) s->management.location_created(*loc);
    }
    current = loc;
    creating = false;
    runtime::program_region_due();
    return loc;
}
}  // namespace detail

Location* create_own(std::string name, LocationType type, std::uint32_t device) {
    auto* loc = new Location();
    loc->grow_stack();
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_own >= kMaxOwn) {
            delete loc;
            return nullptr;
        }
        loc->index = kFirstOwnIndex + g_own;
        registry().push_back(loc);
        g_own_slots[g_own++].store(loc, std::memory_order_release);
    }
    loc->type = type;
    loc->device = device;
    loc->name = std::move(name);
    definitions().intern(loc->name);
    runtime::init_location_in_subsystems(*loc);  // no counters: no thread of the program runs here
    for (const substrate::Callbacks* s : runtime::substrates()) {
        if (s->management.location_created) s->management.location_created(*loc);
    }
    return loc;
}

void name_thread(std::uint32_t os_thread, const std::string& name) {
    std::string display;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        Location* named = nullptr;
        for (Location* loc : registry()) {
            if (loc->type == LocationType::cpu_thread && loc->os_thread == os_thread) named = loc;
        }
        if (named == nullptr) {
            pending_names()[os_thread] = name;
            return;
        }
        named->given_name = name;
        display = named->display_name();
    }
    definitions().intern(display);  // the results name the location with it (see create_current)
}

Location* own(std::uint32_t n) {
    return n < kMaxOwn ? g_own_slots[n].load(std::memory_order_acquire) : nullptr;
}

std::vector<Location*> all() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return registry();
}

void reset_all() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (Location* loc : registry()) delete loc;
    registry().clear();
    g_threads = 0;
    pending_names().clear();
    for (std::uint32_t n = 0; n < g_own; ++n) g_own_slots[n].store(nullptr, std::memory_order_relaxed);
    g_own = 0;
    detail::current = nullptr;
}

}  // namespace location
}  // namespace strata
