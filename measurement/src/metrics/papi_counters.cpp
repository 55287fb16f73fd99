// SPDX-License-Identifier: BSD-3-Clause
// PAPI event sets: the check at start-up, one started event set per thread.
#include "metrics/papi_counters.hpp"

#include <papi.h>
#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "metrics/kernel_software_events.hpp"

namespace strata::metrics::papi {

namespace {

std::mutex g_mutex;
/// The events every thread counts, in the configured order.  A function-local
/// static: the runtime starts (and fills it) before this file's initialisers run.
std::vector<int>& event_codes() {
    static auto* codes = new std::vector<int>();
    return *codes;
}

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

std::string describe(int rc) { return std::string(PAPI_strerror(rc)) + " (PAPI error " + std::to_string(rc) + ")"; }

/// Initialises PAPI for threads, once per process.
Error initialise_library() {
    static const Error problem = [] {
        const int rc = PAPI_library_init(PAPI_VER_CURRENT);
        if (rc != PAPI_VER_CURRENT) {
            return rc > 0 ? Error("the PAPI library found at run time has another version than the one "
                                  "Strata was built with")
                          : Error("PAPI could not be initialised: " + describe(rc));
        }
        const int trc = PAPI_thread_init(thread_id);
        return trc == PAPI_OK ? Error() : Error("PAPI could not be set up for threads: " + describe(trc));
    }();
    return problem;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

/// PAPI gives units for few events; the perf clocks count nanoseconds.
std::string unit_of(const std::string& name, const PAPI_event_info_t& info) {
    if (info.units[0] != '\0') return info.units;
    const std::string n = upper(name);
    if (n.find("TASK-CLOCK") != std::string::npos || n.find("CPU-CLOCK") != std::string::npos) return "ns";
    return "count";
}

const char* kHowToList = "; `strata-info metrics` lists the events that can be counted on this machine";

}  // namespace

bool available_in_build() { return true; }

Error check_events(const std::vector<std::string>& names, std::vector<MetricSpec>* specs) {
    std::lock_guard<std::mutex> lock(g_mutex);
    Error problem = initialise_library();
    if (problem) return "STRATA_METRIC_PAPI: " + *problem;
    int event_set = PAPI_NULL;
    int rc = PAPI_create_eventset(&event_set);
    if (rc != PAPI_OK) return "STRATA_METRIC_PAPI: PAPI cannot create an event set: " + describe(rc);
    std::vector<int> codes;
    std::vector<MetricSpec> found;
    for (const std::string& name : names) {
        int code = 0;
        rc = PAPI_event_name_to_code(name.c_str(), &code);
        if (rc != PAPI_OK) {
            problem = "STRATA_METRIC_PAPI: '" + name + "' is not a PAPI event on this machine" + kHowToList;
            break;
        }
        const auto same = std::find(codes.begin(), codes.end(), code);
        if (same != codes.end()) {
            problem = "STRATA_METRIC_PAPI: '" + name + "' is the same event as '" + names[same - codes.begin()] +
                      "'; list each event once";
            break;
        }
        rc = PAPI_add_event(event_set, code);
        if (rc == PAPI_ECNFLCT || rc == PAPI_ECOUNT) {
            problem = "STRATA_METRIC_PAPI: '" + name + "' cannot be counted together with the events before it (" +
                      describe(rc) + "): too many events or events that conflict for the same counters; "
                      "use fewer events" + kHowToList;
            break;
        }
        if (rc == PAPI_ENOEVNT) {
            problem = "STRATA_METRIC_PAPI: PAPI knows '" + name + "' but this machine cannot count it (no such "
                      "counter here; virtual machines often have no hardware counters)" + kHowToList;
            break;
        }
        if (rc != PAPI_OK) {
            problem = "STRATA_METRIC_PAPI: '" + name + "' cannot be counted here (" + describe(rc) + ")" + kHowToList;
            break;
        }
        PAPI_event_info_t info{};
        PAPI_get_event_info(code, &info);
        MetricSpec spec;
        spec.source = MetricSource::papi;
        spec.name = name;
        spec.unit = unit_of(name, info);
        spec.description = info.long_descr[0] != '\0' ? info.long_descr : info.short_descr;
        if (spec.description.empty()) spec.description = "PAPI event " + name;
        codes.push_back(code);
        found.push_back(spec);
    }
    if (!problem && !codes.empty()) {
        // The kernel decides only when counting starts (perf_event_paranoid, limits).
        rc = PAPI_start(event_set);
        if (rc != PAPI_OK) {
            std::string list;
            for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
            problem = "STRATA_METRIC_PAPI: the kernel refused to count " + list + " (" + describe(rc) +
                      "); check /proc/sys/kernel/perf_event_paranoid" + kHowToList;
        } else {
            std::vector<long long> values(codes.size());
            rc = PAPI_stop(event_set, values.data());
            if (rc != PAPI_OK) problem = "STRATA_METRIC_PAPI: PAPI cannot read the events: " + describe(rc);
        }
    }
    PAPI_cleanup_eventset(event_set);
    PAPI_destroy_eventset(&event_set);
    if (problem) return problem;
    event_codes() = codes;
    *specs = found;
    return {};
}

Error kernel_events_problem() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (Error problem = initialise_library()) return problem;
    const int component = PAPI_get_component_index("perf_event");
    const PAPI_component_info_t* info = component >= 0 ? PAPI_get_component_info(component) : nullptr;
    if (info == nullptr) return "this PAPI has no perf_event component";
    if (info->disabled == 0) return {};
    std::string why = std::string("PAPI's perf_event component is off here: ") + info->disabled_reason;
    if (why.find("no default PMU") != std::string::npos)
        why += ", the installed libpfm4 does not know this processor";
    return why;
}

Error start_thread(int* started) {
    *started = -1;
    std::vector<int> codes;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        codes = event_codes();
    }
    int event_set = PAPI_NULL;
    int rc = PAPI_create_eventset(&event_set);
    if (rc == PAPI_OK) rc = PAPI_add_events(event_set, codes.data(), static_cast<int>(codes.size()));
    if (rc == PAPI_OK) rc = PAPI_start(event_set);
    if (rc != PAPI_OK) {
        if (event_set != PAPI_NULL) {
            PAPI_cleanup_eventset(event_set);
            PAPI_destroy_eventset(&event_set);
        }
        return describe(rc);
    }
    *started = event_set;
    return {};
}

void read(int event_set, std::uint64_t* values) {
    static_assert(sizeof(long long) == sizeof(std::uint64_t), "PAPI values are read in place");
    PAPI_read(event_set, reinterpret_cast<long long*>(values));
}

void stop_thread(int event_set) {
    long long ignored[64];
    PAPI_stop(event_set, ignored);
    PAPI_cleanup_eventset(event_set);
    PAPI_destroy_eventset(&event_set);
    PAPI_unregister_thread();
}

std::vector<EventInfo> usable_events(std::string* note) {
    std::vector<EventInfo> events;
    if (const Error problem = initialise_library()) {
        if (note) *note = *problem;
        return events;
    }
    int event_set = PAPI_NULL;
    if (PAPI_create_eventset(&event_set) != PAPI_OK) {
        if (note) *note = "PAPI cannot create an event set";
        return events;
    }
    // Usable = PAPI accepts it into an event set on this machine.
    const auto try_event = [&](int code, const std::string& component) {
        PAPI_event_info_t info{};
        if (PAPI_get_event_info(code, &info) != PAPI_OK) return;
        if (PAPI_add_event(event_set, code) != PAPI_OK) return;
        PAPI_remove_event(event_set, code);
        EventInfo e;
        e.name = info.symbol;
        e.description = info.short_descr[0] != '\0' ? info.short_descr : info.long_descr;
        e.component = component;
        e.hardware = kernel_events::software_event(e.name) < 0;
        events.push_back(e);
    };
    int code = PAPI_PRESET_MASK;
    if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
        do {
            try_event(code, "preset");
        } while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
    }
    std::string disabled;
    for (int c = 0; c < PAPI_num_components(); ++c) {
        const PAPI_component_info_t* component = PAPI_get_component_info(c);
        if (component == nullptr) continue;
        if (component->disabled != 0) {
            disabled += std::string(disabled.empty() ? "" : ", ") + component->name;
            continue;
        }
        code = PAPI_NATIVE_MASK;
        if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, c) != PAPI_OK) continue;
        do {
            try_event(code, component->name);
        } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, c) == PAPI_OK);
    }
    PAPI_cleanup_eventset(event_set);
    PAPI_destroy_eventset(&event_set);
    if (note && !disabled.empty()) *note = "PAPI components not available here: " + disabled;
    return events;
}

}  // namespace strata::metrics::papi
