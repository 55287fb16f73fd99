// SPDX-License-Identifier: BSD-3-Clause
// The runtime's lifecycle: initialise, run, finalise (also on exit and fatal signals).
//
//   load (autostart.cpp) -> initialize_from_environment()
//      config, timer, page pool, experiment directory, substrates, handlers
//   events ...           -> events*.cpp, through the EventTable built here
//   exit / signal        -> finalize(): stop events, close open regions,
//                           every substrate writes its results
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/substrate.hpp"

namespace strata {
struct Location;
}

namespace strata::runtime {

struct Options {
    config::Settings settings;
    /// Substrates in dispatch order; at most substrate::kMaxSubstrates.
    std::vector<const substrate::Callbacks*> substrates;
    /// Where results go; "" = nowhere (tests).
    std::string experiment_directory;
    /// Install exit and signal handlers (off in unit tests).
    bool install_handlers = false;
};

/// Starts measurement with explicit options (tests, and the environment path below).
/// The error says what is wrong.
Error initialize(const Options& options);

/// Reads STRATA_* variables, prepares the experiment directory and starts
/// measurement.  A bad configuration prints one message and ends the process
/// with status 1 (it runs before main, so nothing of the program is lost).
void initialize_from_environment();

/// Stops events, closes open regions and lets every substrate write.
/// Runs at most once; later calls do nothing.  Returns false if a substrate
/// reported an error (already printed).
bool finalize();

/// events::report_loss: kept until finalize() writes them into the experiment.
void report_loss(const std::string& what, std::uint64_t count, const std::string& remedy);

/// Forgets everything so that a test can initialise again.
void reset_for_tests();

/// The substrates in use and their slot index in Location::substrate_data.
const std::vector<const substrate::Callbacks*>& substrates();

/// The experiment directory of this run ("" when none).
const std::string& experiment_directory();

/// A location was created (location.cpp): every registered subsystem's
/// init_location (subsystem.hpp), in the order they registered; the caller
/// then runs the substrates' location_created.
void init_location_in_subsystems(Location& location);

/// Called once, when the first location is created: reports STRATA_* names
/// in the environment that no module declared (typos).
void first_location_created();

/// Called when a thread's location has been made: on the thread that started
/// the measurement, enters the program region (see runtime.cpp) at the time
/// the measurement started.
void program_region_due();

/// Prints a warning once per key (thread-safe).
void warn_once(const std::string& key, const std::string& message);

/// Verbose messages (STRATA_VERBOSE).
void verbose(const std::string& message);

namespace detail {
/// A termination signal (SIGTERM, SIGINT, SIGQUIT) that arrived while its
/// thread was busy inside Strata (Location::busy: a trace flush, an
/// allocation); 0: none.  Handled when that work ends (busy_ended()).
extern std::atomic<int> deferred_signal;
void handle_deferred_signal();
/// The table the hot path walks: nullptr when inactive.
extern std::atomic<const substrate::EventTable*> active_table;
/// The table of recording on; the exits of the recording-off table are the same.
extern substrate::EventTable on_table;
extern substrate::EventTable off_table;
/// Regions the core itself records.
extern RegionHandle flush_region;
extern RegionHandle recording_off_region;
}  // namespace detail

/// Call right after clearing Location::busy: writing the experiment from a
/// signal handler that interrupted a flush would corrupt the trace, so the
/// handler leaves such a signal for this moment.
inline void busy_ended() {
    if (__builtin_expect(detail::deferred_signal.load(std::memory_order_relaxed) != 0, 0)) {
        detail::handle_deferred_signal();
    }
}

}  // namespace strata::runtime
