// SPDX-License-Identifier: BSD-3-Clause
// GPU activity onto Strata's locations: one per (device, context, stream),
// times converted to the process timer.
//
//   CUPTI buffer --decode--> GpuActivity --add()--> pending per stream
//   deliver(): per stream, by start time, Enter/Leave at converted times
//
// A buffer's records of one stream are sorted before they are recorded.  Work
// on one stream can overlap (Hopper's programmatic dependent launch starts a
// kernel before the previous one ends; cuBLAS does it), and a trace location
// must nest: a record that starts before the stream's location is free goes on
// a further location of the same stream, "CUDA[0:7]/2", made when first needed.
// Not thread-safe: the adapter holds a lock around it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "activity_records.hpp"
#include "strata/measurement/events.hpp"

namespace strata::cuda {

/// CUPTI's clock to the process timer, by linear interpolation between pairs
/// of readings taken together (the first and the latest).
class ClockMap {
public:
    void add_point(std::uint64_t cupti_ns, Ticks ticks);
    Ticks to_ticks(std::uint64_t cupti_ns) const;
    bool empty() const { return points_ == 0; }

private:
    std::uint64_t first_ns_ = 0, last_ns_ = 0;
    Ticks first_ticks_ = 0, last_ticks_ = 0;
    int points_ = 0;
};

struct StreamCounts {
    std::uint64_t kernels = 0, copies = 0, memsets = 0;
    std::uint64_t copied_bytes = 0;
    std::uint64_t overlapping = 0;  ///< records that started before the stream's previous one ended
    std::uint64_t no_location = 0;  ///< records whose stream location could not be made
};

class GpuStreams {
public:
    /// Keeps a kernel, copy or memset (others are not recorded on streams).
    void add(const GpuActivity& activity);
    /// Records what add() kept, stream by stream, and forgets it.
    void deliver(const ClockMap& clock);

    const StreamCounts& counts() const { return counts_; }
    std::size_t stream_count() const { return streams_.size(); }

private:
    static constexpr std::uint32_t kMaxAttributes = static_cast<std::uint32_t>(GpuAttribute::count);
    struct Pending {
        std::uint64_t start, end;
        RegionHandle region;
        std::uint32_t correlation;
        std::uint32_t attribute_count;
        events::GpuAttributeValue attributes[kMaxAttributes];
    };
    /// One location of a stream: the first, or one for work overlapping it.
    struct Lane {
        events::LocationHandle location = 0;
        Ticks last_end = 0;  ///< the end of its last recorded activity
    };
    struct Stream {
        std::string name;  ///< "CUDA[<device>:<stream>]"
        std::uint32_t device = 0;
        std::vector<Lane> lanes;
        std::vector<Pending> pending;
    };
    using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;  ///< device, context, stream

    RegionHandle kernel_region(const char* mangled);
    RegionHandle transfer_region(const GpuActivity& activity);
    Stream& stream(const GpuActivity& activity);
    /// The first lane of `s` free at `start`, made if none is; nullptr when no location can be made.
    Lane* lane(Stream& s, Ticks start);

    std::map<Key, Stream> streams_;
    std::unordered_map<std::string, RegionHandle> kernels_;  ///< by mangled name
    std::map<std::uint32_t, RegionHandle> transfers_;        ///< by copy kind; memset: 0xFF
    StreamCounts counts_;
};

/// A region of paradigm CUDA (a kernel, a transfer, an API call).
RegionHandle define_cuda_region(std::string_view name, RegionRole role);

/// The demangled name of a kernel, or the name itself.
std::string demangle(const char* name);

}  // namespace strata::cuda
