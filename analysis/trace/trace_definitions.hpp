// SPDX-License-Identifier: BSD-3-Clause
// The global definitions of an OTF2 archive that the trace analysis needs:
// regions (name, role, paradigm), locations and the measured rank each
// belongs to, communicators as lists of world ranks, the timer resolution.
//
//   traces.otf2 (anchor) -> OTF2_Reader -> traces.def (global definitions)
//        strings, regions, location groups (ranks), locations,
//        group "MPI ranks" (COMM_LOCATIONS: world rank -> first location),
//        COMM_GROUPs of world ranks, communicators, clock properties,
//        metric members and classes (their names, for the GPU metrics)
//
// World rank of a location: its location group's position in the
// COMM_LOCATIONS group; without one (a program without MPI), the location
// group's position among the process groups.  Every problem is a TraceError
// "<file>: <what is wrong>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyze/rank_layout.hpp"

namespace strata::analysis::trace {

/// A trace that cannot be read; what() names the file and the problem.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What the analysis needs to know about a region.
struct TraceRegion {
    std::string name;
    std::uint32_t role = 0;      ///< OTF2_RegionRole
    std::uint32_t paradigm = 0;  ///< OTF2_Paradigm
    std::uint32_t flags = 0;     ///< OTF2_RegionFlag (OTF2_REGION_FLAG_PHASE: a user phase)
};

/// A location of the archive.
struct TraceLocation {
    std::uint64_t id = 0;
    std::uint32_t type = 0;    ///< OTF2_LocationType
    std::uint32_t group = 0;   ///< location group reference
    std::uint64_t events = 0;  ///< as the definitions say
    std::int64_t rank = -1;    ///< world rank; -1 when the group is not a process
    std::string name;          ///< e.g. "thread 0"
    /// GPU streams and GPU metrics: the CUDA device (location property CUDA_DEVICE), -1 unknown.
    std::int64_t device = -1;
};

/// A communicator: its members' world ranks, by communicator rank.
struct TraceCommunicator {
    std::string name;
    std::vector<std::uint32_t> world_ranks;
    bool defined = false;
};

/// The global definitions.
struct TraceDefinitions {
    std::string anchor;                            ///< the anchor file read
    std::uint64_t timer_resolution = 0;            ///< ticks per second
    std::uint64_t global_offset = 0;               ///< the start of the trace on rank 0's clock
    std::uint64_t trace_length = 0;                ///< its length in ticks (ClockProperties), 0 unknown
    std::vector<TraceRegion> regions;              ///< by OTF2 region reference
    std::vector<TraceLocation> locations;          ///< in definition order
    std::vector<TraceCommunicator> communicators;  ///< by OTF2 communicator reference
    std::size_t world_size = 0;                    ///< measured ranks
    std::uint32_t correlation_attribute = UINT32_MAX;  ///< the attribute CUDA_CORRELATION_ID, if defined
    std::vector<std::string> metric_members;               ///< names, by OTF2 metric member reference
    std::vector<std::vector<std::uint32_t>> metric_classes;  ///< members, by OTF2 metric class reference

    /// The world rank of `comm_rank` in communicator `comm`; -1 when unknown.
    std::int64_t world_rank(std::uint32_t comm, std::uint32_t comm_rank) const;
};

/// The location property naming a GPU stream's device, and the attribute
/// that correlates a kernel or copy with its launch (experiment-format.md).
inline constexpr const char* cuda_device_property = "CUDA_DEVICE";
inline constexpr const char* cuda_correlation_attribute = "CUDA_CORRELATION_ID";

/// Reads the global definitions of the archive whose anchor is `anchor`
/// (".../traces.otf2").  Throws TraceError.
TraceDefinitions read_trace_definitions(const std::string& anchor);

/// The measured ranks and their CPU-thread locations, as the profile's
/// rank layout has them: MeasuredRank::columns index TraceDefinitions::locations,
/// so analysis_share() splits a trace exactly as it splits a profile.
RankLayout trace_rank_layout(const TraceDefinitions& definitions);

/// Silences OTF2's own error printing (every return code is checked and
/// reported by the analysis instead).  Idempotent.
void silence_otf2_errors();

/// "OTF2_ERROR_...: description" for an OTF2 return code.
std::string describe_otf2(int code);

}  // namespace strata::analysis::trace
