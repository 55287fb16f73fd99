// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the profile.h5 reader (profile_reader.hpp) and the queries
// the tools build on it (call-path names, the call tree, region and location
// sums), on profiles whose content the input decides.
//
// The input is a list of edits of the analysis tests' known profile
// (tests/analysis/profile_fixture.hpp): indices, parent links, table sizes,
// strings, values (NaN, infinities), attributes, missing fields, metric
// shapes.  The HDF5 container itself stays well formed: HDF5 can crash on a
// damaged container, which is why the tools read a profile in a child process
// first (profile_guard.hpp) and why damaged containers are a test corpus of
// their own (profile_corruption_test.cpp).  What is fuzzed is what Strata's
// reader must check.  It must accept the file or throw a ProfileError, never
// read out of bounds, overflow or loop.
#include <hdf5.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "profile/profile.hpp"
#include "profile/profile_aggregates.hpp"
#include "profile/profile_reader.hpp"
#include "profile_fixture.hpp"

namespace {

using strata::analysis::test::FixtureProfile;

/// The input, read front to back; zeros once it is used up.
class Input {
public:
    Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool more() const { return at_ < size_; }
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    std::uint64_t bytes(int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= std::uint64_t{byte()} << (8 * i);
        return v;
    }
    /// Mostly small numbers near the tables' sizes, sometimes anything.
    std::int64_t index(std::size_t near) {
        const std::uint8_t how = byte();
        if (how < 200) return static_cast<std::int64_t>(how % (near + 3)) - 1;
        return static_cast<std::int64_t>(bytes(8));
    }
    double number() {
        const std::uint8_t how = byte();
        if (how < 64) return static_cast<double>(how) / 4;
        if (how < 70) return std::numeric_limits<double>::quiet_NaN();
        if (how < 76) return how % 2 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        const std::uint64_t raw = bytes(8);
        double d;
        std::memcpy(&d, &raw, sizeof d);
        return d;
    }
    std::string text() {
        std::string s;
        const std::size_t n = byte() % 24;
        for (std::size_t i = 0; i < n; ++i) s += static_cast<char>(byte() | 1);  // HDF5 strings end at NUL
        return s;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

template <typename T>
T& pick(std::vector<T>& v, Input& in) {
    return v[in.byte() % v.size()];
}

/// Keeps each matrix's values as many as its shape says (the fixture writes them as they are).
void reshape(FixtureProfile::Matrix& m, std::size_t rows, std::size_t columns) {
    m.rows = rows;
    m.columns = columns;
    if (m.integral)
        m.counts.resize(rows * columns, 1);
    else
        m.values.resize(rows * columns, 0.5);
}

const char* const omittable[] = {
    "@format", "@format_version", "@timer_resolution", "@number_of_locations", "@dropped_callpaths",
    "/definitions/strings", "/definitions/regions", "/definitions/parameters", "/definitions/locations",
    "/definitions/callpaths", "/metrics", "regions.name", "regions.paradigm", "regions.role", "regions.flags",
    "locations.rank", "locations.type", "callpaths.parent", "callpaths.region", "callpaths.parameter",
    "callpaths.int_value", "parameters.type"};

void edit(FixtureProfile& p, Input& in) {
    switch (in.byte() % 20) {
        case 0: if (!p.callpaths.empty()) pick(p.callpaths, in).parent = in.index(p.callpaths.size()); break;
        case 1:
            if (!p.callpaths.empty())
                pick(p.callpaths, in).region = static_cast<std::uint32_t>(in.index(p.regions.size()));
            break;
        case 2:
            if (!p.callpaths.empty()) {
                auto& cp = pick(p.callpaths, in);
                cp.parameter = in.index(p.parameters.size());
                cp.int_value = static_cast<std::int64_t>(in.bytes(8));
                cp.string_value = in.index(p.strings.size());
            }
            break;
        case 3:
            if (!p.regions.empty()) {
                auto& r = pick(p.regions, in);
                r.name = static_cast<std::uint32_t>(in.index(p.strings.size()));
                r.file = static_cast<std::uint32_t>(in.index(p.strings.size()));
                r.line = static_cast<std::uint32_t>(in.bytes(4));
            }
            break;
        case 4:
            if (!p.regions.empty()) {
                auto& r = pick(p.regions, in);
                r.paradigm = in.byte() % 8;
                r.role = in.byte() % 15;
                r.flags = static_cast<std::uint32_t>(in.bytes(4));
            }
            break;
        case 5:
            if (!p.locations.empty()) {
                auto& l = pick(p.locations, in);
                l.id = in.bytes(8);
                l.rank = static_cast<std::uint32_t>(in.index(4));
                l.thread = static_cast<std::uint32_t>(in.index(4));
                l.type = in.byte() % 4;
                l.name = static_cast<std::uint32_t>(in.index(p.strings.size()));
            }
            break;
        case 6:  // another call path (a row more in every matrix)
            if (!p.callpaths.empty() && p.callpaths.size() < 64) {
                FixtureProfile::CallPath cp = pick(p.callpaths, in);
                cp.parent = in.index(p.callpaths.size());
                p.callpaths.push_back(cp);
                for (auto& m : p.metrics) reshape(m, m.rows + 1, m.columns);
            }
            break;
        case 7:
            if (!p.callpaths.empty()) {
                p.callpaths.pop_back();
                for (auto& m : p.metrics)
                    if (m.rows > 0) reshape(m, m.rows - 1, m.columns);
            }
            break;
        case 8:  // another location (a column more)
            if (p.locations.size() < 16) {
                p.locations.push_back({in.bytes(2), static_cast<std::uint32_t>(in.index(4)), in.byte() % 4u,
                                       static_cast<std::uint8_t>(in.byte() % 3), 5});
                ++p.number_of_locations;
                for (auto& m : p.metrics) reshape(m, m.rows, m.columns + 1);
            }
            break;
        case 9:
            if (!p.metrics.empty()) {
                auto& m = pick(p.metrics, in);
                if (!m.values.empty()) m.values[in.bytes(2) % m.values.size()] = in.number();
            }
            break;
        case 10:
            if (!p.metrics.empty()) {
                auto& m = pick(p.metrics, in);
                if (!m.counts.empty()) m.counts[in.bytes(2) % m.counts.size()] = in.bytes(in.byte() % 9);
            }
            break;
        case 11:  // a matrix of another shape than the tables say
            if (!p.metrics.empty()) {
                auto& m = pick(p.metrics, in);
                reshape(m, in.byte() % 70, in.byte() % 18);
            }
            break;
        case 12:
            if (!p.strings.empty()) pick(p.strings, in) = in.text();
            break;
        case 13: p.omit.insert(omittable[in.byte() % (sizeof omittable / sizeof *omittable)]); break;
        case 14:
            p.format_version = static_cast<std::uint32_t>(in.index(2));
            p.number_of_locations = static_cast<std::uint64_t>(in.index(p.locations.size()));
            break;
        case 15:
            p.timer_resolution = in.number();
            p.dropped_callpaths = in.bytes(in.byte() % 9);
            if (in.byte() < 16) p.format = in.text();
            break;
        case 16:
            if (p.metrics.size() < 8) {
                FixtureProfile::Matrix m;
                m.name = in.byte() % 2 ? in.text() : "time_inclusive";
                m.integral = in.byte() % 2;
                m.unit = in.text();
                reshape(m, p.callpaths.size(), p.locations.size());
                bool taken = m.name.empty();
                for (const auto& other : p.metrics) taken = taken || other.name == m.name;
                if (!taken) p.metrics.push_back(m);  // HDF5 refuses two datasets of one name
            }
            break;
        case 17:
            if (!p.parameters.empty()) {
                auto& q = pick(p.parameters, in);
                q.name = static_cast<std::uint32_t>(in.index(p.strings.size()));
                q.type = in.byte() % 3;
            }
            break;
        case 18: p.newer_layout = !p.newer_layout; break;
        case 19:
            if (!p.metrics.empty()) {
                auto& m = pick(p.metrics, in);
                if (in.byte() % 2) m.unit = in.text();
                if (m.name != "visits" && in.byte() < 64) m.integral = !m.integral, reshape(m, m.rows, m.columns);
            }
            break;
    }
}

std::string scratch_file() {
    // /dev/shm: the file never reaches a disk.
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/strata-fuzz-profile-" + std::to_string(getpid()) + ".h5";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the fixture's own failures are caught below
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in(data, size);
    FixtureProfile p = strata::analysis::test::known_profile();
    for (int edits = 0; in.more() && edits < 48; ++edits) edit(p, in);
    static const std::string path = scratch_file();
    try {
        strata::analysis::test::write_fixture(p, path);
    } catch (const std::runtime_error&) {
        return 0;  // HDF5 refused to write this one (the fixture's limits, not the reader's)
    }
    try {
        const strata::analysis::Profile profile = strata::analysis::read_profile(path);
        const auto names = strata::analysis::callpath_names(profile);
        const auto tree = strata::analysis::index_call_tree(profile);
        (void)strata::analysis::outermost_of_region(profile, tree);
        (void)strata::analysis::aggregate_regions(profile);
        (void)strata::analysis::location_totals(profile);
        (void)strata::analysis::total_time(profile);
        if (names.size() != profile.callpaths.size()) __builtin_trap();
    } catch (const strata::analysis::ProfileError&) {
        // Damage found and named: what the reader must do.
    }
    unlink(path.c_str());
    return 0;
}
