// SPDX-License-Identifier: BSD-3-Clause
// OTF2 archive: opening, errors, definitions and the end (the conversion of
// trace buffers into event files: otf2_conversion.cpp).
#include "tracing/otf2_archive.hpp"

#include <otf2/OTF2_Pthread_Locks.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/definitions.hpp"
#include "core/host_name.hpp"
#include "core/timer.hpp"
#include "filter/filter_rules.hpp"
#include "metrics/metric_spec.hpp"
#include "metrics/metrics.hpp"
#include "tracing/otf2_collectives.hpp"
#include "tracing/otf2_event_file.hpp"

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
/// describe() is kept, for the one message Strata prints.
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

std::string describe(OTF2_ErrorCode code) {
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

using tracing::to_otf2;  // (of a Paradigm, beside this one of a RegionRole)

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
        case RegionRole::sections: return OTF2_REGION_ROLE_SECTIONS;
        case RegionRole::section: return OTF2_REGION_ROLE_SECTION;
        case RegionRole::single: return OTF2_REGION_ROLE_SINGLE;
        case RegionRole::single_sblock: return OTF2_REGION_ROLE_SINGLE_SBLOCK;
        case RegionRole::master: return OTF2_REGION_ROLE_MASTER;
        case RegionRole::critical: return OTF2_REGION_ROLE_CRITICAL;
        case RegionRole::critical_sblock: return OTF2_REGION_ROLE_CRITICAL_SBLOCK;
        case RegionRole::atomic: return OTF2_REGION_ROLE_ATOMIC;
        case RegionRole::ordered: return OTF2_REGION_ROLE_ORDERED;
        case RegionRole::ordered_sblock: return OTF2_REGION_ROLE_ORDERED_SBLOCK;
        case RegionRole::task: return OTF2_REGION_ROLE_TASK;
        case RegionRole::task_create: return OTF2_REGION_ROLE_TASK_CREATE;
        case RegionRole::task_wait: return OTF2_REGION_ROLE_TASK_WAIT;
        case RegionRole::workshare: return OTF2_REGION_ROLE_WORKSHARE;
        case RegionRole::lock: return OTF2_REGION_ROLE_WRAPPER;
        case RegionRole::file_io: return OTF2_REGION_ROLE_FILE_IO;
        case RegionRole::data_transfer: return OTF2_REGION_ROLE_DATA_TRANSFER;
        case RegionRole::unknown: break;
    }
    return OTF2_REGION_ROLE_UNKNOWN;
}

}  // namespace

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

std::string Otf2Archive::open(const std::string& directory, std::uint64_t chunk_size, events::ProcessGroup* group,
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
        open_error_ = "cannot set up the OTF2 archive in '" + directory + "': " + describe(rc);
        OTF2_Archive_Close(archive_);
        archive_ = nullptr;
    }
    return open_error_;
}

std::string Otf2Archive::failed(OTF2_ErrorCode code) { return failed(describe(code)); }

std::string Otf2Archive::failed(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (write_error_.empty()) write_error_ = error;
    write_failed_.store(true, std::memory_order_release);
    return error;
}

std::string Otf2Archive::earlier_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return "nothing more is written after an earlier failure: " + write_error_;
}

namespace {

/// Bytes of one rank's part of the global definitions: its host, time span and locations.
struct RankInfo {
    std::string host;
    std::uint8_t complete = 1;  ///< 0: the rank's event or definition files could not be written
    std::uint32_t attributes = 0;  ///< the attributes its events carry (Otf2Archive::attributes_used_)
    Ticks begin = 0, end = 0;
    std::vector<Otf2Archive::LocationDefinition> locations;
};

void put(std::string& out, const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
void put_string(std::string& out, const std::string& s) {
    const std::uint64_t n = s.size();
    put(out, &n, sizeof n);
    out += s;
}

std::string encode(const RankInfo& info) {
    std::string out;
    put_string(out, info.host);
    put(out, &info.complete, sizeof info.complete);
    put(out, &info.attributes, sizeof info.attributes);
    put(out, &info.begin, sizeof info.begin);
    put(out, &info.end, sizeof info.end);
    const std::uint64_t n = info.locations.size();
    put(out, &n, sizeof n);
    for (const auto& l : info.locations) {
        put(out, &l.id, sizeof l.id);
        put(out, &l.events, sizeof l.events);
        put(out, &l.device, sizeof l.device);
        const std::uint8_t metric = l.metric ? 1 : 0;
        put(out, &metric, sizeof metric);
        put_string(out, l.name);
    }
    return out;
}

bool decode(const char*& p, const char* end, RankInfo* info) {
    auto get = [&](void* v, std::size_t n) {
        if (static_cast<std::size_t>(end - p) < n) return false;
        std::memcpy(v, p, n);
        p += n;
        return true;
    };
    auto get_string = [&](std::string* s) {
        std::uint64_t n = 0;
        if (!get(&n, sizeof n) || static_cast<std::uint64_t>(end - p) < n) return false;
        s->assign(p, n);
        p += n;
        return true;
    };
    std::uint64_t n = 0;
    if (!get_string(&info->host) || !get(&info->complete, sizeof info->complete) ||
        !get(&info->attributes, sizeof info->attributes) ||
        !get(&info->begin, sizeof info->begin) || !get(&info->end, sizeof info->end) || !get(&n, sizeof n)) {
        return false;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
        Otf2Archive::LocationDefinition l{};
        std::uint8_t metric = 0;
        if (!get(&l.id, sizeof l.id) || !get(&l.events, sizeof l.events) ||
            !get(&l.device, sizeof l.device) || !get(&metric, sizeof metric) || !get_string(&l.name)) {
            return false;
        }
        l.metric = metric != 0;
        info->locations.push_back(std::move(l));
    }
    return true;
}

bool is_identity(const std::vector<std::uint32_t>& map, std::size_t offset) {
    for (std::size_t i = 0; i < map.size(); ++i) {
        if (map[i] != i - offset) return false;
    }
    return true;
}

/// The communicators, as Score-P writes them.  MPI: one group of the ranks'
/// first locations (a rank's index in it is its MPI_COMM_WORLD rank) and one
/// group of ranks per communicator.  Thread teams: one group of every thread
/// that worked in a team, and per team the indices of its threads in it.
/// Group references are dense in the order written.
template <typename Check>
void write_communicators(OTF2_GlobalDefWriter* w, const unification::Unified& defs, std::size_t n_ranks,
                         OTF2_StringRef mpi_group_name, OTF2_StringRef thread_group_name, Check& check) {
    std::vector<std::uint64_t> threads;  // global location ids of team members, sorted
    bool any_mpi = false;
    for (const CommunicatorDefinition& comm : defs.communicators) {
        if (comm.paradigm != Paradigm::openmp) {
            any_mpi = true;
            continue;
        }
        for (std::int32_t index : comm.world_ranks) {
            if (index >= 0) threads.push_back((static_cast<std::uint64_t>(comm.id_root) << 32) | index);
        }
    }
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());

    OTF2_GroupRef next_group = 0;
    if (any_mpi) {
        std::vector<std::uint64_t> rank_locations;
        for (std::size_t r = 0; r < n_ranks; ++r) rank_locations.push_back(static_cast<std::uint64_t>(r) << 32);
        check(OTF2_GlobalDefWriter_WriteGroup(w, next_group++, mpi_group_name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                              static_cast<uint32_t>(rank_locations.size()), rank_locations.data()),
              "writing the group of MPI ranks");
    }
    if (!threads.empty()) {
        check(OTF2_GlobalDefWriter_WriteGroup(w, next_group++, thread_group_name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
                                              static_cast<uint32_t>(threads.size()), threads.data()),
              "writing the group of OpenMP threads");
    }
    std::vector<OTF2_GroupRef> group_of(defs.communicators.size());
    for (std::size_t c = 0; c < defs.communicators.size(); ++c) {
        const CommunicatorDefinition& comm = defs.communicators[c];
        std::vector<std::uint64_t> members;
        OTF2_Paradigm paradigm = OTF2_PARADIGM_MPI;
        if (comm.paradigm == Paradigm::openmp) {
            paradigm = OTF2_PARADIGM_OPENMP;
            for (std::int32_t index : comm.world_ranks) {
                if (index < 0) continue;
                const std::uint64_t id = (static_cast<std::uint64_t>(comm.id_root) << 32) | index;
                members.push_back(std::lower_bound(threads.begin(), threads.end(), id) - threads.begin());
            }
        } else {
            members.assign(comm.world_ranks.begin(), comm.world_ranks.end());
        }
        group_of[c] = next_group++;
        check(OTF2_GlobalDefWriter_WriteGroup(w, group_of[c], comm.name, OTF2_GROUP_TYPE_COMM_GROUP, paradigm,
                                              OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()),
                                              members.data()),
              "writing a communicator group");
    }
    for (std::size_t c = 0; c < defs.communicators.size(); ++c) {
        check(OTF2_GlobalDefWriter_WriteComm(w, static_cast<OTF2_CommRef>(c), defs.communicators[c].name, group_of[c],
                                             OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
              "writing a communicator");
    }
}

/// Rank 0: strings, regions, parameters, the system tree (one node per host),
/// one location group per rank and every location, and the clock properties.
std::string write_global_definitions(OTF2_Archive* archive, const unification::Unified& defs,
                                     const std::vector<RankInfo>& ranks, int first_rank) {
    std::string error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && error.empty()) error = std::string(what) + ": " + describe(rc);
    };
    OTF2_GlobalDefWriter* w = OTF2_Archive_GetGlobalDefWriter(archive);
    if (w == nullptr) return "cannot create the global definition writer";

    Ticks begin = ranks.empty() ? 0 : ranks[0].begin, end = 0;
    for (const RankInfo& r : ranks) {
        begin = std::min(begin, r.begin);
        end = std::max(end, r.end);
    }
    check(OTF2_GlobalDefWriter_WriteClockProperties(w, static_cast<uint64_t>(timer::resolution() + 0.5), begin,
                                                    end > begin ? end - begin : 0, timer::epoch().realtime_ns),
          "writing the clock properties");

    std::vector<std::string> strings = defs.strings;
    const auto extra = [&](const std::string& s) {
        strings.push_back(s);
        return static_cast<OTF2_StringRef>(strings.size() - 1);
    };
    // As Score-P: a machine (the operating system's name) over a node per host.
    // Scalasca's clock correction looks for the machine above each process.
    const OTF2_StringRef node_class = extra("node");
    const OTF2_StringRef machine_class = extra("machine");
    struct utsname system {};
    const OTF2_StringRef machine_name = extra(uname(&system) == 0 ? filter::valid_utf8(system.sysname) : "machine");
    std::vector<std::string> hosts;
    std::vector<OTF2_SystemTreeNodeRef> node_of_rank;
    std::vector<OTF2_StringRef> host_names;
    for (const RankInfo& r : ranks) {
        auto it = std::find(hosts.begin(), hosts.end(), r.host);
        if (it == hosts.end()) {
            hosts.push_back(r.host);
            host_names.push_back(extra(r.host));
            it = hosts.end() - 1;
        }
        node_of_rank.push_back(static_cast<OTF2_SystemTreeNodeRef>(it - hosts.begin() + 1));  // 0: the machine
    }
    bool any_mpi_communicator = false;
    for (const CommunicatorDefinition& c : defs.communicators) any_mpi_communicator |= c.paradigm != Paradigm::openmp;
    const OTF2_StringRef comm_locations_name = extra("MPI ranks");
    const OTF2_StringRef thread_locations_name = extra("OpenMP threads");
    const OTF2_StringRef cuda_device_name = extra("CUDA_DEVICE");
    // The attributes some rank's events carry.  OTF2 readers expect dense
    // references: with any GPU attribute, all of them (and the correlation id).
    std::uint32_t attributes_used = 0;
    for (const RankInfo& r : ranks) attributes_used |= r.attributes;
    if ((attributes_used & ~1u) != 0) attributes_used = (2u << kMaxGpuAttributes) - 1;
    OTF2_StringRef correlation_name = 0, correlation_description = 0;
    if (attributes_used & 1u) {
        correlation_name = extra("CUDA_CORRELATION_ID");
        correlation_description =
            extra("CUPTI's correlation id: a CUDA API call and the GPU work it launched carry the same");
    }
    // GpuAttribute's names and descriptions, in its order (experiment-format.md).
    static const char* const gpu_attributes[][2] = {
        {"CUDA_GRID_X", "a kernel's grid, x"},
        {"CUDA_GRID_Y", "a kernel's grid, y"},
        {"CUDA_GRID_Z", "a kernel's grid, z"},
        {"CUDA_BLOCK_X", "a kernel's blocks, x"},
        {"CUDA_BLOCK_Y", "a kernel's blocks, y"},
        {"CUDA_BLOCK_Z", "a kernel's blocks, z"},
        {"CUDA_REGISTERS_PER_THREAD", "registers per thread of a kernel"},
        {"CUDA_SHARED_MEMORY", "bytes of shared memory per block of a kernel, static and dynamic"},
        {"CUDA_GRAPH_ID", "the CUDA graph the activity ran in"},
        {"CUDA_GRAPH_NODE_ID", "the node of its CUDA graph"},
        {"CUDA_BYTES", "bytes a copy or memset moved"},
    };
    static_assert(sizeof gpu_attributes / sizeof gpu_attributes[0] == kMaxGpuAttributes,
                  "one per GpuAttribute");
    std::pair<OTF2_StringRef, OTF2_StringRef> gpu_attribute_names[kMaxGpuAttributes] = {};
    for (std::uint32_t a = 0; a < kMaxGpuAttributes; ++a) {
        if (attributes_used & (2u << a)) {
            gpu_attribute_names[a] = {extra(gpu_attributes[a][0]), extra(gpu_attributes[a][1])};
        }
    }
    // DeviceMetric's members, in its order (experiment-format.md, "GPU metrics over time").
    static const char* const device_metrics[][3] = {
        {"gpu_utilization", "time a kernel ran on the GPU in the last sample period (NVML)", "%"},
        {"gpu_memory_utilization",
         "time the GPU's memory was read or written in the last sample period (NVML)", "%"},
        {"gpu_memory_used", "device memory in use, by all processes (NVML)", "bytes"},
        {"gpu_power", "board power draw (NVML)", "mW"},
        {"gpu_sm_clock", "current SM clock (NVML)", "MHz"},
    };
    constexpr auto kDeviceMetrics = static_cast<std::uint32_t>(DeviceMetric::count);
    static_assert(sizeof device_metrics / sizeof device_metrics[0] == kDeviceMetrics, "one per DeviceMetric");
    bool any_metric_location = false;
    for (const RankInfo& r : ranks) {
        for (const auto& l : r.locations) any_metric_location |= l.metric;
    }
    struct DeviceMetricNames {
        OTF2_StringRef name, description, unit;
    };
    DeviceMetricNames device_metric_names[kDeviceMetrics] = {};
    for (std::uint32_t m = 0; any_metric_location && m < kDeviceMetrics; ++m) {
        device_metric_names[m] = {extra(device_metrics[m][0]), extra(device_metrics[m][1]),
                                  extra(device_metrics[m][2])};
    }
    std::vector<OTF2_StringRef> rank_names, location_names;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        // "process" for a program without MPI; "rank r" for MPI ranks, also one writing alone.
        const bool mpi = ranks.size() > 1 || first_rank > 0 || any_mpi_communicator;
        rank_names.push_back(extra(mpi ? "rank " + std::to_string(first_rank + static_cast<int>(r)) : "process"));
        for (const auto& l : ranks[r].locations) location_names.push_back(extra(l.name));
    }
    for (std::size_t i = 0; i < strings.size(); ++i) {
        check(OTF2_GlobalDefWriter_WriteString(w, static_cast<OTF2_StringRef>(i), strings[i].c_str()),
              "writing a string definition");
    }
    for (std::size_t i = 0; i < defs.regions.size(); ++i) {
        const RegionDefinition& r = defs.regions[i];
        const OTF2_RegionFlag flags = (r.flags & region_flag_phase) ? OTF2_REGION_FLAG_PHASE : OTF2_REGION_FLAG_NONE;
        check(OTF2_GlobalDefWriter_WriteRegion(w, static_cast<OTF2_RegionRef>(i), r.name, r.name, 0, to_otf2(r.role),
                                               to_otf2(r.paradigm), flags, r.file, r.line, r.line),
              "writing a region definition");
    }
    for (std::size_t i = 0; i < defs.parameters.size(); ++i) {
        const ParameterDefinition& p = defs.parameters[i];
        check(OTF2_GlobalDefWriter_WriteParameter(
                  w, static_cast<OTF2_ParameterRef>(i), p.name,
                  p.type == events::ParameterType::string ? OTF2_PARAMETER_TYPE_STRING : OTF2_PARAMETER_TYPE_INT64),
              "writing a parameter definition");
    }
    if (attributes_used & 1u) {
        check(OTF2_GlobalDefWriter_WriteAttribute(w, kCorrelationAttribute, correlation_name,
                                                  correlation_description, OTF2_TYPE_UINT64),
              "writing an attribute definition");
    }
    for (std::uint32_t a = 0; a < kMaxGpuAttributes; ++a) {
        if ((attributes_used & (2u << a)) == 0) continue;
        check(OTF2_GlobalDefWriter_WriteAttribute(w, gpu_attribute_ref(a), gpu_attribute_names[a].first,
                                                  gpu_attribute_names[a].second, OTF2_TYPE_UINT64),
              "writing an attribute definition");
    }
    // Counters: one member per counter and one class (0) of all of them, which
    // the Metric events refer to.
    std::vector<OTF2_MetricMemberRef> members;
    for (std::size_t i = 0; i < defs.metrics.size(); ++i) {
        const MetricDefinition& m = defs.metrics[i];
        const bool papi = m.source == static_cast<std::uint8_t>(metrics::MetricSource::papi);
        const bool point = m.mode == static_cast<std::uint8_t>(metrics::MetricMode::absolute_point);
        check(OTF2_GlobalDefWriter_WriteMetricMember(w, static_cast<OTF2_MetricMemberRef>(i), m.name, m.description,
                                                     papi ? OTF2_METRIC_TYPE_PAPI : OTF2_METRIC_TYPE_OTHER,
                                                     point ? OTF2_METRIC_ABSOLUTE_POINT : OTF2_METRIC_ACCUMULATED_START,
                                                     OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, m.unit),
              "writing a metric member");
        members.push_back(static_cast<OTF2_MetricMemberRef>(i));
    }
    if (!members.empty()) {
        check(OTF2_GlobalDefWriter_WriteMetricClass(w, 0, static_cast<uint8_t>(members.size()), members.data(),
                                                    OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU),
              "writing the metric class");
    }
    // GPU metric samples: a member and a class of its own per DeviceMetric,
    // since a sample holds only the values NVML could read.
    if (any_metric_location) {
        for (std::uint32_t m = 0; m < kDeviceMetrics; ++m) {
            const auto member = static_cast<OTF2_MetricMemberRef>(defs.metrics.size() + m);
            check(OTF2_GlobalDefWriter_WriteMetricMember(w, member, device_metric_names[m].name,
                                                         device_metric_names[m].description,
                                                         OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                                         OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                                         device_metric_names[m].unit),
                  "writing a metric member");
            check(OTF2_GlobalDefWriter_WriteMetricClass(w, device_metric_class(!members.empty(), m), 1,
                                                        &member, OTF2_METRIC_ASYNCHRONOUS,
                                                        OTF2_RECORDER_KIND_UNKNOWN),
                  "writing a metric class");
        }
    }
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine_name, machine_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing the system tree");
    for (std::size_t h = 0; h < hosts.size(); ++h) {
        check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, static_cast<OTF2_SystemTreeNodeRef>(h + 1), host_names[h],
                                                       node_class, 0),
              "writing the system tree");
    }
    std::size_t next_name = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        check(OTF2_GlobalDefWriter_WriteLocationGroup(w, static_cast<OTF2_LocationGroupRef>(r), rank_names[r],
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of_rank[r],
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "writing a location group");
        for (const auto& l : ranks[r].locations) {
            const bool stream = l.device != kNoDevice;
            const OTF2_LocationType type = l.metric ? OTF2_LOCATION_TYPE_METRIC
                                           : stream ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                                                    : OTF2_LOCATION_TYPE_CPU_THREAD;
            check(OTF2_GlobalDefWriter_WriteLocation(w, l.id, location_names[next_name++], type, l.events,
                                                     static_cast<OTF2_LocationGroupRef>(r)),
                  "writing a location definition");
            if (stream) {
                OTF2_AttributeValue device;
                device.uint32 = l.device;
                check(OTF2_GlobalDefWriter_WriteLocationProperty(w, l.id, cuda_device_name, OTF2_TYPE_UINT32,
                                                                 device),
                      "writing a location property");
            }
        }
    }
    write_communicators(w, defs, ranks.size(), comm_locations_name, thread_locations_name, check);
    check(OTF2_Archive_CloseGlobalDefWriter(archive, w), "closing the global definitions");
    return error;
}

}  // namespace

std::string Otf2Archive::write_local_definitions(const unification::Unified& defs,
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
    std::string error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && error.empty()) error = std::string(what) + ": " + describe(rc);
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
            if (error.empty()) error = "cannot create a local definition writer";
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

std::string Otf2Archive::finish(const unification::Unified& defs, const std::vector<LocationDefinition>& locations,
                                Ticks end, const std::vector<clock_sync::Point>& clock_points) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (archive_ == nullptr) return open_error_.empty() ? "the OTF2 archive is not open" : open_error_;
    std::string error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && error.empty()) error = std::string(what) + ": " + describe(rc);
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
        error = "the event files of rank " + std::to_string(rank_) + " are incomplete: " + write_error_;
    } else {
        for (OTF2_EvtWriter* w : writers_) check(OTF2_Archive_CloseEvtWriter(archive_, w), "closing an event writer");
        check(OTF2_Archive_CloseEvtFiles(archive_), "closing the event files");
        const std::string local_error = write_local_definitions(defs, all_locations, clock_points);
        if (error.empty()) error = local_error;
    }
    writers_.clear();

    // Every rank's host, time span and locations go to rank 0, which writes the
    // global definitions (they are needed there once; O(locations) data).
    RankInfo mine;
    mine.host = host_name();
    mine.complete = broken || !error.empty() ? 0 : 1;
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
                if (!decode(p, all.data() + all.size(), &info) && error.empty()) error = "malformed rank data";
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
        if (error.empty()) {
            error = "the event files of rank" + std::string(incomplete_ranks.size() > 1 ? "s" : "");
            for (std::size_t i = 0; i < incomplete_ranks.size() && i < 8; ++i)
                error += (i > 0 ? ", " : " ") + std::to_string(incomplete_ranks[i]);
            if (incomplete_ranks.size() > 8) error += ", ... (" + std::to_string(incomplete_ranks.size()) + ")";
            error += " could not be written (their ranks say why)";
        }
    } else if (writes_anchor) {
        const std::string global_error = write_global_definitions(archive_, defs, ranks, alone ? 0 : rank_);
        if (error.empty()) error = global_error;
    }
    check(OTF2_Archive_Close(archive_), "closing the archive");
    archive_ = nullptr;
    if (writes_anchor && !error.empty()) {
        // Nothing that looks like a trace: no anchor and no global definitions
        // over an incomplete archive (the event files stay in traces/).
        std::remove((directory_ + "/traces.otf2").c_str());
        std::remove((directory_ + "/traces.def").c_str());
    }
    return error;
}


}  // namespace strata::tracing
