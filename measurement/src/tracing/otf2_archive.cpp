// SPDX-License-Identifier: BSD-3-Clause
// OTF2 archive: opening, conversion of trace buffers, global definitions.
#include "tracing/otf2_archive.hpp"

#include <otf2/OTF2_Pthread_Locks.h>
#include <unistd.h>

#include <cstdlib>

#include "core/definitions.hpp"
#include "core/timer.hpp"

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

// OTF2 references are dense from 0; our handles start at 1 (0 = none).
// Strings are the exception: string 0 of the archive is "", so handle = reference.
inline OTF2_RegionRef region_ref(std::uint64_t handle) { return static_cast<OTF2_RegionRef>(handle - 1); }
inline OTF2_ParameterRef parameter_ref(std::uint64_t handle) { return static_cast<OTF2_ParameterRef>(handle - 1); }

std::string describe(OTF2_ErrorCode code) {
    return std::string(OTF2_Error_GetName(code)) + ": " + OTF2_Error_GetDescription(code);
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

OTF2_RegionRole to_otf2(RegionRole r) {
    switch (r) {
        case RegionRole::function: return OTF2_REGION_ROLE_FUNCTION;
        case RegionRole::code: return OTF2_REGION_ROLE_CODE;
        case RegionRole::loop: return OTF2_REGION_ROLE_LOOP;
        case RegionRole::wrapper: return OTF2_REGION_ROLE_WRAPPER;
        case RegionRole::parallel: return OTF2_REGION_ROLE_PARALLEL;
        case RegionRole::barrier: return OTF2_REGION_ROLE_BARRIER;
        case RegionRole::implicit_barrier: return OTF2_REGION_ROLE_IMPLICIT_BARRIER;
        case RegionRole::point_to_point: return OTF2_REGION_ROLE_POINT2POINT;
        case RegionRole::coll_one2all: return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case RegionRole::coll_all2one: return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case RegionRole::coll_all2all: return OTF2_REGION_ROLE_COLL_ALL2ALL;
        case RegionRole::coll_other: return OTF2_REGION_ROLE_COLL_OTHER;
        case RegionRole::artificial: return OTF2_REGION_ROLE_ARTIFICIAL;
        case RegionRole::unknown: break;
    }
    return OTF2_REGION_ROLE_UNKNOWN;
}

}  // namespace

Otf2Archive::~Otf2Archive() {
    if (archive_ != nullptr) OTF2_Archive_Close(archive_);
}

std::string Otf2Archive::open(const std::string& directory, std::uint64_t chunk_size) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_tried_) return open_error_;
    open_tried_ = true;
    // OTF2 chunks must be at least 256 KiB and at most 16 MiB.
    chunk_size = std::min<std::uint64_t>(std::max<std::uint64_t>(chunk_size, 256 << 10), 16 << 20);
    archive_ = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, chunk_size,
                                 4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive_ == nullptr) {
        open_error_ = "cannot create the OTF2 archive in '" + directory + "'";
        return open_error_;
    }
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetMemoryCallbacks(archive_, &kMemoryCallbacks, nullptr);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetSerialCollectiveCallbacks(archive_);
    if (rc == OTF2_SUCCESS) rc = OTF2_Pthread_Archive_SetLockingCallbacks(archive_, nullptr);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetCreator(archive_, "Strata " STRATA_VERSION);
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetDescription(archive_, "Strata measurement");
    if (rc == OTF2_SUCCESS) rc = OTF2_Archive_OpenEvtFiles(archive_);
    if (rc != OTF2_SUCCESS) {
        open_error_ = "cannot set up the OTF2 archive in '" + directory + "': " + describe(rc);
        OTF2_Archive_Close(archive_);
        archive_ = nullptr;
    }
    return open_error_;
}

std::string Otf2Archive::convert(Otf2LocationState& state, const EventBuffer& buffer) {
    if (archive_ == nullptr) return open_error_.empty() ? "the OTF2 archive is not open" : open_error_;
    if (state.writer == nullptr) {
        std::lock_guard<std::mutex> lock(mutex_);
        state.writer = OTF2_Archive_GetEvtWriter(archive_, state.location_id);
        if (state.writer == nullptr) return "cannot create the OTF2 event writer";
        writers_.push_back(state.writer);
    }
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    buffer.for_each([&](const Record& r) {
        if (rc != OTF2_SUCCESS) return;
        state.last_time = r.time;
        switch (r.type) {
            case RecordType::enter:
                rc = OTF2_EvtWriter_Enter(state.writer, nullptr, r.time, region_ref(r.a));
                state.open.push_back(r.a);
                break;
            case RecordType::leave:
                if (state.open.empty() || state.open.back() != r.a) {
                    ++state.skipped_leaves;
                    return;
                }
                state.open.pop_back();
                rc = OTF2_EvtWriter_Leave(state.writer, nullptr, r.time, region_ref(r.a));
                break;
            case RecordType::parameter_int:
                rc = OTF2_EvtWriter_ParameterInt(state.writer, nullptr, r.time,
                                                 parameter_ref(r.a), unzigzag(r.b));
                break;
            case RecordType::parameter_string:
                rc = OTF2_EvtWriter_ParameterString(state.writer, nullptr, r.time,
                                                    parameter_ref(r.a), static_cast<OTF2_StringRef>(r.b));
                break;
        }
        ++state.events;
    });
    return rc == OTF2_SUCCESS ? std::string() : describe(rc);
}

std::string Otf2Archive::close_open_regions(Otf2LocationState& state, Ticks end) {
    if (state.writer == nullptr) return {};
    end = std::max(end, state.last_time);
    while (!state.open.empty()) {
        const OTF2_ErrorCode rc = OTF2_EvtWriter_Leave(state.writer, nullptr, end,
                                                       region_ref(state.open.back()));
        state.open.pop_back();
        if (rc != OTF2_SUCCESS) return describe(rc);
        ++state.events;
    }
    return {};
}

std::string Otf2Archive::finish(const std::vector<LocationDefinition>& locations, Ticks end) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (archive_ == nullptr) return open_error_.empty() ? "the OTF2 archive is not open" : open_error_;
    std::string error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && error.empty()) error = std::string(what) + ": " + describe(rc);
    };
    for (OTF2_EvtWriter* w : writers_) check(OTF2_Archive_CloseEvtWriter(archive_, w), "closing an event writer");
    writers_.clear();
    check(OTF2_Archive_CloseEvtFiles(archive_), "closing the event files");

    // Local definition files (one per location): readers expect them; the
    // id mappings of unified definitions will go here.
    check(OTF2_Archive_OpenDefFiles(archive_), "opening the local definition files");
    for (const LocationDefinition& l : locations) {
        OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive_, l.id);
        if (local == nullptr) {
            if (error.empty()) error = "cannot create a local definition writer";
            continue;
        }
        check(OTF2_Archive_CloseDefWriter(archive_, local), "closing a local definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive_), "closing the local definition files");

    OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive_);
    if (defs == nullptr) {
        OTF2_Archive_Close(archive_);
        archive_ = nullptr;
        return "cannot create the global definition writer";
    }
    const timer::Epoch& epoch = timer::epoch();
    check(OTF2_GlobalDefWriter_WriteClockProperties(
              defs, static_cast<uint64_t>(timer::resolution() + 0.5), epoch.ticks,
              end > epoch.ticks ? end - epoch.ticks : 0, epoch.realtime_ns),
          "writing the clock properties");

    const DefinitionsSnapshot snap = definitions().snapshot();
    // String 0 is "", string h is snap.strings[h - 1]: handles are the OTF2 references.
    std::vector<std::string> strings;
    strings.push_back("");
    strings.insert(strings.end(), snap.strings.begin(), snap.strings.end());
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    const auto extra = [&](const std::string& s) {
        strings.push_back(s);
        return static_cast<OTF2_StringRef>(strings.size() - 1);
    };
    const OTF2_StringRef host_name = extra(host);
    const OTF2_StringRef node_class = extra("node");
    const OTF2_StringRef process_name = extra("process");
    std::vector<OTF2_StringRef> location_names;
    for (const LocationDefinition& l : locations) location_names.push_back(extra(l.name));
    for (size_t i = 0; i < strings.size(); ++i) {
        check(OTF2_GlobalDefWriter_WriteString(defs, static_cast<OTF2_StringRef>(i), strings[i].c_str()),
              "writing a string definition");
    }
    for (size_t i = 0; i < snap.regions.size(); ++i) {
        const RegionDefinition& r = snap.regions[i];
        const OTF2_RegionFlag flags = (r.flags & region_flag_phase) ? OTF2_REGION_FLAG_PHASE : OTF2_REGION_FLAG_NONE;
        check(OTF2_GlobalDefWriter_WriteRegion(defs, static_cast<OTF2_RegionRef>(i), r.name, r.name, 0,
                                               to_otf2(r.role), to_otf2(r.paradigm), flags, r.file, r.line,
                                               r.line),
              "writing a region definition");
    }
    for (size_t i = 0; i < snap.parameters.size(); ++i) {
        const ParameterDefinition& p = snap.parameters[i];
        check(OTF2_GlobalDefWriter_WriteParameter(
                  defs, static_cast<OTF2_ParameterRef>(i), p.name,
                  p.type == events::ParameterType::string ? OTF2_PARAMETER_TYPE_STRING : OTF2_PARAMETER_TYPE_INT64),
              "writing a parameter definition");
    }
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, host_name, node_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing the system tree");
    check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, 0, process_name, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                  OTF2_UNDEFINED_LOCATION_GROUP),
          "writing the location group");
    for (size_t i = 0; i < locations.size(); ++i) {
        check(OTF2_GlobalDefWriter_WriteLocation(defs, locations[i].id, location_names[i],
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, locations[i].events, 0),
              "writing a location definition");
    }
    check(OTF2_Archive_CloseGlobalDefWriter(archive_, defs), "closing the global definitions");
    check(OTF2_Archive_Close(archive_), "closing the archive");
    archive_ = nullptr;
    return error;
}

}  // namespace strata::tracing
