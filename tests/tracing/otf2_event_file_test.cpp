// SPDX-License-Identifier: BSD-3-Clause
// The direct event-file writer (tracing/otf2_event_file.hpp) against OTF2's own
// writer: every record kind byte for byte, and files of many chunks as
// otf2-print reads them.
#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "tracing/otf2_event_file.hpp"
#include "tracing/trace_record_spec.hpp"

namespace strata::tracing {
namespace {

constexpr std::uint64_t kChunk = 256 << 10;  // OTF2's smallest

/// One event as both writers take it.
struct Event {
    std::uint8_t kind;
    Ticks time;
    std::vector<std::uint64_t> fields;
    std::vector<Otf2Attribute> attributes;  ///< Enter only
};

const char* layout_of(std::uint8_t kind) {
    switch (kind) {
        case otf2_kind::measurement_on_off: return "b";
        case otf2_kind::mpi_send:
        case otf2_kind::mpi_recv: return "cccw";
        case otf2_kind::mpi_isend:
        case otf2_kind::mpi_irecv: return "cccww";
        case otf2_kind::mpi_collective_begin: return "";
        case otf2_kind::mpi_collective_end: return "bccww";
        case otf2_kind::nonblocking_collective_request: return "w";
        case otf2_kind::nonblocking_collective_complete: return "bccwww";
        case otf2_kind::parameter_int: return "ci";
        case otf2_kind::parameter_string: return "cc";
        case otf2_kind::thread_fork: return "bc";
        case otf2_kind::thread_join: return "b";
        case otf2_kind::thread_team_begin:
        case otf2_kind::thread_team_end: return "c";
        default: return "ccc";  // thread tasks
    }
}

void write_direct(Otf2EventFile& file, const Event& e) {
    switch (e.kind) {
        case otf2_kind::enter:
            if (e.attributes.empty()) {
                file.enter(e.time, static_cast<std::uint32_t>(e.fields[0]));
            } else {
                file.enter_with_attributes(e.time, static_cast<std::uint32_t>(e.fields[0]), e.attributes.data(),
                                           static_cast<std::uint32_t>(e.attributes.size()));
            }
            break;
        case otf2_kind::leave: file.leave(e.time, static_cast<std::uint32_t>(e.fields[0])); break;
        case otf2_kind::mpi_isend_complete:
        case otf2_kind::mpi_irecv_request:
        case otf2_kind::mpi_request_test:
        case otf2_kind::mpi_request_cancelled: file.singleton(e.time, e.kind, e.fields[0]); break;
        case otf2_kind::metric:
            file.metric(e.time, static_cast<std::uint32_t>(e.fields[0]),
                        static_cast<std::uint32_t>(e.fields.size() - 1), e.fields.data() + 1);
            break;
        default: file.record(e.time, e.kind, layout_of(e.kind), e.fields.data()); break;
    }
}

OTF2_ErrorCode write_otf2(OTF2_EvtWriter* w, const Event& e) {
    const auto& f = e.fields;
    const auto u32 = [&](std::size_t k) { return static_cast<uint32_t>(f[k]); };
    const Ticks t = e.time;
    switch (e.kind) {
        case otf2_kind::enter: {
            OTF2_AttributeList* list = nullptr;
            if (!e.attributes.empty()) {
                list = OTF2_AttributeList_New();
                for (const Otf2Attribute& a : e.attributes) OTF2_AttributeList_AddUint64(list, a.id, a.value);
            }
            const OTF2_ErrorCode rc = OTF2_EvtWriter_Enter(w, list, t, u32(0));
            if (list != nullptr) OTF2_AttributeList_Delete(list);
            return rc;
        }
        case otf2_kind::leave: return OTF2_EvtWriter_Leave(w, nullptr, t, u32(0));
        case otf2_kind::measurement_on_off:
            return OTF2_EvtWriter_MeasurementOnOff(w, nullptr, t, static_cast<OTF2_MeasurementMode>(f[0]));
        case otf2_kind::mpi_send: return OTF2_EvtWriter_MpiSend(w, nullptr, t, u32(0), u32(1), u32(2), f[3]);
        case otf2_kind::mpi_recv: return OTF2_EvtWriter_MpiRecv(w, nullptr, t, u32(0), u32(1), u32(2), f[3]);
        case otf2_kind::mpi_isend:
            return OTF2_EvtWriter_MpiIsend(w, nullptr, t, u32(0), u32(1), u32(2), f[3], f[4]);
        case otf2_kind::mpi_irecv:
            return OTF2_EvtWriter_MpiIrecv(w, nullptr, t, u32(0), u32(1), u32(2), f[3], f[4]);
        case otf2_kind::mpi_isend_complete: return OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, f[0]);
        case otf2_kind::mpi_irecv_request: return OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, f[0]);
        case otf2_kind::mpi_request_test: return OTF2_EvtWriter_MpiRequestTest(w, nullptr, t, f[0]);
        case otf2_kind::mpi_request_cancelled: return OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, f[0]);
        case otf2_kind::mpi_collective_begin: return OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
        case otf2_kind::mpi_collective_end:
            return OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, static_cast<OTF2_CollectiveOp>(f[0]), u32(1),
                                                   u32(2), f[3], f[4]);
        case otf2_kind::nonblocking_collective_request:
            return OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t, f[0]);
        case otf2_kind::nonblocking_collective_complete:
            return OTF2_EvtWriter_NonBlockingCollectiveComplete(w, nullptr, t, static_cast<OTF2_CollectiveOp>(f[0]),
                                                                u32(1), u32(2), f[3], f[4], f[5]);
        case otf2_kind::parameter_int:
            return OTF2_EvtWriter_ParameterInt(w, nullptr, t, u32(0), static_cast<int64_t>(f[1]));
        case otf2_kind::parameter_string: return OTF2_EvtWriter_ParameterString(w, nullptr, t, u32(0), u32(1));
        case otf2_kind::metric: {
            std::vector<OTF2_Type> types(f.size() - 1, OTF2_TYPE_UINT64);
            std::vector<OTF2_MetricValue> values(f.size() - 1);
            for (std::size_t k = 1; k < f.size(); ++k) values[k - 1].unsigned_int = f[k];
            return OTF2_EvtWriter_Metric(w, nullptr, t, u32(0), static_cast<uint8_t>(f.size() - 1), types.data(),
                                         values.data());
        }
        case otf2_kind::thread_fork:
            return OTF2_EvtWriter_ThreadFork(w, nullptr, t, static_cast<OTF2_Paradigm>(f[0]), u32(1));
        case otf2_kind::thread_join: return OTF2_EvtWriter_ThreadJoin(w, nullptr, t, static_cast<OTF2_Paradigm>(f[0]));
        case otf2_kind::thread_team_begin: return OTF2_EvtWriter_ThreadTeamBegin(w, nullptr, t, u32(0));
        case otf2_kind::thread_team_end: return OTF2_EvtWriter_ThreadTeamEnd(w, nullptr, t, u32(0));
        case otf2_kind::thread_task_create: return OTF2_EvtWriter_ThreadTaskCreate(w, nullptr, t, u32(0), u32(1), u32(2));
        case otf2_kind::thread_task_switch: return OTF2_EvtWriter_ThreadTaskSwitch(w, nullptr, t, u32(0), u32(1), u32(2));
        case otf2_kind::thread_task_complete:
            return OTF2_EvtWriter_ThreadTaskComplete(w, nullptr, t, u32(0), u32(1), u32(2));
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {pre_flush, nullptr};

std::string scratch_directory(const char* name) {
    const std::string dir = testing::TempDir() + "strata-otf2-event-file-" + name;
    std::system(("rm -rf '" + dir + "'").c_str());
    return dir;
}

/// A whole archive written by OTF2 (one location, the regions 0..3 and one
/// metric of three members, so that otf2-print can name what it reads).
void write_archive_with_otf2(const std::string& dir, const std::vector<Event>& events) {
    OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, kChunk, kChunk,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    ASSERT_NE(archive, nullptr);
    OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, 0);
    for (const Event& e : events) ASSERT_EQ(write_otf2(writer, e), OTF2_SUCCESS);
    uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(writer, &n);
    OTF2_Archive_CloseEvtWriter(archive, writer);
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, 0, 1ull << 40, OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"", "main", "loop", "work", "io", "process", "thread 0", "node", "counter"};
    for (uint32_t s = 0; s < 9; ++s) OTF2_GlobalDefWriter_WriteString(defs, s, strings[s]);
    for (uint32_t r = 0; r < 4; ++r) {
        OTF2_GlobalDefWriter_WriteRegion(defs, r, 1 + r, 1 + r, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, 7, 7, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(defs, 0, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(defs, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, n, 0);
    OTF2_MetricMemberRef members[3] = {0, 1, 2};
    for (uint32_t m = 0; m < 3; ++m) {
        OTF2_GlobalDefWriter_WriteMetricMember(defs, m, 8, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                               OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteMetricClass(defs, 0, 3, members, OTF2_METRIC_SYNCHRONOUS, OTF2_RECORDER_KIND_CPU);
    OTF2_Archive_Close(archive);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string run(const std::string& command) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return out;
    char chunk[4096];
    std::size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) out.append(chunk, n);
    pclose(pipe);
    return out;
}

/// Every kind Strata writes, with fields of every size: 0, one byte, several,
/// all bits set (OTF2's "undefined"), a negative integer parameter; times
/// repeated (no timestamp record) and new.
std::vector<Event> every_kind() {
    const std::uint64_t all32 = UINT32_MAX, all64 = UINT64_MAX;
    return {
        {otf2_kind::enter, 100, {0}, {}},
        {otf2_kind::enter, 100, {70000}, {{0, 0x1234}, {3, 5}, {11, all64}}},
        {otf2_kind::parameter_int, 100, {2, static_cast<std::uint64_t>(-5)}, {}},
        {otf2_kind::parameter_int, 101, {0, static_cast<std::uint64_t>(-1)}, {}},
        {otf2_kind::parameter_string, 101, {1, 9}, {}},
        {otf2_kind::mpi_send, 102, {3, 1, all32, 0}, {}},
        {otf2_kind::mpi_recv, 103, {3, 1, 7, 100}, {}},
        {otf2_kind::mpi_isend, 104, {300, 0, 7, 1ull << 40, 42}, {}},
        {otf2_kind::mpi_irecv, 104, {3, 1, 7, 100, all64}, {}},
        {otf2_kind::mpi_isend_complete, 105, {42}, {}},
        {otf2_kind::mpi_irecv_request, 105, {0x123456789abcull}, {}},
        {otf2_kind::mpi_request_test, 106, {0}, {}},
        {otf2_kind::mpi_request_cancelled, 107, {all64}, {}},
        {otf2_kind::mpi_collective_begin, 108, {}, {}},
        {otf2_kind::mpi_collective_end, 109, {OTF2_COLLECTIVE_OP_ALLREDUCE, 2, all32, 8, 16}, {}},
        {otf2_kind::nonblocking_collective_request, 110, {42}, {}},
        {otf2_kind::nonblocking_collective_complete, 111, {OTF2_COLLECTIVE_OP_BCAST, 2, 0, 8, 16, 42}, {}},
        {otf2_kind::metric, 112, {0, 0, 300, 0x123456789ull}, {}},
        {otf2_kind::thread_fork, 113, {OTF2_PARADIGM_OPENMP, 4}, {}},
        {otf2_kind::thread_team_begin, 113, {3}, {}},
        {otf2_kind::thread_task_create, 114, {3, 1, 2}, {}},
        {otf2_kind::thread_task_switch, 115, {3, 1, 2}, {}},
        {otf2_kind::thread_task_complete, 116, {3, 0, all32}, {}},
        {otf2_kind::thread_team_end, 117, {3}, {}},
        {otf2_kind::thread_join, 118, {OTF2_PARADIGM_OPENMP}, {}},
        {otf2_kind::measurement_on_off, 119, {OTF2_MEASUREMENT_OFF}, {}},
        {otf2_kind::leave, 120, {70000}, {}},
        {otf2_kind::leave, 0xffffffffffffull, {0}, {}},
    };
}

TEST(Otf2EventFileTest, EveryRecordKindByteForByteAsOtf2WritesIt) {
    const std::string dir = scratch_directory("kinds");
    const std::vector<Event> events = every_kind();
    write_archive_with_otf2(dir, events);
    const std::string ours = dir + "/direct.evt";
    Otf2EventFile file(ours, kChunk);
    for (const Event& e : events) write_direct(file, e);
    EXPECT_EQ(file.events(), events.size());
    EXPECT_FALSE(file.finish());
    const std::string expected = read_file(dir + "/traces/0.evt");
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(read_file(ours), expected);
    EXPECT_EQ(file.bytes(), expected.size());
}

TEST(TraceRecordSpecTest, EveryRowConvertedByItsFieldsHasTheLayoutOfItsOtf2Record) {
    // layout_of() is what OTF2's own writer writes (the test above); the spec
    // must say the same of every record it converts without code of its own.
    int converted = 0;
    for (const RecordSpec& spec : kRecordSpecs.rows) {
        if (spec.name == nullptr || spec.conversion == Conversion::special) continue;
        ++converted;
        if (spec.conversion == Conversion::singleton) {
            // The writer's singleton() (checked byte for byte above) is what OTF2 writes for it.
            EXPECT_TRUE(otf2_format::is_singleton(spec.otf2_kind)) << spec.name << ": not a singleton record of OTF2";
        } else {
            EXPECT_STREQ(spec.layout, layout_of(spec.otf2_kind)) << spec.name;
        }
    }
    EXPECT_GE(converted, 20);
}

TEST(Otf2EventFileTest, AnEmptyFileAsOtf2WritesIt) {
    const std::string dir = scratch_directory("empty");
    write_archive_with_otf2(dir, {});
    Otf2EventFile file(dir + "/direct.evt", kChunk);
    EXPECT_FALSE(file.write_out());  // a location that recorded nothing: its file exists
    EXPECT_FALSE(file.finish());
    EXPECT_EQ(read_file(dir + "/direct.evt"), read_file(dir + "/traces/0.evt"));
}

TEST(Otf2EventFileTest, ManyChunksWrittenOutInPiecesReadAsOtf2sOwn) {
    // 300 000 events over several chunks, written out in pieces of odd sizes as
    // buffer flushes do; otf2-print must read the same events from both files.
    std::vector<Event> events;
    Ticks t = 1000;
    for (std::uint32_t i = 0; i < 60000; ++i) {
        events.push_back({otf2_kind::enter, t, {i % 4}, {}});
        events.push_back({otf2_kind::metric, t, {0, i, 2 * i, i * 1000003ull}, {}});
        events.push_back({otf2_kind::mpi_send, t + 3, {i % 7, 0, i, 4096}, {}});
        events.push_back({otf2_kind::leave, t + 5, {i % 4}, {}});
        events.push_back({otf2_kind::metric, t + 5, {0, i + 1, 2 * i + 1, i}, {}});
        t += 7 + i % 3;
    }
    const std::string dir = scratch_directory("chunks");
    write_archive_with_otf2(dir, events);
    const std::string copy = dir + "-direct";
    std::system(("rm -rf '" + copy + "' && cp -r '" + dir + "' '" + copy + "'").c_str());
    Otf2EventFile file(copy + "/traces/0.evt", kChunk);
    std::size_t next_write_out = 1;
    for (std::size_t i = 0; i < events.size(); ++i) {
        write_direct(file, events[i]);
        if (i == next_write_out) {
            ASSERT_FALSE(file.write_out());
            next_write_out = next_write_out * 3 + 17;
        }
    }
    ASSERT_FALSE(file.finish());
    const std::string theirs = read_file(dir + "/traces/0.evt");
    const std::string ours = read_file(copy + "/traces/0.evt");
    ASSERT_GT(ours.size(), 4 * kChunk);
    // Every chunk's header numbers its events on from the one before.
    std::uint64_t next = 1;
    for (std::size_t at = 0; at < ours.size(); at += kChunk) {
        ASSERT_EQ(static_cast<unsigned char>(ours[at]), 3u);
        std::uint64_t first = 0, last = 0;
        std::memcpy(&first, ours.data() + at + 2, 8);
        std::memcpy(&last, ours.data() + at + 10, 8);
        EXPECT_EQ(first, next) << "chunk at " << at;
        EXPECT_GE(last + 1, first);
        next = last + 1;
    }
    EXPECT_EQ(next, events.size() + 1);
    const std::string print = std::string(STRATA_OTF2_PRINT) + " ";
    // (Its complaint about the missing local definitions goes to stderr, left out.)
    const std::string expected = run(print + "'" + dir + "/traces.otf2' 2>/dev/null");
    ASSERT_NE(expected.find("METRIC"), std::string::npos) << expected.substr(0, 2000);
    const std::string got = run(print + "'" + copy + "/traces.otf2' 2>/dev/null");
    EXPECT_TRUE(got == expected) << "otf2-print reads other events from the direct file";
    EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), std::count(expected.begin(), expected.end(), '\n'));
}

TEST(Otf2EventFileTest, AFileMovedHalfwayGoesOnWhereItMovedByteForByte) {
    // A rank that finishes alone moves its event files from the job's shared traces/ into its own
    // experiment and goes on there: the moved file is the one OTF2 writes, nothing is left behind,
    // and a chunk header written out before the move still gets its event count.
    std::vector<Event> events;
    Ticks t = 10;
    for (std::uint32_t i = 0; i < 40000; ++i) {
        events.push_back({otf2_kind::enter, t, {i % 3}, {}});
        events.push_back({otf2_kind::leave, t + 2, {i % 3}, {}});
        t += 3;
    }
    const std::string dir = scratch_directory("moved");
    write_archive_with_otf2(dir, events);
    const std::string first = dir + "/shared.evt", moved = dir + "/own.evt";
    Otf2EventFile file(first, kChunk);
    for (std::size_t i = 0; i < events.size(); ++i) {
        write_direct(file, events[i]);
        if (i == events.size() / 3) {
            ASSERT_FALSE(file.write_out());  // a flush, into the shared file
            ASSERT_FALSE(file.move_to(moved));
        }
    }
    ASSERT_FALSE(file.finish());
    EXPECT_FALSE(std::filesystem::exists(first));
    EXPECT_TRUE(read_file(moved) == read_file(dir + "/traces/0.evt"));
    // Moving where no file can go says so, with both paths.
    const std::string nowhere = dir + "/no-such-directory/own.evt";
    const std::string error = file.move_to(nowhere).message();
    EXPECT_NE(error.find(moved), std::string::npos) << error;
    EXPECT_NE(error.find(nowhere), std::string::npos) << error;
}

TEST(Otf2EventFileTest, AFileThatCannotBeWrittenSaysWhichAndWritesNothingMore) {
    const std::string path = testing::TempDir() + "no-such-directory-strata/0.evt";
    Otf2EventFile file(path, kChunk);
    file.enter(1, 0);
    const std::string error = file.write_out().message();
    EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_TRUE(file.failed());
    file.leave(2, 0);
    EXPECT_EQ(file.finish().message(), error);
}

}  // namespace
}  // namespace strata::tracing
