// SPDX-License-Identifier: BSD-3-Clause
// A profile as a Cube report (see cube_export.hpp).
#include "cube/cube_export.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/time_classes.hpp"
#include "profile/profile_aggregates.hpp"

namespace strata::analysis::cube {
namespace {

/// Where an MPI call's time goes in Scalasca's metric tree.
enum class MpiKind { none, management, init_exit, synchronization, point2point, collective, io };

/// Calls that complete or look for point-to-point messages: Scalasca counts
/// their time as point-to-point communication, and late senders are charged there.
bool completes_messages(const std::string& name) {
    static const char* const prefixes[] = {"MPI_Wait",   "MPI_Test",   "MPI_Probe",
                                           "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe",
                                           "MPI_Mrecv",  "MPI_Imrecv", "MPI_Start"};
    for (const char* prefix : prefixes)
        if (name.rfind(prefix, 0) == 0) return true;
    return false;
}

MpiKind mpi_kind(const Profile& profile, std::uint32_t region) {
    const Region& r = profile.regions[region];
    if (r.paradigm != Paradigm::mpi) return MpiKind::none;
    if (is_mpi_init_finalize(profile, region)) return MpiKind::init_exit;
    if (is_file_io(profile, region)) return MpiKind::io;
    switch (r.role) {
        case RegionRole::barrier:
        case RegionRole::implicit_barrier:
            return MpiKind::synchronization;
        case RegionRole::point_to_point:
            return MpiKind::point2point;
        case RegionRole::coll_one2all:
        case RegionRole::coll_all2one:
        case RegionRole::coll_all2all:
        case RegionRole::coll_other:
            return MpiKind::collective;
        default:
            return completes_messages(profile.region_name(region)) ? MpiKind::point2point
                                                                   : MpiKind::management;
    }
}

/// The kind of call a wait state is found in.
MpiKind kind_of_wait(trace::WaitMetric metric) {
    switch (trace::info(metric).call) {
        case trace::WaitCall::point_to_point: return MpiKind::point2point;
        case trace::WaitCall::barrier: return MpiKind::synchronization;
        case trace::WaitCall::init_exit: return MpiKind::init_exit;
        case trace::WaitCall::collective: break;
    }
    return MpiKind::collective;
}

/// The metric tree under construction: rows kept by cnode until the end.
class MetricTree {
public:
    MetricTree(CubeReport& report, std::size_t locations) : report_(report), locations_(locations) {}

    std::size_t add(std::int64_t parent, std::string unique, std::string display, std::string unit,
                    std::string description, bool integer) {
        CubeMetric m;
        m.unique_name = std::move(unique);
        m.display_name = std::move(display);
        m.unit = std::move(unit);
        m.description = std::move(description);
        m.integer = integer;
        m.parent = parent;
        report_.metrics.push_back(std::move(m));
        rows_.emplace_back();
        return report_.metrics.size() - 1;
    }
    void add_value(std::size_t metric, std::uint32_t cnode, std::size_t location, double value) {
        row(metric, cnode).values[location] += value;
    }
    void add_count(std::size_t metric, std::uint32_t cnode, std::size_t location, std::uint64_t count) {
        // Cube's INTEGER is signed; a count beyond it (none real) is held at the largest.
        const auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        std::int64_t& slot = row(metric, cnode).counts[location];
        const std::uint64_t sum = static_cast<std::uint64_t>(slot) + std::min(count, max);
        slot = static_cast<std::int64_t>(std::min(sum, max));
    }
    /// Moves the rows into the report, by cnode.
    void finish() {
        for (std::size_t m = 0; m < rows_.size(); ++m)
            for (auto& [cnode, row] : rows_[m]) report_.metrics[m].rows.push_back(std::move(row));
    }

private:
    CubeMetric::Row& row(std::size_t metric, std::uint32_t cnode) {
        auto [it, added] = rows_[metric].try_emplace(cnode);
        if (added) {
            it->second.cnode = cnode;
            if (report_.metrics[metric].integer)
                it->second.counts.assign(locations_, 0);
            else
                it->second.values.assign(locations_, 0.0);
        }
        return it->second;
    }
    CubeReport& report_;
    std::size_t locations_;
    std::vector<std::map<std::uint32_t, CubeMetric::Row>> rows_;
};

/// The counters of the profile: "<source>:<counter>_exclusive" by counter name.
std::vector<std::pair<std::string, const Metric*>> counters(const Profile& profile) {
    static const std::string suffix = "_exclusive";
    std::vector<std::pair<std::string, const Metric*>> found;
    for (const Metric& m : profile.metrics) {
        if (m.name == "time_exclusive" || m.name.size() <= suffix.size() ||
            m.name.compare(m.name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        std::string name = m.name.substr(0, m.name.size() - suffix.size());
        const std::size_t colon = name.find(':');
        if (colon != std::string::npos && colon + 1 < name.size()) name = name.substr(colon + 1);
        found.emplace_back(name, &m);
    }
    return found;
}

/// The ordinary call paths whose regions, from the root, are named as the
/// trace's call path `path` ("main/solve/MPI_Recv"): parameter nodes are not
/// in the trace's names, so they are passed through.  A walk down the tree
/// rather than a table of every call path's name: names of deep call paths
/// would take memory quadratic in the depth.
std::vector<std::size_t> callpaths_named(const Profile& profile, const CallTreeIndex& tree,
                                         const std::string& path) {
    std::vector<std::size_t> found;
    std::vector<std::pair<std::size_t, std::size_t>> todo;  // (call path, offset of its name in `path`)
    for (auto root = tree.roots.rbegin(); root != tree.roots.rend(); ++root) todo.emplace_back(*root, 0);
    while (!todo.empty()) {
        const auto [cp, offset] = todo.back();
        todo.pop_back();
        const CallPath& p = profile.callpaths[cp];
        std::size_t next = offset;  // where the children's names start
        if (!p.is_parameter()) {
            const std::string& name = profile.region_name(p.region);
            if (path.compare(offset, name.size(), name) != 0) continue;
            const std::size_t end = offset + name.size();
            if (end == path.size()) {
                found.push_back(cp);
                continue;
            }
            if (path[end] != '/') continue;
            next = end + 1;
        }
        for (auto child = tree.children[cp].rbegin(); child != tree.children[cp].rend(); ++child)
            todo.emplace_back(*child, next);
    }
    return found;
}

}  // namespace

CubeReport cube_report(const Profile& profile, const trace::TraceReport* waits) {
    CubeReport report;
    report.attributes = {{"Creator", "Strata " + profile.strata_version},
                         {"Strata profile created", profile.creation_time},
                         {"Strata timer", profile.timer}};
    // Nodes: the hosts, in the order of their lowest rank (files written before
    // profile.h5 named the hosts have "" for all: one node).
    std::map<std::uint32_t, std::uint32_t> host_of_rank;  // rank -> host string
    for (const Location& l : profile.locations) host_of_rank.try_emplace(l.rank, l.host);
    std::map<std::uint32_t, std::uint32_t> node_of_host;  // host string -> node
    report.nodes.clear();
    for (const auto& [rank, host] : host_of_rank) {
        if (node_of_host.try_emplace(host, static_cast<std::uint32_t>(report.nodes.size())).second)
            report.nodes.push_back(profile.strings[host].empty() ? "node" : profile.strings[host]);
    }
    const auto node_of = [&](const Location& l) { return node_of_host.at(host_of_rank.at(l.rank)); };

    // Locations: by node, rank, then CPU threads before GPU streams, by number.
    std::vector<std::size_t> order(profile.locations.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Location& x = profile.locations[a];
        const Location& y = profile.locations[b];
        return std::make_tuple(node_of(x), x.rank, x.type, x.thread, a) <
               std::make_tuple(node_of(y), y.rank, y.type, y.thread, b);
    });
    std::vector<std::size_t> location_of(order.size());
    std::map<std::uint32_t, std::size_t> first_thread;  // rank -> its first CPU thread
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Location& l = profile.locations[order[i]];
        location_of[order[i]] = i;
        const char* type = l.type == LocationType::gpu_stream ? "gpu"
                           : l.type == LocationType::metric   ? "metric"
                                                              : "thread";
        report.locations.push_back({profile.location_name(order[i]), l.rank, l.thread, type, node_of(l)});
        if (l.type == LocationType::cpu_thread) first_thread.try_emplace(l.rank, i);
    }
    if (report.nodes.empty()) report.nodes.push_back("node");

    for (std::uint32_t r = 0; r < profile.regions.size(); ++r) {
        const Region& region = profile.regions[r];
        CubeRegion c;
        c.name = profile.region_name(r);
        c.file = profile.strings[region.file];
        if (c.file.empty() && region.paradigm == Paradigm::mpi) c.file = "MPI";  // as Score-P names them
        c.line = region.line > 0 ? region.line : -1;
        c.paradigm = profile.paradigm_names.name(static_cast<std::uint8_t>(region.paradigm));
        c.role = profile.role_names.name(static_cast<std::uint8_t>(region.role));
        report.regions.push_back(std::move(c));
    }

    // Cnodes in depth-first order.
    const CallTreeIndex tree = index_call_tree(profile);
    std::vector<std::uint32_t> cnode_of(profile.callpaths.size());
    std::vector<std::size_t> callpath_of;  // cnode -> call path
    std::vector<std::size_t> stack(tree.roots.rbegin(), tree.roots.rend());
    while (!stack.empty()) {
        const std::size_t cp = stack.back();
        stack.pop_back();
        const CallPath& p = profile.callpaths[cp];
        cnode_of[cp] = static_cast<std::uint32_t>(report.cnodes.size());
        callpath_of.push_back(cp);
        CubeCnode c;
        if (!p.is_root()) c.parent = cnode_of[static_cast<std::size_t>(p.parent)];
        c.region = p.region;
        if (p.is_parameter()) {
            const Parameter& parameter = profile.parameters[static_cast<std::size_t>(p.parameter)];
            c.parameter = profile.strings[parameter.name];
            c.numeric = parameter.type == ParameterType::integer;
            c.parameter_value = c.numeric ? std::to_string(p.int_value)
                                : p.string_value >= 0
                                    ? profile.strings[static_cast<std::size_t>(p.string_value)]
                                    : std::string();
        }
        report.cnodes.push_back(std::move(c));
        for (auto child = tree.children[cp].rbegin(); child != tree.children[cp].rend(); ++child)
            stack.push_back(*child);
    }

    // Each wait state's place: (metric, cnode, location, seconds).
    struct Placed {
        trace::WaitMetric metric;
        std::uint32_t cnode;
        std::size_t location;
        double seconds;
    };
    std::vector<Placed> placed;
    std::map<std::uint32_t, MpiKind> kind_by_wait;  // a cnode with waits is of the kind they need
    std::uint64_t unplaced = 0;
    if (waits) {
        const Metric* inclusive = profile.find_metric("time_inclusive");
        std::map<std::string, std::uint32_t> extra_roots;                   // call paths of the trace alone
        std::unordered_map<std::string, std::vector<std::size_t>> matches;  // trace call path -> profile's
        for (const trace::WaitStateRow& w : waits->waits.rows) {
            const auto thread = first_thread.find(w.rank);
            if (thread == first_thread.end() || w.ticks <= 0) {
                unplaced += w.ticks > 0 ? 1 : 0;
                continue;
            }
            std::uint32_t cnode = 0;
            auto candidates = matches.find(w.callpath);
            if (candidates == matches.end())
                candidates = matches.emplace(w.callpath, callpaths_named(profile, tree, w.callpath)).first;
            if (!candidates->second.empty()) {
                std::size_t best = candidates->second.front();
                if (inclusive && inclusive->whole(profile.locations.size())) {
                    const std::size_t column = order[thread->second];
                    for (std::size_t cp : candidates->second)
                        if (inclusive->at(cp, column) > inclusive->at(best, column)) best = cp;
                }
                cnode = cnode_of[best];
            } else {
                auto [it, added] = extra_roots.try_emplace(w.callpath, 0);
                if (added) {
                    it->second = static_cast<std::uint32_t>(report.cnodes.size());
                    report.regions.push_back(
                        {w.callpath + " (in the trace, not in the profile)", "MPI", -1, "mpi", "function"});
                    CubeCnode c;
                    c.region = static_cast<std::uint32_t>(report.regions.size() - 1);
                    report.cnodes.push_back(std::move(c));
                }
                cnode = it->second;
            }
            kind_by_wait[cnode] = kind_of_wait(w.metric);
            placed.push_back({w.metric, cnode, thread->second,
                              static_cast<double>(w.ticks) / static_cast<double>(waits->timer_resolution)});
        }
    }
    if (unplaced > 0)
        report.attributes.emplace_back("Strata wait states without a location in the profile",
                                       std::to_string(unplaced));

    MetricTree metrics(report, report.locations.size());
    const bool traced = waits != nullptr;
    const std::size_t time = metrics.add(
        -1, "time", "Time", "sec", "Time in the call path, without its callees (exclusive time)", false);
    const auto t = static_cast<std::int64_t>(time);
    const std::size_t execution = metrics.add(t, "execution", "Execution", "sec",
                                              "Time of the program, without Strata's own measurement", false);
    const auto e = static_cast<std::int64_t>(execution);
    const std::size_t mpi = metrics.add(e, "mpi", "MPI", "sec", "Time in MPI calls", false);
    const auto m = static_cast<std::int64_t>(mpi);
    // The wait states (with a trace), by WaitMetric: children of the kind of call they are found in.
    std::array<std::size_t, trace::wait_metric_count> wait_metric{};
    const auto add_wait = [&](std::size_t parent, trace::WaitMetric which) {
        const trace::WaitMetricInfo& w = trace::info(which);
        if (traced)
            wait_metric[static_cast<std::size_t>(which)] =
                metrics.add(static_cast<std::int64_t>(parent), w.cube_name, w.cube_title, "sec", w.definition, false);
    };
    const std::size_t management = metrics.add(m, "mpi_management", "Management", "sec",
                                               "Time in MPI calls that neither communicate nor synchronise "
                                               "(set-up, communicator and datatype calls)",
                                               false);
    const std::size_t init_exit =
        metrics.add(static_cast<std::int64_t>(management), "mpi_init_exit", "Init/Exit", "sec",
                    "Time in MPI_Init, MPI_Init_thread and MPI_Finalize", false);
    add_wait(init_exit, trace::WaitMetric::wait_at_finalize);
    const std::size_t synchronization =
        metrics.add(m, "mpi_synchronization", "Synchronization", "sec", "Time in MPI barriers", false);
    const std::size_t sync_collective =
        metrics.add(static_cast<std::int64_t>(synchronization), "mpi_sync_collective", "Collective", "sec",
                    "Time in MPI barriers", false);
    add_wait(sync_collective, trace::WaitMetric::wait_at_barrier);
    const std::size_t communication = metrics.add(m, "mpi_communication", "Communication", "sec",
                                                  "Time in MPI calls that communicate", false);
    const auto c = static_cast<std::int64_t>(communication);
    const std::size_t point2point = metrics.add(
        c, "mpi_point2point", "Point-to-point", "sec",
        "Time in point-to-point MPI calls: sends, receives, waits and tests on requests, probes", false);
    add_wait(point2point, trace::WaitMetric::late_sender);
    add_wait(point2point, trace::WaitMetric::late_receiver);
    const std::size_t collective = metrics.add(c, "mpi_collective", "Collective", "sec",
                                               "Time in MPI collectives other than barriers", false);
    add_wait(collective, trace::WaitMetric::early_reduce);
    add_wait(collective, trace::WaitMetric::late_broadcast);
    add_wait(collective, trace::WaitMetric::wait_at_nxn);
    const std::size_t io =
        metrics.add(m, "mpi_io", "MPI File I/O", "sec", "Time in MPI-IO calls (MPI_File_*)", false);
    const std::size_t omp =
        metrics.add(e, "omp_time", "OMP", "sec",
                    "Time in OpenMP synchronisation: barriers, taskwait, critical, ordered, "
                    "atomic, locks, task creation",
                    false);
    const std::size_t overhead = metrics.add(t, "overhead", "Overhead", "sec",
                                             "Time of Strata's own measurement (buffer flushes)", false);

    const Metric& time_exclusive = profile.metric("time_exclusive");
    const std::size_t columns = profile.locations.size();
    if (!time_exclusive.whole(columns))
        throw ProfileError(profile.path + ": the Cube report needs every location's column of the profile");
    for (std::size_t cnode = 0; cnode < callpath_of.size(); ++cnode) {
        const std::size_t cp = callpath_of[cnode];
        const std::uint32_t region = profile.callpaths[cp].region;
        const TimeClass time_class = region_time_class(profile, region);
        MpiKind kind = mpi_kind(profile, region);
        const auto override_kind = kind_by_wait.find(static_cast<std::uint32_t>(cnode));
        if (kind != MpiKind::none && override_kind != kind_by_wait.end()) kind = override_kind->second;
        const auto id = static_cast<std::uint32_t>(cnode);
        for (std::size_t j = 0; j < columns; ++j) {
            const double v = time_exclusive.at(cp, j);
            if (v == 0.0) continue;
            const std::size_t l = location_of[j];
            metrics.add_value(time, id, l, v);
            if (time_class == TimeClass::measurement) {
                metrics.add_value(overhead, id, l, v);
                continue;
            }
            metrics.add_value(execution, id, l, v);
            if (time_class == TimeClass::openmp) metrics.add_value(omp, id, l, v);
            if (kind == MpiKind::none) continue;
            metrics.add_value(mpi, id, l, v);
            switch (kind) {
                case MpiKind::init_exit:
                    metrics.add_value(init_exit, id, l, v);
                    [[fallthrough]];
                case MpiKind::management:
                    metrics.add_value(management, id, l, v);
                    break;
                case MpiKind::synchronization:
                    metrics.add_value(synchronization, id, l, v);
                    metrics.add_value(sync_collective, id, l, v);
                    break;
                case MpiKind::point2point:
                    metrics.add_value(communication, id, l, v);
                    metrics.add_value(point2point, id, l, v);
                    break;
                case MpiKind::collective:
                    metrics.add_value(communication, id, l, v);
                    metrics.add_value(collective, id, l, v);
                    break;
                case MpiKind::io:
                    metrics.add_value(io, id, l, v);
                    break;
                case MpiKind::none:
                    break;
            }
        }
    }
    for (const Placed& p : placed)
        metrics.add_value(wait_metric[static_cast<std::size_t>(p.metric)], p.cnode, p.location, p.seconds);

    // Counts: visits, the MPI bytes, the counters.
    std::vector<std::pair<std::size_t, const Metric*>> counts;
    static const char* const count_metrics[][4] = {
        {"visits", "Visits", "occ", "Number of visits"},
        {"bytes_sent", "Bytes sent", "bytes", "Bytes sent by MPI calls: point-to-point and collective"},
        {"bytes_received", "Bytes received", "bytes", "Bytes received by MPI calls: point-to-point and collective"}};
    for (const auto& [name, display, unit, description] : count_metrics) {
        if (const Metric* source = profile.find_metric(name))
            counts.emplace_back(metrics.add(-1, name, display, unit, description, true), source);
    }
    for (const auto& [name, counter] : counters(profile)) {
        bool taken = false;
        for (const CubeMetric& existing : report.metrics) taken = taken || existing.unique_name == name;
        const std::string unique = taken ? counter->name : name;
        counts.emplace_back(metrics.add(-1, unique, unique, counter->unit, counter->description, true),
                            counter);
    }
    for (const auto& [metric, source] : counts) {
        if (!source->whole(columns)) continue;
        for (std::size_t cnode = 0; cnode < callpath_of.size(); ++cnode) {
            for (std::size_t j = 0; j < columns; ++j) {
                const std::uint64_t v = source->count_at(callpath_of[cnode], j);
                if (v != 0) metrics.add_count(metric, static_cast<std::uint32_t>(cnode), location_of[j], v);
            }
        }
    }
    metrics.finish();
    return report;
}

}  // namespace strata::analysis::cube
