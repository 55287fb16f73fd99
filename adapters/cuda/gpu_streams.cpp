// SPDX-License-Identifier: BSD-3-Clause
// GPU activity onto stream locations (see gpu_streams.hpp).
#include "gpu_streams.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

namespace strata::cuda {

void ClockMap::add_point(std::uint64_t cupti_ns, Ticks ticks) {
    if (points_ == 0) {
        first_ns_ = cupti_ns;
        first_ticks_ = ticks;
    }
    last_ns_ = cupti_ns;
    last_ticks_ = ticks;
    ++points_;
}

Ticks ClockMap::to_ticks(std::uint64_t cupti_ns) const {
    if (points_ == 0) return cupti_ns;
    // Ticks per nanosecond from the two readings furthest apart; 1 until they differ.
    const double span_ns = static_cast<double>(last_ns_) - static_cast<double>(first_ns_);
    const double rate =
        span_ns > 0 ? (static_cast<double>(last_ticks_) - static_cast<double>(first_ticks_)) / span_ns : 1.0;
    const double ticks = static_cast<double>(last_ticks_) +
                         (static_cast<double>(cupti_ns) - static_cast<double>(last_ns_)) * rate;
    return ticks <= 0 ? 0 : static_cast<Ticks>(ticks + 0.5);
}

RegionHandle define_cuda_region(std::string_view name, RegionRole role) {
    events::RegionSpec spec;
    spec.name = name;
    spec.paradigm = Paradigm::cuda;
    spec.role = role;
    return events::define_region(spec);
}

std::string demangle(const char* name) {
    if (name == nullptr) return "(unnamed kernel)";
    int status = 0;
    char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || text == nullptr) return name;
    std::string result(text);
    std::free(text);
    return result;
}

RegionHandle GpuStreams::kernel_region(const char* mangled) {
    const std::string key = mangled != nullptr ? mangled : "";
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    const RegionHandle region = define_cuda_region(demangle(mangled), RegionRole::function);
    kernels_.emplace(key, region);
    return region;
}

RegionHandle GpuStreams::transfer_region(const GpuActivity& activity) {
    const std::uint32_t key = activity.kind == GpuActivity::memset ? 0xFF : activity.copy_kind;
    auto it = transfers_.find(key);
    if (it != transfers_.end()) return it->second;
    // experiment-format.md: the direction in the name, as the analysis reads it.
    const std::string name = activity.kind == GpuActivity::memset
                                 ? std::string("cudaMemset")
                                 : "cudaMemcpy " + std::string(copy_direction(activity.copy_kind));
    const RegionHandle region = define_cuda_region(name, RegionRole::data_transfer);
    transfers_.emplace(key, region);
    return region;
}

GpuStreams::Stream& GpuStreams::stream(const GpuActivity& activity) {
    const Key key{activity.device, activity.context, activity.stream};
    auto it = streams_.find(key);
    if (it != streams_.end()) return it->second;
    Stream& s = streams_[key];
    s.name = "CUDA[" + std::to_string(activity.device) + ":" + std::to_string(activity.stream) + "]";
    s.device = activity.device;
    return s;
}

GpuStreams::Lane* GpuStreams::lane(Stream& s, Ticks start) {
    for (Lane& l : s.lanes) {
        if (l.last_end <= start) return &l;
    }
    events::LocationSpec spec;
    const std::string name = s.lanes.empty() ? s.name : s.name + "/" + std::to_string(s.lanes.size() + 1);
    spec.name = name;
    spec.type = LocationType::gpu_stream;
    spec.device = s.device;
    const events::LocationHandle location = events::define_location(spec);
    if (location == 0) return nullptr;
    s.lanes.push_back({location, 0});
    return &s.lanes.back();
}

void GpuStreams::add(const GpuActivity& activity) {
    RegionHandle region = 0;
    switch (activity.kind) {
        case GpuActivity::kernel:
            region = kernel_region(activity.name);
            ++counts_.kernels;
            break;
        case GpuActivity::memcpy:
            region = transfer_region(activity);
            ++counts_.copies;
            counts_.copied_bytes += activity.bytes;
            break;
        case GpuActivity::memset:
            region = transfer_region(activity);
            ++counts_.memsets;
            break;
        default:
            return;
    }
    Pending p{activity.start, activity.end, region, activity.correlation, 0, {}};
    const auto attribute = [&p](GpuAttribute a, std::uint64_t value) {
        p.attributes[p.attribute_count++] = {a, value};
    };
    if (activity.kind == GpuActivity::kernel) {
        attribute(GpuAttribute::grid_x, static_cast<std::uint32_t>(activity.grid[0]));
        attribute(GpuAttribute::grid_y, static_cast<std::uint32_t>(activity.grid[1]));
        attribute(GpuAttribute::grid_z, static_cast<std::uint32_t>(activity.grid[2]));
        attribute(GpuAttribute::block_x, static_cast<std::uint32_t>(activity.block[0]));
        attribute(GpuAttribute::block_y, static_cast<std::uint32_t>(activity.block[1]));
        attribute(GpuAttribute::block_z, static_cast<std::uint32_t>(activity.block[2]));
        attribute(GpuAttribute::registers, activity.registers);
        attribute(GpuAttribute::shared_memory, static_cast<std::uint32_t>(activity.shared_memory));
    } else {
        attribute(GpuAttribute::bytes, activity.bytes);
    }
    if (activity.graph_id != 0) {
        attribute(GpuAttribute::graph_id, activity.graph_id);
        attribute(GpuAttribute::graph_node_id, activity.graph_node_id);
    }
    stream(activity).pending.push_back(p);
}

void GpuStreams::deliver(const ClockMap& clock) {
    for (auto& [key, s] : streams_) {
        if (s.pending.empty()) continue;
        std::stable_sort(s.pending.begin(), s.pending.end(),
                         [](const Pending& a, const Pending& b) { return a.start < b.start; });
        for (const Pending& p : s.pending) {
            const Ticks start = clock.to_ticks(p.start);
            const Ticks end = std::max(start, clock.to_ticks(p.end));
            Lane* l = lane(s, start);
            if (l == nullptr) {
                ++counts_.no_location;
                continue;
            }
            if (l != &s.lanes.front()) ++counts_.overlapping;
            events::location_enter(l->location, start, p.region, p.correlation, p.attributes,
                                   p.attribute_count);
            events::location_exit(l->location, end, p.region);
            l->last_end = end;
        }
        s.pending.clear();
    }
}

}  // namespace strata::cuda
