// SPDX-License-Identifier: BSD-3-Clause
// The compact records a replay keeps of one analysis rank's share: only the
// MPI operations the wait-state patterns need, never the events themselves.
// Memory per analysis rank is O(messages + collective calls of its share),
// the same order as a Scalasca replay's communication records.
//
//   blocking send     [E, X] of MPI_Send        posted at E of MPI_Send
//   Isend ... Wait    [E, X] of the Wait holding MpiIsendComplete, posted at E of MPI_Isend
//   blocking receive  [E, X] of MPI_Recv        posted at E of MPI_Recv
//   Irecv ... Wait    [E, X] of the Wait holding MpiIrecv, posted at E of MPI_Irecv
//   collective        [E, X] of the region holding MpiCollectiveBegin/End
//
// Times are ticks on rank 0's clock (clock_correction.hpp).  Ranks are world
// ranks (MPI_COMM_WORLD), translated from communicator ranks.
#pragma once

#include <sys/mman.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profile/profile_aggregates.hpp"
#include "strata/measurement/ticks.hpp"

namespace strata::analysis::trace {

/// Ticks on rank 0's clock (strata/measurement/ticks.hpp: the runtime's type).
using strata::Ticks;

/// "Not known" for a time.
inline constexpr Ticks no_time = INT64_MIN;

/// The call path of a message or collective event in no recorded MPI call.
inline constexpr const char* outside_any_region = "(outside any region)";

/// What identifies a message across ranks (MPI's non-overtaking order: the
/// seq-th message from src to dst with this tag on this communicator).
struct MessageKey {
    std::uint32_t comm = 0;
    std::uint32_t source = 0;       ///< world rank
    std::uint32_t destination = 0;  ///< world rank
    std::uint32_t tag = 0;
    std::uint64_t seq = 0;
};

bool operator<(const MessageKey& a, const MessageKey& b);
bool operator==(const MessageKey& a, const MessageKey& b);

/// A message channel: MPI orders the messages from one rank to another with
/// one tag on one communicator, so a message is its channel and a sequence number.
struct MessageChannel {
    std::uint32_t comm = 0;
    std::uint32_t source = 0;       ///< world rank
    std::uint32_t destination = 0;  ///< world rank
    std::uint32_t tag = 0;
};

/// The channels of one share's sends (or receives), numbered in order of
/// appearance, with how many sequence numbers each has given out.  A rank
/// talks on few channels, so records carry a 32-bit id instead of the key.
class MessageChannels {
public:
    /// The id of (comm, source, destination, tag), added if new.
    std::uint32_t id(std::uint32_t comm, std::uint32_t source, std::uint32_t destination, std::uint32_t tag) {
        const std::uint64_t high = static_cast<std::uint64_t>(comm) << 32 | source;
        const std::uint64_t low = static_cast<std::uint64_t>(destination) << 32 | tag;
        // Consecutive messages of a location mostly use the channel of the last one.
        if (last_ != UINT32_MAX && last_high_ == high && last_low_ == low) return last_;
        const auto [it, added] = ids_.try_emplace(Packed{high, low}, static_cast<std::uint32_t>(channels_.size()));
        if (added) {
            if (channels_.size() >= (std::size_t{1} << 29))  // MessageSide::channel has 29 bits
                throw std::length_error("more than 2^29 message channels on one analysis rank");
            channels_.push_back({comm, source, destination, tag});
            next_seq_.push_back(0);
        }
        last_high_ = high;
        last_low_ = low;
        return last_ = it->second;
    }
    const MessageChannel& operator[](std::uint32_t id) const { return channels_[id]; }
    std::size_t size() const { return channels_.size(); }
    /// The next sequence number of channel `id` (how many it has given out).
    std::uint64_t& next_seq(std::uint32_t id) { return next_seq_[id]; }
    std::uint64_t given(std::uint32_t id) const { return next_seq_[id]; }

private:
    struct Packed {
        std::uint64_t high, low;
        bool operator==(const Packed& o) const { return high == o.high && low == o.low; }
    };
    struct PackedHash {
        std::size_t operator()(const Packed& p) const {
            return static_cast<std::size_t>((p.high * 0x9E3779B97F4A7C15ull) ^ (p.low * 0xC2B2AE3D27D4EB4Full));
        }
    };
    std::vector<MessageChannel> channels_;
    std::vector<std::uint64_t> next_seq_;
    std::unordered_map<Packed, std::uint32_t, PackedHash> ids_;
    std::uint64_t last_high_ = 0, last_low_ = 0;
    std::uint32_t last_ = UINT32_MAX;
};

/// One side (send or receive) of a point-to-point message: 64 bytes, since a
/// rank's share may hold millions of them (most of the replay's memory).
struct MessageSide {
    Ticks post = no_time;         ///< E of the posting call
    Ticks event = no_time;        ///< the MpiSend/MpiIsend or MpiRecv/MpiIrecv event itself
    Ticks block_enter = no_time;  ///< E of the blocking call (no_time: never completed in a recorded call)
    Ticks block_exit = no_time;   ///< X of the blocking call
    std::uint64_t block = 0;      ///< the blocking call instance (unique in the share), groups Waitall
    std::uint64_t position = 0;   ///< event position of the post, for ordering
    std::uint32_t seq = 0;        ///< in its channel (number_records())
    std::uint32_t channel : 29;   ///< in ShareRecords::send_channels or receive_channels
    std::uint32_t cancelled : 1;
    /// Posted by the blocking call itself (MPI_Send, MPI_Recv, MPI_Sendrecv), not
    /// by an earlier MPI_Isend or MPI_Irecv that a wait completes.
    std::uint32_t posted_in_call : 1;
    std::uint32_t send_receive : 1;  ///< a send of MPI_Sendrecv(_replace)
    std::uint32_t callpath = 0;  ///< of the blocking call (CallPaths index)
    std::uint32_t location = 0;  ///< index in TraceDefinitions::locations

    MessageSide() : channel(0), cancelled(0), posted_in_call(0), send_receive(0) {}
};

/// Memory in whole, aligned 2 MiB pieces, which the kernel can back with one
/// huge page each (RecordList asks for that).  Mapped directly: through
/// malloc, the alignment left slack in the heap that cost a tenth more
/// resident memory.
template <typename T>
struct HugePageAllocator {
    using value_type = T;
    static constexpr std::size_t kPiece = std::size_t{2} << 20;
    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) {}
    static std::size_t bytes_for(std::size_t n) { return (n * sizeof(T) + kPiece - 1) / kPiece * kPiece; }
    T* allocate(std::size_t n) {
        const std::size_t bytes = bytes_for(n);
        // Map one piece more and unmap what lies outside the aligned range.
        void* mapped = mmap(nullptr, bytes + kPiece, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) throw std::bad_alloc();
        auto* start = static_cast<char*>(mapped);
        auto* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(start) + kPiece - 1) & ~(kPiece - 1));
        if (aligned != start) munmap(start, static_cast<std::size_t>(aligned - start));
        const std::size_t tail = static_cast<std::size_t>(start + bytes + kPiece - (aligned + bytes));
        if (tail != 0) munmap(aligned + bytes, tail);
        return reinterpret_cast<T*>(aligned);
    }
    void deallocate(T* p, std::size_t n) { munmap(p, bytes_for(n)); }
    template <typename U>
    bool operator==(const HugePageAllocator<U>&) const { return true; }
    template <typename U>
    bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

/// A list of records that grows in blocks of 2 MiB: growth never copies what
/// is stored nor touches its memory twice (a vector's doubling did both, and
/// its page faults and copies were a tenth of the replay), and references stay
/// valid.  From the second block on, a block is advised as a huge page
/// (transparent huge pages in "madvise" mode, Debian's default): a million
/// records then cost a few dozen page faults instead of tens of thousands, and
/// fewer TLB misses when they are matched; a short list keeps small pages.
template <typename T>
class RecordList {
public:
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T& operator[](std::size_t i) { return blocks_[i >> block_bits][i & (block_size - 1)]; }
    const T& operator[](std::size_t i) const { return blocks_[i >> block_bits][i & (block_size - 1)]; }
    void push_back(const T& value) {
        if ((size_ & (block_size - 1)) == 0) {
            blocks_.emplace_back();
            blocks_.back().reserve(block_size);
#ifdef MADV_HUGEPAGE
            if (blocks_.size() > 1) madvise(blocks_.back().data(), block_size * sizeof(T), MADV_HUGEPAGE);  // a hint
#endif
        }
        blocks_.back().push_back(value);
        ++size_;
    }

private:
    static_assert(sizeof(T) <= HugePageAllocator<T>::kPiece && (sizeof(T) & (sizeof(T) - 1)) == 0,
                  "a block is one 2 MiB piece of records whose size is a power of two");
    static constexpr std::size_t block_bits = __builtin_ctzll(HugePageAllocator<T>::kPiece / sizeof(T));
    static constexpr std::size_t block_size = std::size_t{1} << block_bits;
    std::vector<std::vector<T, HugePageAllocator<T>>> blocks_;
    std::size_t size_ = 0;
};

/// One rank's part in a collective operation.
struct CollectiveCall {
    std::uint32_t comm = 0;
    std::uint64_t seq = 0;   ///< per (rank, communicator), in the rank's order
    std::uint32_t rank = 0;  ///< world rank
    std::uint32_t op = 0;    ///< OTF2_CollectiveOp
    std::int64_t root = -1;  ///< world rank of the root, -1 for none
    Ticks enter = no_time, exit = no_time;
    std::uint32_t callpath = 0;
    std::uint32_t location = 0;
    std::uint64_t position = 0;
};

/// MPI_Finalize, which MPI makes collective over all ranks: each rank's call
/// is a CollectiveCall of this pseudo communicator and operation
/// (ShareRecords::finalize_calls), numbered 0.
inline constexpr std::uint32_t finalize_communicator = UINT32_MAX - 1;
inline constexpr std::uint32_t finalize_operation = UINT32_MAX - 1;

/// The call paths seen by one analysis rank: (parent, region) interned.
class CallPaths {
public:
    /// The call path of `region` below `parent` (none_id for a root).
    std::uint32_t child(std::uint32_t parent, std::uint32_t region, const std::string& region_name) {
        const std::uint64_t key = key_of(parent, region);
        auto& slot = recent_[slot_of(key)];
        if (slot.first == key + 1) return slot.second;  // inline: every Enter asks
        return lookup(key, parent, region_name, slot);
    }
    /// child() when it is among the recent ones (no call); false otherwise.
    bool cached(std::uint32_t parent, std::uint32_t region, std::uint32_t* id) const {
        const std::uint64_t key = key_of(parent, region);
        const auto& slot = recent_[slot_of(key)];
        if (slot.first != key + 1) return false;
        *id = slot.second;
        return true;
    }
    /// Its name, "main/compute/MPI_Recv" (bounded for deep call paths, as a profile's).
    std::string name(std::uint32_t id) const { return names_.name(id); }

    static constexpr std::uint32_t none_id = UINT32_MAX;

private:
    static std::uint64_t key_of(std::uint32_t parent, std::uint32_t region) {
        // none_id + 1 wraps to 0, so roots and children never share a key.
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(parent + 1)) << 32 | region;
    }
    static std::size_t slot_of(std::uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 56; }
    std::uint32_t lookup(std::uint64_t key, std::uint32_t parent, const std::string& region_name,
                         std::pair<std::uint64_t, std::uint32_t>& slot);
    std::unordered_map<std::uint64_t, std::uint32_t> ids_;  ///< (parent + 1) << 32 | region -> id
    PathNames names_;
    /// A direct-mapped cache in front of ids_ (every Enter looks up its call
    /// path; a loop visits the same few): key + 1 (0 = empty) and id.
    std::array<std::pair<std::uint64_t, std::uint32_t>, 256> recent_{};
};

/// A kernel, copy or memset on a GPU stream (a CUDA region entered and left there).
struct GpuOp {
    std::uint32_t location = 0;  ///< index in TraceDefinitions::locations (the stream)
    std::uint32_t region = 0;
    Ticks start = 0, end = 0;
    std::uint64_t correlation = 0;  ///< CUDA_CORRELATION_ID of its Enter, 0 none
};

/// A host region whose Enter carried a correlation id: the launch of a GPU operation.
struct LaunchRecord {
    std::uint32_t rank = 0;
    std::uint32_t callpath = 0;
    std::uint64_t correlation = 0;
    Ticks time = 0;              ///< its Enter, for the launch flow in trace.json
    std::uint32_t location = 0;  ///< the host thread (index in TraceDefinitions::locations)
    /// The innermost op region open at the launch (op_analysis.hpp): its call path and region;
    /// op_callpath UINT32_MAX: none.
    std::uint32_t op_callpath = UINT32_MAX;
    std::uint32_t op_region = 0;
};

/// The GPU metrics of experiment-format.md "GPU metrics over time", in its table's order.
inline constexpr std::size_t gpu_metric_count = 5;

/// One sample of a GPU metric location (gpu_metrics.hpp): the values NVML
/// could read at one time; an absent value is not 0.
struct GpuSample {
    std::uint32_t location = 0;  ///< index in TraceDefinitions::locations
    std::uint32_t sequence = 0;  ///< its place among the location's samples
    Ticks time = 0;
    std::uint8_t present = 0;  ///< bit m: values[m] was recorded
    std::array<std::uint64_t, gpu_metric_count> values{};
};

/// One instance of an op region (op_analysis.hpp) on a CPU thread.
struct OpInstance {
    std::uint32_t rank = 0;
    std::uint32_t region = 0;
    std::uint32_t callpath = 0;
    Ticks enter = 0, exit = 0;
};

/// A region's Enter events on one rank's CPU threads (the candidates for a key region).
struct RegionVisits {
    std::uint64_t calls = 0;
    Ticks first = no_time;  ///< the first Enter
    Ticks last = no_time;   ///< the last Enter
    /// The times between consecutive Enters on one location: how many, their sum and
    /// the sum of their squares (ticks), for how regularly the region recurs.
    std::uint64_t gaps = 0;
    double gap_sum = 0, gap_squares = 0;
};

/// What the iteration analysis needs of one measured rank.
struct RankIterationRecords {
    /// Leaves of the key region per CPU location (index in TraceDefinitions::locations), in time order.
    std::map<std::uint32_t, std::vector<Ticks>> key_ends;
    Ticks first = no_time, last = no_time;  ///< the rank's first and last timestamps (CPU threads)
    /// Per region: Enter events on the rank's CPU threads, the first and the last Enter time.
    std::map<std::uint32_t, RegionVisits> visits;
};

/// One lane of report.html's timeline as a share replays it (timeline_overview.hpp).
struct TimelineLaneRecord {
    std::uint32_t lane = 0;
    std::vector<std::int64_t> ticks;  ///< time per bin and class: bins x lane_class_count
    std::uint64_t slices = 0;         ///< of the window, kept
    std::uint64_t slices_left_out = 0;
    Ticks detail_end = no_time;  ///< the end of the first instance left out
};

/// A region instance of the timeline's window.
struct TimelineSliceRecord {
    std::uint32_t lane = 0, region = 0;
    Ticks enter = 0, exit = 0;
};

/// A message's send or receive in the timeline's window (paired by `id` on rank 0).
struct TimelineFlowRecord {
    std::uint64_t id = 0;
    std::uint32_t lane = 0;
    std::uint32_t start = 0;  ///< 1: the send
    Ticks time = 0;
};

/// Counts of what could not be used, for the report.
struct ReplayCounts {
    std::uint64_t events = 0;        ///< events used (Enter, Leave, MPI); other kinds are skipped
    std::uint64_t unresolved = 0;    ///< MPI events naming an unknown communicator or rank
    std::uint64_t unbalanced = 0;    ///< leaves without a matching enter
    std::uint64_t unterminated = 0;  ///< regions still open at the end of a location
};

/// Everything a replay of one analysis rank's share keeps.
struct ShareRecords {
    RecordList<MessageSide> sends, receives;
    MessageChannels send_channels, receive_channels;
    std::vector<CollectiveCall> collectives;
    /// Each rank's MPI_Finalize (apart from `collectives`: the logical clock
    /// does not take it as a synchronisation, which MPI does not promise).
    std::vector<CollectiveCall> finalize_calls;
    CallPaths callpaths;
    std::map<std::uint32_t, Ticks>
        mpi_time;  ///< world rank -> time in outermost MPI calls (not Init/Finalize)
    ReplayCounts counts;
    std::vector<std::string> skipped;       ///< per location that could not be read (fully), why
    std::vector<std::string> timeline_cut;  ///< per location whose timeline (trace.json) was cut, where
    std::vector<std::string> trace_stops;   ///< per location whose trace stops early (measurement off), where
    std::uint64_t next_block = 1;

    std::vector<char>
        key_region;  ///< per region: is the key region of the iterations (set before the replay)
    bool keep_mpi_intervals = false;  ///< an iteration range was asked for: keep mpi_intervals (set before)
    /// The trace has GPU streams: keep op_instances (the ops report; set before the replay).
    bool keep_op_instances = false;
    std::vector<std::pair<Ticks, Ticks>>
        mpi_intervals;  ///< outermost MPI calls [E, X), to cut mpi_time later
    /// The world rank of each of mpi_intervals (the step trace cuts them per rank and iteration).
    std::vector<std::uint32_t> mpi_interval_ranks;
    std::map<std::uint32_t, RankIterationRecords> iterations;  ///< world rank ->
    std::vector<GpuOp> gpu_ops;                                ///< of the share's GPU streams
    std::vector<LaunchRecord> launches;                        ///< host regions carrying a correlation id
    std::vector<OpInstance> op_instances;                      ///< op regions left on CPU threads
    std::vector<GpuSample> gpu_samples;                        ///< of the share's GPU metric locations
    bool timeline_recorded = false;                            ///< report.html's timeline (with trace.json)
    std::vector<TimelineLaneRecord> timeline_lanes;
    std::vector<TimelineSliceRecord> timeline_slices;
    std::vector<TimelineFlowRecord> timeline_flows;
};

/// The matching key of a send (`send`) or receive of `records`.
inline MessageKey message_key(const ShareRecords& records, const MessageSide& side, bool send) {
    const MessageChannel& c = (send ? records.send_channels : records.receive_channels)[side.channel];
    return MessageKey{c.comm, c.source, c.destination, c.tag, side.seq};
}

/// Where a rank's records start in ShareRecords (its locations are replayed one after the other).
struct RecordMarks {
    std::size_t sends = 0, receives = 0, collectives = 0, launches = 0, gpu_ops = 0;
};

/// The current ends of the record lists.
RecordMarks record_marks(const ShareRecords& records);

/// Gives the message sides and collective calls recorded since `from` (one
/// rank's, all its locations read) their sequence numbers: per (communicator,
/// source, destination, tag) in posting order, per (rank, communicator) in
/// call order; order = (time, location, event position).
void number_records(ShareRecords& records, const RecordMarks& from);

}  // namespace strata::analysis::trace
