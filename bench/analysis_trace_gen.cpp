// SPDX-License-Identifier: BSD-3-Clause
// A synthetic MPI trace for the analysis benchmark (run_analysis.sh),
// written with the OTF2 writer API in the layout Strata's measurement uses
// (location rank << 32, one location group per rank, a COMM_GROUP of world
// ranks for MPI_COMM_WORLD, ClockOffset points in each .def file, drifting
// as real clocks do).
//
//   bench-analysis-trace-gen DIR RANKS ITERATIONS [MESSAGE_EVERY]
//
// Each rank runs ITERATIONS iterations of
//
//   compute { kernel x4 }                          10 events
//   every MESSAGE_EVERY-th (default 5):
//               MPI_Send to r+1, MPI_Recv from r-1  6 events (rank 1 waits 0.6 us for rank 0)
//   every 50th: MPI_Allreduce                       4 events (rank r enters 0.1 r us late;
//                                                   closer with more than 40 ranks)
//
// inside main, about 11.3 events per iteration with the default (10.1 + 6 /
// MESSAGE_EVERY in general).  Events are streamed to
// disk; nothing is kept.  Prints the number of events written.
//
// With CLOCK_ERROR_NS=E in the environment, the ClockOffset points of the odd
// ranks are E ns off, as a clock synchronisation that measured badly: their
// corrected times come E ns early, and with E above 300 every receive of
// rank 1 ends before rank 0's send began and the odd ranks leave each
// Allreduce before the last rank entered (the logical clock's work).
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS) {
        std::fprintf(stderr, "bench-analysis-trace-gen: %s: %s\n", what, OTF2_Error_GetName(code));
        std::exit(1);
    }
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

enum Region : OTF2_RegionRef { main_region, compute, kernel, send, recv, allreduce, region_count };

constexpr std::uint64_t ns_per_iteration = 20000;  // 20 us
constexpr std::int64_t clock_offset_ns = 3000;      // every rank but 0 runs 3 us behind
constexpr std::int64_t clock_drift_ns = 2000;       // ... and 2 us more by the end

/// Rank r's offset to rank 0 at time t, for a run whose last ClockOffset is
/// at `last`: the two offsets of a real experiment (MPI_Init, MPI_Finalize)
/// differ by the clocks' drift, so the analysis interpolates between them.
std::int64_t offset_at(std::uint32_t r, std::uint64_t t, std::uint64_t last) {
    if (r == 0) return 0;
    return clock_offset_ns + clock_drift_ns * static_cast<std::int64_t>(t) / static_cast<std::int64_t>(last);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: bench-analysis-trace-gen DIR RANKS ITERATIONS [MESSAGE_EVERY]\n");
        return 2;
    }
    const std::string directory = argv[1];
    const auto ranks = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
    const std::uint64_t iterations = std::strtoull(argv[3], nullptr, 10);
    const std::uint64_t message_every = argc == 5 ? std::strtoull(argv[4], nullptr, 10) : 5;
    if (ranks < 2 || iterations == 0 || message_every == 0) {
        std::fprintf(stderr, "bench-analysis-trace-gen: RANKS >= 2, ITERATIONS >= 1, MESSAGE_EVERY >= 1\n");
        return 2;
    }
    OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                              4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == nullptr) {
        std::fprintf(stderr, "bench-analysis-trace-gen: cannot create the archive in %s\n", directory.c_str());
        return 1;
    }
    check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, nullptr), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(archive), "opening the event files");
    const char* error_text = std::getenv("CLOCK_ERROR_NS");
    const std::int64_t clock_error = error_text != nullptr ? std::strtoll(error_text, nullptr, 10) : 0;

    const std::uint64_t start = 1000000, end = start + (iterations + 2) * ns_per_iteration;
    const std::uint64_t last_offset = end + 1000;  // when the second ClockOffset is measured
    std::vector<std::uint64_t> counts(ranks, 0);
    for (std::uint32_t r = 0; r < ranks; ++r) {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, static_cast<OTF2_LocationRef>(r) << 32);
        if (w == nullptr) check(OTF2_ERROR_INVALID, "an event writer");
        auto local = [&](std::uint64_t t) {
            return static_cast<OTF2_TimeStamp>(static_cast<std::int64_t>(t) - offset_at(r, t, last_offset));
        };
        std::uint64_t& n = counts[r];
        auto enter = [&](std::uint64_t t, Region region) {
            check(OTF2_EvtWriter_Enter(w, nullptr, local(t), region), "Enter");
            ++n;
        };
        auto leave = [&](std::uint64_t t, Region region) {
            check(OTF2_EvtWriter_Leave(w, nullptr, local(t), region), "Leave");
            ++n;
        };
        enter(start, main_region);
        for (std::uint64_t i = 0; i < iterations; ++i) {
            const std::uint64_t t = start + 1000 + i * ns_per_iteration;
            enter(t, compute);
            for (std::uint64_t k = 0; k < 4; ++k) {
                enter(t + 100 + k * 2000, kernel);
                leave(t + 1900 + k * 2000, kernel);
            }
            leave(t + 8000, compute);
            if (i % message_every == 0) {
                const std::uint64_t s = t + 8100 + (r == 0 ? 6000 : 0);
                enter(s, send);
                check(OTF2_EvtWriter_MpiSend(w, nullptr, local(s + 10), (r + 1) % ranks, 0, 0, 64), "MpiSend");
                leave(s + 200, send);
                const std::uint64_t e = t + (r == 0 ? 14400 : 13500), x = r == 1 ? t + 14400 : e + 300;
                enter(e, recv);
                check(OTF2_EvtWriter_MpiRecv(w, nullptr, local(x - 10), (r + ranks - 1) % ranks, 0, 0, 64),
                      "MpiRecv");
                leave(x, recv);
                n += 2;
            }
            if (i % 50 == 0) {
                // Arrivals 0.1 us apart, closer with more than 40 ranks so that the call ends within its iteration.
                const std::uint64_t step = std::min<std::uint64_t>(100, 4000 / ranks);
                const std::uint64_t e = t + 15000 + r * step, x = t + 15000 + ranks * step + 200;
                enter(e, allreduce);
                check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, local(e + 5)), "MpiCollectiveBegin");
                check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, local(x - 5), OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                                      OTF2_UNDEFINED_UINT32, 8, 8),
                      "MpiCollectiveEnd");
                leave(x, allreduce);
                n += 2;
            }
        }
        leave(end, main_region);
        check(OTF2_Archive_CloseEvtWriter(archive, w), "closing an event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(archive), "closing the event files");

    check(OTF2_Archive_OpenDefFiles(archive), "opening the local definition files");
    for (std::uint32_t r = 0; r < ranks; ++r) {
        OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, static_cast<OTF2_LocationRef>(r) << 32);
        if (d == nullptr) check(OTF2_ERROR_INVALID, "a definition writer");
        const std::int64_t error = r % 2 == 1 ? clock_error : 0;
        check(OTF2_DefWriter_WriteClockOffset(d, 0, offset_at(r, 0, last_offset) - error, 0.0), "ClockOffset");
        check(OTF2_DefWriter_WriteClockOffset(d, last_offset, offset_at(r, last_offset, last_offset) - error, 0.0),
              "ClockOffset");
        check(OTF2_Archive_CloseDefWriter(archive, d), "closing a definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive), "closing the local definition files");

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (g == nullptr) check(OTF2_ERROR_INVALID, "the global definition writer");
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end + 1000, OTF2_UNDEFINED_TIMESTAMP),
          "ClockProperties");
    std::vector<std::string> strings = {"", "main", "compute", "kernel", "MPI_Send", "MPI_Recv", "MPI_Allreduce",
                                        "host", "node", "MPI_COMM_WORLD", "MPI ranks", "master thread"};
    for (std::uint32_t r = 0; r < ranks; ++r) strings.push_back("rank " + std::to_string(r));
    for (std::size_t i = 0; i < strings.size(); ++i)
        check(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(i), strings[i].c_str()), "String");
    struct RegionDef {
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
    };
    const RegionDef regions[region_count] = {{OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
                                             {OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER},
                                             {OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
                                             {OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
                                             {OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
                                             {OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI}};
    for (OTF2_RegionRef i = 0; i < region_count; ++i)
        check(OTF2_GlobalDefWriter_WriteRegion(g, i, i + 1, i + 1, 0, regions[i].role, regions[i].paradigm,
                                               OTF2_REGION_FLAG_NONE, 0, 0, 0),
              "Region");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 7, 8, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "SystemTreeNode");
    for (std::uint32_t r = 0; r < ranks; ++r)
        check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, static_cast<OTF2_StringRef>(12 + r),
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "LocationGroup");
    for (std::uint32_t r = 0; r < ranks; ++r)
        check(OTF2_GlobalDefWriter_WriteLocation(g, static_cast<OTF2_LocationRef>(r) << 32, 11,
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r),
              "Location");
    std::vector<std::uint64_t> locations, world;
    for (std::uint32_t r = 0; r < ranks; ++r) {
        locations.push_back(static_cast<std::uint64_t>(r) << 32);
        world.push_back(r);
    }
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, 10, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, ranks, locations.data()),
          "Group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, 1, 9, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, ranks, world.data()),
          "Group");
    check(OTF2_GlobalDefWriter_WriteComm(g, 0, 9, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "Comm");
    check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "closing the global definitions");
    check(OTF2_Archive_Close(archive), "closing the archive");
    std::uint64_t total = 0;
    for (std::uint64_t c : counts) total += c;
    std::printf("%llu\n", static_cast<unsigned long long>(total));
    return 0;
}
