// SPDX-License-Identifier: BSD-3-Clause
// EventFile, the direct decoder of OTF2 event files, against OTF2's own
// reader: an archive written by OTF2's writer with every event kind (those
// the analysis reads, the other singletons, records longer than 255 bytes,
// attribute lists of every value type, extreme values, events sharing a timestamp) over several
// chunks must decode to exactly what OTF2's reader reports, positions
// included; damaged files end in Status::damaged, never past the data.
#include "trace/event_file.hpp"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;
using trace::CollectiveFields;
using trace::EventFile;
using trace::MessageFields;

constexpr std::uint64_t kChunk = OTF2_CHUNK_SIZE_MIN;  // many chunks from a few MB
constexpr OTF2_LocationRef kLocation = 3;
constexpr OTF2_AttributeRef kAttribute = 1;  ///< the attribute Enter events are decoded with

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks kFlush = {pre_flush, nullptr};

void ok(OTF2_ErrorCode rc, const char* what) {
    if (rc != OTF2_SUCCESS) throw std::runtime_error(std::string(what) + ": " + OTF2_Error_GetName(rc));
}

struct Lcg {
    std::uint64_t state;
    /// The high bits: an LCG's low bits repeat with short periods (and would
    /// pair the choices made from them, e.g. never attributes on an Enter).
    std::uint64_t next() { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 16; }
    /// Values across every compressed size (0, 1..8 bytes, all bits set).
    std::uint64_t value() {
        const std::uint64_t r = next();
        const std::uint64_t bits = (next() << 32) ^ next();  // 64 random bits
        const unsigned bytes = static_cast<unsigned>(r % 9);
        switch (r % 11) {
            case 0:
                return 0;
            case 1:
                return UINT64_MAX;
            default:
                return bytes == 8 ? bits : bits & ((std::uint64_t{1} << (8 * bytes)) - 1);
        }
    }
    std::uint32_t value32() {
        const std::uint64_t v = value();
        return v == UINT64_MAX ? UINT32_MAX : static_cast<std::uint32_t>(v);
    }
};

/// Writes `events` pseudo-random events of every kind to location kLocation of an archive in `dir`.
void write_archive(const std::string& dir, int events) {
    OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, kChunk, 4 << 20,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    ASSERT_NE(archive, nullptr);
    ok(OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr), "flush callbacks");
    ok(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
    ok(OTF2_Archive_OpenEvtFiles(archive), "event files");
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, kLocation);
    ASSERT_NE(w, nullptr);
    OTF2_AttributeList* attributes = OTF2_AttributeList_New();
    Lcg random{42};
    OTF2_TimeStamp t = 1000;
    std::vector<OTF2_Type> types(40, OTF2_TYPE_UINT64);
    std::vector<OTF2_MetricValue> values(40);
    for (int i = 0; i < events; ++i) {
        if (random.next() % 4 != 0) t += random.next() % 5000;  // a quarter share the previous time
        // Some events carry attributes: the one the decoder looks for (1, as
        // UINT64 or as another type), others of every kind of encoding before it.
        OTF2_AttributeList* a = nullptr;
        if (random.next() % 8 == 0) {
            const std::uint64_t mix = random.next();
            if (mix & 1) ok(OTF2_AttributeList_AddUint8(attributes, 2, static_cast<uint8_t>(mix >> 8)), "u8");
            if (mix & 2)
                ok(OTF2_AttributeList_AddInt16(attributes, 3, static_cast<int16_t>(mix >> 8)), "i16");
            if (mix & 4) ok(OTF2_AttributeList_AddFloat(attributes, 4, 0.5f), "float");
            if (mix & 8) ok(OTF2_AttributeList_AddDouble(attributes, 5, -2.25), "double");
            if (mix & 16)
                ok(OTF2_AttributeList_AddInt32(attributes, 6, -static_cast<int32_t>(mix >> 40)), "i32");
            if (mix & 32)
                ok(OTF2_AttributeList_AddInt64(attributes, 7, -static_cast<int64_t>(mix >> 20)), "i64");
            if (mix & 64) ok(OTF2_AttributeList_AddStringRef(attributes, 8, random.value32()), "string");
            if (mix & 128) ok(OTF2_AttributeList_AddLocationRef(attributes, 9, random.value()), "location");
            if (mix & 256) {
                ok(OTF2_AttributeList_AddUint32(attributes, 1, random.value32()), "wanted as UINT32");
            } else if ((mix & 512) == 0) {
                ok(OTF2_AttributeList_AddUint64(attributes, 1, random.value()), "wanted");
            }
            if (mix & 1024)
                ok(OTF2_AttributeList_AddUint16(attributes, 10, static_cast<uint16_t>(mix >> 16)), "u16");
            a = attributes;
        }
        const std::uint64_t v = random.value(), request = random.value();
        const std::uint32_t peer = random.value32(), comm = random.value32(), tag = random.value32();
        switch (random.next() % 19) {
            case 0:
                ok(OTF2_EvtWriter_Enter(w, a, t, peer), "Enter");
                break;
            case 1:
                ok(OTF2_EvtWriter_Leave(w, a, t, peer), "Leave");
                break;
            case 2:
                ok(OTF2_EvtWriter_MpiSend(w, a, t, peer, comm, tag, v), "MpiSend");
                break;
            case 3:
                ok(OTF2_EvtWriter_MpiIsend(w, a, t, peer, comm, tag, v, request), "MpiIsend");
                break;
            case 4:
                ok(OTF2_EvtWriter_MpiRecv(w, a, t, peer, comm, tag, v), "MpiRecv");
                break;
            case 5:
                ok(OTF2_EvtWriter_MpiIrecv(w, a, t, peer, comm, tag, v, request), "MpiIrecv");
                break;
            case 6:
                ok(OTF2_EvtWriter_MpiIsendComplete(w, a, t, request), "MpiIsendComplete");
                break;
            case 7:
                ok(OTF2_EvtWriter_MpiIrecvRequest(w, a, t, request), "MpiIrecvRequest");
                break;
            case 8:
                ok(OTF2_EvtWriter_MpiRequestCancelled(w, a, t, request), "MpiRequestCancelled");
                break;
            case 9:
                ok(OTF2_EvtWriter_MpiRequestTest(w, a, t, request), "MpiRequestTest");
                break;
            case 10:
                ok(OTF2_EvtWriter_MpiCollectiveBegin(w, a, t), "MpiCollectiveBegin");
                break;
            case 11:
                ok(OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, static_cast<OTF2_CollectiveOp>(tag % 20), comm,
                                                   peer, v, request),
                   "MpiCollectiveEnd");
                break;
// OTF2 1.0's OpenMP records, deprecated for writing, are singletons that files may hold.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            case 12:
                ok(OTF2_EvtWriter_OmpFork(w, a, t, peer), "OmpFork");
                break;
            case 13:
                ok(OTF2_EvtWriter_OmpTaskSwitch(w, a, t, request), "OmpTaskSwitch");
                break;
            case 14: {
                // 40 values: a record longer than 255 bytes (its length in 8 bytes).
                for (auto& m : values) m.unsigned_int = random.value();
                ok(OTF2_EvtWriter_Metric(w, a, t, comm, 40, types.data(), values.data()), "Metric");
                break;
            }
            case 15:
                ok(OTF2_EvtWriter_ParameterInt(w, a, t, tag, -static_cast<int64_t>(v >> 1)), "ParameterInt");
                break;
            case 16:
                ok(OTF2_EvtWriter_ThreadTeamBegin(w, a, t, comm), "ThreadTeamBegin");
                break;
            case 17:
                ok(OTF2_EvtWriter_MeasurementOnOff(w, a, t, tag % 2 ? OTF2_MEASUREMENT_OFF : OTF2_MEASUREMENT_ON),
                   "MeasurementOnOff");
                break;
            default:
                ok(OTF2_EvtWriter_OmpTaskComplete(w, a, t, request), "OmpTaskComplete");
                break;
#pragma GCC diagnostic pop
        }
        if (a != nullptr) ok(OTF2_AttributeList_RemoveAllAttributes(attributes), "attributes");
    }
    OTF2_AttributeList_Delete(attributes);
    ok(OTF2_Archive_CloseEvtWriter(archive, w), "close writer");
    ok(OTF2_Archive_CloseEvtFiles(archive), "close event files");
    ok(OTF2_Archive_Close(archive), "close archive");
}

/// One line per event the analysis reads: kind, time, position, fields.
struct Lines {
    std::vector<std::string> lines;
    template <typename... T>
    bool add(const char* kind, T... fields) {
        std::ostringstream line;
        line << kind;
        ((line << ' ' << fields), ...);
        lines.push_back(line.str());
        return true;
    }
    // The decoder's visitor.
    bool enter(std::uint64_t t, std::uint64_t p, std::uint32_t r, std::uint64_t attribute) {
        return add("enter", t, p, r, attribute);
    }
    bool leave(std::uint64_t t, std::uint64_t p, std::uint32_t r) { return add("leave", t, p, r); }
    bool send(std::uint64_t t, std::uint64_t p, const MessageFields& m) {
        return add("send", t, p, m.peer, m.comm, m.tag, m.length);
    }
    bool isend(std::uint64_t t, std::uint64_t p, const MessageFields& m) {
        return add("isend", t, p, m.peer, m.comm, m.tag, m.length, m.request);
    }
    bool recv(std::uint64_t t, std::uint64_t p, const MessageFields& m) {
        return add("recv", t, p, m.peer, m.comm, m.tag, m.length);
    }
    bool irecv(std::uint64_t t, std::uint64_t p, const MessageFields& m) {
        return add("irecv", t, p, m.peer, m.comm, m.tag, m.length, m.request);
    }
    bool isend_complete(std::uint64_t t, std::uint64_t p, std::uint64_t r) {
        return add("isend_complete", t, p, r);
    }
    bool irecv_request(std::uint64_t t, std::uint64_t p, std::uint64_t r) {
        return add("irecv_request", t, p, r);
    }
    bool cancelled(std::uint64_t t, std::uint64_t p, std::uint64_t r) { return add("cancelled", t, p, r); }
    bool measurement_on_off(std::uint64_t t, std::uint64_t p, std::uint8_t mode) {
        return add("measurement_on_off", t, p, unsigned{mode});
    }
    bool collective_end(std::uint64_t t, std::uint64_t p, const CollectiveFields& c) {
        return add("collective_end", t, p, unsigned{c.op}, c.comm, c.root, c.sent, c.received);
    }
};

Lines& lines_of(void* user) {
    return *static_cast<Lines*>(user);
}

/// What OTF2's own reader reports for the same kinds (raw times, no mapping).
std::vector<std::string> read_with_otf2(const std::string& dir) {
    Lines out;
    OTF2_Reader* reader = OTF2_Reader_Open((dir + "/traces.otf2").c_str());
    if (reader == nullptr) throw std::runtime_error("OTF2_Reader_Open");
    ok(OTF2_Reader_SetSerialCollectiveCallbacks(reader), "collective callbacks");
    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, kLocation);
    if (events == nullptr) throw std::runtime_error("OTF2_Reader_GetEvtReader");
    ok(OTF2_EvtReader_ApplyClockOffsets(events, false), "clock offsets");
    ok(OTF2_EvtReader_ApplyMappingTables(events, false), "mapping tables");
    OTF2_EvtReaderCallbacks* c = OTF2_EvtReaderCallbacks_New();
    using A = OTF2_AttributeList*;
    using L = OTF2_LocationRef;
    using T = OTF2_TimeStamp;
    OTF2_EvtReaderCallbacks_SetEnterCallback(c, [](L, T t, uint64_t p, void* u, A a, OTF2_RegionRef r) {
        uint64_t attribute = 0;  // as the replay asks for CUDA_CORRELATION_ID
        if (OTF2_AttributeList_GetUint64(a, kAttribute, &attribute) != OTF2_SUCCESS) attribute = 0;
        lines_of(u).enter(t, p, r, attribute);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetLeaveCallback(c, [](L, T t, uint64_t p, void* u, A, OTF2_RegionRef r) {
        lines_of(u).leave(t, p, r);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(c, [](L, T t, uint64_t p, void* u, A, uint32_t peer,
                                                     OTF2_CommRef comm, uint32_t tag, uint64_t length) {
        lines_of(u).send(t, p, MessageFields{peer, comm, tag, length, 0});
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(
        c, [](L, T t, uint64_t p, void* u, A, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t length,
              uint64_t request) {
            lines_of(u).isend(t, p, MessageFields{peer, comm, tag, length, request});
            return OTF2_CALLBACK_SUCCESS;
        });
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c, [](L, T t, uint64_t p, void* u, A, uint32_t peer,
                                                     OTF2_CommRef comm, uint32_t tag, uint64_t length) {
        lines_of(u).recv(t, p, MessageFields{peer, comm, tag, length, 0});
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(
        c, [](L, T t, uint64_t p, void* u, A, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t length,
              uint64_t request) {
            lines_of(u).irecv(t, p, MessageFields{peer, comm, tag, length, request});
            return OTF2_CALLBACK_SUCCESS;
        });
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(c, [](L, T t, uint64_t p, void* u, A, uint64_t r) {
        lines_of(u).isend_complete(t, p, r);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(c, [](L, T t, uint64_t p, void* u, A, uint64_t r) {
        lines_of(u).irecv_request(t, p, r);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(c, [](L, T t, uint64_t p, void* u, A, uint64_t r) {
        lines_of(u).cancelled(t, p, r);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(c, [](L, T t, uint64_t p, void* u, A, OTF2_MeasurementMode m) {
        lines_of(u).measurement_on_off(t, p, m);
        return OTF2_CALLBACK_SUCCESS;
    });
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(
        c, [](L, T t, uint64_t p, void* u, A, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
              uint64_t sent, uint64_t received) {
            lines_of(u).collective_end(t, p, CollectiveFields{op, comm, root, sent, received});
            return OTF2_CALLBACK_SUCCESS;
        });
    ok(OTF2_Reader_RegisterEvtCallbacks(reader, events, c, &out), "register");
    OTF2_EvtReaderCallbacks_Delete(c);
    uint64_t read = 0;
    ok(OTF2_Reader_ReadAllLocalEvents(reader, events, &read), "read");
    OTF2_Reader_CloseEvtReader(reader, events);
    OTF2_Reader_Close(reader);
    return out.lines;
}

struct Decoded {
    EventFile::Status status;
    std::string damage;
    std::vector<std::string> lines;
    std::uint64_t batches = 0;
};

Decoded read_directly(const std::string& evt) {
    EventFile file;
    if (!file.open(evt, kChunk)) throw std::runtime_error("EventFile::open refused " + evt);
    Lines out;
    Decoded d;
    d.status = file.read(
        out, 1000, [&] { ++d.batches; }, kAttribute);
    d.damage = file.damage();
    d.lines = std::move(out.lines);
    return d;
}

class EventFileTest : public ::testing::Test {
protected:
    TempDir dir_;
    std::string evt() const { return dir_.path() + "/traces/" + std::to_string(kLocation) + ".evt"; }
};

TEST_F(EventFileTest, DecodesWhatOtf2Reads) {
    write_archive(dir_.path(), 200000);
    ASSERT_GT(fs::file_size(evt()), 4 * kChunk);  // several chunks
    const std::vector<std::string> expected = read_with_otf2(dir_.path());
    const Decoded decoded = read_directly(evt());
    EXPECT_EQ(decoded.status, EventFile::Status::end) << decoded.damage;
    ASSERT_EQ(decoded.lines.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(decoded.lines[i], expected[i]) << "event " << i;
    EXPECT_GT(expected.size(), 100000u);
    // Enter events that carry the attribute (as UINT64, not 0) are among them.
    const auto with_attribute = std::count_if(expected.begin(), expected.end(), [](const std::string& line) {
        return line.rfind("enter ", 0) == 0 && line.substr(line.rfind(' ')) != " 0";
    });
    EXPECT_GT(with_attribute, 150);
    // After every 1000 events (positions count all 200000, the last batch included).
    EXPECT_EQ(decoded.batches, 200u);
}

TEST_F(EventFileTest, DamagedFilesStopAtTheDamage) {
    write_archive(dir_.path(), 200000);
    const std::vector<std::string> all = read_with_otf2(dir_.path());
    const std::string bytes = slurp(evt());
    const auto rewrite = [&](const std::string& content) {
        std::ofstream(evt(), std::ios::binary | std::ios::trunc) << content;
    };
    const auto is_prefix = [&](const std::vector<std::string>& part) {
        return part.size() <= all.size() && std::equal(part.begin(), part.end(), all.begin());
    };

    rewrite(bytes.substr(0, bytes.size() / 2 + 7));  // inside a chunk
    Decoded d = read_directly(evt());
    EXPECT_EQ(d.status, EventFile::Status::damaged);
    EXPECT_NE(d.damage.find("(byte "), std::string::npos) << d.damage;
    EXPECT_TRUE(is_prefix(d.lines));
    EXPECT_GT(d.lines.size(), all.size() / 3);

    rewrite(bytes.substr(0, 2 * kChunk));  // at a chunk boundary: no end record
    d = read_directly(evt());
    EXPECT_EQ(d.status, EventFile::Status::damaged);
    EXPECT_EQ(d.damage,
              "the file ends without its end record (byte " + std::to_string(2 * kChunk) + "; truncated?)");
    EXPECT_TRUE(is_prefix(d.lines));

    std::string broken = bytes;
    broken[kChunk] = 7;  // the second chunk's header
    rewrite(broken);
    d = read_directly(evt());
    EXPECT_EQ(d.status, EventFile::Status::damaged);
    EXPECT_EQ(d.damage, "no valid chunk header (byte " + std::to_string(kChunk) + ")");
    EXPECT_TRUE(is_prefix(d.lines));

    // Random bytes anywhere: any status, never past the buffer (ASan/valgrind would say), a prefix
    // until the first damaged byte.
    Lcg random{7};
    for (int round = 0; round < 20; ++round) {
        broken = bytes;
        for (int flip = 0; flip < 4; ++flip)
            broken[random.next() % broken.size()] = static_cast<char>(random.next());
        rewrite(broken);
        EventFile file;
        if (!file.open(evt(), kChunk)) continue;
        Lines out;
        file.read(out, 1000, {}, kAttribute);
    }

    // A big-endian (or foreign) first chunk: left to OTF2's reader.
    broken = bytes;
    broken[1] = 0x23;
    rewrite(broken);
    EventFile file;
    EXPECT_FALSE(file.open(evt(), kChunk));
    EXPECT_FALSE(file.open(dir_.path() + "/traces/missing.evt", kChunk));
}

}  // namespace
}  // namespace strata::analysis::test
