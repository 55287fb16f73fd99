// SPDX-License-Identifier: BSD-3-Clause
// Reading the global definitions of an OTF2 archive (see trace_definitions.hpp).
#include "trace/trace_definitions.hpp"

#include <algorithm>
#include <cstdarg>
#include <map>
#include <tuple>

#include "trace/otf2_reader.hpp"

namespace strata::analysis::trace {

namespace {

OTF2_ErrorCode quiet(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char*, va_list) {
    return code;
}

/// Definitions as they arrive: names are string references until the end.
struct RawDefinitions {
    std::map<OTF2_StringRef, std::string> strings;
    std::vector<std::pair<OTF2_RegionRef, OTF2_StringRef>> region_names;
    std::map<OTF2_LocationGroupRef, bool> process_groups;  ///< group -> is a process
    std::vector<OTF2_LocationGroupRef> group_order;
    std::vector<std::uint64_t> comm_locations;  ///< COMM_LOCATIONS members: world rank -> location
    std::map<OTF2_GroupRef, std::vector<std::uint64_t>> comm_groups;
    std::vector<std::tuple<OTF2_CommRef, OTF2_StringRef, OTF2_GroupRef>> comms;
    std::vector<OTF2_StringRef> location_names;  ///< by location, in definition order
    std::vector<std::tuple<OTF2_LocationRef, OTF2_StringRef, std::int64_t>> properties;  ///< integer ones
    std::map<OTF2_StringRef, OTF2_AttributeRef> attributes;  ///< by name reference
    std::vector<std::pair<OTF2_MetricMemberRef, OTF2_StringRef>> metric_member_names;
    TraceDefinitions* out = nullptr;
    std::string problem;
};

RawDefinitions& raw(void* user) {
    return *static_cast<RawDefinitions*>(user);
}

OTF2_CallbackCode on_string(void* user, OTF2_StringRef self, const char* text) {
    raw(user).strings[self] = text != nullptr ? text : "";
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_clock(void* user, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t) {
    raw(user).out->timer_resolution = resolution;
    raw(user).out->global_offset = offset;
    raw(user).out->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_region(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                            OTF2_StringRef, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                            OTF2_RegionFlag flags, OTF2_StringRef, uint32_t, uint32_t) {
    RawDefinitions& r = raw(user);
    // References are dense from 0; anything far beyond the count is damage.
    if (self > (1u << 24)) {
        r.problem = "region reference " + std::to_string(self) + " is out of range";
        return OTF2_CALLBACK_INTERRUPT;
    }
    auto& regions = r.out->regions;
    if (regions.size() <= self) regions.resize(self + 1);
    regions[self].role = role;
    regions[self].paradigm = paradigm;
    regions[self].flags = flags;
    r.region_names.emplace_back(self, name);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location_group(void* user, OTF2_LocationGroupRef self, OTF2_StringRef,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                    OTF2_LocationGroupRef) {
    RawDefinitions& r = raw(user);
    r.process_groups[self] = type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
    if (type == OTF2_LOCATION_GROUP_TYPE_PROCESS) r.group_order.push_back(self);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location(void* user, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                              uint64_t events, OTF2_LocationGroupRef group) {
    raw(user).location_names.push_back(name);
    TraceLocation l;
    l.id = self;
    l.type = type;
    l.group = group;
    l.events = events;
    raw(user).out->locations.push_back(l);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location_property(void* user, OTF2_LocationRef location, OTF2_StringRef name,
                                       OTF2_Type type, OTF2_AttributeValue value) {
    RawDefinitions& r = raw(user);
    // The name is resolved later; only integer values can be a device.
    std::int64_t device = -1;
    switch (type) {
        case OTF2_TYPE_UINT8:
            device = value.uint8;
            break;
        case OTF2_TYPE_UINT16:
            device = value.uint16;
            break;
        case OTF2_TYPE_UINT32:
            device = value.uint32;
            break;
        case OTF2_TYPE_UINT64:
            device = value.uint64 > INT32_MAX ? -1 : static_cast<std::int64_t>(value.uint64);
            break;
        case OTF2_TYPE_INT32:
            device = value.int32;
            break;
        case OTF2_TYPE_INT64:
            device = value.int64 > INT32_MAX ? -1 : value.int64;
            break;
        default:
            return OTF2_CALLBACK_SUCCESS;
    }
    if (device >= 0) r.properties.emplace_back(location, name, device);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_attribute(void* user, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef,
                               OTF2_Type type) {
    if (type == OTF2_TYPE_UINT64) raw(user).attributes[name] = self;
    return OTF2_CALLBACK_SUCCESS;
}

// References are dense from 0; members or classes far beyond any count are
// damage, left out (no GPU metric is found in them) rather than fatal.
constexpr std::uint32_t largest_metric_reference = 1u << 16;

OTF2_CallbackCode on_metric_member(void* user, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef,
                                   OTF2_MetricType, OTF2_MetricMode, OTF2_Type, OTF2_Base, int64_t,
                                   OTF2_StringRef) {
    if (self < largest_metric_reference) raw(user).metric_member_names.emplace_back(self, name);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_metric_class(void* user, OTF2_MetricRef self, uint8_t count,
                                  const OTF2_MetricMemberRef* members, OTF2_MetricOccurrence,
                                  OTF2_RecorderKind) {
    if (self >= largest_metric_reference) return OTF2_CALLBACK_SUCCESS;
    auto& classes = raw(user).out->metric_classes;
    if (classes.size() <= self) classes.resize(self + 1);
    classes[self].assign(members, members + count);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_group(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count, const uint64_t* members) {
    RawDefinitions& r = raw(user);
    // Only MPI's COMM_LOCATIONS group numbers the ranks; OpenMP (thread
    // teams) and other paradigms have their own.
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS && paradigm == OTF2_PARADIGM_MPI) {
        r.comm_locations.assign(members, members + count);
    } else if (type == OTF2_GROUP_TYPE_COMM_GROUP) {
        r.comm_groups[self].assign(members, members + count);
    }
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_comm(void* user, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef, OTF2_CommFlag) {
    raw(user).comms.emplace_back(self, name, group);
    return OTF2_CALLBACK_SUCCESS;
}

/// Fills in names, world ranks and communicators once everything is read.
void resolve(RawDefinitions& r) {
    TraceDefinitions& d = *r.out;
    auto text = [&](OTF2_StringRef s) {
        const auto it = r.strings.find(s);
        return it == r.strings.end() ? std::string("<string ") + std::to_string(s) + ">" : it->second;
    };
    for (const auto& [region, name] : r.region_names) d.regions[region].name = text(name);
    for (std::size_t i = 0; i < d.locations.size(); ++i) d.locations[i].name = text(r.location_names[i]);
    std::map<std::uint64_t, std::size_t> index_of;
    for (std::size_t i = 0; i < d.locations.size(); ++i) index_of[d.locations[i].id] = i;
    for (const auto& [location, name, value] : r.properties) {
        const auto it = index_of.find(location);
        if (it != index_of.end() && text(name) == cuda_device_property)
            d.locations[it->second].device = value;
    }
    for (const auto& [member, name] : r.metric_member_names) {
        if (d.metric_members.size() <= member) d.metric_members.resize(member + 1);
        d.metric_members[member] = text(name);
    }
    for (const auto& [name, attribute] : r.attributes) {
        if (text(name) == cuda_correlation_attribute) d.correlation_attribute = attribute;
    }

    // Location group -> world rank.
    std::map<OTF2_LocationGroupRef, std::int64_t> rank_of_group;
    if (!r.comm_locations.empty()) {
        std::map<std::uint64_t, OTF2_LocationGroupRef> group_of_location;
        for (const TraceLocation& l : d.locations) group_of_location[l.id] = l.group;
        for (std::size_t w = 0; w < r.comm_locations.size(); ++w) {
            const auto it = group_of_location.find(r.comm_locations[w]);
            if (it != group_of_location.end())
                rank_of_group.emplace(it->second, static_cast<std::int64_t>(w));
        }
        d.world_size = r.comm_locations.size();
    } else {
        for (std::size_t i = 0; i < r.group_order.size(); ++i) {
            rank_of_group.emplace(r.group_order[i], static_cast<std::int64_t>(i));
        }
        d.world_size = r.group_order.size();
    }
    for (TraceLocation& l : d.locations) {
        const auto it = rank_of_group.find(l.group);
        if (it != rank_of_group.end()) l.rank = it->second;
    }
    for (const auto& [comm, name, group] : r.comms) {
        if (comm > (1u << 24)) continue;
        if (d.communicators.size() <= comm) d.communicators.resize(comm + 1);
        TraceCommunicator& c = d.communicators[comm];
        c.name = text(name);
        c.defined = true;
        const auto it = r.comm_groups.find(group);
        if (it == r.comm_groups.end()) continue;
        for (std::uint64_t w : it->second) c.world_ranks.push_back(static_cast<std::uint32_t>(w));
    }
}

}  // namespace

void silence_otf2_errors() {
    static const bool done = (OTF2_Error_RegisterCallback(quiet, nullptr), true);
    (void)done;
}

std::string describe_otf2(int code) {
    const auto c = static_cast<OTF2_ErrorCode>(code);
    return std::string(OTF2_Error_GetName(c)) + ": " + OTF2_Error_GetDescription(c);
}

std::int64_t TraceDefinitions::world_rank(std::uint32_t comm, std::uint32_t comm_rank) const {
    if (comm >= communicators.size()) return -1;
    const TraceCommunicator& c = communicators[comm];
    if (comm_rank >= c.world_ranks.size()) return -1;
    return c.world_ranks[comm_rank];
}

TraceDefinitions read_trace_definitions(const std::string& anchor) {
    Otf2Reader reader(anchor);
    if (!reader.ok()) throw TraceError(*reader.error());
    TraceDefinitions definitions;
    definitions.anchor = anchor;
    RawDefinitions r;
    r.out = &definitions;

    OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader.get());
    if (defs == nullptr)
        throw TraceError(anchor + ": cannot open the global definitions (traces.def missing or damaged)");
    OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
    if (callbacks == nullptr) throw TraceError(anchor + ": out of memory");
    OTF2_ErrorCode rc = OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
    if (rc == OTF2_SUCCESS) rc = OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks, on_location_group);
    if (rc == OTF2_SUCCESS) rc = OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(callbacks, on_location_property);
    if (rc == OTF2_SUCCESS) rc = OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(callbacks, on_attribute);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(callbacks, on_metric_member);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(callbacks, on_metric_class);
    if (rc == OTF2_SUCCESS) rc = OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
    if (rc == OTF2_SUCCESS) rc = OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), defs, callbacks, &r);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    uint64_t read = 0;
    if (rc == OTF2_SUCCESS) rc = OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), defs, &read);
    const OTF2_ErrorCode closed = OTF2_Reader_CloseGlobalDefReader(reader.get(), defs);
    if (rc == OTF2_SUCCESS) rc = closed;
    if (!r.problem.empty()) throw TraceError(anchor + ": global definitions: " + r.problem);
    if (rc != OTF2_SUCCESS) {
        throw TraceError(anchor +
                         ": the global definitions (traces.def) cannot be read: " + describe_otf2(rc));
    }
    if (definitions.timer_resolution == 0) {
        throw TraceError(anchor + ": the global definitions have no clock properties (timer resolution)");
    }
    if (definitions.locations.empty())
        throw TraceError(anchor + ": the global definitions define no locations");
    resolve(r);
    return definitions;
}

RankLayout trace_rank_layout(const TraceDefinitions& definitions) {
    RankLayout layout;
    std::map<std::int64_t, std::vector<std::size_t>> columns;
    for (std::size_t i = 0; i < definitions.locations.size(); ++i) {
        const TraceLocation& l = definitions.locations[i];
        if (l.type == OTF2_LOCATION_TYPE_CPU_THREAD && l.rank >= 0) {
            columns[l.rank].push_back(i);
            ++layout.cpu_threads;
        } else if (l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) {
            ++layout.gpu_streams;
        } else {
            ++layout.other_locations;
        }
    }
    for (auto& [rank, cols] : columns) {
        layout.ranks.push_back(MeasuredRank{static_cast<std::uint32_t>(rank), std::move(cols)});
    }
    return layout;
}

}  // namespace strata::analysis::trace
