// SPDX-License-Identifier: BSD-3-Clause
// A part of the measurement with a life of its own, as Score-P's
// SCOREP_Subsystem: each adapter, and the core's counters (src/metrics).  An
// adapter registers its own from its library's constructor, which runs after
// the core has started (the adapter libraries depend on it) and before main
// (NVTX's capture: when NVTX first calls it); the core initialises it then,
// knows which adapters the program has, and ends them in the reverse order at
// the measurement's end, before the definitions are unified and the
// substrates write:
//
//     start (core, before main; the counters register here when configured)
//         -> register_subsystem (each adapter, before main) -> its init
//         -> MPI_Init: begin_multi_process (process_group.hpp), if one measures together
//         -> each new location: every subsystem's init_location, then the
//            substrates' location_created (substrate.hpp)
//         -> ... events ...
//         -> end: each subsystem's finalize, newest first (Score-P's pre-unify)
//         -> unification -> substrates write
#pragma once

#include "strata/measurement/error.hpp"
#include "strata/measurement/types.hpp"

namespace strata {
/// A location (a thread of the program, a GPU stream, ...): opaque outside
/// the core, which owns it (src/core/location.hpp).
struct Location;
}  // namespace strata

namespace strata::events {

struct Subsystem {
    const char* name = "";  ///< "mpi", "openmp", "cuda", ... (STRATA_VERBOSE lists them)
    /// Its processes measure together: they agree on one experiment when the
    /// job starts (MPI_Init, process_group.hpp) and write it together.  A
    /// process that a launcher started among several defers its directory
    /// until then; with no such subsystem, it writes an experiment of its own.
    bool processes_measure_together = false;
    /// Right after registration: read the adapter's settings (its STRATA_<NS>_*
    /// variables, the filter file) and prepare it.  An error stops the program
    /// before main with its message, no experiment left behind, as a bad core
    /// variable does (events::stop_before_main).  nullptr: nothing to do (a
    /// subsystem registered after main, as NVTX's capture may be, has none).
    Error (*init)() = nullptr;
    /// At the measurement's end, while events are still recorded: hand over
    /// what the adapter holds (GPU activity buffers), stop its threads.  Not
    /// from a signal handler.  nullptr: nothing to do.
    void (*finalize)() = nullptr;
    /// A location was created: on its own thread for a thread of the program,
    /// on the thread that defines it for a location of its own (a GPU stream,
    /// GPU metrics), before any event is recorded on it and before the
    /// substrates' location_created (their per-location state may size itself
    /// by what a subsystem set up here: the counters).  A subsystem registered
    /// later sees only the locations created after it.  Adapters keep their
    /// per-thread state in thread-local storage, which their hot paths read
    /// with one load; the Location is the core's, used here by its counters
    /// (src/metrics), which start the thread's counters.  nullptr: nothing to do.
    void (*init_location)(Location& location) = nullptr;
};

/// Registers `subsystem`, which must outlive the measurement (a static).
/// Registering the same one again does nothing.
STRATA_API void register_subsystem(const Subsystem* subsystem);

}  // namespace strata::events
