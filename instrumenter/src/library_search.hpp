// SPDX-License-Identifier: BSD-3-Clause
// The shared libraries a program needs, found the way the dynamic loader finds them:
//
//   for each DT_NEEDED name of an object (breadth first, each name once):
//     a name with '/'             -> that path
//     DT_RPATH  (object, then the program; only when the object has no DT_RUNPATH)
//     LD_LIBRARY_PATH
//     DT_RUNPATH (the object's own)
//     /etc/ld.so.cache
//     the default directories (/lib64, /usr/lib64, /lib, /usr/lib and their multiarch folders)
//
// $ORIGIN is expanded; entries with other dynamic string tokens ($LIB, $PLATFORM) are skipped.
// A candidate of another ELF class or machine is skipped, as the loader skips it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "elf_file.hpp"

namespace strata::instrumenter {

/// One library of a program's DT_NEEDED closure.
struct NeededLibrary {
    /// The DT_NEEDED name ("libmpi.so.40").
    std::string name;
    /// Where it was found; empty when it was not found.
    std::string path;
    /// The DT_NEEDED name of the object that needs it; empty for the program's own entries.
    std::string needed_by;
};

/// Where the search looks, besides each object's own DT_RPATH and DT_RUNPATH.
struct SearchSettings {
    /// LD_LIBRARY_PATH, split at ':' and ';'.
    std::vector<std::string> library_path;
    /// Paths for a name from /etc/ld.so.cache (all entries of that name, any architecture).
    std::function<std::vector<std::string>(const std::string& name)> cache_lookup;
    /// Searched last.
    std::vector<std::string> default_dirs;
    /// At most this many libraries are opened (a bound against pathological closures).
    std::size_t max_libraries = 512;
};

/// The search settings of this process: LD_LIBRARY_PATH, /etc/ld.so.cache and the default
/// directories for `machine`.
SearchSettings system_search_settings(std::uint16_t machine);

/// The entries of an ld.so.cache image (format "glibc-ld.so.cache1.1"): name -> paths, in cache
/// order.  An unreadable or unknown image gives an empty map.
std::multimap<std::string, std::string> parse_ld_so_cache(const std::string& image);

/// `program`'s DT_NEEDED closure: the program's own entries first, then those of its libraries,
/// breadth first, each name once.  `program_path` is where the program is (for $ORIGIN).
std::vector<NeededLibrary> needed_closure(const std::string& program_path, const ElfInfo& program,
                                          const SearchSettings& settings);

}  // namespace strata::instrumenter
