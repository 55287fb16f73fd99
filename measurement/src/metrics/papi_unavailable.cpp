// SPDX-License-Identifier: BSD-3-Clause
// PAPI for a build without it: every request says so, nothing is counted.
#include "metrics/papi_counters.hpp"

namespace strata::metrics::papi {

namespace {
constexpr const char* kNoPapi =
    "this build of Strata has no PAPI support (it was built without libpapi-dev, see "
    "`strata-info build-config`); unset STRATA_METRIC_PAPI, or use a build with PAPI";
}

bool available_in_build() { return false; }

Error check_events(const std::vector<std::string>&, std::vector<MetricSpec>*) {
    return kNoPapi;
}

Error kernel_events_problem() {
    return "this build of Strata has no PAPI support";
}

Error start_thread(int* event_set) {
    *event_set = -1;
    return kNoPapi;
}

void read(int, std::uint64_t*) {}

void stop_thread(int) {}

std::vector<EventInfo> usable_events(std::string* note) {
    if (note) *note = "this build of Strata has no PAPI support";
    return {};
}

}  // namespace strata::metrics::papi
