// SPDX-License-Identifier: BSD-3-Clause
// The archive's global definitions, which rank 0 writes (otf2_archive.cpp
// calls them at the end): strings, regions, parameters, the system tree (one
// node per host), a location group per rank and every location, the
// communicators and the clock properties; and each rank's part of them
// (RankInfo) as it travels to rank 0.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/unification.hpp"
#include "tracing/otf2_archive.hpp"

namespace strata::tracing {

/// Bytes of one rank's part of the global definitions: its host, time span and locations.
struct RankInfo {
    std::string host;
    std::uint8_t complete = 1;  ///< 0: the rank's event or definition files could not be written
    std::uint32_t attributes = 0;  ///< the attributes its events carry (Otf2Archive::attributes_used_)
    Ticks begin = 0, end = 0;
    std::vector<Otf2Archive::LocationDefinition> locations;
};

/// `info` as bytes, and back (false: the bytes end early).
std::string encode(const RankInfo& info);
bool decode(const char*& p, const char* end, RankInfo* info);

/// Rank 0: the global definitions of `ranks` (rank `first_rank` first); the error says what failed.
Error write_global_definitions(OTF2_Archive* archive, const unification::Unified& defs,
                               const std::vector<RankInfo>& ranks, int first_rank);

}  // namespace strata::tracing
