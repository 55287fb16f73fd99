// SPDX-License-Identifier: BSD-3-Clause
// NVTX capture: Strata as an NVTX v3 injection library (nvtx_injection.cpp,
// share/doc/nvtx.md).  The exported entry points InitializeInjectionNvtx2 and
// InitializeInjectionNvtxExtension are C symbols defined there.
#pragma once

#include <cstdint>

namespace strata::cuda::nvtx {

/// Points NVTX_INJECTION64_PATH at this library when the process has not set
/// it (before main; NVTX reads it at a program's first NVTX call).  Does
/// nothing while NVTX capture is disabled.
void announce_injection_library();

/// Switches NVTX capture on (the default) or off.  Takes effect when a copy of
/// NVTX initialises (each library's first NVTX call): a disabled Strata
/// declines the injection, so that copy's NVTX calls stay no-ops.
void set_enabled(bool enabled);

/// What NVTX capture ignored so far (also reported at the end of the measurement).
struct Statistics {
    std::uint64_t unmatched_pops = 0;   ///< nvtx[Domain]RangePop with no open range of its domain
    std::uint64_t unknown_ends = 0;     ///< nvtx[Domain]RangeEnd of an id that is not open
    std::uint64_t ignored_calls = 0;    ///< no usable message, attributes or domain handle
    std::uint64_t crossed_pops = 0;     ///< pops of a range that ranges of other domains were nested in
    std::uint64_t initialisations = 0;  ///< copies of NVTX that took the injection
};
Statistics statistics();

}  // namespace strata::cuda::nvtx
