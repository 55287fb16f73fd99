// SPDX-License-Identifier: BSD-3-Clause
// Damaged profile files: truncated at every 97th length, read_profile() must
// say what is wrong, never crash.  (Bytes flipped inside the file are not
// tested: HDF5 1.10 itself crashes on some damaged global heaps, in
// H5HG_read while converting variable-length strings; see analysis/README.md.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "profile/profile_aggregates.hpp"
#include "profile/profile_reader.hpp"
#include "profile_fixture.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

std::vector<char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Reads `path` the way strata-score does; returns true when it was readable.
bool readable(const std::string& path) {
    try {
        const Profile p = read_profile(path);
        aggregate_regions(p);
        location_totals(p);
        for (std::size_t cp = 0; cp < p.callpaths.size(); ++cp) callpath_name(p, cp);
        return true;
    } catch (const ProfileError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
        return false;
    }
}

class ProfileCorruptionTest : public ::testing::Test {
protected:
    void SetUp() override {
        write_fixture(known_profile(), original_);
        bytes_ = read_bytes(original_);
        ASSERT_GT(bytes_.size(), 1000u);
    }

    TempDir dir_;
    std::string original_ = dir_.file("original.h5");
    std::string damaged_ = dir_.file("profile.h5");
    std::vector<char> bytes_;
};

TEST_F(ProfileCorruptionTest, TruncatedAnywhere) {
    std::size_t rejected = 0, lengths = 0;
    for (std::size_t length = 0; length < bytes_.size(); length += 97, ++lengths) {
        write_bytes(damaged_, std::vector<char>(bytes_.begin(), bytes_.begin() + static_cast<long>(length)));
        if (!readable(damaged_)) ++rejected;
    }
    EXPECT_EQ(rejected, lengths);  // every truncation is noticed
}

}  // namespace
}  // namespace strata::analysis::test
