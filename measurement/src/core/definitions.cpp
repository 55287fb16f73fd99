// SPDX-License-Identifier: BSD-3-Clause
// Interning and de-duplication of local definitions.
#include "core/definitions.hpp"

#include <algorithm>

#include "filter/filter_rules.hpp"

namespace strata {

namespace {
std::string name_key(Paradigm paradigm, std::string_view name, std::uint32_t flags) {
    std::string key;
    key.reserve(name.size() + 16);
    key += std::to_string(static_cast<int>(paradigm));
    key += '/';
    key += std::to_string(flags);
    key += '/';
    key += name;
    return key;
}
}  // namespace

StringHandle Definitions::intern_locked(std::string_view text) {
    std::string key(text);
    auto it = string_index_.find(key);
    if (it != string_index_.end()) return it->second;
    // Every name and file of the experiment passes here once: made valid UTF-8
    // now, for OTF2, HDF5 and every report (looked up by the text given).
    strings_.push_back(filter::valid_utf8(text));
    const auto handle = static_cast<StringHandle>(strings_.size());
    string_index_.emplace(std::move(key), handle);
    return handle;
}

StringHandle Definitions::intern(std::string_view text) {
    std::lock_guard<std::mutex> lock(mutex_);
    return intern_locked(text);
}

RegionHandle Definitions::define_region(const events::RegionSpec& spec) {
    std::string key = name_key(spec.paradigm, spec.name, spec.flags);
    key += '\0';
    key += spec.file;
    key += '\0';
    key += std::to_string(spec.line) + '/' + std::to_string(static_cast<int>(spec.role));
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = region_index_.find(key);
    if (it != region_index_.end()) return it->second;
    RegionDefinition def;
    def.name = intern_locked(spec.name);
    def.file = intern_locked(spec.file);
    def.line = spec.line;
    def.paradigm = spec.paradigm;
    def.role = spec.role;
    def.flags = spec.flags;
    regions_.push_back(def);
    const auto handle = static_cast<RegionHandle>(regions_.size());
    region_index_.emplace(std::move(key), handle);
    // The first region of a name is the one found by name.
    region_name_index_.emplace(name_key(spec.paradigm, spec.name, spec.flags), handle);
    return handle;
}

RegionHandle Definitions::find_region(Paradigm paradigm, std::string_view name,
                                      std::uint32_t flags) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = region_name_index_.find(name_key(paradigm, name, flags));
    return it == region_name_index_.end() ? 0 : it->second;
}

ParameterHandle Definitions::define_parameter(std::string_view name, events::ParameterType type) {
    std::string key = std::to_string(static_cast<int>(type)) + '/' + std::string(name);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = parameter_index_.find(key);
    if (it != parameter_index_.end()) return it->second;
    parameters_.push_back(ParameterDefinition{intern_locked(name), type});
    const auto handle = static_cast<ParameterHandle>(parameters_.size());
    parameter_index_.emplace(std::move(key), handle);
    return handle;
}

events::CommunicatorHandle Definitions::define_communicator(const events::CommunicatorSpec& spec) {
    const std::string key = std::to_string(spec.id_root) + '/' + std::to_string(spec.id_sequence);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = communicator_index_.find(key);
    if (it != communicator_index_.end()) return it->second;
    CommunicatorDefinition def;
    def.name = intern_locked(spec.name);
    def.id_root = spec.id_root;
    def.id_sequence = spec.id_sequence;
    def.world_ranks.assign(spec.world_ranks, spec.world_ranks + spec.size);
    communicators_.push_back(std::move(def));
    const auto handle = static_cast<events::CommunicatorHandle>(communicators_.size());
    communicator_index_.emplace(key, handle);
    return handle;
}

events::CommunicatorHandle Definitions::define_thread_team(std::uint32_t master, std::uint32_t size,
                                                           std::uint32_t level) {
    const std::string key =
        "team/" + std::to_string(master) + '/' + std::to_string(size) + '/' + std::to_string(level);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = communicator_index_.find(key);
    if (it != communicator_index_.end()) return it->second;
    CommunicatorDefinition def;
    def.name = intern_locked("OpenMP team of " + std::to_string(size) + " from thread " + std::to_string(master) +
                             (level > 1 ? " (nesting level " + std::to_string(level) + ")" : ""));
    def.id_sequence = kThreadTeamSequence | static_cast<std::uint32_t>(communicators_.size());
    def.paradigm = Paradigm::openmp;
    def.team_size = size;
    communicators_.push_back(std::move(def));
    const auto handle = static_cast<events::CommunicatorHandle>(communicators_.size());
    communicator_index_.emplace(key, handle);
    return handle;
}

namespace {
/// A place of a thread team's member list not taken yet (dropped in snapshot()).
constexpr std::int32_t kNoMember = -1;
}  // namespace

void Definitions::note_team_member(events::CommunicatorHandle team, std::uint32_t location,
                                   std::uint32_t thread_number) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (team == 0 || team > communicators_.size()) return;
    CommunicatorDefinition& definition = communicators_[team - 1];
    std::vector<std::int32_t>& members = definition.world_ranks;
    const auto member = static_cast<std::int32_t>(location);
    if (std::find(members.begin(), members.end(), member) != members.end()) return;
    // The team's threads take their places; the places beyond its size hold late comers.
    const std::size_t size = definition.team_size;
    if (thread_number < size) {
        if (members.size() < size) members.resize(size, kNoMember);
        if (members[thread_number] == kNoMember) {
            members[thread_number] = member;
            return;
        }
    }
    members.push_back(member);
}

void DefinitionsSnapshot::set_rank(int rank) {
    for (CommunicatorDefinition& c : communicators) {
        if (c.paradigm == Paradigm::openmp) c.id_root = static_cast<std::uint32_t>(rank);
    }
}

std::uint32_t Definitions::define_metric(std::string_view name, std::string_view unit, std::string_view description,
                                         std::uint8_t source, std::uint8_t mode) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < metrics_.size(); ++i) {
        if (metrics_[i].source == source && strings_[metrics_[i].name - 1] == name) {
            return static_cast<std::uint32_t>(i + 1);
        }
    }
    metrics_.push_back(
        MetricDefinition{intern_locked(name), intern_locked(unit), intern_locked(description), source, mode});
    return static_cast<std::uint32_t>(metrics_.size());
}

std::string Definitions::string(StringHandle h) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return h == 0 || h > strings_.size() ? std::string() : strings_[h - 1];
}

RegionDefinition Definitions::region(RegionHandle h) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return h == 0 || h > regions_.size() ? RegionDefinition{} : regions_[h - 1];
}

std::string Definitions::region_name(RegionHandle h) const {
    return string(region(h).name);
}

DefinitionsSnapshot Definitions::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    DefinitionsSnapshot snapshot{strings_, regions_, parameters_, communicators_, metrics_};
    // A thread of a team that recorded nothing leaves its place empty.
    for (CommunicatorDefinition& c : snapshot.communicators) {
        if (c.paradigm != Paradigm::openmp) continue;
        c.world_ranks.erase(std::remove(c.world_ranks.begin(), c.world_ranks.end(), kNoMember), c.world_ranks.end());
    }
    return snapshot;
}

void Definitions::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    strings_.clear();
    string_index_.clear();
    regions_.clear();
    region_index_.clear();
    region_name_index_.clear();
    parameters_.clear();
    parameter_index_.clear();
    communicators_.clear();
    communicator_index_.clear();
    metrics_.clear();
}

Definitions& definitions() {
    static Definitions* defs = new Definitions();  // outlives every location
    return *defs;
}

}  // namespace strata
