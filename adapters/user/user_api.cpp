// SPDX-License-Identifier: BSD-3-Clause
// The C user API (strata/strata.h) on top of the event API.
//
// STRATA_FILTERING_FILE applies to user regions as it does in Score-P: a
// region the filter excludes (by its name, or by its source file) is not
// recorded, its call site remembers so (kFiltered) and costs one test.
#include <strata/strata.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "filter/filter_rules.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace {

using strata::Paradigm;
using strata::RegionHandle;
namespace events = strata::events;

/// A call site whose region the filter excludes: never a handle events:: hands out.
constexpr strata_handle_t kFiltered = UINT32_MAX;

/// STRATA_FILTERING_FILE, read when the library starts (before main, so that a
/// bad file stops the program there, as the other adapters do); none when unset.
std::optional<strata::filter::FilterFile>& user_filter() {
    static auto* const rules = new std::optional<strata::filter::FilterFile>();
    return *rules;
}
strata::Error init_user_adapter() { return strata::filter::read_configured_filter(&user_filter()); }
__attribute__((constructor)) void start_user_adapter() {
    static constexpr events::Subsystem subsystem{"user", false, init_user_adapter, nullptr};
    events::register_subsystem(&subsystem);
}

/// The names of the regions the filter took out (by name or by file), for
/// their END, which has no file: it is then no "END without BEGIN".
std::mutex g_filtered_mutex;
std::set<std::string>& filtered_names() {
    static auto* names = new std::set<std::string>();
    return *names;
}

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
    const auto& rules = user_filter();
    if (rules && rules->excluded(std::string(spec.name), "", std::string(spec.file))) {
        std::lock_guard<std::mutex> lock(g_filtered_mutex);
        filtered_names().insert(std::string(spec.name));
        store(handle, kFiltered);
        return kFiltered;
    }
    // One region per name: a BEGIN at another call site with the same name is the same region.
    RegionHandle r = events::find_region(Paradigm::user, spec.name, flags);
    if (r == 0) r = events::define_region(spec);
    store(handle, r);
    return r;
}

__attribute__((noinline)) RegionHandle resolve_end(strata_handle_t* handle, const char* name, std::uint32_t flags) {
    const char* text = name != nullptr ? name : "(null)";
    const RegionHandle r = events::find_region(Paradigm::user, text, flags);
    if (r == 0 && user_filter()) {
        std::lock_guard<std::mutex> lock(g_filtered_mutex);
        if (filtered_names().count(text) != 0) {
            store(handle, kFiltered);
            return kFiltered;
        }
    }
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
    if (STRATA_UNLIKELY(r == kFiltered)) return;
    events::enter(r);
}

void strata_user_region_end(strata_handle_t* handle, const char* name) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0) && (r = resolve_end(handle, name, strata::region_flag_none)) == 0) return;
    if (STRATA_UNLIKELY(r == kFiltered)) return;
    events::exit(r);
}

void strata_user_region_end_handle(const strata_handle_t* begin_handle) {
    const RegionHandle r = load(begin_handle);
    if (STRATA_UNLIKELY(r == kFiltered)) return;
    events::exit(r);
}

void strata_user_phase_begin(strata_handle_t* handle, const char* name, const char* file, int line) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0)) r = resolve_begin(handle, name, file, line, strata::region_flag_phase);
    if (STRATA_UNLIKELY(r == kFiltered)) return;
    events::enter(r);
}

void strata_user_phase_end(strata_handle_t* handle, const char* name) {
    RegionHandle r = load(handle);
    if (STRATA_UNLIKELY(r == 0) && (r = resolve_end(handle, name, strata::region_flag_phase)) == 0) return;
    if (STRATA_UNLIKELY(r == kFiltered)) return;
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
