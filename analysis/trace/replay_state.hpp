// SPDX-License-Identifier: BSD-3-Clause
// The state of one location's replay (location_replay.cpp) and the helpers
// its callbacks share with the message and collective events
// (replay_messages.cpp).  Internal to the trace analysis.
#pragma once

#include <otf2/otf2.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/clock_correction.hpp"
#include "trace/location_replay.hpp"

namespace strata::analysis::trace::replay {

/// An open region.
struct Frame {
    std::uint32_t region = 0;
    std::uint32_t callpath = 0;
    Ticks enter = 0;
    std::uint64_t block = 0;        ///< instance id, given when a record needs it
    std::uint64_t correlation = 0;  ///< CUDA_CORRELATION_ID of the Enter (GPU streams), 0 none
    std::size_t pending_from = 0;   ///< its records waiting for X start here in Replay::pending
    bool mpi_outermost = false;
};

/// The open regions, innermost last.  It grows only in push_growing(), so
/// that the usual Enter (push() while has_room()) makes no call.
class FrameStack {
public:
    bool empty() const { return depth_ == 0; }
    std::size_t size() const { return depth_; }
    Frame& back() { return frames_[depth_ - 1]; }
    const Frame& operator[](std::size_t i) const { return frames_[i]; }  ///< 0: the outermost
    bool has_room() const { return depth_ < room_; }
    /// A frame to fill (every field: it may hold an earlier one's); has_room() must be true.
    Frame& push() { return frames_[depth_++]; }
    Frame& push_growing() {
        if (!has_room()) {
            frames_.resize(std::max<std::size_t>(16, 2 * frames_.size()));
            room_ = frames_.size();  // kept apart: size() divides by sizeof(Frame)
        }
        return push();
    }
    void pop() { --depth_; }

private:
    std::vector<Frame> frames_;
    std::size_t depth_ = 0, room_ = 0;
};

/// A region's Enter events on a CPU thread (the iteration candidates).
struct Visits {
    std::uint64_t calls = 0;
    Ticks first = no_time, last = no_time;
    double gap_squares = 0;  ///< the squares of the times between consecutive Enters (regularity)
};

/// A record waiting for the X of the innermost open region.
struct Pending {
    enum Kind : std::uint8_t { send, receive, collective } kind;
    std::size_t index;
};

/// The state of one location's replay, passed to OTF2 as user data.
struct Replay {
    const TraceDefinitions* defs = nullptr;
    ShareRecords* out = nullptr;
    std::uint32_t location = 0;
    std::uint32_t rank = 0;
    ClockCorrection clock;
    FrameStack stack;
    /// Records wait only for the innermost region, so the waiting ones of
    /// all open frames form one stack (no vector per frame).
    std::vector<Pending> pending;
    std::uint64_t events = 0;  ///< added to ShareRecords::counts at the end
    Ticks mpi_time = 0;        ///< in outermost MPI calls, added to ShareRecords::mpi_time at the end
    bool any_mpi_time = false;
    std::vector<Ticks>* key_ends = nullptr;  ///< the location's, once the key region was left
    /// The location's mapping tables of regions and communicators, local id
    /// -> global id (ids past the end map to themselves), applied here: OTF2
    /// looks its tables up for every event, a fifth of its decoding.
    std::vector<std::uint32_t> region_map, comm_map;
    bool otf2_maps = false;    ///< a table of another kind (or an odd one): OTF2 applies them all
    std::size_t open_mpi = 0;  ///< open MPI regions that count as MPI time
    std::map<std::uint64_t, std::pair<Ticks, std::uint64_t>> irecv_posts;  ///< request -> (E, position)
    std::map<std::uint64_t, std::size_t> isends;                           ///< request -> index in sends
    Ticks last = 0;
    std::string problem;
    TimelineWriter* timeline = nullptr;
    /// Per region, what its Enter and Leave do here (RegionFlag bits), computed once: one load per event.
    std::vector<std::uint16_t> region_flags;
    bool gpu = false;               ///< the location is a GPU stream
    bool want_correlation = false;  ///< the trace defines CUDA_CORRELATION_ID: an Enter's attributes are read
    std::vector<Visits> visits;     ///< per region (CPU threads)
    Ticks first = no_time;
    RankIterationRecords* iterations = nullptr;  ///< the rank's (CPU threads)
    Ticks measurement_off = no_time;             ///< the first MeasurementOnOff(off): the trace stops there
};

enum RegionFlag : std::uint16_t {
    counts_as_mpi = 1,   ///< counts as MPI time (counts_as_mpi_time())
    gpu_operation = 2,   ///< a kernel, copy or memset, on a GPU stream
    key_end = 4,         ///< the key region of the iterations, on a CPU thread
    mpi_call = 8,        ///< an MPI function (paradigm MPI): a message or collective event belongs to it
    send_receive = 16,   ///< MPI_Sendrecv(_replace): one waiting site, never a late receiver
    op_region = 32,      ///< an op (NVTX range or user region, op_analysis.hpp), on a CPU thread
    finalize_call = 64,  ///< MPI_Finalize on a CPU thread (its wait, wait_state_patterns.hpp)
    timeline_slice = 128,  ///< every region, when trace.json and report.html's timeline are written
    mpi_interval = 256,    ///< an MPI region counting as MPI time, when the outermost calls' intervals are kept
};

inline Replay& state(void* user) {
    return *static_cast<Replay*>(user);
}

inline std::uint32_t mapped(const std::vector<std::uint32_t>& map, std::uint32_t id) {
    return id < map.size() ? map[id] : id;
}

/// MPI time is communication and synchronisation: MPI start-up and shut-down
/// and file I/O (MPI-IO) are not (as in the profile's time classes).
inline bool counts_as_mpi_time(const TraceRegion& r) {
    return r.paradigm == OTF2_PARADIGM_MPI && r.name != "MPI_Init" && r.name != "MPI_Init_thread" &&
           r.name != "MPI_Finalize" && r.role != OTF2_REGION_ROLE_FILE_IO && r.name.rfind("MPI_File_", 0) != 0;
}

/// Kernels (role FUNCTION), copies and memsets (role DATA_TRANSFER) of paradigm CUDA.
inline bool is_gpu_operation(const TraceRegion& r) {
    return r.paradigm == OTF2_PARADIGM_CUDA &&
           (r.role == OTF2_REGION_ROLE_FUNCTION || r.role == OTF2_REGION_ROLE_DATA_TRANSFER);
}

/// The MPI call a message or collective event happens in, given a block id;
/// nullptr when the innermost open region is not an MPI call (none, or the
/// program's own: the call was not recorded, e.g. excluded by a filter file),
/// so the event stands alone at its own time.
inline Frame* blocking_frame(Replay& s) {
    if (s.stack.empty() || (s.region_flags[s.stack.back().region] & mpi_call) == 0) return nullptr;
    Frame& f = s.stack.back();
    if (f.block == 0) f.block = s.out->next_block++;
    return &f;
}

/// Fills the blocking call of `side` from the innermost region, or from the event alone.
inline void set_block(Replay& s, MessageSide& side, Ticks time, Pending::Kind kind, std::size_t index) {
    if (Frame* f = blocking_frame(s)) {
        side.block_enter = f->enter;
        side.block = f->block;
        side.callpath = f->callpath;
        s.pending.push_back({kind, index});
    } else {
        side.block_enter = side.block_exit = time;
        side.block = s.out->next_block++;
        side.callpath = s.out->callpaths.child(CallPaths::none_id, UINT32_MAX - 1, outside_any_region);
    }
}

/// The enter of the MPI call an event happens in (see blocking_frame), else the event's own time.
inline Ticks enter_or(Replay& s, Ticks time) {
    return s.stack.empty() || (s.region_flags[s.stack.back().region] & mpi_call) == 0 ? time
                                                                                     : s.stack.back().enter;
}

/// The world ranks of a point-to-point event; false (and counted) when they cannot be resolved.
inline bool resolve_peer(Replay& s, OTF2_CommRef comm, uint32_t peer, std::uint32_t* world) {
    const std::int64_t w = s.defs->world_rank(comm, peer);
    if (w < 0) {
        ++s.out->counts.unresolved;
        return false;
    }
    *world = static_cast<std::uint32_t>(w);
    return true;
}

// The message and collective events (replay_messages.cpp), as OTF2's reader calls them.
OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t);
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t,
                           uint64_t request);
OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                                    OTF2_AttributeList*, uint64_t request);
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                                   OTF2_AttributeList*, uint64_t request);
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t);
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t,
                           uint64_t request);
OTF2_CallbackCode on_cancelled(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user, OTF2_AttributeList*,
                               uint64_t request);
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                                    OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t, uint64_t);

}  // namespace strata::analysis::trace::replay
