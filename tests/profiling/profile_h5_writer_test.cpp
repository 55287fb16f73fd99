// SPDX-License-Identifier: BSD-3-Clause
// profile.h5 writer: read back with the HDF5 C API and with h5dump, edge cases, failures.
#include "profiling/profile_h5_writer.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace strata::profiling {
namespace {

namespace fs = std::filesystem;

/// A fresh directory, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "strata-h5-test-XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        if (!path_.empty()) fs::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

/// Closes any HDF5 id (file, dataset, type, space, attribute) on scope exit.
struct Id {
    hid_t id;
    ~Id() {
        if (id >= 0) H5Idec_ref(id);
    }
    operator hid_t() const { return id; }
};

/// main -> {compute (3 visits on location 0, 2 on location 1) -> {compute (recursion),
/// iterations=10}, io -> mode="fast"} on two locations.
ProfileData sample_profile() {
    ProfileData data;
    data.strings = {"",     "main",       "compute", "io",   "main.c",          "iterations",
                    "mode", "fast",       "io.c",    "rank 0 thread 0", "rank 0 thread 1"};
    data.regions = {{1, 4, 10, 1 /*user*/, 1 /*function*/, 0},
                    {2, 4, 20, 2 /*compiler*/, 1 /*function*/, 1 /*phase*/},
                    {3, 8, 5, 1 /*user*/, 3 /*loop*/, 0}};
    data.parameters = {{5, 0}, {6, 1}};
    data.locations = {{100, 0, 0, 0, 9}, {101, 0, 1, 1, 10}};
    data.callpaths = {
        {-1, 0, -1, 0, -1},  // 0 main
        {0, 1, -1, 0, -1},   // 1 main/compute
        {1, 1, -1, 0, -1},   // 2 main/compute/compute
        {0, 2, -1, 0, -1},   // 3 main/io
        {1, 1, 0, 10, -1},   // 4 main/compute/iterations=10
        {3, 2, 1, 0, 7},     // 5 main/io/mode=fast
    };
    ProfileData::Metric visits{"visits", "count", "number of calls", true, {}, {1, 1, 3, 2, 2, 0, 1, 1, 3, 2, 1, 0}};
    ProfileData::Metric time{"time_inclusive", "s", "inclusive time", false,
                             {10.0, 8.5, 6.0, 5.25, 1.5, 0.0, 2.5, 1.0, 4.0, 3.0, 0.75, 0.0}, {}};
    data.metrics = {visits, time};
    data.strata_version = "0.1.0";
    data.creation_time = "2024-05-06T07:08:09Z";
    data.timer_name = "clock_gettime";
    data.timer_resolution = 1e9;
    data.dropped_callpaths = 7;
    return data;
}

std::string read_string_attribute(hid_t object, const char* name) {
    Id attribute{H5Aopen(object, name, H5P_DEFAULT)};
    Id type{H5Aget_type(attribute)};
    EXPECT_TRUE(H5Tis_variable_str(type) > 0) << name;
    EXPECT_EQ(H5Tget_cset(type), H5T_CSET_UTF8) << name;
    char* value = nullptr;
    if (H5Aread(attribute, type, &value) < 0) return "<unreadable>";
    std::string result = value;
    H5free_memory(value);
    return result;
}

template <typename T>
T read_attribute(hid_t object, const char* name, hid_t memory_type) {
    Id attribute{H5Aopen(object, name, H5P_DEFAULT)};
    T value{};
    EXPECT_GE(H5Aread(attribute, memory_type, &value), 0) << name;
    return value;
}

std::vector<hsize_t> dims_of(hid_t dataset) {
    Id space{H5Dget_space(dataset)};
    std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(space));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    return dims;
}

std::vector<std::string> read_strings(hid_t file) {
    Id dataset{H5Dopen2(file, "/definitions/strings", H5P_DEFAULT)};
    Id type{H5Dget_type(dataset)};
    EXPECT_TRUE(H5Tis_variable_str(type) > 0);
    std::vector<char*> raw(dims_of(dataset).at(0));
    if (raw.empty()) return {};
    EXPECT_GE(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), 0);
    std::vector<std::string> strings(raw.begin(), raw.end());
    Id space{H5Dget_space(dataset)};
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
    return strings;
}

/// The name of an enum member of field `field` of a compound dataset's type.
std::string enum_name(hid_t dataset, const char* field, std::uint8_t value) {
    Id type{H5Dget_type(dataset)};
    Id member{H5Tget_member_type(type, H5Tget_member_index(type, field))};
    if (H5Tget_class(member) != H5T_ENUM) return "<not an enum>";
    std::array<char, 64> name{};
    if (H5Tenum_nameof(member, &value, name.data(), name.size()) < 0) return "<no name>";
    return name.data();
}

/// Reads one field of a compound table into a vector of T.
template <typename T>
std::vector<T> read_field(hid_t file, const char* table, const char* field, hid_t memory_field_type) {
    Id dataset{H5Dopen2(file, table, H5P_DEFAULT)};
    std::vector<T> values(dims_of(dataset).at(0));
    Id memory{H5Tcreate(H5T_COMPOUND, sizeof(T))};
    H5Tinsert(memory, field, 0, memory_field_type);
    if (!values.empty()) {
        EXPECT_GE(H5Dread(dataset, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    }
    return values;
}

/// Reads one string field of a compound table.
std::vector<std::string> read_text_field(hid_t file, const char* table, const char* field) {
    Id string_type{H5Tcopy(H5T_C_S1)};
    H5Tset_size(string_type, H5T_VARIABLE);
    H5Tset_cset(string_type, H5T_CSET_UTF8);
    std::vector<char*> raw = read_field<char*>(file, table, field, string_type);
    std::vector<std::string> result(raw.begin(), raw.end());
    for (char* text : raw) H5free_memory(text);
    return result;
}

/// Reads one-byte enum field values with the file's own enum type.
std::vector<std::uint8_t> read_enum_field(hid_t file, const char* table, const char* field) {
    Id dataset{H5Dopen2(file, table, H5P_DEFAULT)};
    Id type{H5Dget_type(dataset)};
    Id member{H5Tget_member_type(type, H5Tget_member_index(type, field))};
    return read_field<std::uint8_t>(file, table, field, member);
}

template <typename T>
std::vector<T> read_matrix(hid_t file, const std::string& name, hid_t memory_type, std::vector<hsize_t>& dims) {
    Id dataset{H5Dopen2(file, name.c_str(), H5P_DEFAULT)};
    dims = dims_of(dataset);
    std::vector<T> values(dims.at(0) * dims.at(1));
    if (!values.empty()) {
        EXPECT_GE(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    }
    return values;
}

/// A tool path configured by CMake, or "" when it was not found.
std::string configured_tool(const std::string& path) {
    return path.find("NOTFOUND") == std::string::npos ? path : std::string();
}

/// `text` without blanks and line breaks, so that h5dump's layout does not matter.
std::string squeeze(const std::string& text) {
    std::string result;
    for (char c : text)
        if (c != ' ' && c != '\n' && c != '\t') result += c;
    return result;
}

/// Runs a command and returns its standard output.
std::string run(const std::string& command) {
    std::string output;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    if (!pipe) return output;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) output.append(buffer.data(), n);
    return output;
}

class ProfileH5WriterTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
    std::string path(const char* name) const { return (dir_.path() / name).string(); }
    TempDir dir_;
};

TEST_F(ProfileH5WriterTest, ReadBackEveryTableAndMatrixExactly) {
    const ProfileData data = sample_profile();
    const std::string file_path = path("profile.h5");
    const Error result = write_profile_h5(data, file_path);
    ASSERT_FALSE(result) << *result;
    EXPECT_TRUE(fs::exists(file_path));
    EXPECT_FALSE(fs::exists(file_path + ".tmp"));

    Id file{H5Fopen(file_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)};
    ASSERT_GE(file.id, 0);
    EXPECT_EQ(read_string_attribute(file, "format"), "strata-profile");
    EXPECT_EQ(read_attribute<std::uint32_t>(file, "format_version", H5T_NATIVE_UINT32), 1u);
    EXPECT_EQ(read_string_attribute(file, "strata_version"), "0.1.0");
    EXPECT_EQ(read_string_attribute(file, "creation_time"), "2024-05-06T07:08:09Z");
    EXPECT_EQ(read_string_attribute(file, "timer"), "clock_gettime");
    EXPECT_EQ(read_attribute<double>(file, "timer_resolution", H5T_NATIVE_DOUBLE), 1e9);
    EXPECT_EQ(read_attribute<std::uint64_t>(file, "dropped_callpaths", H5T_NATIVE_UINT64), 7u);
    EXPECT_EQ(read_attribute<std::uint64_t>(file, "number_of_locations", H5T_NATIVE_UINT64), 2u);

    EXPECT_EQ(read_strings(file), data.strings);

    const char* regions = "/definitions/regions";
    EXPECT_EQ(read_field<std::uint32_t>(file, regions, "name", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{1, 2, 3}));
    EXPECT_EQ(read_field<std::uint32_t>(file, regions, "file", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{4, 4, 8}));
    EXPECT_EQ(read_field<std::uint32_t>(file, regions, "line", H5T_NATIVE_UINT32),
              (std::vector<std::uint32_t>{10, 20, 5}));
    EXPECT_EQ(read_enum_field(file, regions, "paradigm"), (std::vector<std::uint8_t>{1, 2, 1}));
    EXPECT_EQ(read_enum_field(file, regions, "role"), (std::vector<std::uint8_t>{1, 1, 3}));
    EXPECT_EQ(read_field<std::uint32_t>(file, regions, "flags", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{0, 1, 0}));
    EXPECT_EQ(read_text_field(file, regions, "name_text"), (std::vector<std::string>{"main", "compute", "io"}));
    EXPECT_EQ(read_text_field(file, regions, "file_text"), (std::vector<std::string>{"main.c", "main.c", "io.c"}));
    {
        Id dataset{H5Dopen2(file, regions, H5P_DEFAULT)};
        EXPECT_EQ(enum_name(dataset, "paradigm", 0), "unknown");
        EXPECT_EQ(enum_name(dataset, "paradigm", 1), "user");
        EXPECT_EQ(enum_name(dataset, "paradigm", 2), "compiler");
        EXPECT_EQ(enum_name(dataset, "paradigm", 6), "measurement");
        EXPECT_EQ(enum_name(dataset, "role", 3), "loop");
        EXPECT_EQ(enum_name(dataset, "role", 13), "artificial");
    }

    const char* parameters = "/definitions/parameters";
    EXPECT_EQ(read_field<std::uint32_t>(file, parameters, "name", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{5, 6}));
    EXPECT_EQ(read_enum_field(file, parameters, "type"), (std::vector<std::uint8_t>{0, 1}));
    EXPECT_EQ(read_text_field(file, parameters, "name_text"), (std::vector<std::string>{"iterations", "mode"}));
    {
        Id dataset{H5Dopen2(file, parameters, H5P_DEFAULT)};
        EXPECT_EQ(enum_name(dataset, "type", 0), "integer");
        EXPECT_EQ(enum_name(dataset, "type", 1), "string");
    }

    const char* locations = "/definitions/locations";
    EXPECT_EQ(read_field<std::uint64_t>(file, locations, "id", H5T_NATIVE_UINT64), (std::vector<std::uint64_t>{100, 101}));
    EXPECT_EQ(read_field<std::uint32_t>(file, locations, "rank", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{0, 0}));
    EXPECT_EQ(read_field<std::uint32_t>(file, locations, "thread", H5T_NATIVE_UINT32),
              (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(read_enum_field(file, locations, "type"), (std::vector<std::uint8_t>{0, 1}));
    EXPECT_EQ(read_field<std::uint32_t>(file, locations, "name", H5T_NATIVE_UINT32), (std::vector<std::uint32_t>{9, 10}));
    {
        Id dataset{H5Dopen2(file, locations, H5P_DEFAULT)};
        EXPECT_EQ(enum_name(dataset, "type", 0), "cpu_thread");
        EXPECT_EQ(enum_name(dataset, "type", 1), "gpu_stream");
        EXPECT_EQ(enum_name(dataset, "type", 2), "metric");
    }

    const char* callpaths = "/definitions/callpaths";
    EXPECT_EQ(read_field<std::int64_t>(file, callpaths, "parent", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{-1, 0, 1, 0, 1, 3}));
    EXPECT_EQ(read_field<std::uint32_t>(file, callpaths, "region", H5T_NATIVE_UINT32),
              (std::vector<std::uint32_t>{0, 1, 1, 2, 1, 2}));
    EXPECT_EQ(read_field<std::int64_t>(file, callpaths, "parameter", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{-1, -1, -1, -1, 0, 1}));
    EXPECT_EQ(read_field<std::int64_t>(file, callpaths, "int_value", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 0, 0, 0, 10, 0}));
    EXPECT_EQ(read_field<std::int64_t>(file, callpaths, "string_value", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{-1, -1, -1, -1, -1, 7}));

    std::vector<hsize_t> dims;
    EXPECT_EQ(read_matrix<std::uint64_t>(file, "/metrics/visits", H5T_NATIVE_UINT64, dims),
              (std::vector<std::uint64_t>{1, 1, 3, 2, 2, 0, 1, 1, 3, 2, 1, 0}));
    EXPECT_EQ(dims, (std::vector<hsize_t>{6, 2}));
    EXPECT_EQ(read_matrix<double>(file, "/metrics/time_inclusive", H5T_NATIVE_DOUBLE, dims),
              (std::vector<double>{10.0, 8.5, 6.0, 5.25, 1.5, 0.0, 2.5, 1.0, 4.0, 3.0, 0.75, 0.0}));
    EXPECT_EQ(dims, (std::vector<hsize_t>{6, 2}));

    // Stored types, attributes, chunking and filters of the matrices.
    for (const auto& metric : data.metrics) {
        Id dataset{H5Dopen2(file, ("/metrics/" + metric.name).c_str(), H5P_DEFAULT)};
        Id type{H5Dget_type(dataset)};
        EXPECT_TRUE(H5Tequal(type, metric.integral ? H5T_STD_U64LE : H5T_IEEE_F64LE) > 0) << metric.name;
        EXPECT_EQ(read_string_attribute(dataset, "unit"), metric.unit);
        EXPECT_EQ(read_string_attribute(dataset, "description"), metric.description);
        Id dcpl{H5Dget_create_plist(dataset)};
        ASSERT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
        std::array<hsize_t, 2> chunk{};
        EXPECT_EQ(H5Pget_chunk(dcpl, 2, chunk.data()), 2);
        EXPECT_EQ(chunk, (std::array<hsize_t, 2>{6, 2}));
        ASSERT_EQ(H5Pget_nfilters(dcpl), 2);
        unsigned flags = 0;
        std::size_t count = 1;
        unsigned level = 0;
        EXPECT_EQ(H5Pget_filter2(dcpl, 0, &flags, &count, &level, 0, nullptr, nullptr), H5Z_FILTER_SHUFFLE);
        count = 1;
        EXPECT_EQ(H5Pget_filter2(dcpl, 1, &flags, &count, &level, 0, nullptr, nullptr), H5Z_FILTER_DEFLATE);
        EXPECT_EQ(level, 4u);
    }
}

TEST_F(ProfileH5WriterTest, H5dumpShowsNamesEnumsAndValues) {
    const std::string h5dump = configured_tool(STRATA_H5DUMP);
    if (h5dump.empty()) GTEST_SKIP() << "h5dump not found at configure time";
    const std::string file_path = path("profile.h5");
    const Error result = write_profile_h5(sample_profile(), file_path);
    ASSERT_FALSE(result) << *result;

    const std::string all = squeeze(run("'" + h5dump + "' '" + file_path + "' 2>&1"));
    EXPECT_NE(all.find("ATTRIBUTE\"format\"{"), std::string::npos) << all;
    EXPECT_NE(all.find("(0):\"strata-profile\""), std::string::npos) << all;
    EXPECT_NE(all.find("(0):\"\",\"main\",\"compute\",\"io\",\"main.c\",\"iterations\","), std::string::npos) << all;
    // Region records are readable without joins: enum members print by name,
    // names and files as text.
    EXPECT_NE(all.find("\"compiler\"2;"), std::string::npos) << all;
    EXPECT_NE(all.find("(0):{1,4,10,user,function,0,\"main\",\"main.c\"}"), std::string::npos) << all;
    EXPECT_NE(all.find("(1):{2,4,20,compiler,function,1,\"compute\",\"main.c\"}"), std::string::npos) << all;
    EXPECT_NE(all.find("(2):{3,8,5,user,loop,0,\"io\",\"io.c\"}"), std::string::npos) << all;
    EXPECT_NE(all.find("(1):{6,string,\"mode\"}"), std::string::npos) << all;
    EXPECT_NE(all.find("(1):{101,0,1,gpu_stream,10,0}"), std::string::npos) << all;  // host: string 0 here

    const std::string visits = squeeze(run("'" + h5dump + "' -d /metrics/visits '" + file_path + "' 2>&1"));
    EXPECT_NE(visits.find("DATATYPEH5T_STD_U64LEDATASPACESIMPLE{(6,2)/(6,2)}"
                          "DATA{(0,0):1,1,(1,0):3,2,(2,0):2,0,(3,0):1,1,(4,0):3,2,(5,0):1,0}"),
              std::string::npos)
        << visits;
    EXPECT_NE(visits.find("(0):\"count\""), std::string::npos) << visits;
    const std::string time = squeeze(run("'" + h5dump + "' -d /metrics/time_inclusive '" + file_path + "' 2>&1"));
    EXPECT_NE(time.find("DATA{(0,0):10,8.5,(1,0):6,5.25,(2,0):1.5,0,(3,0):2.5,1,(4,0):4,3,(5,0):0.75,0}"),
              std::string::npos)
        << time;
}

// The h5py example of share/doc/profile-format.md runs and prints the
// exclusive time per region on location 0 (by hand: main 10 - 6 - 2.5;
// compute (6 - 1.5 - 4) + 1.5 + 4; io (2.5 - 0.75) + 0.75).
TEST_F(ProfileH5WriterTest, DocumentedH5pyExampleComputesExclusiveTime) {
#ifdef STRATA_SYSTEM_PYTHON
    const std::string python = configured_tool(STRATA_SYSTEM_PYTHON);
#else
    const std::string python;
#endif
    if (python.empty()) GTEST_SKIP() << "no system python3 configured";
    if (std::system(("'" + python + "' -c 'import h5py' > /dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << "h5py is not installed for " << python;
    std::ifstream doc(std::string(STRATA_TEST_SOURCE_DIR) + "/../share/doc/profile-format.md");
    ASSERT_TRUE(doc) << "share/doc/profile-format.md not found";
    std::string line, script;
    bool in_block = false;
    while (std::getline(doc, line) && !(in_block && line == "```")) {
        if (in_block) script += line + "\n";
        if (line == "```python") in_block = true;
    }
    ASSERT_FALSE(script.empty());
    std::ofstream(path("example.py")) << script;
    ASSERT_FALSE(write_profile_h5(sample_profile(), path("profile.h5")));

    const std::string output = run("cd '" + dir_.path().string() + "' && '" + python + "' example.py 2>&1");
    EXPECT_EQ(output,
              "compute                  6.000000 s\n"
              "io                       2.500000 s\n"
              "main                     1.500000 s\n");
}

TEST_F(ProfileH5WriterTest, ZeroCallPathsAndZeroLocationsWriteAValidFile) {
    for (std::size_t locations : {0u, 2u}) {
        SCOPED_TRACE("locations: " + std::to_string(locations));
        ProfileData data;
        data.strings = {"", "thread"};
        data.locations.resize(locations, ProfileData::Location{0, 0, 0, 0, 1});
        data.metrics = {{"visits", "count", "", true, {}, {}}, {"time_inclusive", "s", "", false, {}, {}}};
        const std::string file_path = path("empty.h5");
        const Error result = write_profile_h5(data, file_path);
        ASSERT_FALSE(result) << *result;
        EXPECT_FALSE(fs::exists(file_path + ".tmp"));

        Id file{H5Fopen(file_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)};
        ASSERT_GE(file.id, 0);
        EXPECT_EQ(read_string_attribute(file, "format"), "strata-profile");
        EXPECT_EQ(read_attribute<std::uint64_t>(file, "number_of_locations", H5T_NATIVE_UINT64), locations);
        EXPECT_EQ(read_strings(file), data.strings);
        for (const char* table : {"/definitions/regions", "/definitions/parameters", "/definitions/callpaths"}) {
            Id dataset{H5Dopen2(file, table, H5P_DEFAULT)};
            EXPECT_EQ(dims_of(dataset), (std::vector<hsize_t>{0})) << table;
        }
        Id location_table{H5Dopen2(file, "/definitions/locations", H5P_DEFAULT)};
        EXPECT_EQ(dims_of(location_table), (std::vector<hsize_t>{locations}));
        std::vector<hsize_t> dims;
        EXPECT_TRUE(read_matrix<std::uint64_t>(file, "/metrics/visits", H5T_NATIVE_UINT64, dims).empty());
        EXPECT_EQ(dims, (std::vector<hsize_t>{0, locations}));
        EXPECT_TRUE(read_matrix<double>(file, "/metrics/time_inclusive", H5T_NATIVE_DOUBLE, dims).empty());
        EXPECT_EQ(dims, (std::vector<hsize_t>{0, locations}));

        const std::string h5dump = configured_tool(STRATA_H5DUMP);
        if (!h5dump.empty()) {
            EXPECT_EQ(std::system(("'" + h5dump + "' '" + file_path + "' > /dev/null 2>&1").c_str()), 0);
        }
    }
}

TEST_F(ProfileH5WriterTest, UnwritablePathReturnsErrorAndCreatesNothing) {
    const std::string file_path = path("no-such-directory/profile.h5");
    const Error result = write_profile_h5(sample_profile(), file_path);
    EXPECT_TRUE(result);
    EXPECT_EQ(result.message().rfind(file_path + ": cannot create file ", 0), 0u) << result.message();
    EXPECT_NE(result.message().find("No such file or directory"), std::string::npos) << result.message();
    EXPECT_FALSE(fs::exists(file_path));
    EXPECT_FALSE(fs::exists(file_path + ".tmp"));
    EXPECT_FALSE(fs::exists(path("no-such-directory")));
}

TEST_F(ProfileH5WriterTest, TemporaryFileIsReplacedAndRemoved) {
    const std::string file_path = path("profile.h5");
    { std::ofstream stale(file_path + ".tmp"); stale << "left over from a crashed run"; }
    { std::ofstream old(file_path); old << "an older profile"; }
    const Error result = write_profile_h5(sample_profile(), file_path);
    ASSERT_FALSE(result) << *result;
    EXPECT_FALSE(fs::exists(file_path + ".tmp"));
    EXPECT_GT(H5Fis_hdf5(file_path.c_str()), 0);
}

TEST_F(ProfileH5WriterTest, ColumnSliceLandsAtLocationOffset) {
    ProfileData data = sample_profile();
    data.location_offset = 1;
    data.total_locations = 4;
    const std::string file_path = path("slice.h5");
    const Error result = write_profile_h5(data, file_path);
    ASSERT_FALSE(result) << *result;

    Id file{H5Fopen(file_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)};
    ASSERT_GE(file.id, 0);
    EXPECT_EQ(read_attribute<std::uint64_t>(file, "number_of_locations", H5T_NATIVE_UINT64), 4u);
    EXPECT_EQ(read_field<std::uint64_t>(file, "/definitions/locations", "id", H5T_NATIVE_UINT64),
              (std::vector<std::uint64_t>{0, 100, 101, 0}));
    std::vector<hsize_t> dims;
    EXPECT_EQ(read_matrix<std::uint64_t>(file, "/metrics/visits", H5T_NATIVE_UINT64, dims),
              (std::vector<std::uint64_t>{0, 1, 1, 0, 0, 3, 2, 0, 0, 2, 0, 0,
                                          0, 1, 1, 0, 0, 3, 2, 0, 0, 1, 0, 0}));
    EXPECT_EQ(dims, (std::vector<hsize_t>{6, 4}));
}

TEST_F(ProfileH5WriterTest, FailedWriteReturnsErrorAndLeavesNothingBehind) {
    // A file-size limit makes write() fail (EFBIG) the way a full disk does (ENOSPC).
    rlimit old_limit{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    if (old_limit.rlim_max != RLIM_INFINITY && old_limit.rlim_max < 4096) GTEST_SKIP() << "file size limit too low";
    const std::string file_path = path("profile.h5");
    rlimit small = old_limit;
    small.rlim_cur = 4096;  // the sample profile is about 18 KiB
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const Error result = write_profile_h5(sample_profile(), file_path);
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);

    EXPECT_EQ(result.message(), file_path + ": cannot write " + file_path + ".tmp: File too large");
    EXPECT_FALSE(fs::exists(file_path));
    EXPECT_FALSE(fs::exists(file_path + ".tmp"));
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);  // HDF5 left in a clean state
}

TEST_F(ProfileH5WriterTest, InconsistentDataIsRejectedWithoutAFile) {
    const std::string file_path = path("profile.h5");
    ProfileData short_metric = sample_profile();
    short_metric.metrics[1].values.pop_back();
    Error result = write_profile_h5(short_metric, file_path);
    EXPECT_EQ(result.message(), file_path + ": invalid profile data: metric time_inclusive has 11 values, expected 6 call "
                                        "paths x 2 locations");

    ProfileData dangling = sample_profile();
    dangling.callpaths[3].region = 3;
    result = write_profile_h5(dangling, file_path);
    EXPECT_EQ(result.message(),
              file_path + ": invalid profile data: call path 3 refers to a missing parent, region, parameter or string");

    ProfileData overflow = sample_profile();
    overflow.location_offset = 1;
    overflow.total_locations = 2;
    result = write_profile_h5(overflow, file_path);
    EXPECT_EQ(result.message(), file_path + ": invalid profile data: locations [1, +2) exceed total_locations 2");

    ProfileData duplicate = sample_profile();
    duplicate.metrics[1].name = "visits";
    duplicate.metrics[1].integral = true;
    duplicate.metrics[1].counts.assign(12, 0);
    H5E_auto2_t print_before = nullptr;
    void* data_before = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &print_before, &data_before);
    ::testing::internal::CaptureStderr();
    result = write_profile_h5(duplicate, file_path);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // HDF5's error stack was not printed
    EXPECT_EQ(result.message(), file_path + ": cannot write /metrics/visits: unable to create dataset: name already exists");
    H5E_auto2_t print_after = nullptr;
    void* data_after = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &print_after, &data_after);
    EXPECT_EQ(print_after, print_before);  // automatic printing restored
    EXPECT_EQ(data_after, data_before);
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    EXPECT_FALSE(fs::exists(file_path));
    EXPECT_FALSE(fs::exists(file_path + ".tmp"));
}

}  // namespace
}  // namespace strata::profiling
