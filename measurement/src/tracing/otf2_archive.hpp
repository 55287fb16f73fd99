// SPDX-License-Identifier: BSD-3-Clause
// The OTF2 archive of the run: event writers per location, global definitions.
//
// Trace buffers (event_buffer.hpp) are converted into OTF2 event records here,
// on a flush and at the end.  The conversion keeps every location's events
// well nested whatever happened before (lost records, crashes): a leave that
// does not match the open region is skipped and counted, regions still open
// at the end are closed at the end time.
#pragma once

#include <otf2/otf2.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock_sync.hpp"
#include "core/unification.hpp"
#include "strata/measurement/process_group.hpp"
#include "tracing/event_buffer.hpp"
#include "tracing/otf2_event_file.hpp"

namespace strata::tracing {

/// LocationDefinition::device of a location that is not a GPU stream.
constexpr std::uint32_t kNoDevice = UINT32_MAX;

/// The global attribute that joins CUDA work to its launch (experiment-format.md);
/// GpuAttribute a is the global attribute 1 + a.
constexpr OTF2_AttributeRef kCorrelationAttribute = 0;
inline OTF2_AttributeRef gpu_attribute_ref(std::uint32_t attribute) { return 1 + attribute; }

/// The metric class of DeviceMetric `metric`: one class per device metric,
/// after the counters' class 0 when there are counters (experiment-format.md).
inline OTF2_MetricRef device_metric_class(bool counters, std::uint32_t metric) {
    return (counters ? 1 : 0) + metric;
}

/// OTF2's paradigm of ours (definitions and the ThreadFork/Join records).
OTF2_Paradigm to_otf2(Paradigm paradigm);

/// `code` as one line for a message: its name and description, and the first
/// message OTF2 reported since the last call (for a failed write, the system's
/// error that caused it, such as "No space left on device").
std::string describe_otf2_error(OTF2_ErrorCode code);

/// What the converter keeps per location between flushes.
struct Otf2LocationState {
    std::unique_ptr<Otf2EventFile> file;  ///< made at the first conversion
    std::uint32_t location_index = 0;  ///< Location::index (the OTF2 id adds the rank)
    std::uint64_t events = 0;            ///< OTF2 events written
    std::uint64_t skipped_leaves = 0;    ///< leaves without a matching enter (lost records)
    std::vector<std::uint64_t> open;     ///< regions open at the end of the last conversion
    Ticks last_time = 0;
    std::vector<std::uint64_t> last_metrics;  ///< the counters of the last metric record (none: empty)
    /// A gpu_attributes record's (GpuAttribute, value) pairs, for the next enter_correlated record.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> pending_attributes;
};

class Otf2Archive {
public:
    Otf2Archive() = default;
    ~Otf2Archive();
    Otf2Archive(const Otf2Archive&) = delete;
    Otf2Archive& operator=(const Otf2Archive&) = delete;

    /// Opens `<directory>/traces.otf2` (once; later calls return the first result).
    /// With a process group (MPI), every rank opens it together (collective) and
    /// writes the event files of its own locations.  The error says why not.
    Error open(const std::string& directory, std::uint64_t chunk_size, events::ProcessGroup* group, int rank);
    bool is_open() const { return archive_ != nullptr; }
    /// Opened by all ranks together (its closing is collective).
    bool is_collective() const { return group_ != nullptr && archive_ != nullptr; }

    /// The OTF2 location id of this process's location `index`: the rank in the
    /// upper 32 bits, so that ids are unique in the job.
    std::uint64_t location_id(std::uint32_t index) const { return (static_cast<std::uint64_t>(rank_) << 32) | index; }

    /// Converts `buffer` into the location's OTF2 event writer, at most
    /// `max_records` of its records (the others are left out; `*converted`
    /// says how many were written when given); the error says what failed.
    Error convert(Otf2LocationState& state, const EventBuffer& buffer, std::uint64_t max_records = UINT64_MAX,
                  std::uint64_t* converted = nullptr);

    /// Closes the regions still open at `end` (end of run).
    Error close_open_regions(Otf2LocationState& state, Ticks end);

    /// The location's trace stops here (STRATA_TRACE_MAX_SIZE): a MeasurementOnOff
    /// event (off) at its last event's time, and the regions open then end there.
    Error stop(Otf2LocationState& state);

    /// The bytes of the location's event file on disk so far (0: none yet).
    std::uint64_t event_file_bytes(const Otf2LocationState& state) const;

    /// Closes the location's event writer once its last events are written: its
    /// chunk buffers (1 MiB) are freed now, not at finish(), which matters for a
    /// program that ran thousands of threads.
    Error close_writer(Otf2LocationState& state);
    /// Goes on with `state`, whose event file another archive of this process
    /// began (a rank's share of the job's archive, which it finishes alone):
    /// the file moves into this archive's traces/ and its events, open
    /// regions and chunks continue there.  Call after open().
    Error adopt(Otf2LocationState& state);

    struct LocationDefinition {
        std::uint64_t id;
        std::string name;
        std::uint64_t events;
        /// A GPU stream's or GPU metric location's CUDA device (the location
        /// property CUDA_DEVICE); kNoDevice for a thread.
        std::uint32_t device = kNoDevice;
        /// A location of GPU metric samples (OTF2_LOCATION_TYPE_METRIC).
        bool metric = false;
    };
    /// Writes the local definitions (id mappings) of this process's locations,
    /// rank 0 writes the global definitions of all ranks, and the archive is
    /// closed.  Collective with a process group.
    Error finish(const unification::Unified& defs, const std::vector<LocationDefinition>& locations,
                 Ticks end, const std::vector<clock_sync::Point>& clock_points);

private:
    std::mutex mutex_;
    OTF2_Archive* archive_ = nullptr;
    std::string directory_;  ///< the experiment directory, where traces/ is
    Error open_error_;
    bool open_tried_ = false;
    std::uint64_t chunk_size_ = 1 << 20;  ///< of the event files, as the anchor states it
    /// OTF2's own event writers: only the empty placeholder locations of a rank
    /// that finishes alone (the others' files are Otf2EventFile's).
    std::vector<OTF2_EvtWriter*> writers_;
    events::ProcessGroup* group_ = nullptr;
    int rank_ = 0;
    /// A write failed (a full disk): OTF2 cannot be called on this archive any more.
    std::atomic<bool> write_failed_{false};
    Error write_error_;  ///< the first failure (under mutex_)
    /// The attributes events carried: bit 0 kCorrelationAttribute, bit 1 + a GpuAttribute a.
    std::atomic<std::uint32_t> attributes_used_{0};

    /// Notes that an OTF2 write returned `code`; returns its description.
    Error failed(OTF2_ErrorCode code);
    /// Notes that a write failed with `error`; returns it.
    Error failed(const std::string& error);
    Error earlier_failure();
    /// The location's event file, made on first use.
    Otf2EventFile& event_file(Otf2LocationState& state);
    /// Writes out what the location's file holds; the error is the (noted) failure.
    Error written_out(Otf2LocationState& state);

    Error write_local_definitions(const unification::Unified& defs,
                                  const std::vector<LocationDefinition>& locations,
                                  const std::vector<clock_sync::Point>& clock_points);
};

}  // namespace strata::tracing
