// SPDX-License-Identifier: BSD-3-Clause
// Profile columns: encoding, merge by call path, gather to rank 0.
#include "profiling/profile_merge.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

#include "core/unification.hpp"

namespace strata::profiling {

namespace {

struct Writer {
    std::string out;
    template <typename T>
    void pod(const T& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void text(const std::string& s) {
        pod<std::uint64_t>(s.size());
        out += s;
    }
};

struct Reader {
    const std::string& in;
    std::size_t pos = 0;
    template <typename T>
    bool pod(T* v) {
        if (pos + sizeof *v > in.size()) return false;
        std::memcpy(v, in.data() + pos, sizeof *v);
        pos += sizeof *v;
        return true;
    }
    bool text(std::string* s) {
        std::uint64_t n = 0;
        if (!pod(&n) || pos + n > in.size()) return false;
        s->assign(in, pos, n);
        pos += n;
        return true;
    }
};

}  // namespace

std::string serialize_columns(const ProfileData& data) {
    Writer w;
    w.pod<std::uint64_t>(data.callpaths.size());
    for (const auto& cp : data.callpaths) w.pod(cp);
    w.pod<std::uint64_t>(data.locations.size());
    for (const auto& l : data.locations) {
        w.pod(l);
        w.text(data.strings[l.name]);
        w.text(data.strings[l.host]);
    }
    w.pod<std::uint64_t>(data.metrics.size());
    for (const auto& m : data.metrics) {
        w.text(m.name);
        w.text(m.unit);
        w.text(m.description);
        w.pod<std::uint8_t>(m.integral ? 1 : 0);
        w.pod<std::uint64_t>(m.integral ? m.counts.size() : m.values.size());
        if (m.integral) {
            w.out.append(reinterpret_cast<const char*>(m.counts.data()), m.counts.size() * sizeof(std::uint64_t));
        } else {
            w.out.append(reinterpret_cast<const char*>(m.values.data()), m.values.size() * sizeof(double));
        }
    }
    w.pod(data.dropped_callpaths);
    w.pod(data.memory_needed);
    w.pod<std::uint8_t>(data.memory_needed_at_least ? 1 : 0);
    return w.out;
}

bool merge_columns(ProfileData& into, const std::string& columns) {
    Reader r{columns};
    std::uint64_t n_cp = 0, n_loc = 0, n_metrics = 0;
    if (!r.pod(&n_cp)) return false;
    std::vector<ProfileData::CallPath> callpaths(n_cp);
    for (auto& cp : callpaths) {
        if (!r.pod(&cp)) return false;
    }
    if (!r.pod(&n_loc)) return false;
    std::vector<ProfileData::Location> locations(n_loc);
    std::vector<std::string> names(n_loc), hosts(n_loc);
    for (std::uint64_t i = 0; i < n_loc; ++i) {
        if (!r.pod(&locations[i]) || !r.text(&names[i]) || !r.text(&hosts[i])) return false;
    }
    // Their call paths -> ours; parents come before children in both tables.
    using Key = std::tuple<std::int64_t, std::uint32_t, std::int64_t, std::int64_t, std::int64_t>;
    std::map<Key, std::int64_t> ours;
    for (std::size_t i = 0; i < into.callpaths.size(); ++i) {
        const auto& c = into.callpaths[i];
        ours.emplace(Key{c.parent, c.region, c.parameter, c.int_value, c.string_value}, static_cast<std::int64_t>(i));
    }
    const std::size_t old_cp = into.callpaths.size(), old_loc = into.locations.size();
    std::vector<std::int64_t> map(n_cp);
    for (std::uint64_t i = 0; i < n_cp; ++i) {
        ProfileData::CallPath c = callpaths[i];
        if (c.parent >= static_cast<std::int64_t>(i)) return false;  // parents first
        if (c.parent >= 0) c.parent = map[c.parent];
        const Key key{c.parent, c.region, c.parameter, c.int_value, c.string_value};
        auto it = ours.find(key);
        if (it == ours.end()) {
            into.callpaths.push_back(c);
            it = ours.emplace(key, static_cast<std::int64_t>(into.callpaths.size() - 1)).first;
        }
        map[i] = it->second;
    }
    for (std::uint64_t i = 0; i < n_loc; ++i) {
        into.strings.push_back(names[i]);
        locations[i].name = static_cast<std::uint32_t>(into.strings.size() - 1);
        into.strings.push_back(hosts[i]);
        locations[i].host = static_cast<std::uint32_t>(into.strings.size() - 1);
        into.locations.push_back(locations[i]);
    }
    // Widen every matrix to the new shape, then fill the new columns.
    const std::size_t new_cp = into.callpaths.size(), new_loc = into.locations.size();
    if (!r.pod(&n_metrics) || n_metrics != into.metrics.size()) return false;
    for (auto& m : into.metrics) {
        std::string name, unit, description;
        std::uint8_t integral = 0;
        std::uint64_t count = 0;
        if (!r.text(&name) || !r.text(&unit) || !r.text(&description) || !r.pod(&integral) || !r.pod(&count) ||
            name != m.name || count != n_cp * n_loc) {
            return false;
        }
        const std::size_t unit_size = integral ? sizeof(std::uint64_t) : sizeof(double);
        if (r.pos + count * unit_size > columns.size()) return false;
        auto widen = [&](auto& values, auto* incoming) {
            using T = typename std::remove_reference_t<decltype(values)>::value_type;
            std::vector<T> wide(new_cp * new_loc, T{});
            for (std::size_t c = 0; c < old_cp; ++c) {
                for (std::size_t l = 0; l < old_loc; ++l) wide[c * new_loc + l] = values[c * old_loc + l];
            }
            for (std::uint64_t c = 0; c < n_cp; ++c) {
                for (std::uint64_t l = 0; l < n_loc; ++l) {
                    T v;
                    std::memcpy(&v, incoming + (c * n_loc + l) * sizeof(T), sizeof(T));
                    wide[map[c] * new_loc + old_loc + l] = v;
                }
            }
            values.swap(wide);
        };
        const char* incoming = columns.data() + r.pos;
        if (m.integral) {
            widen(m.counts, incoming);
        } else {
            widen(m.values, incoming);
        }
        r.pos += count * unit_size;
    }
    std::uint64_t dropped = 0, needed = 0;
    std::uint8_t at_least = 0;
    if (!r.pod(&dropped) || !r.pod(&needed) || !r.pod(&at_least)) return false;
    into.dropped_callpaths += dropped;
    // Each rank has its own budget: the largest need is what STRATA_TOTAL_MEMORY must give.
    if (needed > into.memory_needed) into.memory_needed = needed;
    into.memory_needed_at_least = into.memory_needed_at_least || at_least != 0;
    into.total_locations = into.locations.size();
    return true;
}

ProfileData gather_profiles(ProfileData mine, events::ProcessGroup& group) {
    // The ranks' columns, as byte strings, to rank 0 (sizes first).
    const std::string bytes = serialize_columns(mine);
    std::uint64_t size = bytes.size();
    const int ranks = group.size(), rank = group.rank();
    std::vector<std::uint64_t> sizes(rank == 0 ? ranks : 0);
    group.gather(&size, sizeof size, sizes.data(), 0);
    std::vector<std::size_t> counts(sizes.begin(), sizes.end());
    std::string all;
    if (rank == 0) {
        std::size_t total = 0;
        for (std::size_t c : counts) total += c;
        all.resize(total);
    }
    group.gatherv(bytes.data(), bytes.size(), rank == 0 ? &all[0] : nullptr, rank == 0 ? counts.data() : nullptr, 0);
    if (rank != 0) return mine;
    ProfileData merged = mine;
    std::size_t offset = counts[0];
    for (int r = 1; r < ranks; ++r) {
        if (!merge_columns(merged, all.substr(offset, counts[r]))) {
            std::fprintf(stderr, "strata: warning: the profile of rank %d could not be merged; it is left out\n", r);
        }
        offset += counts[r];
    }
    return merged;
}

namespace {

using CallPath = ProfileData::CallPath;
using CallPathKey = std::tuple<std::int64_t, std::uint32_t, std::int64_t, std::int64_t, std::int64_t>;

CallPathKey key_of(const CallPath& c) { return CallPathKey{c.parent, c.region, c.parameter, c.int_value, c.string_value}; }

std::string encode(const std::vector<CallPath>& callpaths) {
    return std::string(reinterpret_cast<const char*>(callpaths.data()), callpaths.size() * sizeof(CallPath));
}

std::vector<CallPath> decode(const std::string& bytes) {
    std::vector<CallPath> callpaths(bytes.size() / sizeof(CallPath));
    if (!callpaths.empty()) std::memcpy(callpaths.data(), bytes.data(), callpaths.size() * sizeof(CallPath));
    return callpaths;
}

/// Adds `other`'s call paths to `into` (parents first in both).  Returns the
/// position in `into` of each of `other`'s call paths, or an empty vector
/// when `other` is not ordered parents first.
std::vector<std::int64_t> merge_callpaths(std::vector<CallPath>& into, std::map<CallPathKey, std::int64_t>& index,
                                          const std::vector<CallPath>& other) {
    std::vector<std::int64_t> map(other.size());
    for (std::size_t i = 0; i < other.size(); ++i) {
        CallPath c = other[i];
        if (c.parent >= static_cast<std::int64_t>(i)) return {};
        if (c.parent >= 0) c.parent = map[static_cast<std::size_t>(c.parent)];
        auto it = index.find(key_of(c));
        if (it == index.end()) {
            into.push_back(c);
            it = index.emplace(key_of(c), static_cast<std::int64_t>(into.size() - 1)).first;
        }
        map[i] = it->second;
    }
    return map;
}

}  // namespace

std::vector<ProfileData::CallPath> job_callpaths(const ProfileData& mine, events::ProcessGroup& group) {
    std::vector<CallPath> merged;
    std::map<CallPathKey, std::int64_t> index;
    merge_callpaths(merged, index, mine.callpaths);
    // Hypercube reduction towards rank 0, as for the definitions (unification.cpp).
    const int rank = group.rank(), size = group.size();
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            unification::send_bytes(group, encode(merged), rank - step);
            break;
        }
        if (rank + step < size) merge_callpaths(merged, index, decode(unification::receive_bytes(group, rank + step)));
    }
    std::string bytes = rank == 0 ? encode(merged) : std::string();
    unification::broadcast_bytes(group, bytes, 0);
    return decode(bytes);
}

bool align_to_job(ProfileData& data, const std::vector<ProfileData::CallPath>& callpaths,
                  events::ProcessGroup& group) {
    // Rows: ours -> the job's.
    std::map<CallPathKey, std::int64_t> index;
    for (std::size_t i = 0; i < callpaths.size(); ++i) index.emplace(key_of(callpaths[i]), static_cast<std::int64_t>(i));
    std::vector<std::int64_t> row(data.callpaths.size());
    bool complete = true;
    for (std::size_t i = 0; i < data.callpaths.size(); ++i) {
        CallPath c = data.callpaths[i];
        if (c.parent >= 0) c.parent = row[static_cast<std::size_t>(c.parent)];
        const auto it = index.find(key_of(c));
        if (it == index.end()) {
            complete = false;
            row[i] = 0;
            continue;
        }
        row[i] = it->second;
    }
    const std::size_t n_loc = data.locations.size(), n_rows = callpaths.size();
    for (auto& metric : data.metrics) {
        auto place = [&](auto& values) {
            using T = typename std::remove_reference_t<decltype(values)>::value_type;
            std::vector<T> aligned(n_rows * n_loc, T{});
            for (std::size_t c = 0; c < row.size(); ++c) {
                for (std::size_t l = 0; l < n_loc; ++l) aligned[row[c] * n_loc + l] = values[c * n_loc + l];
            }
            values.swap(aligned);
        };
        if (metric.integral) {
            place(metric.counts);
        } else {
            place(metric.values);
        }
    }
    data.callpaths = callpaths;

    // Columns: rank r's come after those of the ranks before it.  Each rank
    // sends two numbers to rank 0 and gets two back.
    const int ranks = group.size(), rank = group.rank();
    // Each rank sends its locations, dropped call paths and memory need (a
    // flag for "at least" in the top bit); rank 0 sums the first two and takes
    // the largest need.
    constexpr std::uint64_t at_least_bit = 1ull << 63;
    const std::uint64_t mine[3] = {n_loc, data.dropped_callpaths,
                                   data.memory_needed | (data.memory_needed_at_least ? at_least_bit : 0)};
    std::vector<std::uint64_t> all(rank == 0 ? 3 * static_cast<std::size_t>(ranks) : 0);
    group.gather(mine, sizeof mine, all.data(), 0);
    std::vector<std::uint64_t> offsets(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
    std::uint64_t totals[3] = {0, 0, 0};
    if (rank == 0) {
        for (int r = 0; r < ranks; ++r) {
            offsets[r] = totals[0];
            totals[0] += all[3 * r];
            totals[1] += all[3 * r + 1];
            const std::uint64_t need = all[3 * r + 2];
            totals[2] = std::max(totals[2] & ~at_least_bit, need & ~at_least_bit) |
                        ((totals[2] | need) & at_least_bit);
        }
    }
    std::uint64_t offset = 0;
    group.scatter(offsets.data(), sizeof offset, &offset, 0);
    group.broadcast(totals, sizeof totals, 0);
    data.location_offset = offset;
    data.total_locations = totals[0];
    data.dropped_callpaths = totals[1];
    data.memory_needed = totals[2] & ~at_least_bit;
    data.memory_needed_at_least = (totals[2] & at_least_bit) != 0;
    return complete;
}

}  // namespace strata::profiling
