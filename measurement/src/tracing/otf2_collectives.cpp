// SPDX-License-Identifier: BSD-3-Clause
// OTF2 collectives over a ProcessGroup: element counts and types become bytes.
#include "tracing/otf2_collectives.hpp"

#include <vector>

namespace strata::tracing {

namespace {

using events::ProcessGroup;

ProcessGroup& group_of(void* user) { return *static_cast<ProcessGroup*>(user); }

std::size_t type_size(OTF2_Type type) {
    switch (type) {
        case OTF2_TYPE_UINT8:
        case OTF2_TYPE_INT8: return 1;
        case OTF2_TYPE_UINT16:
        case OTF2_TYPE_INT16: return 2;
        case OTF2_TYPE_UINT64:
        case OTF2_TYPE_INT64:
        case OTF2_TYPE_DOUBLE:
        case OTF2_TYPE_LOCATION: return 8;
        default: return 4;  // 32-bit numbers, floats and the other reference types
    }
}

OTF2_CallbackCode get_size(void* user, OTF2_CollectiveContext*, uint32_t* size) {
    *size = static_cast<uint32_t>(group_of(user).size());
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode get_rank(void* user, OTF2_CollectiveContext*, uint32_t* rank) {
    *rank = static_cast<uint32_t>(group_of(user).rank());
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode barrier(void* user, OTF2_CollectiveContext*) {
    group_of(user).barrier();
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode bcast(void* user, OTF2_CollectiveContext*, void* data, uint32_t n, OTF2_Type type, uint32_t root) {
    group_of(user).broadcast(data, n * type_size(type), static_cast<int>(root));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode gather(void* user, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                         uint32_t root) {
    group_of(user).gather(in, n * type_size(type), out, static_cast<int>(root));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode gatherv(void* user, OTF2_CollectiveContext*, const void* in, uint32_t n, void* out,
                          const uint32_t* counts, OTF2_Type type, uint32_t root) {
    ProcessGroup& g = group_of(user);
    const std::size_t unit = type_size(type);
    std::vector<std::size_t> bytes;
    if (g.rank() == static_cast<int>(root)) {
        for (int r = 0; r < g.size(); ++r) bytes.push_back(counts[r] * unit);
    }
    g.gatherv(in, n * unit, out, bytes.empty() ? nullptr : bytes.data(), static_cast<int>(root));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode scatter(void* user, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                          uint32_t root) {
    group_of(user).scatter(in, n * type_size(type), out, static_cast<int>(root));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode scatterv(void* user, OTF2_CollectiveContext*, const void* in, const uint32_t* counts, void* out,
                           uint32_t n, OTF2_Type type, uint32_t root) {
    ProcessGroup& g = group_of(user);
    const std::size_t unit = type_size(type);
    std::vector<std::size_t> bytes;
    if (g.rank() == static_cast<int>(root)) {
        for (int r = 0; r < g.size(); ++r) bytes.push_back(counts[r] * unit);
    }
    g.scatterv(in, bytes.empty() ? nullptr : bytes.data(), out, n * unit, static_cast<int>(root));
    return OTF2_CALLBACK_SUCCESS;
}

// Local communicators only matter for the SION substrate, which we do not use.
const OTF2_CollectiveCallbacks kCallbacks = {
    nullptr, get_size, get_rank, nullptr, nullptr, barrier, bcast, gather, gatherv, scatter, scatterv,
};

}  // namespace

const OTF2_CollectiveCallbacks& process_group_collectives() { return kCallbacks; }

}  // namespace strata::tracing
