// SPDX-License-Identifier: BSD-3-Clause
// Decoding CUPTI activity records (see activity_records.hpp).
#include "activity_records.hpp"

namespace strata::cuda {

namespace {
/// The fields kernels, copies and memsets share (the same names in each struct).
template <typename Record>
void common(const Record* r, GpuActivity::Kind kind, GpuActivity* out) {
    out->kind = kind;
    out->device = r->deviceId;
    out->context = r->contextId;
    out->stream = r->streamId;
    out->start = r->start;
    out->end = r->end;
    out->correlation = r->correlationId;
    out->graph_id = r->graphId;
    out->graph_node_id = r->graphNodeId;
}
}  // namespace

bool decode_record(const CUpti_Activity* record, GpuActivity* out, DecodeCounts* counts) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            common(k, GpuActivity::kernel, out);
            out->name = k->name;
            out->grid[0] = k->gridX;
            out->grid[1] = k->gridY;
            out->grid[2] = k->gridZ;
            out->block[0] = k->blockX;
            out->block[1] = k->blockY;
            out->block[2] = k->blockZ;
            out->registers = k->registersPerThread;
            out->shared_memory = k->staticSharedMemory + k->dynamicSharedMemory;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            common(m, GpuActivity::memcpy, out);
            out->bytes = m->bytes;
            out->copy_kind = m->copyKind;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // peer to peer
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
            common(m, GpuActivity::memcpy, out);
            out->bytes = m->bytes;
            out->copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            common(m, GpuActivity::memset, out);
            out->bytes = m->bytes;
            break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
            out->kind = GpuActivity::synchronization;
            out->context = s->contextId;
            out->stream = s->streamId;
            out->start = s->start;
            out->end = s->end;
            out->correlation = s->correlationId;
            return true;  // host times; a 0 is not an error here
        }
        case CUPTI_ACTIVITY_KIND_OVERHEAD: {
            const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
            out->kind = GpuActivity::overhead;
            out->start = o->start;
            out->end = o->end;
            out->correlation = o->correlationId;
            return true;
        }
        default: ++counts->unknown_kinds[static_cast<std::uint32_t>(record->kind)]; return false;
    }
    if (out->start == 0 || out->end == 0 || out->end < out->start) {
        ++counts->zero_timestamps;
        return false;
    }
    return true;
}

std::string_view copy_direction(std::uint8_t copy_kind) {
    switch (copy_kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
            return "HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
            return "DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
            return "HtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
            return "AtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
            return "AtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
            return "AtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
            return "DtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
            return "DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
            return "HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
            return "PtoP";
        default:
            return "other";
    }
}

}  // namespace strata::cuda
