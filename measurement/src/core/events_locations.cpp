// SPDX-License-Identifier: BSD-3-Clause
// The event API on locations of their own (GPU streams and GPU metrics, whose
// events an adapter records later with their own times), correlated enters,
// thread names, losses and end-of-measurement hooks.
#include "strata/measurement/events.hpp"

#include <string>

#include "core/definitions.hpp"
#include "core/event_path.hpp"
#include "core/launch_paths.hpp"
#include "core/timer.hpp"
#include "filter/filter_rules.hpp"

namespace strata::events {

using namespace event_path;

namespace {
inline Location* own_location(LocationHandle handle) {
    return handle == 0 ? nullptr : location::own(handle - 1);
}

/// The enter with a correlation id: each substrate's own callback, or its enter.
/// A launch keeps its call path for the GPU work it starts (launch_paths.hpp).
void enter_correlated_on(const EventTable* table, Location* loc, Ticks time, RegionHandle region,
                         std::uint64_t correlation) {
    if (table == &runtime::detail::off_table) {
        push(loc, region | kUndelivered);
        return;
    }
    push(loc, region);
    if (table->keep_launch_paths && correlation != 0 && loc->type == LocationType::cpu_thread) {
        launch_paths::remember(correlation, *loc);
    }
    if (STRATA_UNLIKELY(loc->metric_values != nullptr)) metrics::read(*loc);
    if (STRATA_UNLIKELY(time < loc->measured_until)) time = loc->measured_until;
    for (int i = 0; table->enter[i] != nullptr; ++i) {
        if (table->enter_correlated[i] != nullptr) {
            table->enter_correlated[i](*loc, time, region, correlation);
        } else {
            table->enter[i](*loc, time, region);
        }
    }
}
}  // namespace

LocationHandle define_location(const LocationSpec& spec) {
    if (active_table.load(std::memory_order_acquire) == nullptr) return 0;
    return define_or_degrade("location", [&]() -> LocationHandle {
        Location* loc = location::create_own(std::string(spec.name), spec.type, spec.device);
        if (loc == nullptr) {
            runtime::warn_once("own-locations-full",
                               "strata: warning: more than 65535 GPU streams; the events of the others are not "
                               "recorded (reported once)");
            return 0;
        }
        return loc->index - location::kFirstOwnIndex + 1;
    });
}

void location_enter(LocationHandle location, Ticks time, RegionHandle region, std::uint64_t correlation,
                    const GpuAttributeValue* attributes, std::uint32_t count) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || region == 0)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    if (count > 0 && attributes != nullptr && table != &runtime::detail::off_table) {
        for (auto* f = table->gpu_attributes; *f; ++f) (*f)(*loc, time, attributes, count);
    }
    RegionHandle path[launch_paths::kMaxDepth];
    const std::uint32_t depth = table->keep_launch_paths && table != &runtime::detail::off_table
                                    ? launch_paths::find(correlation, path)
                                    : 0;
    if (depth == 0) {
        enter_correlated_on(table, loc, time, region, correlation);
    } else {
        push(loc, region);
        for (int i = 0; table->enter[i] != nullptr; ++i) {
            if (table->enter_under[i] != nullptr) {
                table->enter_under[i](*loc, time, region, path, depth, correlation);
            } else if (table->enter_correlated[i] != nullptr) {
                table->enter_correlated[i](*loc, time, region, correlation);
            } else {
                table->enter[i](*loc, time, region);
            }
        }
    }
    loc->under.push_back(depth);
}

void location_exit(LocationHandle location, Ticks time, RegionHandle region) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || region == 0)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    if (STRATA_UNLIKELY(loc->depth == 0 || loc->stack[loc->depth - 1] != region)) {
        exit_unmatched(table, loc, time, region);
        loc->under.resize(loc->depth);  // what exit_unmatched closed is no longer under a path
        return;
    }
    --loc->depth;
    const std::uint32_t depth = loc->under.empty() ? 0 : loc->under.back();
    if (!loc->under.empty()) loc->under.pop_back();
    if (depth == 0) return deliver_exit(table, loc, time, region);
    for (int i = 0; table->exit[i] != nullptr; ++i) {
        if (table->exit_under[i] != nullptr) {
            table->exit_under[i](*loc, time, region, depth);
        } else {
            table->exit[i](*loc, time, region);
        }
    }
}

void location_metric(LocationHandle location, Ticks time, DeviceMetric metric, std::uint64_t value) {
    Location* loc = own_location(location);
    const EventScope scope(loc);
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || loc == nullptr || metric >= DeviceMetric::count)) return;
    if (time < loc->last_time) time = loc->last_time;
    loc->last_time = time;
    for (auto* f = table->device_metric; *f; ++f) (*f)(*loc, time, metric, value);
}

void name_thread(std::uint32_t os_thread, std::string_view name) {
    if (active_table.load(std::memory_order_acquire) == nullptr || name.empty()) return;
    if (os_thread == 0) {
        Location* loc = location::current();
        if (loc == nullptr) return;
        os_thread = loc->os_thread;
    }
    try {
        location::name_thread(os_thread, filter::valid_utf8(std::string(name)));
    } catch (const std::bad_alloc&) {
        // The thread keeps its number as its name.
    }
}

void enter_correlated(RegionHandle region, std::uint64_t correlation) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (STRATA_UNLIKELY(table == nullptr || region == 0)) return;
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return;
    enter_correlated_on(table, loc, timer::now(), region, correlation);
}

void report_loss(std::string_view what, std::uint64_t count, std::string_view remedy) {
    try {
        runtime::report_loss(std::string(what), count, std::string(remedy));
    } catch (const std::bad_alloc&) {
        // The caller's own message still says it.
    }
}

void verbose(std::string_view message) { runtime::verbose(std::string(message)); }

}  // namespace strata::events
