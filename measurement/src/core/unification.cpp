// SPDX-License-Identifier: BSD-3-Clause
// Definition unification: merge by content, hypercube reduction, broadcast, maps.
#include "core/unification.hpp"

#include <cstring>
#include <unordered_map>

namespace strata::unification {

namespace {

// --- a minimal binary encoding -------------------------------------------------

void put_u32(std::string& out, std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get_u32(const std::string& in, std::size_t& pos, std::uint32_t* v) {
    if (pos + sizeof *v > in.size()) return false;
    std::memcpy(v, in.data() + pos, sizeof *v);
    pos += sizeof *v;
    return true;
}

std::string region_key(const Unified& d, const RegionDefinition& r) {
    std::string key = d.strings[r.name];
    key += '\0';
    key += d.strings[r.file];
    key += '\0';
    key += std::to_string(r.line) + '/' + std::to_string(static_cast<int>(r.paradigm)) + '/' +
           std::to_string(static_cast<int>(r.role)) + '/' + std::to_string(r.flags);
    return key;
}

std::string parameter_key(const Unified& d, const ParameterDefinition& p) {
    return std::to_string(static_cast<int>(p.type)) + '/' + d.strings[p.name];
}

// Communicators are the same in the whole job when their job-wide ids are.
std::string communicator_key(const CommunicatorDefinition& c) {
    return std::to_string(c.id_root) + '/' + std::to_string(c.id_sequence);
}

// A counter is the same in the whole job when its source and name are.
std::string metric_key(const Unified& d, const MetricDefinition& m) {
    return std::to_string(static_cast<int>(m.source)) + '/' + d.strings[m.name];
}

/// Indexes of a Unified table, for merging into it.
struct Index {
    std::unordered_map<std::string, std::uint32_t> strings, regions, parameters, communicators, metrics;
    explicit Index(const Unified& d) {
        for (std::uint32_t i = 0; i < d.metrics.size(); ++i) metrics.emplace(metric_key(d, d.metrics[i]), i);
        for (std::uint32_t i = 0; i < d.communicators.size(); ++i) communicators.emplace(communicator_key(d.communicators[i]), i);
        for (std::uint32_t i = 0; i < d.strings.size(); ++i) strings.emplace(d.strings[i], i);
        for (std::uint32_t i = 0; i < d.regions.size(); ++i) regions.emplace(region_key(d, d.regions[i]), i);
        for (std::uint32_t i = 0; i < d.parameters.size(); ++i) parameters.emplace(parameter_key(d, d.parameters[i]), i);
    }
};

std::uint32_t add_string(Unified& d, Index& index, const std::string& s) {
    auto it = index.strings.find(s);
    if (it != index.strings.end()) return it->second;
    d.strings.push_back(s);
    const auto id = static_cast<std::uint32_t>(d.strings.size() - 1);
    index.strings.emplace(s, id);
    return id;
}

}  // namespace

std::string serialize(const Unified& defs) {
    std::string out;
    put_u32(out, static_cast<std::uint32_t>(defs.strings.size()));
    for (const std::string& s : defs.strings) {
        put_u32(out, static_cast<std::uint32_t>(s.size()));
        out += s;
    }
    put_u32(out, static_cast<std::uint32_t>(defs.regions.size()));
    for (const RegionDefinition& r : defs.regions) {
        put_u32(out, r.name);
        put_u32(out, r.file);
        put_u32(out, r.line);
        put_u32(out, static_cast<std::uint32_t>(r.paradigm) | (static_cast<std::uint32_t>(r.role) << 8));
        put_u32(out, r.flags);
    }
    put_u32(out, static_cast<std::uint32_t>(defs.parameters.size()));
    for (const ParameterDefinition& p : defs.parameters) {
        put_u32(out, p.name);
        put_u32(out, static_cast<std::uint32_t>(p.type));
    }
    put_u32(out, static_cast<std::uint32_t>(defs.communicators.size()));
    for (const CommunicatorDefinition& c : defs.communicators) {
        put_u32(out, c.name);
        put_u32(out, c.id_root);
        put_u32(out, c.id_sequence);
        put_u32(out, static_cast<std::uint32_t>(c.paradigm));
        put_u32(out, static_cast<std::uint32_t>(c.world_ranks.size()));
        for (std::int32_t r : c.world_ranks) put_u32(out, static_cast<std::uint32_t>(r));
    }
    put_u32(out, static_cast<std::uint32_t>(defs.metrics.size()));
    for (const MetricDefinition& m : defs.metrics) {
        put_u32(out, m.name);
        put_u32(out, m.unit);
        put_u32(out, m.description);
        put_u32(out, static_cast<std::uint32_t>(m.source) | (static_cast<std::uint32_t>(m.mode) << 8));
    }
    return out;
}

bool deserialize(const std::string& in, Unified* defs) {
    std::size_t pos = 0;
    std::uint32_t n = 0;
    *defs = Unified{};
    if (!get_u32(in, pos, &n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t len = 0;
        if (!get_u32(in, pos, &len) || pos + len > in.size()) return false;
        defs->strings.emplace_back(in, pos, len);
        pos += len;
    }
    if (!get_u32(in, pos, &n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        RegionDefinition r;
        std::uint32_t kinds = 0;
        if (!get_u32(in, pos, &r.name) || !get_u32(in, pos, &r.file) || !get_u32(in, pos, &r.line) ||
            !get_u32(in, pos, &kinds) || !get_u32(in, pos, &r.flags)) {
            return false;
        }
        if (r.name >= defs->strings.size() || r.file >= defs->strings.size()) return false;
        r.paradigm = static_cast<Paradigm>(kinds & 0xff);
        r.role = static_cast<RegionRole>((kinds >> 8) & 0xff);
        defs->regions.push_back(r);
    }
    if (!get_u32(in, pos, &n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        ParameterDefinition p;
        std::uint32_t type = 0;
        if (!get_u32(in, pos, &p.name) || !get_u32(in, pos, &type) || p.name >= defs->strings.size()) return false;
        p.type = static_cast<events::ParameterType>(type);
        defs->parameters.push_back(p);
    }
    if (!get_u32(in, pos, &n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        CommunicatorDefinition c;
        std::uint32_t members = 0, paradigm = 0;
        if (!get_u32(in, pos, &c.name) || !get_u32(in, pos, &c.id_root) || !get_u32(in, pos, &c.id_sequence) ||
            !get_u32(in, pos, &paradigm) || paradigm > 255 || !get_u32(in, pos, &members) || c.name >= defs->strings.size() || members > in.size()) {
            return false;
        }
        for (std::uint32_t m = 0; m < members; ++m) {
            std::uint32_t rank = 0;
            if (!get_u32(in, pos, &rank)) return false;
            c.world_ranks.push_back(static_cast<std::int32_t>(rank));
        }
        c.paradigm = static_cast<Paradigm>(paradigm);
        defs->communicators.push_back(std::move(c));
    }
    if (!get_u32(in, pos, &n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        MetricDefinition m;
        std::uint32_t kinds = 0;
        if (!get_u32(in, pos, &m.name) || !get_u32(in, pos, &m.unit) || !get_u32(in, pos, &m.description) ||
            !get_u32(in, pos, &kinds) || m.name >= defs->strings.size() || m.unit >= defs->strings.size() ||
            m.description >= defs->strings.size()) {
            return false;
        }
        m.source = static_cast<std::uint8_t>(kinds & 0xff);
        m.mode = static_cast<std::uint8_t>((kinds >> 8) & 0xff);
        defs->metrics.push_back(m);
    }
    return pos == in.size();
}

void merge(Unified& into, const Unified& other) {
    Index index(into);
    std::vector<std::uint32_t> strings(other.strings.size());
    for (std::size_t i = 0; i < other.strings.size(); ++i) strings[i] = add_string(into, index, other.strings[i]);
    for (const RegionDefinition& r : other.regions) {
        RegionDefinition mapped = r;
        mapped.name = strings[r.name];
        mapped.file = strings[r.file];
        const std::string key = region_key(into, mapped);
        if (index.regions.count(key) == 0) {
            into.regions.push_back(mapped);
            index.regions.emplace(key, static_cast<std::uint32_t>(into.regions.size() - 1));
        }
    }
    for (const ParameterDefinition& p : other.parameters) {
        ParameterDefinition mapped = p;
        mapped.name = strings[p.name];
        const std::string key = parameter_key(into, mapped);
        if (index.parameters.count(key) == 0) {
            into.parameters.push_back(mapped);
            index.parameters.emplace(key, static_cast<std::uint32_t>(into.parameters.size() - 1));
        }
    }
    for (const CommunicatorDefinition& c : other.communicators) {
        const std::string key = communicator_key(c);
        if (index.communicators.count(key) != 0) continue;
        CommunicatorDefinition mapped = c;
        mapped.name = strings[c.name];
        into.communicators.push_back(std::move(mapped));
        index.communicators.emplace(key, static_cast<std::uint32_t>(into.communicators.size() - 1));
    }
    for (const MetricDefinition& m : other.metrics) {
        MetricDefinition mapped = m;
        mapped.name = strings[m.name];
        mapped.unit = strings[m.unit];
        mapped.description = strings[m.description];
        const std::string key = metric_key(into, mapped);
        if (index.metrics.count(key) != 0) continue;
        into.metrics.push_back(mapped);
        index.metrics.emplace(key, static_cast<std::uint32_t>(into.metrics.size() - 1));
    }
}

Unified from_local(const DefinitionsSnapshot& local) {
    // Local string handle h is local.strings[h - 1]; handle 0 is "none", i.e. "".
    Unified d;
    d.strings.reserve(local.strings.size() + 1);
    d.strings.push_back("");
    d.strings.insert(d.strings.end(), local.strings.begin(), local.strings.end());
    d.regions = local.regions;
    d.parameters = local.parameters;
    d.communicators = local.communicators;
    d.metrics = local.metrics;
    return d;
}

void send_bytes(events::ProcessGroup& group, const std::string& bytes, int peer) {
    std::uint64_t size = bytes.size();
    group.send(&size, sizeof size, peer);
    if (size > 0) group.send(bytes.data(), bytes.size(), peer);
}

std::string receive_bytes(events::ProcessGroup& group, int peer) {
    std::uint64_t size = 0;
    group.receive(&size, sizeof size, peer);
    std::string bytes(size, '\0');
    if (size > 0) group.receive(&bytes[0], size, peer);
    return bytes;
}

void broadcast_bytes(events::ProcessGroup& group, std::string& bytes, int root) {
    std::uint64_t size = bytes.size();
    group.broadcast(&size, sizeof size, root);
    bytes.resize(size);
    if (size > 0) group.broadcast(&bytes[0], size, root);
}

Unified unify(const DefinitionsSnapshot& local, events::ProcessGroup* group) {
    const Unified mine = from_local(local);
    Unified global;
    global.strings.push_back("");  // global string 0 is "" on every rank
    merge(global, mine);
    if (group != nullptr && group->size() > 1) {
        // Hypercube reduction towards rank 0: at step s, ranks with bit s set
        // send their merged table to rank - 2^s and are done.
        const int rank = group->rank(), size = group->size();
        for (int step = 1; step < size; step <<= 1) {
            if (rank & step) {
                send_bytes(*group, serialize(global), rank - step);
                break;
            }
            if (rank + step < size) {
                Unified other;
                deserialize(receive_bytes(*group, rank + step), &other);
                merge(global, other);
            }
        }
        std::string bytes = rank == 0 ? serialize(global) : std::string();
        broadcast_bytes(*group, bytes, 0);
        if (rank != 0) deserialize(bytes, &global);
    }
    // This rank's maps: look its definitions up in the global table.
    Index index(global);
    global.string_map.resize(mine.strings.size());
    for (std::size_t i = 0; i < mine.strings.size(); ++i) global.string_map[i] = index.strings.at(mine.strings[i]);
    global.region_map.resize(mine.regions.size());
    for (std::size_t i = 0; i < mine.regions.size(); ++i) {
        RegionDefinition mapped = mine.regions[i];
        mapped.name = global.string_map[mapped.name];
        mapped.file = global.string_map[mapped.file];
        global.region_map[i] = index.regions.at(region_key(global, mapped));
    }
    global.parameter_map.resize(mine.parameters.size());
    for (std::size_t i = 0; i < mine.parameters.size(); ++i) {
        ParameterDefinition mapped = mine.parameters[i];
        mapped.name = global.string_map[mapped.name];
        global.parameter_map[i] = index.parameters.at(parameter_key(global, mapped));
    }
    global.communicator_map.resize(mine.communicators.size());
    for (std::size_t i = 0; i < mine.communicators.size(); ++i) {
        global.communicator_map[i] = index.communicators.at(communicator_key(mine.communicators[i]));
    }
    global.metric_map.resize(mine.metrics.size());
    for (std::size_t i = 0; i < mine.metrics.size(); ++i) {
        MetricDefinition mapped = mine.metrics[i];
        mapped.name = global.string_map[mapped.name];
        global.metric_map[i] = index.metrics.at(metric_key(global, mapped));
    }
    return global;
}

}  // namespace strata::unification
