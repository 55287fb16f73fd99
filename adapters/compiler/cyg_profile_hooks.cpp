// SPDX-License-Identifier: BSD-3-Clause
// The -finstrument-functions hooks (GCC, Clang): function enter/exit -> the event API.
//
//   __cyg_profile_func_enter(fn)
//      -> AddressMap::find(fn)          lock-free, one probe after the first call of fn
//         0        -> the overflow table, else resolve (once per fn, under a mutex):
//                     symbol, DWARF, policy, filter
//         kSkip    -> return            (filtered, Strata's own, system library or header)
//         handle   -> strata::events::enter(handle)   (a tail call)
//
// Nothing here allocates after the first call of a function, and nothing is instrumented
// itself.  Before the runtime starts and after it finishes, the event API ignores events;
// the cache stays valid, so late calls cost the same.
//
// The registration of GCC plugin descriptors (register_plugin_function, called from
// plugin_hooks.cpp) lives here too: it shares the resolver, its mutex and the re-entry guard.
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

#include "address_map.hpp"
#include "function_resolver.hpp"
#include "plugin_registration.hpp"
#include "strata/measurement/events.hpp"
#include "strata/measurement/subsystem.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define STRATA_NO_INSTRUMENT __attribute__((no_instrument_function))

namespace strata::compiler {
namespace {

// Constant-initialised, never destroyed: hooks run before our constructors (in other
// libraries' initialisers) and after our destructors (in atexit handlers).
AddressMap g_map;
std::mutex g_mutex;
FunctionResolver* g_resolver = nullptr;  // leaked on purpose, for the same reason

/// Set while this thread resolves: a hook reached from inside the resolver (an instrumented
/// operator new of the program, say) returns at once instead of taking g_mutex again.
__thread bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

STRATA_NO_INSTRUMENT std::uintptr_t own_code() {
    return reinterpret_cast<std::uintptr_t>(&own_code);
}

/// Reads STRATA_FILTERING_FILE; a file that cannot be read or parsed stops the program with
/// one message, as a bad configuration variable does.  Call with g_mutex held.
STRATA_NO_INSTRUMENT FunctionResolver& resolver() {
    if (g_resolver != nullptr) return *g_resolver;
    std::optional<filter::FilterFile> rules;
    if (const Error error = filter::read_configured_filter(&rules)) events::stop_before_main(error.message());
    g_resolver = new FunctionResolver(std::move(rules), own_code());
    return *g_resolver;
}

/// The region of a function Strata records, kSkip for the others.  Call with g_mutex held.
STRATA_NO_INSTRUMENT RegionHandle region_for(const FunctionInfo& info) {
    if (info.verdict != Verdict::record) return kSkip;
    events::RegionSpec spec;
    spec.name = info.name;
    spec.file = info.file;
    spec.line = info.line;
    spec.paradigm = Paradigm::compiler;
    spec.role = RegionRole::function;
    return events::define_region(spec);
}

/// The region of `fn`, or kSkip; cached in g_map.  Returns kSkip without caching when it
/// cannot decide now (re-entered, or out of memory).
STRATA_NO_INSTRUMENT __attribute__((noinline)) RegionHandle resolve(std::uintptr_t fn) {
    if (t_resolving) return kSkip;
    t_resolving = true;
    RegionHandle region = kSkip;
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        region = g_map.find(fn);  // another thread may have been first
        if (region == AddressMap::kUnknown) region = g_map.find_overflow(fn);
        if (region == AddressMap::kUnknown) {
            region = region_for(resolver().resolve(fn));
            g_map.insert(fn, region);
        }
    } catch (...) {
        region = kSkip;  // never let an exception cross the program's frames
    }
    t_resolving = false;
    return region;
}

}  // namespace

RegionHandle register_plugin_function(strata_plugin_function* function, std::uintptr_t code) {
    if (t_resolving) return kSkip;  // not stored: decided when called from the program again
    t_resolving = true;
    RegionHandle region = kSkip;
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        region = __atomic_load_n(&function->handle, __ATOMIC_RELAXED);  // another thread may have been first
        if (region == STRATA_PLUGIN_UNREGISTERED) {
            region = region_for(
                resolver().describe(code, function->mangled, function->name, function->file, function->line));
            // Release pairs with the acquire in strata_plugin_enter/exit: a thread that sees the
            // handle sees the region defined.  0 (the definition failed) leaves it unregistered.
            if (region != STRATA_PLUGIN_UNREGISTERED)
                __atomic_store_n(&function->handle, region, __ATOMIC_RELEASE);
        }
    } catch (...) {
        region = kSkip;  // never let an exception cross the program's frames
    }
    t_resolving = false;
    return region;
}

namespace {

/// enter() of a function not in the primary table: in the overflow table, or not seen yet.
STRATA_NO_INSTRUMENT __attribute__((noinline)) void enter_slow(std::uintptr_t fn) {
    RegionHandle region = g_map.find_overflow(fn);
    if (region == AddressMap::kUnknown) region = resolve(fn);
    if (region != kSkip) events::enter(region);
}

/// exit() of a function not in the primary table.  Never resolves: a function whose enter
/// was not seen (it came from inside the resolver) is not open.
STRATA_NO_INSTRUMENT __attribute__((noinline)) void exit_slow(std::uintptr_t fn) {
    const RegionHandle region = g_map.find_overflow(fn);
    if (region != AddressMap::kUnknown && region != kSkip) events::exit(region);
}

// fork() while another thread resolves would leave g_mutex locked forever in the child:
// hold it across fork (no resolution is then half done) and release it on both sides.
STRATA_NO_INSTRUMENT void before_fork() {
    g_mutex.lock();
}
STRATA_NO_INSTRUMENT void after_fork() {
    g_mutex.unlock();
}

/// Reads the filter file now, so that a bad one stops the program before main()
/// (resolver() says why).
STRATA_NO_INSTRUMENT Error init_compiler_adapter() {
    pthread_atfork(before_fork, after_fork, after_fork);
    std::lock_guard<std::mutex> lock(g_mutex);
    try {
        resolver();
    } catch (const std::bad_alloc&) {
        // Out of memory this early: the first resolution tries again.
    }
    return {};
}

/// Runs after libstrata-measurement's constructor (which starts the runtime),
/// since this library depends on it.
STRATA_NO_INSTRUMENT __attribute__((constructor)) void start_compiler_adapter() {
    static constexpr events::Subsystem subsystem{"compiler", false, init_compiler_adapter, nullptr};
    events::register_subsystem(&subsystem);
}

}  // namespace
}  // namespace strata::compiler

using strata::compiler::g_map;
using strata::compiler::kSkip;

// The names GCC and Clang call: reserved identifiers by design.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {

/// Called by -finstrument-functions code at the entry of `fn` (`call_site`: its caller, unused).
__attribute__((visibility("default"))) STRATA_NO_INSTRUMENT void __cyg_profile_func_enter(void* fn, void*) {
    const auto key = reinterpret_cast<std::uintptr_t>(fn);
    const strata::RegionHandle region = g_map.find(key);
    if (STRATA_UNLIKELY(region == strata::compiler::AddressMap::kUnknown))
        return strata::compiler::enter_slow(key);
    if (region == kSkip) return;
    return strata::events::enter(region);
}

/// Called at every exit of `fn`, returns and exceptions unwinding through it alike.
__attribute__((visibility("default"))) STRATA_NO_INSTRUMENT void __cyg_profile_func_exit(void* fn, void*) {
    const auto key = reinterpret_cast<std::uintptr_t>(fn);
    const strata::RegionHandle region = g_map.find(key);
    if (STRATA_UNLIKELY(region == strata::compiler::AddressMap::kUnknown))
        return strata::compiler::exit_slow(key);
    if (region == kSkip) return;
    return strata::events::exit(region);
}

}  // extern "C"
// NOLINTEND(bugprone-reserved-identifier)
