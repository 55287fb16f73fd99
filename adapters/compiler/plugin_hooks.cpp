// SPDX-License-Identifier: BSD-3-Clause
// The entry points of code instrumented by Strata's GCC plugin (instrumenter/gcc_plugin/).
//
//   instrumented f():  if (d.handle != FILTERED) strata_plugin_enter(&d)      (inline in f)
//   strata_plugin_enter(&d)
//      handle 0       -> register_plugin_function: name, file, line from d; policy and filter
//                        (once per function, under the resolver's lock) -> region or FILTERED
//      region         -> strata::events::enter(region)   (a tail call)
//
// A filtered function never gets here after its first call: its own code tests the handle.
#include <cstdint>

#include "plugin_function.h"
#include "plugin_registration.hpp"
#include "strata/measurement/events.hpp"

#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)

using strata::compiler::kSkip;

extern "C" {

/// Called at the entry of an instrumented function that is not known to be filtered.
__attribute__((visibility("default"), noinline, no_instrument_function)) void strata_plugin_enter(
    strata_plugin_function* function) {
    // Acquire pairs with the release in register_plugin_function(): the region is defined.
    strata::RegionHandle region = __atomic_load_n(&function->handle, __ATOMIC_ACQUIRE);
    if (STRATA_UNLIKELY(region == STRATA_PLUGIN_UNREGISTERED)) {
        // The caller is the instrumented function: its code tells which object it belongs to.
        region = strata::compiler::register_plugin_function(
            function, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
    }
    if (region == kSkip) return;
    return strata::events::enter(region);
}

/// Called at every exit, returns and exceptions unwinding alike.  Never registers: a function
/// whose entry was not seen (it came from inside the resolver) is not open.
__attribute__((visibility("default"), no_instrument_function)) void strata_plugin_exit(
    strata_plugin_function* function) {
    const strata::RegionHandle region = __atomic_load_n(&function->handle, __ATOMIC_ACQUIRE);
    if (region == STRATA_PLUGIN_UNREGISTERED || region == kSkip) return;
    return strata::events::exit(region);
}

}  // extern "C"
