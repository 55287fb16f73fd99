// SPDX-License-Identifier: BSD-3-Clause
// The archive's global definitions (see otf2_global_definitions.hpp).
#include "tracing/otf2_global_definitions.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstring>

#include "core/definitions.hpp"
#include "core/host_name.hpp"
#include "core/timer.hpp"
#include "filter/filter_rules.hpp"
#include "metrics/metric_spec.hpp"
#include "metrics/metrics.hpp"
#include "tracing/otf2_collectives.hpp"

namespace strata::tracing {

namespace {

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

void put(std::string& out, const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
void put_string(std::string& out, const std::string& s) {
    const std::uint64_t n = s.size();
    put(out, &n, sizeof n);
    out += s;
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

}  // namespace

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

/// Rank 0: strings, regions, parameters, the system tree (one node per host),
/// one location group per rank and every location, and the clock properties.
Error write_global_definitions(OTF2_Archive* archive, const unification::Unified& defs,
                               const std::vector<RankInfo>& ranks, int first_rank) {
    Error error;
    auto check = [&](OTF2_ErrorCode rc, const char* what) {
        if (rc != OTF2_SUCCESS && !error) error = std::string(what) + ": " + describe_otf2_error(rc);
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
    // As Score-P: a PARADIGM definition (name and class) for each parallel
    // paradigm the regions use, which Vampir names its function groups by.
    struct ParadigmName {
        OTF2_Paradigm paradigm;
        const char* name;
        OTF2_ParadigmClass paradigm_class;
    };
    static const ParadigmName kParadigms[] = {
        {OTF2_PARADIGM_MPI, "MPI", OTF2_PARADIGM_CLASS_PROCESS},
        {OTF2_PARADIGM_OPENMP, "OpenMP", OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN},
        {OTF2_PARADIGM_CUDA, "CUDA", OTF2_PARADIGM_CLASS_ACCELERATOR},
    };
    std::vector<std::pair<const ParadigmName*, OTF2_StringRef>> paradigms;
    for (const ParadigmName& p : kParadigms) {
        bool used = false;
        for (const RegionDefinition& r : defs.regions) used = used || to_otf2(r.paradigm) == p.paradigm;
        if (used) paradigms.emplace_back(&p, extra(p.name));
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
    for (const auto& [p, name] : paradigms)
        check(OTF2_GlobalDefWriter_WriteParadigm(w, p->paradigm, name, p->paradigm_class),
              "writing a paradigm definition");
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

}  // namespace strata::tracing
