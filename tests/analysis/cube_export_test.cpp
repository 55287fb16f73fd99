// SPDX-License-Identifier: BSD-3-Clause
// profile.cubex: the CUBE4 encoding (cube_file.*) and the mapping of a
// profile and its wait states onto Score-P's and Scalasca's metric tree
// (cube_export.*).  tests/analysis/independent_cube.py checks real
// experiments' files with Python's own tar and XML readers; Cube's tools
// were checked by hand (see share/doc/using-with-scalasca-vampir-cube.md).
#include "cube/cube_export.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyze_fixtures.hpp"
#include "cube/cube_file.hpp"
#include "profile/profile_reader.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

using cube::CubeMetric;
using cube::CubeReport;

const CubeMetric& metric(const CubeReport& report, const std::string& name) {
    for (const CubeMetric& m : report.metrics)
        if (m.unique_name == name) return m;
    throw std::runtime_error("no metric " + name);
}

/// The value of `name` at (cnode, location); 0 where the metric has no row.
double value(const CubeReport& report, const std::string& name, std::uint32_t cnode, std::size_t location) {
    const CubeMetric& m = metric(report, name);
    for (const CubeMetric::Row& row : m.rows)
        if (row.cnode == cnode)
            return m.integer ? static_cast<double>(row.counts.at(location)) : row.values.at(location);
    return 0.0;
}

/// The cnode whose path of region names (parameters left out) is `path`.
std::uint32_t cnode(const CubeReport& report, const std::string& path) {
    for (std::uint32_t c = 0; c < report.cnodes.size(); ++c) {
        std::string name;
        for (std::int64_t at = c; at >= 0; at = report.cnodes[static_cast<std::size_t>(at)].parent) {
            const auto& node = report.cnodes[static_cast<std::size_t>(at)];
            if (!node.parameter.empty()) continue;
            name = report.regions[node.region].name + (name.empty() ? "" : "/" + name);
        }
        if (name == path) return c;
    }
    throw std::runtime_error("no cnode " + path);
}

TEST(CubeFileTest, XmlTextEscapesMarkupControlCharactersAndBrokenUtf8) {
    EXPECT_EQ(cube::xml_text("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
    EXPECT_EQ(cube::xml_text(std::string("x\x1b[31my\x7f", 8)), "x\\x1b[31my\\x7f");
    EXPECT_EQ(cube::xml_text("tab\there"), "tab\\x09here");
    // Valid UTF-8 stays as it is; a lone continuation byte, an overlong form
    // and a truncated sequence do not.
    EXPECT_EQ(cube::xml_text("\xC2\xB5s \xE2\x86\x92 \xF0\x9F\x98\x80"),
              "\xC2\xB5s \xE2\x86\x92 \xF0\x9F\x98\x80");
    EXPECT_EQ(cube::xml_text("a\x80z"), "a\\x80z");
    EXPECT_EQ(cube::xml_text("\xC0\xAF"), "\\xc0\\xaf");
    EXPECT_EQ(cube::xml_text("end\xE2\x86"), "end\\xe2\\x86");
    EXPECT_EQ(cube::xml_text("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

TEST(CubeFileTest, IndexAndDataMembersAreLaidOutAsCubeReadsThem) {
    CubeMetric m;
    m.unique_name = "visits";
    m.integer = true;
    m.rows.push_back({1, {}, {7, -1}});
    m.rows.push_back({3, {}, {0, 258}});
    const std::string index = cube::index_member(m);
    const std::string expected_index("CUBEX.INDEX\x01\0\0\0\0\0\x01\x02\0\0\0\x01\0\0\0\x03\0\0\0", 30);
    EXPECT_EQ(index, expected_index);
    const std::string data = cube::data_member(m, 2);
    ASSERT_EQ(data.size(), 10u + 4 * 8);
    EXPECT_EQ(data.substr(0, 10), "CUBEX.DATA");
    EXPECT_EQ(data.substr(10, 8), std::string("\x07\0\0\0\0\0\0\0", 8));
    EXPECT_EQ(data.substr(18, 8), std::string(8, '\xFF'));
    EXPECT_EQ(data.substr(34, 8), std::string("\x02\x01\0\0\0\0\0\0", 8));

    CubeMetric t;
    t.rows.push_back({0, {1.5}, {}});
    const std::string real = cube::data_member(t, 1);
    double back = 0;
    std::memcpy(&back, real.data() + 10, 8);
    EXPECT_EQ(back, 1.5);
}

TEST(CubeFileTest, TarArchiveIsReadByTar) {
    const std::string archive =
        cube::tar_archive({{"anchor.xml", "<cube/>\n"}, {"0.data", std::string(600, 'x')}});
    ASSERT_EQ(archive.size() % 512, 0u);
    // Header, one block of content; header, two blocks; two zero blocks.
    EXPECT_EQ(archive.size(), 512u * (2 + 3 + 2));
    // The checksum: the header's bytes summed with the checksum field as spaces.
    std::string header = archive.substr(0, 512);
    const unsigned stored = static_cast<unsigned>(std::strtoul(header.substr(148, 7).c_str(), nullptr, 8));
    header.replace(148, 8, 8, ' ');
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    EXPECT_EQ(stored, sum);

    TempDir dir;
    const std::string path = dir.file("t.cubex");
    std::ofstream(path, std::ios::binary) << archive;
    const std::string listing = dir.file("listing");
    ASSERT_EQ(std::system(("tar -tvf '" + path + "' > '" + listing + "' 2>&1").c_str()), 0);
    std::ifstream in(listing);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(" 8 "), std::string::npos) << text;
    EXPECT_NE(text.find("anchor.xml"), std::string::npos) << text;
    EXPECT_NE(text.find(" 600 "), std::string::npos) << text;
    EXPECT_NE(text.find("0.data"), std::string::npos) << text;
}

TEST(CubeFileTest, RefusesTreesThatCubeWouldNumberDifferently) {
    CubeReport report;
    report.regions.push_back({"main", "", -1, "user", "function"});
    // 0 -> {1, 2}, but 3 is a child of 1 listed after 2: not depth-first.
    report.cnodes = {
        {-1, 0, "", "", false}, {0, 0, "", "", false}, {0, 0, "", "", false}, {1, 0, "", "", false}};
    EXPECT_THROW(cube::anchor_xml(report), std::logic_error);
    report.cnodes[3].parent = 2;
    EXPECT_NO_THROW(cube::anchor_xml(report));
    report.cnodes[1].parent = 2;  // a parent after its child
    EXPECT_THROW(cube::anchor_xml(report), std::logic_error);
}

TEST(CubeFileTest, RefusesRowsOfTheWrongWidthOrOrder) {
    CubeReport report;
    report.regions.push_back({"main", "", -1, "user", "function"});
    report.cnodes.push_back({});
    report.cnodes.push_back({0, 0, "", "", false});
    report.locations.push_back({"thread 0", 0, 0, "thread"});
    CubeMetric m;
    m.unique_name = "time";
    m.rows.push_back({1, {1.0}, {}});
    m.rows.push_back({0, {1.0}, {}});
    report.metrics.push_back(m);
    EXPECT_THROW(cube::cubex_file(report), std::logic_error);  // descending cnodes
    report.metrics[0].rows = {{0, {1.0, 2.0}, {}}};
    EXPECT_THROW(cube::cubex_file(report), std::logic_error);  // two values for one location
    report.metrics[0].rows = {{0, {1.0}, {}}};
    EXPECT_NO_THROW(cube::cubex_file(report));
}

class CubeExportTest : public ::testing::Test {
protected:
    Profile read(const FixtureProfile& profile) {
        write_experiment(profile, dir_.path());
        return read_profile(dir_.file("profile.h5"));
    }
    TempDir dir_;
};

TEST_F(CubeExportTest, ProfileTimesGoToScalascasMetricTree) {
    const Profile p = read(imbalanced_profile());
    const CubeReport r = cube::cube_report(p, nullptr);
    // Depth-first cnodes: MPI_Init, main, main/compute, main/MPI_Allreduce, MPI_Finalize.
    ASSERT_EQ(r.cnodes.size(), 5u);
    ASSERT_EQ(r.locations.size(), 4u);
    const std::uint32_t compute = cnode(r, "main/compute"), allreduce = cnode(r, "main/MPI_Allreduce"),
                        init = cnode(r, "MPI_Init");
    EXPECT_EQ(value(r, "time", compute, 3), 4.0);
    EXPECT_EQ(value(r, "execution", compute, 3), 4.0);
    EXPECT_EQ(value(r, "mpi", compute, 3), 0.0);
    EXPECT_EQ(value(r, "time", allreduce, 0), 2.5);
    EXPECT_EQ(value(r, "mpi", allreduce, 0), 2.5);
    EXPECT_EQ(value(r, "mpi_communication", allreduce, 0), 2.5);
    EXPECT_EQ(value(r, "mpi_collective", allreduce, 0), 2.5);
    EXPECT_EQ(value(r, "mpi_point2point", allreduce, 0), 0.0);
    EXPECT_EQ(value(r, "mpi_init_exit", init, 0), 0.5);
    EXPECT_EQ(value(r, "mpi_management", init, 0), 0.5);
    EXPECT_EQ(r.regions[r.cnodes[init].region].paradigm, "mpi");
    EXPECT_EQ(value(r, "visits", compute, 2), 10.0);
    EXPECT_EQ(metric(r, "visits").integer, true);
    // Without a trace there are no wait-state metrics.
    EXPECT_THROW(metric(r, "mpi_latesender"), std::runtime_error);
    // Only nonzero rows are stored.
    for (const CubeMetric::Row& row : metric(r, "mpi_collective").rows) EXPECT_EQ(row.cnode, allreduce);
}

TEST_F(CubeExportTest, WaitStatesSitOnTheRanksFirstThreadInsideTheirCallsTime) {
    ProfileBuilder b;
    const std::uint32_t main_region = b.region("main", paradigm::user, role::function);
    const std::uint32_t wait = b.region("MPI_Wait", paradigm::mpi, role::function);
    const std::uint32_t barrier = b.region("MPI_Barrier", paradigm::mpi, role::barrier);
    const std::size_t t00 = b.location(0, 0), t01 = b.location(0, 1), t10 = b.location(1, 0);
    const std::size_t root = b.callpath(-1, main_region);
    const std::size_t wait_path = b.callpath(static_cast<std::int64_t>(root), wait);
    const std::size_t barrier_path = b.callpath(static_cast<std::int64_t>(root), barrier);
    for (std::size_t l : {t00, t01, t10}) b.set(root, l, 1, 1.0);
    b.set(wait_path, t10, 3, 0.75);
    b.set(barrier_path, t00, 1, 0.5);
    b.set(barrier_path, t10, 1, 0.25);
    const Profile p = read(b.build());

    trace::TraceReport waits;
    waits.timer_resolution = 1000;
    waits.waits.rows.push_back({trace::WaitMetric::late_sender, "main/MPI_Wait", 1, 0, 500, 2});
    waits.waits.rows.push_back(
        {trace::WaitMetric::late_sender, "main/MPI_Wait", 1, 2, 125, 1});  // a second partner
    waits.waits.rows.push_back({trace::WaitMetric::wait_at_barrier, "main/MPI_Barrier", 0, 1, 250, 1});
    waits.waits.rows.push_back({trace::WaitMetric::late_receiver, "main/MPI_Ssend", 0, 1, 100, 1});  // not profiled
    const CubeReport r = cube::cube_report(p, &waits);

    // Locations: rank 0's two threads, then rank 1's.
    ASSERT_EQ(r.locations.size(), 3u);
    EXPECT_EQ(r.locations[2].rank, 1u);
    const std::uint32_t wait_cnode = cnode(r, "main/MPI_Wait"), barrier_cnode = cnode(r, "main/MPI_Barrier");
    EXPECT_DOUBLE_EQ(value(r, "mpi_latesender", wait_cnode, 2), 0.625);
    EXPECT_EQ(value(r, "mpi_latesender", wait_cnode, 0), 0.0);
    // MPI_Wait completes messages: point-to-point time, which holds its late senders.
    EXPECT_EQ(value(r, "mpi_point2point", wait_cnode, 2), 0.75);
    EXPECT_EQ(value(r, "mpi_management", wait_cnode, 2), 0.0);
    EXPECT_EQ(value(r, "mpi_barrier_wait", barrier_cnode, 0), 0.25);
    EXPECT_EQ(value(r, "mpi_sync_collective", barrier_cnode, 0), 0.5);
    // A call path of the trace alone: a root of its own, not lost.
    bool found = false;
    for (std::uint32_t c = 0; c < r.cnodes.size(); ++c) {
        if (r.regions[r.cnodes[c].region].name.rfind("main/MPI_Ssend", 0) == 0) {
            found = true;
            EXPECT_EQ(r.cnodes[c].parent, -1);
            EXPECT_DOUBLE_EQ(value(r, "mpi_latereceiver", c, 0), 0.1);
        }
    }
    EXPECT_TRUE(found);
    // And the file is whole: every member present, readable by tar.
    const std::string file = cube::cubex_file(r);
    EXPECT_NE(file.find("<uniq_name>mpi_latesender</uniq_name>"), std::string::npos);
    EXPECT_NE(file.find("<location Id=\"2\">"), std::string::npos);
}

TEST_F(CubeExportTest, DeepRecursionTakesLinearSpaceAndFindsItsWaits) {
    // A recursion 20 000 deep with an MPI_Recv at the bottom: the anchor grows
    // linearly (capped indentation), nothing recurses on the C++ stack, and
    // the late sender finds its call path by walking down the tree.
    constexpr std::size_t depth = 20000;
    const Profile p = read(deep_recursion_profile(depth, 1e-6, "MPI_Recv"));

    std::string path;
    for (std::size_t d = 0; d < depth; ++d) path += "f/";
    trace::TraceReport waits;
    waits.timer_resolution = 10;
    waits.waits.rows.push_back({trace::WaitMetric::late_sender, path + "MPI_Recv", 0, 1, 2, 1});
    const CubeReport r = cube::cube_report(p, &waits);
    ASSERT_EQ(r.cnodes.size(), depth + 1);
    const CubeMetric& late = metric(r, "mpi_latesender");
    ASSERT_EQ(late.rows.size(), 1u);
    EXPECT_EQ(late.rows[0].cnode, depth);  // the deepest cnode, not a root of its own
    EXPECT_DOUBLE_EQ(late.rows[0].values[0], 0.2);
    const std::string anchor = cube::anchor_xml(r);
    EXPECT_LT(anchor.size(), 200 * depth);
}

}  // namespace
}  // namespace strata::analysis::test
