// SPDX-License-Identifier: BSD-3-Clause
// Where Strata's headers and libraries are: found at run time relative to the wrapper itself.
//
//   installed:   <prefix>/bin/strata  ->  <prefix>/<libdir>, <prefix>/<includedir>   (relocatable)
//   build tree:  <build>/instrumenter/strata  ->  <build>/measurement, <build>/adapters/<name>,
//                <source>/measurement/include, <build>/measurement/include
//
// The build-tree locations are configured by CMake (wrapper_paths.hpp) and used only when the
// running executable is the build-tree one.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace strata::instrumenter {

/// Strata's headers and libraries, as the command builder needs them.
/// The library with libgomp-like settings of libomp, linked into GCC-built OpenMP programs after
/// libomp and preloaded with it (adapters/openmp/gnu_program_defaults.cpp).
inline constexpr const char* openmp_gnu_defaults_library = "strata-openmp-gnu";
/// The OpenMP adapter of programs on GCC's libgomp (adapters/openmp/gomp_entry_points.cpp):
/// linked by the wrapper before -lgomp, preloaded by strata-preload.
inline constexpr const char* openmp_gomp_library = "strata-openmp-gomp";

struct Layout {
    /// Added as -I<dir> when compiling and preprocessing.
    std::vector<std::string> include_dirs;
    /// Added as -L<dir> and rpath when linking.
    std::vector<std::string> library_dirs;
    /// The Strata libraries present in `library_dirs`, by name without "lib" and suffix
    /// ("strata-mpi"); a missing adapter is left out of the link with a warning.
    std::set<std::string> available_libraries;
    /// LLVM's OpenMP runtime (libomp), for GCC-built OpenMP programs; "" when unknown.
    std::string openmp_runtime_dir;
    /// Strata's GCC plugin (strata_gcc.so); "" when it was not built or is missing.
    std::string gcc_plugin;
    /// The GCC the plugin was built for: its `-dumpfullversion` and `-print-file-name=plugin`.
    std::string gcc_plugin_gcc_version;
    std::string gcc_plugin_gcc_dir;
};

/// The locations CMake configured for this build of the wrapper.
struct ConfiguredPaths {
    /// The directory of the build-tree `strata`.
    std::string build_wrapper_dir;
    /// Header directories of the build tree.
    std::vector<std::string> build_include_dirs;
    /// Library directories of the build tree (one per library's folder).
    std::vector<std::string> build_library_dirs;
    /// The library directory relative to the installed bin directory ("../lib").
    std::string bin_to_lib;
    /// The include directory relative to the installed bin directory ("../include").
    std::string bin_to_include;
    /// LLVM's libomp directory found at configure time ("" when none).
    std::string openmp_runtime_dir;
    /// The GCC plugin in the build tree ("" when not built).
    std::string build_gcc_plugin;
    /// The installed GCC plugin relative to the installed bin directory ("" when not built).
    std::string bin_to_gcc_plugin;
    /// The GCC the plugin was built for: version and plugin directory ("" when not built).
    std::string gcc_plugin_gcc_version;
    std::string gcc_plugin_gcc_dir;
};

/// The paths configured by CMake for this build.
ConfiguredPaths configured_paths();

/// The layout for the wrapper executable at `exe_dir` (a real path without symbolic links):
/// the build-tree directories when `exe_dir` is `build_dir_real` (the real path of the
/// configured build-tree directory), otherwise the install tree around `exe_dir`.
/// `available_libraries` is left empty.
Layout layout_for_executable(const std::string& exe_dir, const std::string& build_dir_real,
                             const ConfiguredPaths& paths);

/// The names of `names` whose lib<name>.so or lib<name>.a exists in one of `dirs`.
std::set<std::string> find_libraries(const std::vector<std::string>& dirs,
                                     const std::vector<std::string>& names);

/// The layout of the running wrapper: /proc/self/exe, the configured paths, the libraries
/// present; build-tree directories that do not exist are dropped.
Layout discover_layout();

}  // namespace strata::instrumenter
