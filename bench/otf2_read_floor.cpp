// SPDX-License-Identifier: BSD-3-Clause
// The floor of the analysis benchmark (run_analysis.sh): a plain OTF2
// reader that decodes the events strata-analyze's replay decodes (the same
// callbacks, empty apart from a count) and nothing else, location by
// location in batches of 65536 events, as the replay reads them.
//
//   bench-otf2-read-floor ANCHOR [PART PARTS]
//
// ANCHOR is the traces.otf2 of an experiment.  With PART and PARTS, only part
// PART (0-based) of PARTS equal runs of consecutive locations is read: the
// share one of PARTS analysis ranks replays, for a floor of PARTS readers
// running at the same time.
//
// Prints "events <n> seconds <wall time of the reading>".
#include <otf2/otf2.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Count {
    std::uint64_t events = 0;
    std::uint64_t clock_offsets = 0;
};

#define STRATA_COUNT(name, ...)                                                            \
    OTF2_CallbackCode name(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,         \
                           OTF2_AttributeList*, __VA_ARGS__) {                             \
        ++static_cast<Count*>(user)->events;                                               \
        return OTF2_CALLBACK_SUCCESS;                                                      \
    }
STRATA_COUNT(on_enter, OTF2_RegionRef)
STRATA_COUNT(on_leave, OTF2_RegionRef)
STRATA_COUNT(on_send, uint32_t, OTF2_CommRef, uint32_t, uint64_t)
STRATA_COUNT(on_isend, uint32_t, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
STRATA_COUNT(on_isend_complete, uint64_t)
STRATA_COUNT(on_irecv_request, uint64_t)
STRATA_COUNT(on_recv, uint32_t, OTF2_CommRef, uint32_t, uint64_t)
STRATA_COUNT(on_irecv, uint32_t, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
STRATA_COUNT(on_cancelled, uint64_t)
STRATA_COUNT(on_collective_end, OTF2_CollectiveOp, OTF2_CommRef, uint32_t, uint64_t, uint64_t)
#undef STRATA_COUNT

OTF2_CallbackCode on_clock_offset(void* user, OTF2_TimeStamp, int64_t, double) {
    ++static_cast<Count*>(user)->clock_offsets;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location(void* user, OTF2_LocationRef id, OTF2_StringRef, OTF2_LocationType,
                              uint64_t, OTF2_LocationGroupRef) {
    static_cast<std::vector<OTF2_LocationRef>*>(user)->push_back(id);
    return OTF2_CALLBACK_SUCCESS;
}

bool ok(OTF2_ErrorCode code, const char* what) {
    if (code == OTF2_SUCCESS) return true;
    std::fprintf(stderr, "bench-otf2-read-floor: %s: %s\n", what, OTF2_Error_GetName(code));
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    long part = 0, parts = 1;
    if (argc == 4) {
        char* end1 = nullptr;
        char* end2 = nullptr;
        part = std::strtol(argv[2], &end1, 10);
        parts = std::strtol(argv[3], &end2, 10);
        if (*end1 != '\0' || *end2 != '\0' || parts < 1 || part < 0 || part >= parts) argc = 0;
    }
    if (argc != 2 && argc != 4) {
        std::fprintf(stderr, "usage: bench-otf2-read-floor ANCHOR [PART PARTS]  (0 <= PART < PARTS)\n");
        return 2;
    }
    const auto started = std::chrono::steady_clock::now();
    OTF2_Reader* reader = OTF2_Reader_Open(argv[1]);
    if (reader == nullptr) {
        std::fprintf(stderr, "bench-otf2-read-floor: cannot open %s\n", argv[1]);
        return 1;
    }
    if (!ok(OTF2_Reader_SetSerialCollectiveCallbacks(reader), "collective callbacks")) return 1;
    std::vector<OTF2_LocationRef> locations;
    OTF2_GlobalDefReader* globals = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks* global_callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(global_callbacks, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, globals, global_callbacks, &locations);
    OTF2_GlobalDefReaderCallbacks_Delete(global_callbacks);
    uint64_t read = 0;
    if (!ok(OTF2_Reader_ReadAllGlobalDefinitions(reader, globals, &read), "global definitions")) return 1;

    OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(callbacks, on_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
    OTF2_DefReaderCallbacks* def_callbacks = OTF2_DefReaderCallbacks_New();
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(def_callbacks, on_clock_offset);

    // This reader's run of locations (the whole list without PART PARTS).
    const std::size_t n = locations.size();
    locations = std::vector<OTF2_LocationRef>(locations.begin() + static_cast<long>(n * part / parts),
                                              locations.begin() + static_cast<long>(n * (part + 1) / parts));
    Count count;
    for (OTF2_LocationRef id : locations) {
        if (!ok(OTF2_Reader_SelectLocation(reader, id), "selecting a location")) return 1;
    }
    bool good = ok(OTF2_Reader_OpenDefFiles(reader), "opening the local definitions") &&
                ok(OTF2_Reader_OpenEvtFiles(reader), "opening the event files");
    for (OTF2_LocationRef id : locations) {
        if (!good) break;
        OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader, id);
        if (defs != nullptr) {
            good = ok(OTF2_Reader_RegisterDefCallbacks(reader, defs, def_callbacks, &count), "def callbacks") &&
                   ok(OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &read), "local definitions");
            OTF2_Reader_CloseDefReader(reader, defs);
        }
        OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, id);
        if (events == nullptr) {
            std::fprintf(stderr, "bench-otf2-read-floor: no event reader for location %llu\n",
                         static_cast<unsigned long long>(id));
            return 1;
        }
        good = good && ok(OTF2_EvtReader_ApplyClockOffsets(events, false), "clock offsets") &&
               ok(OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, &count), "event callbacks");
        constexpr uint64_t batch = 1 << 16;
        while (good) {
            uint64_t got = 0;
            good = ok(OTF2_Reader_ReadLocalEvents(reader, events, batch, &got), "reading events");
            if (got < batch) break;
        }
        OTF2_Reader_CloseEvtReader(reader, events);
    }
    OTF2_EvtReaderCallbacks_Delete(callbacks);
    OTF2_DefReaderCallbacks_Delete(def_callbacks);
    OTF2_Reader_Close(reader);
    if (!good) return 1;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("events %llu seconds %.3f\n", static_cast<unsigned long long>(count.events), seconds);
    return 0;
}
