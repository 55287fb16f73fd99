// SPDX-License-Identifier: BSD-3-Clause
// The STRATA_METRIC_* rows of the configuration registry.
#include "config/config.hpp"
#include "metrics/rusage_counters.hpp"

namespace strata::config {

void register_metric_variables(Registry& registry) {
    registry.add({"METRIC", "PAPI", Type::list, "", {},
        "PAPI events read at every region enter and exit",
        "A comma-separated list of PAPI events, presets such as PAPI_TOT_INS or native "
        "events such as perf::TASK-CLOCK, perf::PAGE-FAULTS or perf::CONTEXT-SWITCHES.  "
        "Every thread counts them in its own event set, read with one call at every "
        "region enter and exit.  The trace gets their values as OTF2 Metric events at the "
        "timestamps of the region events; the profile gets, per call path, the inclusive "
        "and exclusive sum of their increments (papi:<event>_inclusive and "
        "papi:<event>_exclusive in profile.h5).\n\n"
        "`strata-info metrics` lists the events this machine can count.  Virtual machines "
        "often offer only the kernel's software events (perf::TASK-CLOCK, ...).  Where PAPI "
        "cannot count those (libpfm4 switches PAPI's perf_event component off on a processor "
        "it does not know, or Strata was built without PAPI), Strata counts them itself "
        "through perf_event_open, under the same names and with the same values.  An unknown "
        "event, events that do not fit the counters together, or events the kernel refuses "
        "stop the run at start-up with a message naming the event.  Each read costs time "
        "(see the benchmark in bench/README.md): keep the list short, and filter out short "
        "functions (STRATA_FILTERING_FILE); filtered functions never read counters.",
        [](const std::string& v) { settings().metric_papi = v; }});

    registry.add({"METRIC", "RUSAGE", Type::list, "", metrics::rusage::accepted_names(),
        "getrusage() members read at every region enter and exit",
        "A comma-separated list of members of struct rusage, or all: ru_utime and ru_stime "
        "(CPU time in user and system mode, microseconds), ru_maxrss (peak resident set "
        "size, KiB), ru_minflt and ru_majflt (page faults), ru_inblock and ru_oublock "
        "(block I/O operations), ru_nvcsw and ru_nivcsw (voluntary and involuntary context "
        "switches).  They are read per thread (getrusage with RUSAGE_THREAD) with one call "
        "at every region enter and exit, and recorded like the PAPI events "
        "(rusage:<member>_inclusive and rusage:<member>_exclusive in profile.h5).  "
        "ru_maxrss is a level, not a count: per call path it gives the growth of the "
        "peak.  The other members of struct rusage are always 0 on Linux and are not "
        "offered.",
        [](const std::string& v) { settings().metric_rusage = v; }});
}

}  // namespace strata::config
