// SPDX-License-Identifier: BSD-3-Clause
// Local definitions of this process: strings, regions, parameters.
//
// Handles are indices + 1 (0 means "none").  Creation takes a mutex and
// de-duplicates by key; it happens once per call site or per symbol, never
// per event.  Writers read a consistent copy at finalisation (snapshot()).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "strata/measurement/events.hpp"
#include "strata/measurement/types.hpp"

namespace strata {

struct RegionDefinition {
    StringHandle name = 0;
    StringHandle file = 0;
    std::uint32_t line = 0;
    Paradigm paradigm = Paradigm::unknown;
    RegionRole role = RegionRole::unknown;
    std::uint32_t flags = 0;
};

struct ParameterDefinition {
    StringHandle name = 0;
    events::ParameterType type = events::ParameterType::integer;
};

/// A communicator: an MPI communicator (job-wide id, see events::CommunicatorSpec)
/// or a thread team of one rank (paradigm openmp).
struct CommunicatorDefinition {
    StringHandle name = 0;
    std::uint32_t id_root = 0;  ///< thread teams: the rank (set by DefinitionsSnapshot::set_rank)
    std::uint32_t id_sequence = 0;
    /// MPI: the MPI_COMM_WORLD rank of each member.  Thread team: the location
    /// index (within the rank) of every thread that worked in it, member i its
    /// thread i (see Definitions::note_team_member; a runtime may give a team
    /// other threads from one fork to the next: those come after).
    std::vector<std::int32_t> world_ranks;
    Paradigm paradigm = Paradigm::mpi;
    std::uint32_t team_size = 0;  ///< thread teams: the number of threads
};

/// Thread teams get id_sequence values from here on, so they never meet MPI ids.
constexpr std::uint32_t kThreadTeamSequence = 0x80000000u;
/// A counter read at every enter and exit (metrics/): handle h is the value at
/// index h - 1 of Location::metric_values.
struct MetricDefinition {
    StringHandle name = 0;
    StringHandle unit = 0;
    StringHandle description = 0;
    std::uint8_t source = 0;  ///< metrics::MetricSource
    std::uint8_t mode = 0;    ///< metrics::MetricMode
};

/// A consistent copy of all definitions, for writers.
struct DefinitionsSnapshot {
    std::vector<std::string> strings;            ///< strings[h - 1] for handle h
    std::vector<RegionDefinition> regions;       ///< regions[h - 1]
    std::vector<ParameterDefinition> parameters; ///< parameters[h - 1]
    std::vector<CommunicatorDefinition> communicators;  ///< communicators[h - 1]

    /// Thread teams belong to the rank that writes them: makes their ids job-wide.
    void set_rank(int rank);
    std::vector<MetricDefinition> metrics;              ///< metrics[h - 1]
};

class Definitions {
public:
    StringHandle intern(std::string_view text);
    RegionHandle define_region(const events::RegionSpec& spec);
    RegionHandle find_region(Paradigm paradigm, std::string_view name, std::uint32_t flags) const;
    ParameterHandle define_parameter(std::string_view name, events::ParameterType type);
    events::CommunicatorHandle define_communicator(const events::CommunicatorSpec& spec);
    /// The team of `size` threads forked by location `master` at nesting `level`
    /// (1: outermost); one definition per triple.
    events::CommunicatorHandle define_thread_team(std::uint32_t master, std::uint32_t size, std::uint32_t level);
    /// Location `location` worked in `team` as its thread `thread_number`.  Member
    /// i of the team is its thread i, as OTF2 names a task's creating thread by
    /// its rank in the team: the first location seen as thread i takes place i
    /// (another one seen as thread i later, from a runtime that gives the
    /// number to another thread, comes after the team's threads).
    void note_team_member(events::CommunicatorHandle team, std::uint32_t location, std::uint32_t thread_number);
    /// Defines a counter (at start-up, in the order of Location::metric_values),
    /// or returns the handle of the counter of the same source and name.
    std::uint32_t define_metric(std::string_view name, std::string_view unit, std::string_view description,
                                std::uint8_t source, std::uint8_t mode);

    /// Text of a string handle (copy; takes the lock).
    std::string string(StringHandle h) const;
    RegionDefinition region(RegionHandle h) const;
    std::string region_name(RegionHandle h) const;

    DefinitionsSnapshot snapshot() const;

    /// Forgets everything (tests only).
    void clear();

private:
    mutable std::mutex mutex_;
    std::vector<std::string> strings_;
    std::unordered_map<std::string, StringHandle> string_index_;
    std::vector<RegionDefinition> regions_;
    std::unordered_map<std::string, RegionHandle> region_index_;      ///< full key
    std::unordered_map<std::string, RegionHandle> region_name_index_; ///< paradigm/flags/name
    std::vector<ParameterDefinition> parameters_;
    std::unordered_map<std::string, ParameterHandle> parameter_index_;
    std::vector<CommunicatorDefinition> communicators_;
    std::unordered_map<std::string, events::CommunicatorHandle> communicator_index_;
    std::vector<MetricDefinition> metrics_;

    StringHandle intern_locked(std::string_view text);
};

/// The definitions of this process.
Definitions& definitions();

}  // namespace strata
