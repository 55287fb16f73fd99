// SPDX-License-Identifier: BSD-3-Clause
// Counter configuration, per-thread start and stop.
#include "metrics/metrics.hpp"

#include <algorithm>

#include "core/definitions.hpp"
#include "core/runtime.hpp"
#include "metrics/kernel_software_events.hpp"
#include "metrics/papi_counters.hpp"
#include "metrics/rusage_counters.hpp"

namespace strata::metrics {

namespace {

// Written at start-up (configure) before any location exists, read afterwards.
std::vector<MetricSpec>& specs() {
    static auto* list = new std::vector<MetricSpec>();  // used until the last thread exits
    return *list;
}
int g_papi_count = 0;
/// True when Strata counts the STRATA_METRIC_PAPI events itself (kernel_software_events.hpp).
bool g_kernel_events = false;
std::vector<int>& rusage_selected() {
    static auto* list = new std::vector<int>();
    return *list;
}

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> items;
    std::size_t begin = 0;
    while (!list.empty()) {
        const std::size_t comma = list.find(',', begin);
        items.push_back(list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    return items;
}

std::string without_prefix(const std::string& message) {
    const std::string prefix = "STRATA_METRIC_PAPI: ";
    return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

}  // namespace

Error configure(const config::Settings& settings) {
    reset();
    const std::vector<std::string> papi_names = split(settings.metric_papi);
    const std::vector<int> members = rusage::select(settings.metric_rusage);
    const std::size_t total = papi_names.size() + members.size();
    if (total > static_cast<std::size_t>(substrate::kMaxMetrics)) {
        return "strata: STRATA_METRIC_PAPI and STRATA_METRIC_RUSAGE name " + std::to_string(total) +
               " counters together; at most " + std::to_string(substrate::kMaxMetrics) + " can be recorded";
    }
    std::vector<MetricSpec> found;
    if (!papi_names.empty()) {
        Error problem = papi::check_events(papi_names, &found);
        const bool software = std::any_of(papi_names.begin(), papi_names.end(), [](const std::string& name) {
            return kernel_events::software_event(name) >= 0;
        });
        if (problem && software) {
            // The kernel counts its software events without PAPI's help.  When
            // PAPI cannot reach them at all, the kernel's answer is the one to give.
            const Error papi_cannot = papi::kernel_events_problem();
            const std::string why = papi_cannot ? *papi_cannot : "PAPI did not: " + without_prefix(*problem);
            const Error kernel_problem = kernel_events::check_events(papi_names, why, &found);
            g_kernel_events = !kernel_problem;
            if (g_kernel_events) {
                problem = {};
            } else if (papi_cannot) {
                return "strata: " + *kernel_problem;
            }
        }
        if (problem) {
            if (!papi::available_in_build()) {
                return "strata: STRATA_METRIC_PAPI='" + settings.metric_papi + "' cannot be used: " + *problem;
            }
            return "strata: " + *problem;
        }
    }
    g_papi_count = static_cast<int>(found.size());
    for (int m : members) found.push_back(rusage::members()[m]);
    rusage_selected() = members;
    for (const MetricSpec& spec : found) {
        definitions().define_metric(spec.name, spec.unit, spec.description, static_cast<std::uint8_t>(spec.source),
                                    static_cast<std::uint8_t>(spec.mode));
    }
    specs() = found;
    if (!members.empty() && !rusage::per_thread()) {
        runtime::warn_once("rusage-per-process",
                           "strata: warning: this system has no per-thread getrusage(); the STRATA_METRIC_RUSAGE "
                           "values are those of the whole process");
    }
    return {};
}

const std::vector<MetricSpec>& configured() { return specs(); }

bool active() { return !specs().empty(); }

namespace {
void start_thread_counters(Location& loc) {
    if (!active() || loc.type != LocationType::cpu_thread) return;
    Error problem;
    loc.counters = new ThreadCounters(g_papi_count, g_kernel_events, rusage_selected().data(),
                                      static_cast<int>(rusage_selected().size()), &problem);
    loc.metric_values = loc.counters->values();
    if (problem) {
        runtime::warn_once("papi-thread-start", "strata: warning: the STRATA_METRIC_PAPI counters of " +
                                                    loc.name + " could not be started (" + *problem +
                                                    "); their values stay 0 (reported once)");
    }
}
}  // namespace

const events::Subsystem& subsystem() {
    static constexpr events::Subsystem counters{"metrics", false, nullptr, nullptr, start_thread_counters};
    return counters;
}

void reset() {
    specs().clear();
    rusage_selected().clear();
    g_papi_count = 0;
    g_kernel_events = false;
}

}  // namespace strata::metrics
