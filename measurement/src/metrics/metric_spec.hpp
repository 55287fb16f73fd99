// SPDX-License-Identifier: BSD-3-Clause
// What one configured counter is: its source, name, unit and how its values behave.
#pragma once

#include <cstdint>
#include <string>

namespace strata::metrics {

enum class MetricSource : std::uint8_t { papi = 0, rusage = 1 };

/// How the values of a counter read at every event behave (as OTF2 names it).
enum class MetricMode : std::uint8_t {
    accumulated_start = 0,  ///< a count since the thread's counters started; differences are what happened
    absolute_point = 1,     ///< a level at that moment (ru_maxrss: the peak so far)
};

struct MetricSpec {
    MetricSource source = MetricSource::papi;
    std::string name;         ///< "perf::TASK-CLOCK", "PAPI_TOT_INS", "ru_utime"
    std::string unit;         ///< "ns", "us", "KiB", "count", ...
    std::string description;
    MetricMode mode = MetricMode::accumulated_start;

    /// "papi:perf::TASK-CLOCK" or "rusage:ru_utime": the name in the profile.
    std::string qualified_name() const {
        return (source == MetricSource::papi ? "papi:" : "rusage:") + name;
    }
};

}  // namespace strata::metrics
