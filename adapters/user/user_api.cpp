// SPDX-License-Identifier: BSD-3-Clause
// The C user API (strata/strata.h) on top of the event API.
#include <strata/strata.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "strata/measurement/events.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace {

using strata::Paradigm;
using strata::RegionHandle;
namespace events = strata::events;

// Handles are cached with relaxed atomics: two threads resolving the same
// call site at once get the same handle, so the race is harmless.
inline strata_handle_t load(const strata_handle_t* h) { return __atomic_load_n(h, __ATOMIC_RELAXED); }
inline void store(strata_handle_t* h, strata_handle_t v) { __atomic_store_n(h, v, __ATOMIC_RELAXED); }

__attribute__((noinline)) RegionHandle resolve_begin(strata_handle_t* handle, const char* name, const char* file,
                                                     int line, std::uint32_t flags) {
    events::RegionSpec spec;
    spec.name = name != nullptr ? name : "(null)";
    spec.file = file != nullptr ? file : "";
    spec.line = line > 0 ? static_cast<std::uint32_t>(line) : 0;
    spec.paradigm = Paradigm::user;
    spec.role = strata::RegionRole::code;
    spec.flags = flags;
    // One region per name: a BEGIN at another call site with the same name is the same region.
    RegionHandle r = events::find_region(Paradigm::user, spec.name, flags);
    if (r == 0) r = events::define_region(spec);
    store(handle, r);
    return r;
}

__attribute__((noinline)) RegionHandle resolve_end(strata_handle_t* handle, const char* name, std::uint32_t flags) {
    const char* text = name != nullptr ? name : "(null)";
    const RegionHandle r = events::find_region(Paradigm::user, text, flags);
    if (r == 0) {
        // Unknown names stay unresolved (a BEGIN may define them later); reported once per name.
        static std::mutex mutex;
        static auto* reported = new std::set<std::string>();
        std::lock_guard<std::mutex> lock(mutex);
        if (reported->insert(text).second) {
            std::fprintf(stderr, "strata: warning: %s(\"%s\") has no matching %s; it is ignored\n",
                         flags ? "STRATA_PHASE_END" : "STRATA_REGION_END", text,
                         flags ? "STRATA_PHASE_BEGIN" : "STRATA_REGION_BEGIN");
        }
        return 0;
    }
    store(handle, r);
    return r;
}

}  // namespace

extern "C" {

void strata_user_region_begin(strata_handle_t* handle, const char* name, const char* file, int line) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0)) r = resolve_begin(handle, name, file, line, strata::region_flag_none);
    events::enter(r);
}

void strata_user_region_end(strata_handle_t* handle, const char* name) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0) && (r = resolve_end(handle, name, strata::region_flag_none)) == 0) return;
    events::exit(r);
}

void strata_user_region_end_handle(const strata_handle_t* begin_handle) { events::exit(load(begin_handle)); }

void strata_user_phase_begin(strata_handle_t* handle, const char* name, const char* file, int line) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0)) r = resolve_begin(handle, name, file, line, strata::region_flag_phase);
    events::enter(r);
}

void strata_user_phase_end(strata_handle_t* handle, const char* name) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0) && (r = resolve_end(handle, name, strata::region_flag_phase)) == 0) return;
    events::exit(r);
}

void strata_user_parameter_int(strata_handle_t* handle, const char* name, int64_t value) {
    strata_handle_t p = load(handle);
    if (STRATA_UNLIKELY(p == 0)) {
        p = events::define_parameter(name != nullptr ? name : "(null)", events::ParameterType::integer);
        store(handle, p);
    }
    events::parameter_int(p, value);
}

void strata_user_parameter_string(strata_handle_t* handle, const char* name, const char* value) {
    strata_handle_t p = load(handle);
    if (STRATA_UNLIKELY(p == 0)) {
        p = events::define_parameter(name != nullptr ? name : "(null)", events::ParameterType::string);
        store(handle, p);
    }
    events::parameter_string(p, value != nullptr ? value : "(null)");
}

void strata_user_recording_off(void) { events::set_recording(false); }
void strata_user_recording_on(void) { events::set_recording(true); }
int strata_user_is_recording(void) { return events::is_recording() ? 1 : 0; }

}  // extern "C"
