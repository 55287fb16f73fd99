// SPDX-License-Identifier: BSD-3-Clause
// Unification of the definitions of all ranks into global ones.
//
//   rank:   0     1     2     3        each: local strings, regions, parameters
//           |<----+     |<----+        step 1: odd ranks send to their neighbour
//           |<----------+              step 2: rank 2 sends to rank 0
//           0: global definitions       (merged on the way, de-duplicated)
//           broadcast -> every rank maps its local handles to global ids
//
// O(log P) steps; no rank receives all other ranks' definitions one by one.
// Without a process group the global definitions are the local ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/definitions.hpp"
#include "strata/measurement/process_group.hpp"

namespace strata::unification {

/// The job-wide definitions, and this rank's local -> global maps.
/// Global ids are dense from 0 (as OTF2 wants): global string 0 is "".
struct Unified {
    std::vector<std::string> strings;
    std::vector<RegionDefinition> regions;        ///< name/file are global string ids
    std::vector<ParameterDefinition> parameters;  ///< name is a global string id
    std::vector<CommunicatorDefinition> communicators;  ///< name is a global string id
    std::vector<MetricDefinition> metrics;        ///< name, unit, description are global string ids
    std::vector<std::uint32_t> string_map;        ///< local StringHandle -> global string id ([0] = 0)
    std::vector<std::uint32_t> region_map;        ///< local RegionHandle - 1 -> global region id
    std::vector<std::uint32_t> parameter_map;     ///< local ParameterHandle - 1 -> global parameter id
    std::vector<std::uint32_t> communicator_map;  ///< local CommunicatorHandle - 1 -> global communicator id
    std::vector<std::uint32_t> metric_map;        ///< local metric handle - 1 -> global metric id
};

/// Serialised definitions (the unit of the tree reduction).
std::string serialize(const Unified& defs);
/// Returns false for malformed input (never expected between our ranks).
bool deserialize(const std::string& bytes, Unified* defs);

/// Adds `other`'s definitions to `into` (de-duplicated by content).
void merge(Unified& into, const Unified& other);

/// This rank's definitions in global form, before any merge (strings "" first).
Unified from_local(const DefinitionsSnapshot& local);

/// Unifies over `group` (nullptr: this process alone).  Collective.
Unified unify(const DefinitionsSnapshot& local, events::ProcessGroup* group);

/// Sends / receives a byte string of any length (length first).
void send_bytes(events::ProcessGroup& group, const std::string& bytes, int peer);
std::string receive_bytes(events::ProcessGroup& group, int peer);
/// Broadcasts a byte string of any length from `root`.
void broadcast_bytes(events::ProcessGroup& group, std::string& bytes, int root);

}  // namespace strata::unification
