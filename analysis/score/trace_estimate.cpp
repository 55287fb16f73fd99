// SPDX-License-Identifier: BSD-3-Clause
// The trace-size estimate of strata-score (see trace_estimate.hpp).
#include "score/trace_estimate.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

namespace strata::analysis {
namespace {

/// Bytes of `value` as an LEB128 varint.
double varint_bytes(double value) {
    double bytes = 1.0;
    while (value >= 128.0 && bytes < 10.0) {
        value /= 128.0;
        bytes += 1.0;
    }
    return bytes;
}

/// The message and request events of one MPI call, and their bytes in Strata's buffer.
struct MpiEvents {
    double events = 0.0;
    double buffer_bytes = 0.0;
};

/// A send or receive event for point-to-point (12 bytes: time, communicator, peer, tag, size),
/// begin and end for a collective (3 and 12), and for MPI_Wait* and MPI_Test* a completion or
/// request-test event (5 bytes: time and request; at least one: a test records one per request
/// it finds still active).
MpiEvents mpi_events(const std::string& name, RegionRole role) {
    if (role == RegionRole::point_to_point) return {1.0, 12.0};
    if (role == RegionRole::coll_one2all || role == RegionRole::coll_all2one || role == RegionRole::coll_all2all ||
        role == RegionRole::coll_other)
        return {2.0, 15.0};
    const bool completion = name == "MPI_Wait" || name == "MPI_Waitany" || name == "MPI_Waitall" ||
                            name == "MPI_Waitsome" || name == "MPI_Test" || name == "MPI_Testany" ||
                            name == "MPI_Testall" || name == "MPI_Testsome";
    return completion ? MpiEvents{1.0, 5.0} : MpiEvents{};
}

/// Counters recorded at every enter and leave: one `<source>:<name>_inclusive` matrix each.
double counters_of(const Profile& profile) {
    double n = 0.0;
    for (const Metric& metric : profile.metrics) {
        const std::string& name = metric.name;
        const bool counter = name.rfind("papi:", 0) == 0 || name.rfind("rusage:", 0) == 0;
        const std::string suffix = "_inclusive";
        if (counter && name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            n += 1.0;
    }
    return n;
}

}  // namespace

TraceEstimate estimate_trace(const Profile& profile, const std::vector<bool>* left_out) {
    TraceEstimate estimate;
    const Metric& visits = profile.metric("visits");
    const Metric& inclusive = profile.metric("time_inclusive");
    const double counters = counters_of(profile);
    std::vector<double> location_otf2(profile.locations.size(), 0.0);
    std::map<std::uint32_t, double> rank_buffer;
    for (std::size_t cp = 0; cp < profile.callpaths.size(); ++cp) {
        const CallPath& path = profile.callpaths[cp];
        if (path.is_parameter()) continue;  // its visits are its region's
        if (left_out != nullptr && path.region < left_out->size() && (*left_out)[path.region]) continue;
        const Region& region = profile.regions[path.region];
        const MpiEvents mpi =
            region.paradigm == Paradigm::mpi ? mpi_events(profile.region_name(path.region), region.role) : MpiEvents{};
        const double region_bytes = varint_bytes(static_cast<double>(path.region));
        for (std::size_t l = 0; l < profile.locations.size(); ++l) {
            const std::uint64_t v = visits.count_at(cp, l);
            if (v == 0) continue;
            const double n = static_cast<double>(v);
            const double ticks = inclusive.at(cp, l) / n * profile.timer_resolution;
            const double time_bytes = varint_bytes(std::isfinite(ticks) && ticks > 0.0 ? ticks : 0.0);
            double buffer = 2.0 * (1.0 + time_bytes + region_bytes);
            double otf2 = 2.0 * 12.0;
            double events = 2.0;
            if (counters > 0.0) {
                buffer += 2.0 * (3.0 + 5.0 * counters);
                otf2 += 2.0 * (4.0 + 9.0 * counters);
                events += 2.0;
            }
            buffer += mpi.buffer_bytes;
            otf2 += 12.0 * mpi.events;
            events += mpi.events;
            estimate.events += static_cast<std::uint64_t>(events) * v;
            location_otf2[l] += n * otf2;
            rank_buffer[profile.locations[l].rank] += n * buffer;
        }
    }
    for (std::size_t l = 0; l < location_otf2.size(); ++l) {
        estimate.otf2_bytes += location_otf2[l];
        if (location_otf2[l] > estimate.largest_location_otf2_bytes) {
            estimate.largest_location_otf2_bytes = location_otf2[l];
            estimate.largest_location = l;
        }
    }
    for (const auto& [rank, bytes] : rank_buffer) {
        if (bytes > estimate.largest_rank_buffer_bytes) {
            estimate.largest_rank_buffer_bytes = bytes;
            estimate.largest_rank = rank;
        }
    }
    return estimate;
}

std::string format_bytes(double bytes) {
    // Binary units, as STRATA_TOTAL_MEMORY reads them.
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t unit = 0;
    while (bytes >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024.0;
        ++unit;
    }
    char text[64];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    else
        std::snprintf(text, sizeof text, bytes < 10.0 ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
    return text;
}

}  // namespace strata::analysis
