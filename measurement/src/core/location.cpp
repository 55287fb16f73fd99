// SPDX-License-Identifier: BSD-3-Clause
// Creation and registry of locations.
#include "core/location.hpp"

#include <cstdlib>
#include <mutex>

#include "core/definitions.hpp"
#include "core/host_name.hpp"
#include "core/runtime.hpp"
#include "metrics/metrics.hpp"

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
        loc->index = static_cast<std::uint32_t>(registry().size());
        registry().push_back(loc);
    }
    loc->name = "thread " + std::to_string(loc->index);
    definitions().intern(loc->name);  // a job-wide string: profile.h5 names its columns with it
    if (loc->index == 0) definitions().intern(host_name());  // and their hosts
    if (loc->index == 0) runtime::first_location_created();
    // Counters first: the substrates' per-location state may size itself by them.
    metrics::location_created(*loc);
    for (const substrate::Callbacks* s : runtime::substrates()) {
        if (s->location_created) s->location_created(*loc);
    }
    current = loc;
    creating = false;
    runtime::program_region_due();
    return loc;
}
}  // namespace detail

std::vector<Location*> all() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return registry();
}

void reset_all() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (Location* loc : registry()) delete loc;
    registry().clear();
    detail::current = nullptr;
}

}  // namespace location
}  // namespace strata
