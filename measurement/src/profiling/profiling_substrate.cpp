// SPDX-License-Identifier: BSD-3-Clause
// Profiling substrate callbacks and the merge of per-location trees.
#include "profiling/profiling_substrate.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "core/definitions.hpp"
#include "core/host_name.hpp"
#include "core/location.hpp"
#include "core/memory_pool.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "profiling/call_tree.hpp"
#include "core/unification.hpp"
#include "metrics/metrics.hpp"
#include "profiling/profile_h5_module.hpp"
#include "profiling/profile_merge.hpp"

namespace strata::profiling {

namespace {

constexpr int g_slot = substrate::slot_profiling;

inline CallTree& tree(Location& loc) __attribute__((always_inline));
inline CallTree& tree(Location& loc) { return *static_cast<CallTree*>(loc.substrate_data[g_slot]); }

void on_location_created(Location& loc) {
    auto* call_tree = new CallTree(page_pool(), &loc.busy);
    loc.substrate_data[g_slot] = call_tree;
    if (loc.metric_values != nullptr &&
        !call_tree->enable_metrics(static_cast<std::uint32_t>(metrics::configured().size()))) {
        runtime::warn_once("profile-metrics-memory",
                           "strata: warning: no memory for the counters of the profile of " + loc.name +
                               "; its counter values are 0 (reported once)");
    }
}

void on_enter(Location& loc, Ticks time, RegionHandle region) { tree(loc).enter(time, region); }
void on_exit(Location& loc, Ticks time, RegionHandle) { tree(loc).exit(time); }
// With counters (the runtime picks these then).  A location without counters
// (a GPU stream) has no metric_values and takes the plain path.
void on_enter_with_metrics(Location& loc, Ticks time, RegionHandle region) {
    if (loc.metric_values == nullptr) return tree(loc).enter(time, region);
    tree(loc).enter_with_metrics(time, region, loc.metric_values);
}
void on_exit_with_metrics(Location& loc, Ticks time, RegionHandle) {
    if (loc.metric_values == nullptr) return tree(loc).exit(time);
    tree(loc).exit_with_metrics(time, loc.metric_values);
}
// GPU work: its time under the call path of the launch (inherited: no visits
// there, the launching thread counts them), the kernel itself below it.
void on_enter_under(Location& loc, Ticks time, RegionHandle region, const RegionHandle* path,
                    std::uint32_t depth, std::uint64_t) {
    tree(loc).inherit(time, path, depth);
    tree(loc).enter(time, region);
}
void on_exit_under(Location& loc, Ticks time, RegionHandle, std::uint32_t depth) {
    tree(loc).exit(time);
    tree(loc).leave_inherited(time, depth);
}
void on_parameter_int(Location& loc, Ticks time, ParameterHandle p, std::int64_t value) {
    tree(loc).parameter(time, p, value, false, loc.metric_values);
}
void on_parameter_string(Location& loc, Ticks time, ParameterHandle p, StringHandle value) {
    tree(loc).parameter(time, p, value, true, loc.metric_values);
}

/// Bytes of point-to-point messages and collectives, on the MPI call's call path.
/// Nonblocking receives count when they complete (the size is known then).
/// It takes only the kinds that move bytes (mpi_event_kinds below).
void on_mpi_event(Location& loc, Ticks, const substrate::MpiEvent& e) {
    const auto bytes = substrate::message_bytes(e);
    tree(loc).add_bytes(bytes.first, bytes.second);
}
// The same with an MPI call's enter or exit, in one call (Callbacks::enter_with_bytes).
void on_enter_with_bytes(Location& loc, Ticks time, RegionHandle region, std::uint64_t sent,
                         std::uint64_t received) {
    CallTree& t = tree(loc);
    t.enter(time, region);
    t.add_bytes(sent, received);
}
void on_bytes_then_exit(Location& loc, Ticks time, RegionHandle, std::uint64_t sent, std::uint64_t received) {
    CallTree& t = tree(loc);
    t.add_bytes(sent, received);
    t.exit(time);
}

void on_thread_event(Location& loc, Ticks time, const substrate::ThreadEvent& e) {
    if (e.kind == substrate::ThreadEvent::team_begin && e.inherited_depth > 0) {
        tree(loc).inherit(time, e.inherited, e.inherited_depth);
    } else if (e.kind == substrate::ThreadEvent::team_end && e.inherited_depth > 0) {
        tree(loc).leave_inherited(time, e.inherited_depth);
    }
}

std::string iso_time_now() {
    const std::time_t t = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

/// Call paths folded for lack of memory, said once for the job (by rank 0).
void report_dropped(const ProfileData& data, int rank) {
    if (data.dropped_callpaths == 0 || rank != 0) return;
    const std::string current = config::format_size(config::settings().total_memory);
    if (data.memory_needed == 0) {
        std::fprintf(stderr,
                     "strata: warning: the profile ran out of memory: %llu call-path visits were folded into "
                     "their parent; a larger STRATA_TOTAL_MEMORY (now %s) keeps them\n",
                     static_cast<unsigned long long>(data.dropped_callpaths), current.c_str());
        return;
    }
    std::fprintf(stderr,
                 "strata: warning: the profile ran out of memory: %llu call-path visits were folded into their "
                 "parent; STRATA_TOTAL_MEMORY=%s%s keeps them (now %s)\n",
                 static_cast<unsigned long long>(data.dropped_callpaths),
                 config::format_size(data.memory_needed).c_str(), data.memory_needed_at_least ? " or more" : "",
                 current.c_str());
}

/// The STRATA_TOTAL_MEMORY that would have held every call path of this
/// process, rounded up to a MiB: the pages its trees need with the call paths
/// they folded, all of the budget when the profile is alone in it, an eighth
/// when tracing (trace buffers may take the rest); 0 when nothing was folded.
std::uint64_t memory_needed(const std::vector<const CallTree*>& trees, bool* at_least) {
    std::uint64_t pages = 0, missing = 0;
    for (const CallTree* t : trees) {
        missing += t->missing_callpaths();
        *at_least = *at_least || t->missing_is_lower_bound();
        const std::uint64_t nodes = t->size() + t->missing_callpaths();
        pages += (nodes + t->nodes_per_page() - 1) / t->nodes_per_page();
    }
    if (missing == 0) return 0;
    const PagePool& pool = page_pool();
    const PagePool::Stats stats = pool.stats();
    std::uint64_t profile_pages = 0;
    for (const CallTree* t : trees) profile_pages += (t->size() + t->nodes_per_page() - 1) / t->nodes_per_page();
    // Pages of other uses (trace buffers aside) stay as they were.
    const std::uint64_t others = config::settings().enable_tracing || stats.high_water < profile_pages
                                     ? 0
                                     : stats.high_water - profile_pages;
    std::uint64_t bytes = (pages + others) * pool.page_size();
    if (config::settings().enable_tracing) bytes *= 8;
    constexpr std::uint64_t mib = 1 << 20;
    return std::max<std::uint64_t>((bytes + mib - 1) / mib * mib, config::settings().total_memory + mib);
}

Error finalize(const substrate::FinalizeContext& ctx) {
    if (ctx.experiment_directory == nullptr) return {};
    const int rank = ctx.rank;
    ProfileData data = collect(*ctx.definitions, rank);
    const std::string path = std::string(ctx.experiment_directory) + "/profile.h5";
    const ProfileH5Functions* writer = nullptr;
    const Error load_error = load_profile_h5(&writer);  // HDF5 is loaded now, not at start-up
    if (ctx.group != nullptr && ctx.group->size() > 1) {
        events::ProcessGroup& group = *ctx.group;
        // One file for the job: each rank writes its own columns with MPI-IO.
        // Every rank must take the same branch: they agree that every one can.
        std::uint8_t can = writer != nullptr && writer->collective_available() &&
                                   group.native_communicator() != nullptr
                               ? 1
                               : 0;
        std::vector<std::uint8_t> all(rank == 0 ? static_cast<std::size_t>(group.size()) : 0);
        group.gather(&can, 1, all.data(), 0);
        for (std::uint8_t c : all) can = can && c;
        group.broadcast(&can, 1, 0);
        if (can) {
            ProfileData aligned = data;
            const bool complete = align_to_job(aligned, job_callpaths(aligned, group), group);
            const Error result = complete ? writer->write_collective(aligned, path, group)
                                          : Error(path + ": the call paths of the ranks disagree");
            std::uint8_t failed = result ? 1 : 0;
            group.broadcast(&failed, 1, 0);  // rank 0's verdict (the write itself agrees already)
            if (!failed) {
                report_dropped(aligned, rank);
                if (rank == 0) {
                    runtime::verbose("profile.h5: " + std::to_string(aligned.total_locations) + " locations of " +
                                     std::to_string(group.size()) + " ranks written collectively (MPI-IO)");
                }
                return {};
            }
            if (rank == 0) {
                std::fprintf(stderr, "strata: warning: the collective profile write failed (%s); rank 0 writes "
                                     "the profile alone instead\n", result->c_str());
            }
        }
        // Every rank's columns to rank 0, which writes alone.
        data = gather_profiles(std::move(data), group);
        if (rank != 0) return {};
    }
    report_dropped(data, 0);
    if (writer == nullptr) return "strata: the profile could not be written: " + path + ": " + *load_error;
    if (const Error result = writer->write(data, path)) return "strata: the profile could not be written: " + *result;
    return {};
}

void reset() {
    for (Location* loc : location::all()) {
        delete static_cast<CallTree*>(loc->substrate_data[g_slot]);
        loc->substrate_data[g_slot] = nullptr;
    }
}

constexpr substrate::Callbacks make_callbacks() {
    substrate::Callbacks c;
    c.management.name = "profiling";
    c.management.location_created = on_location_created;
    c.management.finalize = finalize;
    c.management.reset = reset;
    substrate::EventCallbacks& e = c.events;
    e.enter = on_enter;
    e.exit = on_exit;
    e.enter_with_metrics = on_enter_with_metrics;
    e.exit_with_metrics = on_exit_with_metrics;
    // An enter with a correlation id is a plain enter here; GPU work goes
    // under the call path that launched it.
    e.enter_under = on_enter_under;
    e.exit_under = on_exit_under;
    e.parameter_int = on_parameter_int;
    e.parameter_string = on_parameter_string;
    // Message bytes only (on_mpi_event); their time is not needed.
    e.mpi_event = on_mpi_event;
    e.mpi_event_kinds = substrate::kinds_moving_bytes();
    e.mpi_event_time = false;
    e.enter_with_bytes = on_enter_with_bytes;
    e.bytes_then_exit = on_bytes_then_exit;
    // Thread events: only the call path a team's thread inherits (on_thread_event).
    e.thread_event = on_thread_event;
    e.thread_events_inherited_only = true;
    return c;
}
constexpr substrate::Callbacks kCallbacks = make_callbacks();

}  // namespace

const substrate::Callbacks& substrate_callbacks() { return kCallbacks; }

ProfileData collect() { return collect(unification::unify(definitions().snapshot(), nullptr), 0); }

ProfileData collect(const unification::Unified& defs, int rank) {
    ProfileData data;
    // Strings are the job's (global string 0 is ""); regions and parameters are
    // shifted by one so that index 0 means "none" (the virtual root, no parameter).
    data.strings = defs.strings;
    data.regions.push_back(ProfileData::Region{});
    for (const RegionDefinition& r : defs.regions) {
        ProfileData::Region out;
        out.name = r.name;
        out.file = r.file;
        out.line = r.line;
        out.paradigm = static_cast<std::uint8_t>(r.paradigm);
        out.role = static_cast<std::uint8_t>(r.role);
        out.flags = r.flags;
        data.regions.push_back(out);
    }
    data.parameters.push_back(ProfileData::Parameter{});
    for (const ParameterDefinition& p : defs.parameters) {
        data.parameters.push_back(ProfileData::Parameter{p.name, static_cast<std::uint8_t>(p.type)});
    }
    // Local handle -> index in the tables above.
    auto region_index = [&](RegionHandle h) { return h == 0 ? 0u : defs.region_map[h - 1] + 1; };
    auto parameter_index = [&](ParameterHandle h) { return h == 0 ? 0u : defs.parameter_map[h - 1] + 1; };

    std::vector<Location*> locations;
    for (Location* loc : location::all()) {
        // A location of GPU metric samples has no call tree worth a column.
        if (loc->substrate_data[g_slot] != nullptr && loc->type != LocationType::metric) {
            locations.push_back(loc);
        }
    }
    const size_t n_loc = locations.size();
    // Location names are job-wide strings (location.cpp defines them), so that
    // ranks writing their columns into one file agree on the string table.
    std::unordered_map<std::string, std::uint32_t> string_index;
    for (std::uint32_t i = 0; i < data.strings.size(); ++i) string_index.emplace(data.strings[i], i);
    // The host, a job-wide string as well (location.cpp interns it with the first location).
    auto host_at = string_index.find(host_name());
    if (host_at == string_index.end()) {
        data.strings.push_back(host_name());
        host_at = string_index.emplace(host_name(), static_cast<std::uint32_t>(data.strings.size() - 1)).first;
    }
    const std::uint32_t host = host_at->second;
    for (Location* loc : locations) {
        ProfileData::Location out;
        out.id = (static_cast<std::uint64_t>(rank) << 32) | loc->index;  // as in the trace
        out.rank = static_cast<std::uint32_t>(rank);
        const bool stream = loc->type == LocationType::gpu_stream;
        out.thread = stream ? loc->index - location::kFirstOwnIndex : loc->index;
        out.type = static_cast<std::uint8_t>(loc->type);
        const std::string shown = loc->display_name();
        auto name = string_index.find(shown);
        if (name == string_index.end()) {  // a location created (or named) after the definitions were unified
            data.strings.push_back(shown);
            name = string_index.emplace(shown, static_cast<std::uint32_t>(data.strings.size() - 1)).first;
        }
        out.name = name->second;
        out.host = host;
        data.locations.push_back(out);
    }

    // Merge: a global call path is identified by (global parent, region, parameter, value).
    using Key = std::tuple<std::int64_t, std::uint32_t, std::uint32_t, std::int64_t>;
    std::map<Key, std::int64_t> index_of;
    const std::vector<metrics::MetricSpec>& counters = metrics::configured();
    const std::size_t n_counters = counters.size();
    struct Cell {
        std::uint64_t visits = 0;
        Ticks inclusive = 0;
        std::uint64_t bytes_sent = 0, bytes_received = 0;
        Ticks exclusive = 0;
        std::vector<std::uint64_t> counter_inclusive;  ///< per configured counter (empty: all 0)
        std::vector<std::uint64_t> counter_exclusive;
    };
    std::vector<std::vector<Cell>> cells;  // [callpath][location]
    std::vector<const CallTree*> trees;
    for (size_t l = 0; l < n_loc; ++l) {
        const CallTree& t = *static_cast<const CallTree*>(locations[l]->substrate_data[g_slot]);
        data.dropped_callpaths += t.dropped();
        trees.push_back(&t);
        std::vector<std::int64_t> global(t.size(), -1);  // local node -> global call path
        // Nodes are created after their parent, so index order visits parents first.
        // Node 0 is the virtual root.
        for (std::uint32_t i = 1; i < t.size(); ++i) {
            const CallTree::Node& n = t.node(i);
            const std::uint32_t local_parent = n.parent == nullptr ? 0 : n.parent->index;
            const std::int64_t parent = local_parent == 0 ? -1 : global[local_parent];
            const std::uint32_t region = region_index(n.region);
            const std::uint32_t parameter = parameter_index(n.parameter);
            const std::int64_t value =
                n.parameter != 0 && n.is_string ? static_cast<std::int64_t>(defs.string_map[n.value]) : n.value;
            const Key key{parent, region, parameter, value};
            auto it = index_of.find(key);
            std::int64_t g;
            if (it == index_of.end()) {
                g = static_cast<std::int64_t>(data.callpaths.size());
                index_of.emplace(key, g);
                ProfileData::CallPath cp;
                cp.parent = parent;
                cp.region = region;
                cp.parameter = parameter == 0 ? -1 : static_cast<std::int64_t>(parameter);
                if (n.parameter != 0 && n.is_string) {
                    cp.string_value = value;
                } else {
                    cp.int_value = value;
                }
                data.callpaths.push_back(cp);
                cells.emplace_back(n_loc);
            } else {
                g = it->second;
            }
            global[i] = g;
            Cell& c = cells[g][l];
            c.visits += n.visits;
            c.inclusive += n.inclusive;
            c.bytes_sent += n.bytes_sent;
            c.bytes_received += n.bytes_received;
            if (n_counters > 0 && t.metric_count() == n_counters) {
                c.counter_inclusive.resize(n_counters);
                const std::uint64_t* sums = t.metric_inclusive(i);
                for (std::size_t k = 0; k < n_counters; ++k) c.counter_inclusive[k] += sums[k];
            }
        }
    }
    // Exclusive = inclusive minus the children's inclusive, per location.
    // The same for every counter.
    for (auto& row : cells) {
        for (Cell& c : row) {
            c.exclusive = c.inclusive;
            c.counter_inclusive.resize(n_counters);
            c.counter_exclusive = c.counter_inclusive;
        }
    }
    for (size_t g = 0; g < data.callpaths.size(); ++g) {
        const std::int64_t parent = data.callpaths[g].parent;
        if (parent < 0) continue;
        for (size_t l = 0; l < n_loc; ++l) {
            Cell& p = cells[parent][l];
            const Cell& child = cells[g][l];
            p.exclusive -= std::min(p.exclusive, child.inclusive);
            for (size_t k = 0; k < n_counters; ++k) {
                p.counter_exclusive[k] -= std::min(p.counter_exclusive[k], child.counter_inclusive[k]);
            }
        }
    }

    const size_t n_cp = data.callpaths.size();
    ProfileData::Metric visits{"visits", "count", "number of times the call path was entered", true, {}, {}};
    ProfileData::Metric incl{"time_inclusive", "s", "time in the call path including its callees", false, {}, {}};
    ProfileData::Metric excl{"time_exclusive", "s", "time in the call path without its callees", false, {}, {}};
    visits.counts.resize(n_cp * n_loc);
    incl.values.resize(n_cp * n_loc);
    excl.values.resize(n_cp * n_loc);
    for (size_t g = 0; g < n_cp; ++g) {
        for (size_t l = 0; l < n_loc; ++l) {
            const Cell& c = cells[g][l];
            visits.counts[g * n_loc + l] = c.visits;
            incl.values[g * n_loc + l] = timer::to_seconds(c.inclusive);
            excl.values[g * n_loc + l] = timer::to_seconds(c.exclusive);
        }
    }
    data.metrics.push_back(std::move(visits));
    data.metrics.push_back(std::move(incl));
    data.metrics.push_back(std::move(excl));
    // MPI programs: message bytes (every rank decides alike: the unified definitions).
    const bool mpi = std::any_of(defs.communicators.begin(), defs.communicators.end(),
                                 [](const CommunicatorDefinition& c) { return c.paradigm == Paradigm::mpi; });
    if (mpi) {
        ProfileData::Metric sent{"bytes_sent", "bytes",
                                 "bytes sent by the MPI calls of the call path itself (point-to-point and collective), "
                                 "not by its callees",
                                 true, {}, {}};
        ProfileData::Metric received{"bytes_received", "bytes",
                                     "bytes received by the MPI calls of the call path itself (point-to-point and "
                                     "collective), not by its callees",
                                     true, {}, {}};
        sent.counts.resize(n_cp * n_loc);
        received.counts.resize(n_cp * n_loc);
        for (size_t g = 0; g < n_cp; ++g) {
            for (size_t l = 0; l < n_loc; ++l) {
                sent.counts[g * n_loc + l] = cells[g][l].bytes_sent;
                received.counts[g * n_loc + l] = cells[g][l].bytes_received;
            }
        }
        data.metrics.push_back(std::move(sent));
        data.metrics.push_back(std::move(received));
    }
    // Counters: "<source>:<name>_inclusive" and "_exclusive" (see profile-format.md).
    for (size_t k = 0; k < n_counters; ++k) {
        const metrics::MetricSpec& spec = counters[k];
        std::string name = spec.qualified_name();
        for (char& c : name) {
            if (c == '/') c = '|';  // HDF5 names cannot hold '/'
        }
        const std::string what = spec.description + " (" + spec.name + ")";
        ProfileData::Metric ci{name + "_inclusive", spec.unit,
                               "sum over visits of the increment at exit since the enter, including the callees: " + what,
                               true, {}, {}};
        ProfileData::Metric ce{name + "_exclusive", spec.unit,
                               "the inclusive value minus that of the callees: " + what, true, {}, {}};
        ci.counts.resize(n_cp * n_loc);
        ce.counts.resize(n_cp * n_loc);
        for (size_t g = 0; g < n_cp; ++g) {
            for (size_t l = 0; l < n_loc; ++l) {
                ci.counts[g * n_loc + l] = cells[g][l].counter_inclusive[k];
                ce.counts[g * n_loc + l] = cells[g][l].counter_exclusive[k];
            }
        }
        data.metrics.push_back(std::move(ci));
        data.metrics.push_back(std::move(ce));
    }

    data.strata_version = STRATA_VERSION;
    data.creation_time = iso_time_now();
    data.timer_resolution = timer::resolution();
    data.timer_name = timer::name();
    data.location_offset = 0;
    data.total_locations = n_loc;
    if (data.dropped_callpaths > 0) data.memory_needed = memory_needed(trees, &data.memory_needed_at_least);
    return data;
}

}  // namespace strata::profiling
