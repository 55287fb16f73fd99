// SPDX-License-Identifier: BSD-3-Clause
// Loading libstrata-profile-h5.so (see profile_h5_module.hpp).
#include "profiling/profile_h5_module.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

namespace strata::profiling {
namespace {

constexpr const char* module_name = "libstrata-profile-h5.so";

/// The directory of the object that holds this code (libstrata-measurement.so,
/// or a test program linked with the runtime's objects), with a final '/'.
std::string own_directory() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&load_profile_h5), &info) == 0 || info.dli_fname == nullptr) return {};
    const std::string path = info.dli_fname;
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

Error load_profile_h5(const ProfileH5Functions** loaded) {
    static std::mutex mutex;
    static const ProfileH5Functions* functions = nullptr;
    static Error failure;
    std::lock_guard<std::mutex> lock(mutex);
    if (functions == nullptr && !failure) {
        // Beside the runtime (build tree and installation alike), then where the
        // build put it, then the installation's library directory.
        std::vector<std::string> candidates{own_directory() + module_name};
#ifdef STRATA_PROFILE_H5_BUILD_PATH
        candidates.push_back(STRATA_PROFILE_H5_BUILD_PATH);
#endif
#ifdef STRATA_PROFILE_H5_INSTALL_PATH
        candidates.push_back(STRATA_PROFILE_H5_INSTALL_PATH);
#endif
        std::string tried;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const std::string& path = candidates[i];
            if (path.empty() || path[0] != '/' ||
                std::find(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(i), path) !=
                    candidates.begin() + static_cast<std::ptrdiff_t>(i))
                continue;  // relative (no own directory) or tried already
            void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle == nullptr) {
                const char* why = dlerror();
                tried += (tried.empty() ? "" : "; ") + (why != nullptr ? std::string(why) : path);
                continue;
            }
            using Entry = const ProfileH5Functions* (*)();
            const auto entry = reinterpret_cast<Entry>(dlsym(handle, "strata_profile_h5_functions"));
            if (entry != nullptr) functions = entry();
            if (functions != nullptr) break;
            tried += (tried.empty() ? "" : "; ") + path + ": no strata_profile_h5_functions";
        }
        if (functions == nullptr) {
            failure = std::string("cannot load ") + module_name + ", the profile's writer (" +
                      (tried.empty() ? "not found" : tried) + ")";
        }
    }
    *loaded = functions;
    return failure;
}

}  // namespace strata::profiling
