// SPDX-License-Identifier: BSD-3-Clause
// read_profile(): exact values from a known file, a newer layout, and every kind of broken file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <limits>

#include "profile/profile_reader.hpp"
#include "profile_fixture.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

class ProfileReaderTest : public ::testing::Test {
protected:
    /// Writes `fixture` as profile.h5 in the temporary directory; returns its path.
    std::string write(const FixtureProfile& fixture) {
        const std::string path = dir_.file("profile.h5");
        write_fixture(fixture, path);
        return path;
    }

    /// The message read_profile() gives for `fixture`, or "" when it reads.
    std::string error_of(const FixtureProfile& fixture) {
        const std::string path = write(fixture);
        try {
            read_profile(path);
        } catch (const ProfileError& e) {
            return e.what();
        }
        return "";
    }

    /// "<profile.h5 path>: " + what.
    std::string message(const std::string& what) const { return dir_.file("profile.h5") + ": " + what; }

    TempDir dir_;
};

TEST_F(ProfileReaderTest, ReadsRootAttributes) {
    const Profile p = read_profile(write(known_profile()));
    EXPECT_EQ(p.path, dir_.file("profile.h5"));
    EXPECT_EQ(p.format_version, 1u);
    EXPECT_EQ(p.strata_version, "0.1.0");
    EXPECT_EQ(p.creation_time, "2024-05-06T07:08:09Z");
    EXPECT_EQ(p.timer, "tsc");
    EXPECT_EQ(p.timer_resolution, 2e9);
    EXPECT_EQ(p.dropped_callpaths, 0u);
}

TEST_F(ProfileReaderTest, ReadsDefinitions) {
    const Profile p = read_profile(write(known_profile()));
    EXPECT_EQ(p.strings, (std::vector<std::string>{"", "main", "compute", "io", "main.c", "rank 0 thread 0",
                                                   "rank 1 thread 0", "n", "unused"}));
    ASSERT_EQ(p.regions.size(), 5u);
    const Region& compute = p.regions[2];
    EXPECT_EQ(p.region_name(2), "compute");
    EXPECT_EQ(p.strings[compute.file], "main.c");
    EXPECT_EQ(compute.line, 20u);
    EXPECT_EQ(compute.paradigm, Paradigm::compiler);
    EXPECT_EQ(compute.role, RegionRole::function);
    EXPECT_EQ(compute.flags, 1u);
    EXPECT_TRUE(compute.is_phase());
    EXPECT_FALSE(p.regions[1].is_phase());
    EXPECT_EQ(p.regions[3].paradigm, Paradigm::user);
    EXPECT_EQ(p.regions[3].role, RegionRole::code);
    EXPECT_EQ(p.paradigm_names.name(2), "compiler");
    EXPECT_EQ(p.role_names.name(13), "artificial");

    ASSERT_EQ(p.parameters.size(), 1u);
    EXPECT_EQ(p.strings[p.parameters[0].name], "n");
    EXPECT_EQ(p.parameters[0].type, ParameterType::integer);

    ASSERT_EQ(p.locations.size(), 2u);
    EXPECT_EQ(p.locations[1].id, 1u);
    EXPECT_EQ(p.locations[1].rank, 1u);
    EXPECT_EQ(p.locations[1].thread, 0u);
    EXPECT_EQ(p.locations[1].type, LocationType::cpu_thread);
    EXPECT_EQ(p.location_name(1), "rank 1 thread 0");

    ASSERT_EQ(p.callpaths.size(), 5u);
    EXPECT_EQ(p.callpaths[1].parent, 2);
    EXPECT_EQ(p.callpaths[1].region, 2u);
    EXPECT_TRUE(p.callpaths[0].is_root());
    EXPECT_FALSE(p.callpaths[3].is_parameter());
    EXPECT_TRUE(p.callpaths[4].is_parameter());
    EXPECT_EQ(p.callpaths[4].parameter, 0);
    EXPECT_EQ(p.callpaths[4].int_value, 4);
    EXPECT_EQ(p.callpaths[4].string_value, -1);
}

TEST_F(ProfileReaderTest, ReadsMetricsByName) {
    const Profile p = read_profile(write(known_profile()));
    ASSERT_EQ(p.metrics.size(), 3u);
    EXPECT_EQ(p.metrics[0].name, "time_exclusive");  // sorted by name
    EXPECT_EQ(p.metrics[1].name, "time_inclusive");
    EXPECT_EQ(p.metrics[2].name, "visits");
    const Metric& visits = p.metric("visits");
    EXPECT_TRUE(visits.integral);
    EXPECT_EQ(visits.unit, "count");
    EXPECT_EQ(visits.description, "number of times the call path was entered");
    EXPECT_EQ(visits.rows, 5u);
    EXPECT_EQ(visits.columns, 2u);
    EXPECT_EQ(visits.counts, (std::vector<std::uint64_t>{1, 1, 2, 1, 2, 3, 1, 0, 1, 1}));
    EXPECT_EQ(visits.count_at(2, 1), 3u);
    const Metric& inclusive = p.metric("time_inclusive");
    EXPECT_FALSE(inclusive.integral);
    EXPECT_EQ(inclusive.unit, "s");
    EXPECT_EQ(inclusive.values, (std::vector<double>{10, 8, 3, 2, 6, 5, 2, 0, 1, 0.5}));
    EXPECT_EQ(inclusive.at(4, 1), 0.5);
    EXPECT_EQ(p.find_metric("cycles"), nullptr);
    try {
        p.metric("cycles");
        FAIL() << "no error for a missing metric";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()), message("missing metric /metrics/cycles"));
    }
}

TEST_F(ProfileReaderTest, NewerLayoutIsReadByFieldName) {
    // Reordered fields, an unknown field, table, group and attribute.
    FixtureProfile fixture = known_profile();
    fixture.newer_layout = true;
    const Profile p = read_profile(write(fixture));
    EXPECT_EQ(p.regions[2].line, 20u);
    EXPECT_EQ(p.regions[2].paradigm, Paradigm::compiler);
    EXPECT_EQ(p.regions[2].flags, 1u);
    EXPECT_EQ(p.regions[4].name, 8u);
    EXPECT_EQ(p.locations[1].rank, 1u);
    EXPECT_EQ(p.callpaths[4].int_value, 4);
    EXPECT_EQ(p.callpaths[1].parent, 2);
    EXPECT_EQ(p.metrics.size(), 3u);  // the group /metrics/derived is no metric
}

TEST_F(ProfileReaderTest, EnumValueWithoutNameIsKept) {
    FixtureProfile fixture = known_profile();
    fixture.regions[3].paradigm = 42;  // a paradigm of a newer Strata
    const Profile p = read_profile(write(fixture));
    EXPECT_EQ(static_cast<int>(p.regions[3].paradigm), 42);
    EXPECT_EQ(p.paradigm_names.name(42), "42");
}

TEST_F(ProfileReaderTest, EmptyProfileReads) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths.clear();
    for (auto& m : fixture.metrics) {
        m.rows = 0;
        m.counts.clear();
        m.values.clear();
    }
    const Profile p = read_profile(write(fixture));
    EXPECT_TRUE(p.callpaths.empty());
    EXPECT_EQ(p.metric("visits").rows, 0u);
    EXPECT_EQ(p.metric("visits").columns, 2u);
}

TEST_F(ProfileReaderTest, ProfilePathOfDirectoryAndFile) {
    EXPECT_EQ(profile_path_of(dir_.path()), dir_.file("profile.h5"));
    EXPECT_EQ(profile_path_of(dir_.file("other.h5")), dir_.file("other.h5"));
}

// ---- broken files: exact messages, never a crash ---------------------------

TEST_F(ProfileReaderTest, MissingFile) {
    try {
        read_profile(dir_.file("profile.h5"));
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()), message("cannot open: No such file or directory"));
    }
}

TEST_F(ProfileReaderTest, DirectoryInsteadOfFile) {
    try {
        read_profile(dir_.path());
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()), dir_.path() + ": is a directory, not a profile file");
    }
}

TEST_F(ProfileReaderTest, AFifoIsRefusedAtOnce) {
    // HDF5 would wait for a writer that never comes.
    const std::string fifo = dir_.file("profile.h5");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    try {
        read_profile(fifo);
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()), fifo + ": is not a regular file (a FIFO or a device), not a profile file");
    }
}

TEST_F(ProfileReaderTest, NotHdf5) {
    const std::string path = dir_.write("profile.h5", "this is text, not HDF5\n");
    try {
        read_profile(path);
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()), message("not an HDF5 file"));
    }
}

TEST_F(ProfileReaderTest, EmptyFileIsNotHdf5) {
    const std::string path = dir_.write("profile.h5", "");
    EXPECT_THROW(read_profile(path), ProfileError);
}

TEST_F(ProfileReaderTest, WrongFormatAttribute) {
    FixtureProfile fixture = known_profile();
    fixture.format = "otf2";
    EXPECT_EQ(error_of(fixture),
              message("not a Strata profile (attribute format is \"otf2\", expected \"strata-profile\")"));
}

TEST_F(ProfileReaderTest, MissingFormatAttribute) {
    FixtureProfile fixture = known_profile();
    fixture.omit = {"@format"};
    EXPECT_EQ(error_of(fixture), message("not a Strata profile (no root attribute 'format')"));
}

TEST_F(ProfileReaderTest, NewerFormatVersion) {
    FixtureProfile fixture = known_profile();
    fixture.format_version = 2;
    EXPECT_EQ(error_of(fixture),
              message("format_version 2 is newer than this reader understands (1); read it with a newer Strata"));
}

TEST_F(ProfileReaderTest, MissingAttribute) {
    FixtureProfile fixture = known_profile();
    fixture.omit = {"@dropped_callpaths"};
    EXPECT_EQ(error_of(fixture), message("missing attribute /dropped_callpaths"));
}

TEST_F(ProfileReaderTest, MissingDataset) {
    FixtureProfile fixture = known_profile();
    fixture.omit = {"/definitions/callpaths"};
    EXPECT_EQ(error_of(fixture), message("missing dataset /definitions/callpaths"));
}

TEST_F(ProfileReaderTest, MissingMetricsGroup) {
    FixtureProfile fixture = known_profile();
    fixture.omit = {"/metrics"};
    EXPECT_EQ(error_of(fixture), message("missing group /metrics"));
}

TEST_F(ProfileReaderTest, MissingField) {
    FixtureProfile fixture = known_profile();
    fixture.omit = {"regions.flags"};
    EXPECT_EQ(error_of(fixture), message("/definitions/regions has no field 'flags'"));
}

TEST_F(ProfileReaderTest, RegionIndexOutOfRange) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[3].region = 9;
    EXPECT_EQ(error_of(fixture), message("/definitions/callpaths row 3: region 9 is out of range (5 regions)"));
}

TEST_F(ProfileReaderTest, StringIndexOutOfRange) {
    FixtureProfile fixture = known_profile();
    fixture.regions[4].name = 100;
    EXPECT_EQ(error_of(fixture), message("/definitions/regions row 4: name 100 is out of range (9 strings)"));
}

TEST_F(ProfileReaderTest, ParentOutOfRange) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[3].parent = -2;
    EXPECT_EQ(error_of(fixture), message("/definitions/callpaths row 3: parent -2 is out of range (5 call paths)"));
}

TEST_F(ProfileReaderTest, ParameterOutOfRange) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[4].parameter = 1;
    EXPECT_EQ(error_of(fixture), message("/definitions/callpaths row 4: parameter 1 is out of range (1 parameters)"));
}

TEST_F(ProfileReaderTest, CycleInParentLinks) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[0].parent = 4;  // 0 -> 4 -> 1 -> 2 -> 0
    EXPECT_EQ(error_of(fixture), message("/definitions/callpaths row 0: the parent links form a cycle"));
}

TEST_F(ProfileReaderTest, OwnParent) {
    FixtureProfile fixture = known_profile();
    fixture.callpaths[3].parent = 3;
    EXPECT_EQ(error_of(fixture), message("/definitions/callpaths row 3: the parent links form a cycle"));
}

TEST_F(ProfileReaderTest, LocationCountDisagrees) {
    FixtureProfile fixture = known_profile();
    fixture.number_of_locations = 3;
    EXPECT_EQ(error_of(fixture), message("/definitions/locations has 2 rows, but number_of_locations is 3"));
}

TEST_F(ProfileReaderTest, MetricShapeDisagrees) {
    FixtureProfile fixture = known_profile();
    FixtureProfile::Matrix& visits = fixture.metric("visits");
    visits.columns = 3;
    visits.counts.resize(15, 0);
    EXPECT_EQ(error_of(fixture), message("/metrics/visits is [5 x 3], expected [5 x 2] (call paths x locations)"));
}

TEST_F(ProfileReaderTest, ANonFiniteValueIsDamage) {
    FixtureProfile fixture = known_profile();
    FixtureProfile::Matrix& inclusive = fixture.metric("time_inclusive");
    inclusive.values[3 * inclusive.columns + 1] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_of(fixture), message("/metrics/time_inclusive row 3, location 1: infinity is not a finite number"));
    inclusive.values[3 * inclusive.columns + 1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(error_of(fixture), message("/metrics/time_inclusive row 3, location 1: NaN is not a finite number"));
}

TEST_F(ProfileReaderTest, TruncatedFile) {
    const std::string path = write(known_profile());
    const auto size = std::filesystem::file_size(path);
    std::filesystem::resize_file(path, size / 2);
    try {
        read_profile(path);
        FAIL() << "no error";
    } catch (const ProfileError& e) {
        const std::string text = e.what();
        EXPECT_EQ(text.rfind(message("cannot open as an HDF5 file: "), 0), 0u) << text;
    }
}

}  // namespace
}  // namespace strata::analysis::test
