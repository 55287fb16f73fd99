// SPDX-License-Identifier: BSD-3-Clause
// Run-time discovery of the install or build tree the wrapper belongs to.
#include "layout.hpp"

#include <filesystem>
#include <system_error>

#include "command_builder.hpp"
#include "wrapper_paths.hpp"

namespace strata::instrumenter {
namespace fs = std::filesystem;

namespace {

/// The real path of `path`, or empty when it does not exist.
std::string real_path(const std::string& path) {
    std::error_code ec;
    auto real = fs::canonical(path, ec);
    return ec ? std::string() : real.string();
}

}  // namespace

ConfiguredPaths configured_paths() {
    ConfiguredPaths paths;
    paths.build_wrapper_dir = STRATA_BUILD_WRAPPER_DIR;
    paths.build_include_dirs = {STRATA_BUILD_INCLUDE_DIRS};
    paths.build_library_dirs = {STRATA_BUILD_LIBRARY_DIRS};
    paths.bin_to_lib = STRATA_INSTALL_BIN_TO_LIB;
    paths.bin_to_include = STRATA_INSTALL_BIN_TO_INCLUDE;
    paths.openmp_runtime_dir = STRATA_LIBOMP_DIR;
    paths.build_gcc_plugin = STRATA_BUILD_GCC_PLUGIN;
    paths.bin_to_gcc_plugin = STRATA_INSTALL_BIN_TO_GCC_PLUGIN;
    paths.gcc_plugin_gcc_version = STRATA_GCC_PLUGIN_GCC_VERSION;
    paths.gcc_plugin_gcc_dir = STRATA_GCC_PLUGIN_GCC_DIR;
    return paths;
}

Layout layout_for_executable(const std::string& exe_dir, const std::string& build_dir_real,
                             const ConfiguredPaths& paths) {
    Layout layout;
    layout.openmp_runtime_dir = paths.openmp_runtime_dir;
    layout.gcc_plugin_gcc_version = paths.gcc_plugin_gcc_version;
    layout.gcc_plugin_gcc_dir = paths.gcc_plugin_gcc_dir;
    if (!build_dir_real.empty() && exe_dir == build_dir_real) {
        layout.include_dirs = paths.build_include_dirs;
        layout.library_dirs = paths.build_library_dirs;
        layout.gcc_plugin = paths.build_gcc_plugin;
        return layout;
    }
    const fs::path bin(exe_dir);
    const auto resolve = [&](const std::string& relative) {
        const fs::path p(relative);
        return (p.is_absolute() ? p : (bin / p)).lexically_normal().string();
    };
    layout.include_dirs = {resolve(paths.bin_to_include)};
    layout.library_dirs = {resolve(paths.bin_to_lib)};
    if (!paths.bin_to_gcc_plugin.empty()) layout.gcc_plugin = resolve(paths.bin_to_gcc_plugin);
    return layout;
}

std::set<std::string> find_libraries(const std::vector<std::string>& dirs,
                                     const std::vector<std::string>& names) {
    std::set<std::string> found;
    for (const auto& name : names) {
        for (const auto& dir : dirs) {
            std::error_code ec;
            if (fs::exists(fs::path(dir) / ("lib" + name + ".so"), ec) ||
                fs::exists(fs::path(dir) / ("lib" + name + ".a"), ec)) {
                found.insert(name);
                break;
            }
        }
    }
    return found;
}

Layout discover_layout() {
    const auto paths = configured_paths();
    const auto exe = real_path("/proc/self/exe");
    const auto exe_dir = fs::path(exe).parent_path().string();
    const auto build_dir = real_path(paths.build_wrapper_dir);
    auto layout = layout_for_executable(exe_dir, build_dir, paths);
    if (!build_dir.empty() && exe_dir == build_dir) {
        // In the build tree, only the folders that exist (adapters not built here have none).
        const auto existing = [](std::vector<std::string>& dirs) {
            std::vector<std::string> kept;
            for (const auto& dir : dirs) {
                std::error_code ec;
                if (fs::is_directory(dir, ec)) kept.push_back(dir);
            }
            dirs = kept;
        };
        existing(layout.include_dirs);
        existing(layout.library_dirs);
    }
    std::vector<std::string> names = strata_library_names();
    names.emplace_back(openmp_gnu_defaults_library);
    names.emplace_back(openmp_gomp_library);
    layout.available_libraries = find_libraries(layout.library_dirs, names);
    std::error_code ec;
    if (!layout.gcc_plugin.empty() && !fs::is_regular_file(layout.gcc_plugin, ec)) layout.gcc_plugin.clear();
    return layout;
}

}  // namespace strata::instrumenter
