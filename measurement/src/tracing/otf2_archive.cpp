// SPDX-License-Identifier: BSD-3-Clause
// OTF2 archive: opening, errors, local definitions and the end (the
// conversion of trace buffers into event files: otf2_conversion.cpp; the
// global definitions rank 0 writes: otf2_global_definitions.cpp).
#include "tracing/otf2_archive.hpp"

#include <otf2/OTF2_Pthread_Locks.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/host_name.hpp"
#include "core/timer.hpp"
#include "tracing/otf2_collectives.hpp"
#include "tracing/otf2_event_file.hpp"
#include "tracing/otf2_global_definitions.hpp"

namespace strata::tracing {

namespace {

// OTF2 flushes a writer's chunks to disk when our allocator refuses a chunk.
// Bounding the chunks per buffer bounds OTF2's memory during conversion.
constexpr int kChunksPerBuffer = 2;

struct ChunkList {
    void* chunks[kChunksPerBuffer];
    int count;
};

void* allocate_chunk(void*, OTF2_FileType, OTF2_LocationRef, void** per_buffer, uint64_t size) {
    auto* list = static_cast<ChunkList*>(*per_buffer);
    if (list == nullptr) {
        list = static_cast<ChunkList*>(std::calloc(1, sizeof(ChunkList)));
        if (list == nullptr) return nullptr;
        *per_buffer = list;
    }
    if (list->count == kChunksPerBuffer) return nullptr;  // OTF2 flushes, then frees all
    void* chunk = std::malloc(size);
    if (chunk != nullptr) list->chunks[list->count++] = chunk;
    return chunk;
}

void free_chunks(void*, OTF2_FileType, OTF2_LocationRef, void** per_buffer, bool final) {
    auto* list = static_cast<ChunkList*>(*per_buffer);
    if (list == nullptr) return;
    for (int i = 0; i < list->count; ++i) std::free(list->chunks[i]);
    list->count = 0;
    if (final) {
        std::free(list);
        *per_buffer = nullptr;
    }
}

const OTF2_MemoryCallbacks kMemoryCallbacks = {allocate_chunk, free_chunks};

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
// No post-flush callback: OTF2 then writes no BufferFlush records of its own;
// our flushes are recorded as the region STRATA_TRACE_BUFFER_FLUSH instead.
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, nullptr};

/// OTF2 reports its errors through this callback instead of printing them
/// (several lines for one failed write): the first message since the last
/// describe_otf2_error() is kept, for the one message Strata prints.
std::mutex g_otf2_message_mutex;
std::string g_otf2_message;
OTF2_ErrorCode g_otf2_first_code = OTF2_SUCCESS;

OTF2_ErrorCode keep_otf2_message(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                                 va_list arguments) {
    char text[512] = "";
    if (format != nullptr) std::vsnprintf(text, sizeof text, format, arguments);
    std::lock_guard<std::mutex> lock(g_otf2_message_mutex);
    if (g_otf2_message.empty() && g_otf2_first_code == OTF2_SUCCESS) {
        g_otf2_message = text;
        g_otf2_first_code = code;
    }
    return code;
}

/// True for the codes OTF2 makes of the system's errno (named by their number).
bool system_error(OTF2_ErrorCode code) {
    const std::string name = OTF2_Error_GetName(code);
    return !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string describe_otf2_error(OTF2_ErrorCode code) {
    std::string message;
    OTF2_ErrorCode first = OTF2_SUCCESS;
    {
        std::lock_guard<std::mutex> lock(g_otf2_message_mutex);
        message.swap(g_otf2_message);
        std::swap(first, g_otf2_first_code);
    }
    // A failed write reaches Strata as INTEGRITY_FAULT or PROCESSED_WITH_FAULTS;
    // the system's error that caused it ("No space left on device") came first.
    if (first != OTF2_SUCCESS && system_error(first) && !system_error(code)) code = first;
    // OTF2 names the errors of the system by their number alone: the description then suffices.
    const bool number = system_error(code);
    std::string text = (number ? "" : std::string(OTF2_Error_GetName(code)) + ": ") + OTF2_Error_GetDescription(code);
    if (!message.empty()) text += " (" + message + ")";
    return text;
}

OTF2_Paradigm to_otf2(Paradigm p) {
    switch (p) {
        case Paradigm::user: return OTF2_PARADIGM_USER;
        case Paradigm::compiler: return OTF2_PARADIGM_COMPILER;
        case Paradigm::mpi: return OTF2_PARADIGM_MPI;
        case Paradigm::openmp: return OTF2_PARADIGM_OPENMP;
        case Paradigm::cuda: return OTF2_PARADIGM_CUDA;
        case Paradigm::measurement: return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
        case Paradigm::unknown: break;
    }
    return OTF2_PARADIGM_UNKNOWN;
}

Otf2Archive::~Otf2Archive() {
    // Not after a failed write: closing flushes OTF2's broken buffers (see finish()).
    if (archive_ != nullptr && !write_failed_.load()) OTF2_Archive_Close(archive_);
}

Error Otf2Archive::open(const std::string& directory, std::uint64_t chunk_size, events::ProcessGroup* group,
                        int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_tried_) return open_error_;
    open_tried_ = true;
    group_ = group;
    rank_ = rank;
    directory_ = directory;
    static const bool quiet = (OTF2_Error_RegisterCallback(keep_otf2_message, nullptr), true);
    (void)quiet;
    // OTF2 chunks must be at least 256 KiB and at most 16 MiB.
    chunk_size = std::min<std::uint64_t>(std::max<std::uint64_t>(chunk_size, 256 << 10), 16 << 20);
    chunk_size_ = chunk_size;
    // Definition chunks of OTF2's smallest size: OTF2 clears the unused rest of a
    // chunk when it writes one, and every location's .def file is one chunk
    // (4 MiB chunks made that 4 ms a location: 8 s for a program that ran 2000 threads).
    archive_ = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, chunk_size,
                                 256 << 10, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive_ == nullptr) {
        open_error_ = "cannot create the OTF2 archive in '" + directory + "'";
        return open_error_;
    }
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetMemoryCallbacks(archive_, &kMemoryCallbacks, nullptr);
    if (rc == OTF2_SUCCESS) {
        rc = group != nullptr ? OTF2_Archive_SetCollectiveCallbacks(archive_, &process_group_collectives(), group,
                                                                    nullptr, nullptr)
                              : OTF2_Archive_SetSerialCollectiveCallbacks(archive_);
    }
    if (rc == OTF2_SUCCESS) rc = OTF2_Pthread_Archive_SetLockingCallbacks(archive_, nullptr);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetCreator(archive_, "Strata " STRATA_VERSION);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetDescription(archive_, "Strata measurement");
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_OpenEvtFiles(archive_);
    if (rc != OTF2_SUCCESS) {
        open_error_ = "cannot set up the OTF2 archive in '" + directory + "': " + describe_otf2_error(rc);
        OTF2_Archive_Close(archive_);
        archive_ = nullptr;
    }
    return open_error_;
}

Error Otf2Archive::failed(OTF2_ErrorCode code) {
    return failed(describe_otf2_error(code));
}

Error Otf2Archive::failed(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!write_error_) write_error_ = error;
    write_failed_.store(true, std::memory_order_release);
    return error;
}

Error Otf2Archive::earlier_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return "nothing more is written after an earlier failure: " + write_error_.message();
}

namespace {

bool is_identity(const std::vector<std::uint32_t>& map, std::size_t offset) {
    for (std::size_t i = 0; i < map.size(); ++i) {
        if (map[i] != i - offset) return false;
    }
    return true;
}

}  // namespace

Error Otf2Archive::write_local_definitions(const unification::Unified& defs,
                                           const std::vector<LocationDefinition>& locations,
                                           const std::vector<clock_sync::Point>& clock_points) {
    // Events carry local references: region and parameter handle - 1, string
    // handles as they are.  The mapping tables turn them into global ids.
    std::vector<std::uint64_t> regions(defs.region_map.begin(), defs.region_map.end());
    std::vector<std::uint64_t> parameters(defs.parameter_map.begin(), defs.parameter_map.end());
    std::vector<std::uint64_t> strings(defs.string_map.begin(), defs.string_map.end());
    std::vector<std::uint64_t> communicators(defs.communicator_map.begin(), defs.communicator_map.end());
    const bool identity = is_identity(defs.region_map, 0) && is_identity(defs.parameter_map, 0) &&
                          is_identity(defs.string_map, 0) && is_identity(defs.communicator_map, 0);
    Error error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && !error) error = std::string(what) + ": " + describe_otf2_error(rc);
    };
    // Metric events name the local class 0 with this rank's counters in its
    // order; that is the global class 0 only when every rank configured the
    // same counters (the environment is the same on all ranks).
    if (!is_identity(defs.metric_map, 0) || defs.metric_map.size() != defs.metrics.size()) {
        error = "the counters of rank " + std::to_string(rank_) +
                " differ from those of the other ranks (STRATA_METRIC_PAPI, STRATA_METRIC_RUSAGE); its Metric "
                "events do not match the trace's metric class";
    }
    check(OTF2_Archive_OpenDefFiles(archive_), "opening the local definition files");
    for (const LocationDefinition& l : locations) {
        OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive_, l.id);
        if (local == nullptr) {
            if (!error) error = "cannot create a local definition writer";
            continue;
        }
        if (!identity) {
            const std::pair<OTF2_MappingType, std::vector<std::uint64_t>*> tables[] = {
                {OTF2_MAPPING_REGION, &regions},
                {OTF2_MAPPING_PARAMETER, &parameters},
                {OTF2_MAPPING_STRING, &strings},
                {OTF2_MAPPING_COMM, &communicators}};
            for (const auto& [type, map] : tables) {
                if (map->empty()) continue;
                OTF2_IdMap* id_map = OTF2_IdMap_CreateFromUint64Array(map->size(), map->data(), true);
                if (id_map == nullptr) continue;  // an identity map: nothing to write
                check(OTF2_DefWriter_WriteMappingTable(local, type, id_map), "writing a mapping table");
                OTF2_IdMap_Free(id_map);
            }
        }
        // Readers line the ranks up with these (linear interpolation between the points).
        for (const clock_sync::Point& p : clock_points) {
            check(OTF2_DefWriter_WriteClockOffset(local, p.local_time, p.offset, p.deviation),
                  "writing a clock offset");
        }
        check(OTF2_Archive_CloseDefWriter(archive_, local), "closing a local definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive_), "closing the local definition files");
    return error;
}

Error Otf2Archive::finish(const unification::Unified& defs, const std::vector<LocationDefinition>& locations,
                          Ticks end, const std::vector<clock_sync::Point>& clock_points) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (archive_ == nullptr) return open_error_ ? open_error_ : Error("the OTF2 archive is not open");
    Error error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && !error) error = std::string(what) + ": " + describe_otf2_error(rc);
    };
    // A rank writing alone (it failed or was killed) still has communicators
    // naming every rank: the other ranks get empty placeholder locations, so
    // that every reference in the archive resolves.
    std::int32_t world_size = 0;
    for (const CommunicatorDefinition& c : defs.communicators) {
        if (c.paradigm == Paradigm::openmp) continue;  // thread teams name locations, not ranks
        for (std::int32_t w : c.world_ranks) world_size = std::max(world_size, w + 1);
    }
    const bool alone = group_ == nullptr && world_size > 0;
    std::vector<LocationDefinition> all_locations = locations;
    if (alone) {
        for (std::int32_t w = 0; w < world_size; ++w) {
            if (w == rank_) continue;
            const LocationDefinition placeholder{static_cast<std::uint64_t>(w) << 32, "thread 0 (not recorded here)", 0};
            all_locations.push_back(placeholder);
            OTF2_EvtWriter* empty = OTF2_Archive_GetEvtWriter(archive_, placeholder.id);
            if (empty != nullptr) writers_.push_back(empty);
        }
    }
    // After a failed write OTF2's buffers are broken: closing a writer (which
    // flushes it) would crash the program.  This rank's part of the archive
    // stays as it is on disk, and the handle is left open; the collective
    // steps below still take place, so that the other ranks finish theirs.
    const bool broken = write_failed_.load(std::memory_order_acquire);
    if (broken) {
        error = "the event files of rank " + std::to_string(rank_) + " are incomplete: " + write_error_.message();
    } else {
        for (OTF2_EvtWriter* w : writers_) check(OTF2_Archive_CloseEvtWriter(archive_, w), "closing an event writer");
        check(OTF2_Archive_CloseEvtFiles(archive_), "closing the event files");
        const Error local_error = write_local_definitions(defs, all_locations, clock_points);
        if (!error) error = local_error;
    }
    writers_.clear();

    // Every rank's host, time span and locations go to rank 0, which writes the
    // global definitions (they are needed there once; O(locations) data).
    RankInfo mine;
    mine.host = host_name();
    mine.complete = broken || error ? 0 : 1;
    mine.attributes = attributes_used_.load(std::memory_order_relaxed);
    // In rank 0's time (the clock properties are global).
    mine.begin = timer::epoch().ticks + (clock_points.empty() ? 0 : clock_points.front().offset);
    mine.end = end + (clock_points.empty() ? 0 : clock_points.back().offset);
    mine.locations = locations;
    std::vector<RankInfo> ranks;
    const std::string bytes = encode(mine);
    if (group_ != nullptr && group_->size() > 1) {
        const int size = group_->size();
        std::uint64_t my_size = bytes.size();
        std::vector<std::uint64_t> sizes(rank_ == 0 ? size : 0);
        group_->gather(&my_size, sizeof my_size, sizes.data(), 0);
        std::vector<std::size_t> counts(sizes.begin(), sizes.end());
        std::string all;
        if (rank_ == 0) {
            std::size_t total = 0;
            for (std::size_t c : counts) total += c;
            all.resize(total);
        }
        group_->gatherv(bytes.data(), bytes.size(), rank_ == 0 ? &all[0] : nullptr,
                        rank_ == 0 ? counts.data() : nullptr, 0);
        if (rank_ == 0) {
            const char* p = all.data();
            for (int r = 0; r < size; ++r) {
                RankInfo info;
                if (!decode(p, all.data() + all.size(), &info) && !error) error = "malformed rank data";
                ranks.push_back(std::move(info));
            }
        }
    } else if (alone) {
        for (std::int32_t w = 0; w < world_size; ++w) {
            RankInfo info = mine;
            if (w != rank_) info.locations = {all_locations[locations.size() + (w < rank_ ? w : w - 1)]};
            ranks.push_back(std::move(info));
        }
    } else {
        ranks.push_back(mine);
    }

    if (broken) {
        archive_ = nullptr;  // see above: not closed
        if (rank_ == 0 || group_ == nullptr) {
            std::remove((directory_ + "/traces.otf2").c_str());  // no anchor over an incomplete archive
            std::remove((directory_ + "/traces.def").c_str());
        }
        return error;
    }
    const bool writes_anchor = rank_ == 0 || group_ == nullptr;  // rank 0, or a rank that writes alone
    std::vector<int> incomplete_ranks;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        if (!ranks[r].complete && static_cast<int>(r) != rank_) incomplete_ranks.push_back(static_cast<int>(r));
    if (writes_anchor && !incomplete_ranks.empty() && group_ != nullptr) {
        // Another rank's files are broken (a full disk): global definitions over
        // them would make an archive that looks whole and is not.
        if (!error) {
            error = "the event files of rank" + std::string(incomplete_ranks.size() > 1 ? "s" : "");
            for (std::size_t i = 0; i < incomplete_ranks.size() && i < 8; ++i)
                *error += (i > 0 ? ", " : " ") + std::to_string(incomplete_ranks[i]);
            if (incomplete_ranks.size() > 8) *error += ", ... (" + std::to_string(incomplete_ranks.size()) + ")";
            *error += " could not be written (their ranks say why)";
        }
    } else if (writes_anchor) {
        const Error global_error = write_global_definitions(archive_, defs, ranks, alone ? 0 : rank_);
        if (!error) error = global_error;
    }
    check(OTF2_Archive_Close(archive_), "closing the archive");
    archive_ = nullptr;
    if (writes_anchor && error) {
        // Nothing that looks like a trace: no anchor and no global definitions
        // over an incomplete archive (the event files stay in traces/).
        std::remove((directory_ + "/traces.otf2").c_str());
        std::remove((directory_ + "/traces.def").c_str());
    }
    return error;
}

}  // namespace strata::tracing
