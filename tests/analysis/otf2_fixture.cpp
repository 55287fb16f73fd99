// SPDX-License-Identifier: BSD-3-Clause
// The synthetic OTF2 generator (see otf2_fixture.hpp).
#include "otf2_fixture.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace strata::analysis::test {

namespace {

enum Kind {
    k_enter,
    k_leave,
    k_send,
    k_recv,
    k_isend,
    k_isend_complete,
    k_irecv_request,
    k_irecv,
    k_begin,
    k_end,
    k_parameter,
    k_fork,
    k_join,
    k_team_begin,
    k_team_end,
    k_enter_correlated,
    k_cancelled,
    k_metric
};

/// The GPU metric members in the table's order, and the counter member defined before them.
constexpr const char* gpu_metric_members[] = {"gpu_utilization", "gpu_memory_utilization", "gpu_memory_used",
                                              "gpu_power", "gpu_sm_clock"};
constexpr const char* gpu_metric_units[] = {"%", "%", "bytes", "mW", "MHz"};
constexpr std::uint32_t gpu_metric_count = 5;

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks flush_callbacks = {pre_flush, nullptr};

void check(OTF2_ErrorCode rc, const char* what) {
    if (rc != OTF2_SUCCESS)
        throw std::runtime_error(std::string("OTF2 fixture: ") + what + ": " + OTF2_Error_GetName(rc));
}

constexpr std::uint64_t ms = 1000000;  // ns

}  // namespace

TraceBuilder::TraceBuilder(std::uint32_t ranks) : ranks_(ranks), offsets_(ranks, 0), stream_count_(ranks, 0) {
    for (std::uint32_t r = 0; r < ranks; ++r) events_[{r, 0}];
    std::vector<std::uint32_t> world;
    for (std::uint32_t r = 0; r < ranks; ++r) world.push_back(r);
    comms_.push_back({"MPI_COMM_WORLD", world});
}

std::uint32_t TraceBuilder::region(const std::string& name, std::uint32_t role, std::uint32_t paradigm,
                                   std::uint32_t flags) {
    regions_.push_back({name, role, paradigm, flags});
    return static_cast<std::uint32_t>(regions_.size() - 1);
}

std::uint32_t TraceBuilder::kernel_region(const std::string& name) {
    return region(name, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA);
}

std::uint32_t TraceBuilder::copy_region(const std::string& name) {
    return region(name, OTF2_REGION_ROLE_DATA_TRANSFER, OTF2_PARADIGM_CUDA);
}

std::uint32_t TraceBuilder::stream(std::uint32_t rank, std::uint32_t device) {
    const std::uint32_t n = stream_count_.at(rank)++;
    devices_[{rank, 0x10000 + n}] = device;
    events_[{rank, 0x10000 + n}];
    return n;
}

std::uint32_t TraceBuilder::gpu_metrics(std::uint32_t rank, std::uint32_t device) {
    const std::uint32_t n = stream_count_.at(rank)++;
    devices_[{rank, 0x10000 + n}] = device;
    metric_locations_.insert({rank, 0x10000 + n});
    events_[{rank, 0x10000 + n}];
    return n;
}

void TraceBuilder::gpu_sample(std::uint32_t rank, std::uint32_t metrics, std::uint64_t t,
                              const std::array<std::int64_t, 5>& values) {
    // Class 0 is the counters'; class 1 + m holds metric m alone.
    for (std::uint32_t m = 0; m < gpu_metric_count; ++m) {
        if (values[m] >= 0)
            add(rank, k_metric, t, 1 + m, static_cast<std::uint64_t>(values[m]), 0, 0, 0x10000 + metrics);
    }
}

void TraceBuilder::gpu_op(std::uint32_t rank, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                          std::uint32_t region, std::uint64_t correlation) {
    add(rank, k_enter_correlated, start, region, correlation, 0, 0, 0x10000 + stream);
    add(rank, k_leave, end, region, 0, 0, 0, 0x10000 + stream);
}

void TraceBuilder::enter_launch(std::uint32_t rank, std::uint64_t t, std::uint32_t region,
                                std::uint64_t correlation) {
    add(rank, k_enter_correlated, t, region, correlation);
}

std::uint32_t TraceBuilder::mpi_region(const std::string& name) {
    std::uint32_t role = OTF2_REGION_ROLE_POINT2POINT;
    if (name == "MPI_Barrier") role = OTF2_REGION_ROLE_BARRIER;
    if (name == "MPI_Allreduce") role = OTF2_REGION_ROLE_COLL_ALL2ALL;
    if (name == "MPI_Bcast") role = OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (name == "MPI_Reduce") role = OTF2_REGION_ROLE_COLL_ALL2ONE;
    return region(name, role, OTF2_PARADIGM_MPI);
}

std::uint32_t TraceBuilder::communicator(const std::string& name,
                                         const std::vector<std::uint32_t>& world_ranks) {
    comms_.push_back({name, world_ranks});
    return static_cast<std::uint32_t>(comms_.size() - 1);
}

std::uint32_t TraceBuilder::thread_team(std::uint32_t rank, std::uint32_t threads) {
    Comm team{"OpenMP team of rank " + std::to_string(rank), {}, rank};
    for (std::uint32_t t = 0; t < threads; ++t) team.members.push_back(t);
    comms_.push_back(team);
    return static_cast<std::uint32_t>(comms_.size() - 1);
}

void TraceBuilder::clock_offset(std::uint32_t rank, std::int64_t offset_ns) {
    offsets_.at(rank) = offset_ns;
}

void TraceBuilder::add(std::uint32_t rank, int kind, std::uint64_t t, std::uint64_t a, std::uint64_t b,
                       std::uint64_t c, std::uint64_t d, std::uint32_t thread) {
    if (rank >= ranks_) throw std::out_of_range("OTF2 fixture: no rank " + std::to_string(rank));
    events_[{rank, thread}].push_back(Event{kind, t, a, b, c, d});
}

void TraceBuilder::fork(std::uint32_t rank, std::uint64_t t, std::uint32_t threads) {
    add(rank, k_fork, t, threads);
}
void TraceBuilder::join(std::uint32_t rank, std::uint64_t t) {
    add(rank, k_join, t);
}
void TraceBuilder::team_begin(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t team) {
    add(rank, k_team_begin, t, team, 0, 0, 0, thread);
}
void TraceBuilder::team_end(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t team) {
    add(rank, k_team_end, t, team, 0, 0, 0, thread);
}
void TraceBuilder::thread_enter(std::uint32_t rank, std::uint32_t thread, std::uint64_t t,
                                std::uint32_t region) {
    add(rank, k_enter, t, region, 0, 0, 0, thread);
}
void TraceBuilder::thread_leave(std::uint32_t rank, std::uint32_t thread, std::uint64_t t,
                                std::uint32_t region) {
    add(rank, k_leave, t, region, 0, 0, 0, thread);
}

void TraceBuilder::enter(std::uint32_t rank, std::uint64_t t, std::uint32_t region) {
    add(rank, k_enter, t, region);
}
void TraceBuilder::leave(std::uint32_t rank, std::uint64_t t, std::uint32_t region) {
    add(rank, k_leave, t, region);
}
void TraceBuilder::send(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
                        std::uint32_t comm) {
    add(rank, k_send, t, peer, tag, comm);
}
void TraceBuilder::recv(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
                        std::uint32_t comm) {
    add(rank, k_recv, t, peer, tag, comm);
}
void TraceBuilder::isend(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
                         std::uint64_t request) {
    add(rank, k_isend, t, peer, tag, 0, request);
}
void TraceBuilder::isend_complete(std::uint32_t rank, std::uint64_t t, std::uint64_t request) {
    add(rank, k_isend_complete, t, request);
}
void TraceBuilder::request_cancelled(std::uint32_t rank, std::uint64_t t, std::uint64_t request) {
    add(rank, k_cancelled, t, request);
}
void TraceBuilder::irecv_request(std::uint32_t rank, std::uint64_t t, std::uint64_t request) {
    add(rank, k_irecv_request, t, request);
}
void TraceBuilder::irecv(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
                         std::uint64_t request) {
    add(rank, k_irecv, t, peer, tag, 0, request);
}
void TraceBuilder::parameter(std::uint32_t rank, std::uint64_t t, std::int64_t value) {
    add(rank, k_parameter, t, static_cast<std::uint64_t>(value));
}

void TraceBuilder::collective(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                              std::uint32_t op, std::int64_t root, std::uint32_t comm) {
    enter(rank, e, region);
    add(rank, k_begin, e + 1);
    // The root as a rank of the communicator, as MPI and OTF2 give it.
    std::uint64_t comm_root = OTF2_UNDEFINED_UINT32;
    if (root >= 0) {
        const auto& members = comms_.at(comm).members;
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (members[i] == static_cast<std::uint32_t>(root)) comm_root = i;
        }
    }
    add(rank, k_end, x - 1, op, comm, comm_root);
    leave(rank, x, region);
}

void TraceBuilder::blocking_send(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                                 std::uint32_t peer, std::uint32_t tag, std::uint32_t comm) {
    enter(rank, e, region);
    send(rank, e + 1, peer, tag, comm);
    leave(rank, x, region);
}

void TraceBuilder::blocking_recv(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                                 std::uint32_t peer, std::uint32_t tag, std::uint32_t comm) {
    enter(rank, e, region);
    recv(rank, x - 1, peer, tag, comm);
    leave(rank, x, region);
}

void TraceBuilder::write(const std::string& directory) const {
    std::filesystem::create_directories(directory);
    OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                              4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == nullptr)
        throw std::runtime_error("OTF2 fixture: cannot create the archive in " + directory);
    check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, nullptr), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(archive), "opening the event files");
    std::uint64_t end = 0;
    const auto location_id = [](const std::pair<std::uint32_t, std::uint32_t>& l) {
        return static_cast<std::uint64_t>(l.first) << 32 | l.second;
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> counts;
    for (const auto& [location, given] : events_) {
        const std::uint32_t r = location.first;
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, location_id(location));
        if (w == nullptr) throw std::runtime_error("OTF2 fixture: no event writer");
        // In time order (OTF2 requires it); events at the same time keep the order they were given in.
        std::vector<Event> events = given;
        std::stable_sort(events.begin(), events.end(),
                         [](const Event& a, const Event& b) { return a.t < b.t; });
        for (const Event& e : events) {
            // The rank's local clock: true time minus its offset.
            const auto t = static_cast<OTF2_TimeStamp>(static_cast<std::int64_t>(e.t) - offsets_[r]);
            end = std::max<std::uint64_t>(end, e.t);
            // A rank's local ids (mapping tables written below); ids past the definitions stay.
            const bool local = local_ids_ != LocalIds::global && r != 0;
            const auto region_id = [&](std::uint64_t id) {
                return static_cast<OTF2_RegionRef>(local && id < regions_.size() ? regions_.size() - 1 - id : id);
            };
            const auto comm_id = [&](std::uint64_t id) {
                return static_cast<OTF2_CommRef>(local && id < comms_.size() ? comms_.size() - 1 - id : id);
            };
            const auto comm = comm_id(e.c);
            switch (e.kind) {
                case k_enter:
                    check(OTF2_EvtWriter_Enter(w, nullptr, t, region_id(e.a)), "Enter");
                    break;
                case k_enter_correlated: {
                    OTF2_AttributeList* attributes = OTF2_AttributeList_New();
                    if (attributes == nullptr) throw std::runtime_error("OTF2 fixture: no attribute list");
                    check(OTF2_AttributeList_AddUint64(attributes, 0, e.b), "AddUint64");
                    const OTF2_ErrorCode rc =
                        OTF2_EvtWriter_Enter(w, attributes, t, region_id(e.a));
                    OTF2_AttributeList_Delete(attributes);
                    check(rc, "Enter");
                    break;
                }
                case k_leave:
                    check(OTF2_EvtWriter_Leave(w, nullptr, t, region_id(e.a)), "Leave");
                    break;
                case k_send:
                    check(OTF2_EvtWriter_MpiSend(w, nullptr, t, static_cast<uint32_t>(e.a), comm,
                                                 static_cast<uint32_t>(e.b), 8),
                          "MpiSend");
                    break;
                case k_recv:
                    check(OTF2_EvtWriter_MpiRecv(w, nullptr, t, static_cast<uint32_t>(e.a), comm,
                                                 static_cast<uint32_t>(e.b), 8),
                          "MpiRecv");
                    break;
                case k_isend:
                    check(OTF2_EvtWriter_MpiIsend(w, nullptr, t, static_cast<uint32_t>(e.a), comm,
                                                  static_cast<uint32_t>(e.b), 8, e.d),
                          "MpiIsend");
                    break;
                case k_isend_complete:
                    check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, e.a), "MpiIsendComplete");
                    break;
                case k_irecv_request:
                    check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, e.a), "MpiIrecvRequest");
                    break;
                case k_cancelled:
                    check(OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, e.a), "MpiRequestCancelled");
                    break;
                case k_irecv:
                    check(OTF2_EvtWriter_MpiIrecv(w, nullptr, t, static_cast<uint32_t>(e.a), comm,
                                                  static_cast<uint32_t>(e.b), 8, e.d),
                          "MpiIrecv");
                    break;
                case k_begin:
                    check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t), "MpiCollectiveBegin");
                    break;
                case k_end:
                    check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, static_cast<OTF2_CollectiveOp>(e.a),
                                                          comm_id(e.b),
                                                          static_cast<uint32_t>(e.c), 8, 8),
                          "MpiCollectiveEnd");
                    break;
                case k_parameter:
                    check(OTF2_EvtWriter_ParameterInt(w, nullptr, t, 0, static_cast<int64_t>(e.a)),
                          "ParameterInt");
                    break;
                case k_fork:
                    check(OTF2_EvtWriter_ThreadFork(w, nullptr, t, OTF2_PARADIGM_OPENMP,
                                                    static_cast<uint32_t>(e.a)),
                          "ThreadFork");
                    break;
                case k_join:
                    check(OTF2_EvtWriter_ThreadJoin(w, nullptr, t, OTF2_PARADIGM_OPENMP), "ThreadJoin");
                    break;
                case k_team_begin:
                    check(OTF2_EvtWriter_ThreadTeamBegin(w, nullptr, t, comm_id(e.a)),
                          "ThreadTeamBegin");
                    break;
                case k_team_end:
                    check(OTF2_EvtWriter_ThreadTeamEnd(w, nullptr, t, comm_id(e.a)),
                          "ThreadTeamEnd");
                    break;
                case k_metric: {
                    const OTF2_Type type = OTF2_TYPE_UINT64;
                    OTF2_MetricValue value;
                    value.unsigned_int = e.b;
                    check(OTF2_EvtWriter_Metric(w, nullptr, t, static_cast<OTF2_MetricRef>(e.a), 1, &type,
                                                &value),
                          "Metric");
                    break;
                }
            }
            ++counts[location];
        }
        check(OTF2_Archive_CloseEvtWriter(archive, w), "closing an event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(archive), "closing the event files");

    check(OTF2_Archive_OpenDefFiles(archive), "opening the local definition files");
    for (const auto& [location, events] : events_) {
        const std::uint32_t r = location.first;
        OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, location_id(location));
        if (d == nullptr) throw std::runtime_error("OTF2 fixture: no definition writer");
        // Constant offsets, at the start and near the end of the run (local times).
        if (write_offsets_) {
            check(OTF2_DefWriter_WriteClockOffset(d, 0, offsets_[r], 0.0), "ClockOffset");
            check(OTF2_DefWriter_WriteClockOffset(d, end + 10 * ms, offsets_[r], 0.0), "ClockOffset");
        }
        if (local_ids_ != LocalIds::global && r != 0) {
            const auto reversed = [](std::size_t n) {
                std::vector<std::uint64_t> global(n);
                for (std::size_t id = 0; id < n; ++id) global[id] = n - 1 - id;
                return global;
            };
            const std::pair<OTF2_MappingType, std::vector<std::uint64_t>> tables[] = {
                {OTF2_MAPPING_REGION, reversed(regions_.size())}, {OTF2_MAPPING_COMM, reversed(comms_.size())}};
            for (const auto& [type, global] : tables) {
                OTF2_IdMap* map = OTF2_IdMap_CreateFromUint64Array(global.size(), global.data(), false);
                if (map == nullptr) throw std::runtime_error("OTF2 fixture: no id map");
                check(OTF2_DefWriter_WriteMappingTable(d, type, map), "MappingTable");
                OTF2_IdMap_Free(map);
            }
            if (local_ids_ == LocalIds::with_attribute) {
                OTF2_IdMap* map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 1);
                if (map == nullptr) throw std::runtime_error("OTF2 fixture: no id map");
                check(OTF2_IdMap_AddIdPair(map, 0, 0), "AddIdPair");
                check(OTF2_DefWriter_WriteMappingTable(d, OTF2_MAPPING_ATTRIBUTE, map), "MappingTable");
                OTF2_IdMap_Free(map);
            }
        }
        check(OTF2_Archive_CloseDefWriter(archive, d), "closing a definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive), "closing the local definition files");

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (g == nullptr) throw std::runtime_error("OTF2 fixture: no global definition writer");
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end, OTF2_UNDEFINED_TIMESTAMP),
          "ClockProperties");
    std::vector<std::string> strings = {""};
    auto string = [&](const std::string& s) {
        strings.push_back(s);
        return static_cast<OTF2_StringRef>(strings.size() - 1);
    };
    std::vector<OTF2_StringRef> region_names, comm_names, rank_names;
    for (const Region& r : regions_) region_names.push_back(string(r.name));
    for (const Comm& c : comms_) comm_names.push_back(string(c.name));
    for (std::uint32_t r = 0; r < ranks_; ++r) rank_names.push_back(string("rank " + std::to_string(r)));
    std::map<std::pair<std::uint32_t, std::uint32_t>, OTF2_StringRef> thread_names;
    for (const auto& entry : events_) {
        const auto device = devices_.find(entry.first);
        if (metric_locations_.count(entry.first) != 0) {
            thread_names[entry.first] = string("GPU[" + std::to_string(device->second) + "] metrics");
            continue;
        }
        thread_names[entry.first] = device == devices_.end()
                                        ? string("thread " + std::to_string(entry.first.second))
                                        : string("CUDA[" + std::to_string(device->second) + ":" +
                                                 std::to_string(entry.first.second - 0x10000) + "]");
    }
    std::vector<OTF2_StringRef> metric_names, metric_units;
    for (std::uint32_t m = 0; m < gpu_metric_count; ++m) {
        metric_names.push_back(string(gpu_metric_members[m]));
        metric_units.push_back(string(gpu_metric_units[m]));
    }
    const OTF2_StringRef counter = string("ru_utime"), counter_unit = string("us");
    const OTF2_StringRef host = string("host"), node = string("node"), all = string("MPI ranks"),
                         param = string("n"), device_property = string("CUDA_DEVICE"),
                         correlation = string("CUDA_CORRELATION_ID"),
                         correlation_help = string("links a GPU operation to the host call that launched it");
    for (std::size_t i = 0; i < strings.size(); ++i) {
        check(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(i), strings[i].c_str()),
              "String");
    }
    for (std::size_t i = 0; i < regions_.size(); ++i) {
        check(OTF2_GlobalDefWriter_WriteRegion(g, static_cast<OTF2_RegionRef>(i), region_names[i],
                                               region_names[i], 0,
                                               static_cast<OTF2_RegionRole>(regions_[i].role),
                                               static_cast<OTF2_Paradigm>(regions_[i].paradigm),
                                               static_cast<OTF2_RegionFlag>(regions_[i].flags), 0, 0, 0),
              "Region");
    }
    check(OTF2_GlobalDefWriter_WriteParameter(g, 0, param, OTF2_PARAMETER_TYPE_INT64), "Parameter");
    check(OTF2_GlobalDefWriter_WriteAttribute(g, 0, correlation, correlation_help, OTF2_TYPE_UINT64),
          "Attribute");
    if (!metric_locations_.empty()) {
        // Member 0 and class 0 a counter's; the GPU members from the last (reference 1) to the first (5).
        check(OTF2_GlobalDefWriter_WriteMetricMember(g, 0, counter, counter, OTF2_METRIC_TYPE_OTHER,
                                                     OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                                     OTF2_BASE_DECIMAL, 0, counter_unit),
              "MetricMember");
        for (std::uint32_t m = 0; m < gpu_metric_count; ++m) {
            check(OTF2_GlobalDefWriter_WriteMetricMember(
                      g, gpu_metric_count - m, metric_names[m], metric_names[m], OTF2_METRIC_TYPE_OTHER,
                      OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, metric_units[m]),
                  "MetricMember");
        }
        const OTF2_MetricMemberRef counter_member = 0;
        check(OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &counter_member, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                                    OTF2_RECORDER_KIND_CPU),
              "MetricClass");
        for (std::uint32_t m = 0; m < gpu_metric_count; ++m) {
            const OTF2_MetricMemberRef member = gpu_metric_count - m;
            check(OTF2_GlobalDefWriter_WriteMetricClass(g, 1 + m, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                        OTF2_RECORDER_KIND_UNKNOWN),
                  "MetricClass");
        }
    }
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, host, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "SystemTreeNode");
    for (std::uint32_t r = 0; r < ranks_; ++r) {
        check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, rank_names[r], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      0, OTF2_UNDEFINED_LOCATION_GROUP),
              "LocationGroup");
    }
    for (const auto& [location, events] : events_) {
        const auto device = devices_.find(location);
        OTF2_LocationType type = OTF2_LOCATION_TYPE_CPU_THREAD;
        if (device != devices_.end()) type = OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
        if (metric_locations_.count(location) != 0) type = OTF2_LOCATION_TYPE_METRIC;
        check(OTF2_GlobalDefWriter_WriteLocation(g, location_id(location), thread_names[location], type,
                                                 counts[location], location.first),
              "Location");
        if (device == devices_.end()) continue;
        OTF2_AttributeValue value;
        value.uint32 = device->second;
        check(OTF2_GlobalDefWriter_WriteLocationProperty(g, location_id(location), device_property,
                                                         OTF2_TYPE_UINT32, value),
              "LocationProperty");
    }
    std::vector<std::uint64_t> firsts;
    for (std::uint32_t r = 0; r < ranks_; ++r) firsts.push_back(static_cast<std::uint64_t>(r) << 32);
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, all, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, ranks_, firsts.data()),
          "Group");
    OTF2_GroupRef next_group = 1;
    for (std::size_t c = 0; c < comms_.size(); ++c) {
        const Comm& comm = comms_[c];
        std::vector<std::uint64_t> members(comm.members.begin(), comm.members.end());
        OTF2_Paradigm paradigm = OTF2_PARADIGM_MPI;
        if (comm.team_rank >= 0) {
            // The team's own locations group; the team's members index it.
            paradigm = OTF2_PARADIGM_OPENMP;
            std::vector<std::uint64_t> threads;
            for (std::uint32_t t : comm.members)
                threads.push_back(static_cast<std::uint64_t>(comm.team_rank) << 32 | t);
            check(OTF2_GlobalDefWriter_WriteGroup(
                      g, next_group++, comm_names[c], OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                      OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(threads.size()), threads.data()),
                  "Group");
            for (std::size_t i = 0; i < members.size(); ++i) members[i] = i;
        }
        const OTF2_GroupRef group = next_group++;
        check(OTF2_GlobalDefWriter_WriteGroup(g, group, comm_names[c], OTF2_GROUP_TYPE_COMM_GROUP, paradigm,
                                              OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()),
                                              members.data()),
              "Group");
        check(OTF2_GlobalDefWriter_WriteComm(g, static_cast<OTF2_CommRef>(c), comm_names[c], group,
                                             OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
              "Comm");
    }
    check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "closing the global definitions");
    check(OTF2_Archive_Close(archive), "closing the archive");
}

TraceBuilder wait_states_trace() {
    TraceBuilder b(4);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    const std::uint32_t send = b.mpi_region("MPI_Send"), ssend = b.mpi_region("MPI_Ssend"),
                        recv = b.mpi_region("MPI_Recv"), isend = b.mpi_region("MPI_Isend"),
                        irecv = b.mpi_region("MPI_Irecv"), wait = b.mpi_region("MPI_Wait"),
                        waitall = b.mpi_region("MPI_Waitall"), barrier = b.mpi_region("MPI_Barrier"),
                        allreduce = b.mpi_region("MPI_Allreduce"), bcast = b.mpi_region("MPI_Bcast"),
                        reduce = b.mpi_region("MPI_Reduce");
    const std::uint32_t pair = b.communicator("pair", {2, 3});
    b.clock_offset(1, 7 * ms);
    b.clock_offset(2, 2 * ms);
    b.clock_offset(3, -static_cast<std::int64_t>(4 * ms));
    const auto us = [](std::uint64_t microseconds) { return microseconds * 1000; };
    for (std::uint32_t r = 0; r < 4; ++r) b.enter(r, 10 * ms, main);

    // rank 0
    b.blocking_send(0, send, 16 * ms, us(16100), 1, 1);
    b.enter(0, 25 * ms, irecv);
    b.irecv_request(0, us(25005), 7);
    b.leave(0, us(25010), irecv);
    b.enter(0, 26 * ms, wait);
    b.irecv(0, us(30490), 3, 3, 7);
    b.leave(0, us(30500), wait);
    b.parameter(0, us(34000), 42);
    b.blocking_send(0, send, 35 * ms, us(35050), 1, 5);
    // rank 1
    b.blocking_recv(1, recv, 11 * ms, us(16200), 0, 1);
    b.enter(1, 32 * ms, irecv);
    b.irecv_request(1, us(32001), 11);
    b.leave(1, us(32005), irecv);
    b.enter(1, us(32010), irecv);
    b.irecv_request(1, us(32011), 12);
    b.leave(1, us(32015), irecv);
    b.enter(1, 33 * ms, waitall);
    b.irecv(1, us(37980), 0, 5, 11);
    b.irecv(1, us(37990), 2, 5, 12);
    b.leave(1, 38 * ms, waitall);
    // rank 2: a synchronous send on "pair" to its rank 1 (world rank 3)
    b.blocking_send(2, ssend, 20 * ms, us(23500), 1, 2, pair);
    b.blocking_send(2, send, 37 * ms, us(37050), 1, 5);
    // rank 3
    b.blocking_recv(3, recv, 23 * ms, us(23600), 0, 2, pair);
    b.enter(3, 30 * ms, isend);
    b.isend(3, us(30001), 0, 3, 9);
    b.leave(3, us(30010), isend);
    b.enter(3, us(30020), wait);
    b.isend_complete(3, us(30025), 9);
    b.leave(3, us(30030), wait);

    const std::uint64_t barrier_enter[] = {50, 44, 46, 47}, allreduce_enter[] = {55, 56, 58, 54},
                        bcast_enter[] = {62, 65, 63, 61}, reduce_enter[] = {71, 72, 70, 75};
    for (std::uint32_t r = 0; r < 4; ++r) {
        b.collective(r, barrier, barrier_enter[r] * ms, us(50100), OTF2_COLLECTIVE_OP_BARRIER);
        b.collective(r, allreduce, allreduce_enter[r] * ms, us(58200), OTF2_COLLECTIVE_OP_ALLREDUCE);
        b.collective(r, bcast, bcast_enter[r] * ms, r == 1 ? us(65050) : us(65100), OTF2_COLLECTIVE_OP_BCAST,
                     1);
        b.collective(r, reduce, reduce_enter[r] * ms, r == 2 ? us(75100) : us(75050),
                     OTF2_COLLECTIVE_OP_REDUCE, 2);
        b.leave(r, 90 * ms, main);
    }
    return b;
}

std::string wait_states_trace_csv() {
    return "metric,callpath,rank,partner,time_s,instances\n"
           "late_sender,main/MPI_Recv,1,0,0.005,1\n"
           "late_sender,main/MPI_Wait,0,3,0.004,1\n"
           "late_sender,main/MPI_Waitall,1,2,0.004,1\n"
           "late_receiver,main/MPI_Ssend,2,3,0.003,1\n"
           "wait_at_barrier,main/MPI_Barrier,1,0,0.006,1\n"
           "wait_at_barrier,main/MPI_Barrier,2,0,0.004,1\n"
           "wait_at_barrier,main/MPI_Barrier,3,0,0.003,1\n"
           "wait_at_nxn,main/MPI_Allreduce,0,2,0.003,1\n"
           "wait_at_nxn,main/MPI_Allreduce,1,2,0.002,1\n"
           "wait_at_nxn,main/MPI_Allreduce,3,2,0.004,1\n"
           "late_broadcast,main/MPI_Bcast,0,1,0.003,1\n"
           "late_broadcast,main/MPI_Bcast,2,1,0.002,1\n"
           "late_broadcast,main/MPI_Bcast,3,1,0.004,1\n"
           "early_reduce,main/MPI_Reduce,2,3,0.005,1\n";
}

}  // namespace strata::analysis::test

namespace strata::analysis::test {

TraceBuilder gpu_trace() {
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        forward = b.region("forward", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        gemm = b.kernel_region("volta_h884gemm_64x64_ldg8_nn"),
                        reduce = b.kernel_region("reduce_kernel"), saxpy = b.kernel_region("saxpy"),
                        sgemm = b.kernel_region("volta_sgemm_128x64_nn"),
                        htod = b.copy_region("cudaMemcpy HtoD"), dtoh = b.copy_region("cudaMemcpy DtoH"),
                        dtod = b.copy_region("cudaMemcpy DtoD"), memset = b.copy_region("cudaMemset");
    b.clock_offset(1, -static_cast<std::int64_t>(3 * ms));  // ahead: local = true + 3 ms
    const std::uint32_t s0 = b.stream(0, 0), s1 = b.stream(0, 0), s2 = b.stream(0, 1), r1 = b.stream(1, 0);
    const auto launch_at = [&](std::uint32_t rank, std::uint64_t t, std::uint64_t correlation) {
        b.enter_launch(rank, t, launch, correlation);
        b.leave(rank, t + 100000, launch);
    };
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 0, main);
    // rank 0: forward launches the gemms and the reduction, main the saxpys.
    b.enter(0, 1 * ms, forward);
    launch_at(0, 2 * ms, 1);
    launch_at(0, 3 * ms, 2);
    launch_at(0, 4 * ms, 3);
    b.leave(0, 5 * ms, forward);
    launch_at(0, 6 * ms, 4);
    launch_at(0, 7 * ms, 5);
    b.gpu_op(0, s0, 5 * ms, 10 * ms, htod);
    b.gpu_op(0, s0, 10 * ms, 30 * ms, gemm, 1);
    b.gpu_op(0, s0, 40 * ms, 60 * ms, gemm, 2);
    b.gpu_op(0, s1, 20 * ms, 50 * ms, reduce, 3);
    b.gpu_op(0, s1, 60 * ms, 65 * ms, dtoh);
    b.gpu_op(0, s2, 10 * ms, 20 * ms, saxpy, 4);
    b.gpu_op(0, s2, 30 * ms, 40 * ms, saxpy, 5);
    b.gpu_op(0, s2, 45 * ms, 50 * ms, memset);
    // rank 1
    b.enter(1, 1 * ms, forward);
    launch_at(1, 2 * ms, 1);
    b.leave(1, 5 * ms, forward);
    b.gpu_op(1, r1, 10 * ms, 60 * ms, sgemm, 1);
    b.gpu_op(1, r1, 60 * ms, 62 * ms, dtod);
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 70 * ms, main);
    return b;
}

TraceBuilder gpu_launch_trace() {
    TraceBuilder b(2);
    const auto us = [](std::uint64_t microseconds) { return microseconds * 1000; };
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        graph = b.region("cudaGraphLaunch", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        memcpy = b.region("cudaMemcpyAsync", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        gemm = b.kernel_region("h1688gemm_kernel"), norm = b.kernel_region("layer_norm"),
                        softmax = b.kernel_region("softmax"),
                        sgemm = b.kernel_region("volta_sgemm_128x64_nn"),
                        nccl = b.kernel_region("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"),
                        step = b.kernel_region("step_kernel"), orphan = b.kernel_region("orphan_kernel"),
                        dtoh = b.copy_region("cudaMemcpyAsync DtoH");
    b.clock_offset(1, -static_cast<std::int64_t>(2 * ms));  // ahead: local = true + 2 ms
    const std::uint32_t s0 = b.stream(0, 0), s1 = b.stream(0, 0), r1 = b.stream(1, 0);
    const auto host_call = [&](std::uint32_t rank, std::uint64_t t, std::uint32_t region, std::uint64_t id) {
        b.enter_launch(rank, us(t), region, id);
        b.leave(rank, us(t + 3), region);
    };
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 0, main);
    host_call(0, 100, launch, 11);
    b.gpu_op(0, s0, us(105), us(205), gemm, 11);
    host_call(0, 300, graph, 12);  // one correlation id for the graph's three kernels
    b.gpu_op(0, s0, us(320), us(340), norm, 12);
    b.gpu_op(0, s1, us(330), us(350), softmax, 12);
    b.gpu_op(0, s0, us(360), us(380), norm, 12);
    host_call(0, 400, launch, 13);
    b.gpu_op(0, s1, us(410), us(510), nccl, 13);
    host_call(0, 420, launch, 14);
    b.gpu_op(0, s0, us(450), us(550), sgemm, 14);
    host_call(0, 560, memcpy, 15);
    b.gpu_op(0, s1, us(562), us(600), dtoh, 15);
    host_call(1, 1000, launch, 7);
    b.gpu_op(1, r1, us(990), us(1090), step, 7);  // the GPU's clock ahead of the host's
    host_call(1, 1100, launch, 8);
    b.gpu_op(1, r1, us(1200), us(1300), step, 8);
    b.gpu_op(1, r1, us(1400), us(1410), orphan, 99);  // no host region carries 99
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, us(2000), main);
    return b;
}

TraceBuilder gpu_metrics_trace() {
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        gemm = b.kernel_region("gemm");
    b.clock_offset(1, -static_cast<std::int64_t>(3 * ms));  // ahead: local = true + 3 ms
    const std::uint32_t stream = b.stream(0, 0), gpu0 = b.gpu_metrics(0, 0), gpu1 = b.gpu_metrics(1, 1);
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 5 * ms, main);
    b.gpu_op(0, stream, 10 * ms, 30 * ms, gemm);
    constexpr std::int64_t gib = 1 << 30, absent = -1;
    b.gpu_sample(0, gpu0, 10 * ms, {20, 5, gib, 100000, 1410});
    b.gpu_sample(0, gpu0, 20 * ms, {80, 30, 2 * gib, 250000, 1980});
    b.gpu_sample(0, gpu0, 30 * ms, {100, 40, 3 * gib, absent, 1980});
    b.gpu_sample(0, gpu0, 40 * ms, {0, 0, 2 * gib, 50000, 1410});
    b.gpu_sample(1, gpu1, 15 * ms, {60, 10, gib / 2, 300000, 1700});
    b.gpu_sample(1, gpu1, 25 * ms, {40, 20, gib / 2, 200000, 1700});
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 50 * ms, main);
    return b;
}

TraceBuilder iterations_trace(bool phase) {
    TraceBuilder b(2);
    const std::uint32_t main = b.region("main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        step = b.region("step", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                        phase ? OTF2_REGION_FLAG_PHASE : OTF2_REGION_FLAG_NONE),
                        halo = b.region("halo", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER),
                        barrier = b.mpi_region("MPI_Barrier"),
                        launch = b.region("cudaLaunchKernel", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA),
                        kernel = b.kernel_region("stencil");
    b.clock_offset(1, -static_cast<std::int64_t>(2 * ms));
    const std::uint32_t gpu = b.stream(0, 0);
    for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 0, main);
    for (std::uint64_t i = 0; i < 6; ++i) {
        const std::uint64_t begin = i == 0 ? 0 : (30 + 10 * (i - 1)) * ms, end = (30 + 10 * i) * ms;
        for (std::uint32_t r = 0; r < 2; ++r) {
            b.enter(r, begin, step);
            for (std::uint64_t h = 0; h < 2; ++h) {
                b.enter(r, begin + (1 + 2 * h) * 100000, halo);
                b.leave(r, begin + (2 + 2 * h) * 100000, halo);
            }
            const std::uint64_t arrive = r == 0 ? end - 1 * ms : end - (i == 0 ? 7 : 3) * ms;
            b.collective(r, barrier, arrive, end, OTF2_COLLECTIVE_OP_BARRIER);
            b.leave(r, end, step);
        }
        b.enter_launch(0, begin + 500000, launch, i + 1);
        b.leave(0, begin + 600000, launch);
        b.gpu_op(0, gpu, begin + 1 * ms, begin + 5 * ms, kernel, i + 1);
    }
    for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 85 * ms, main);
    return b;
}

}  // namespace strata::analysis::test
