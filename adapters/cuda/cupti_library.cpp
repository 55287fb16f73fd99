// SPDX-License-Identifier: BSD-3-Clause
// Loading libcupti (see cupti_library.hpp).
#include "cupti_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <vector>

namespace strata::cuda {

namespace {

/// The path of a libcupti the process has loaded already, "" if none.
std::string loaded_cupti() {
    std::string found;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            const char* name = info->dlpi_name;
            if (name == nullptr || std::strstr(name, "libcupti.so") == nullptr) return 0;
            *static_cast<std::string*>(out) = name;
            return 1;
        },
        &found);
    return found;
}

template <typename Fn>
bool bind(void* handle, const char* symbol, Fn* slot, std::string* missing) {
    *slot = reinterpret_cast<Fn>(dlsym(handle, symbol));
    if (*slot == nullptr && missing->empty()) *missing = symbol;
    return *slot != nullptr;
}

}  // namespace

std::string CuptiLibrary::describe(CUptiResult result) const {
    const char* text = nullptr;
    if (get_result_string != nullptr && get_result_string(result, &text) == CUPTI_SUCCESS &&
        text != nullptr) {
        return text;
    }
    return "CUPTI error " + std::to_string(static_cast<int>(result));
}

Error load_cupti(CuptiLibrary* cupti, const std::string& preferred, std::string* note) {
    std::vector<std::string> candidates;
    const std::string loaded = loaded_cupti();
    if (!loaded.empty()) {
        // Never two CUPTI libraries in one process: the one there wins.
        candidates.push_back(loaded);
        if (!preferred.empty() && note != nullptr) {
            *note = "the process has loaded " + loaded + " already: STRATA_CUDA_CUPTI_LIBRARY (" + preferred +
                    ") is not used";
        }
    } else if (!preferred.empty()) {
        candidates.push_back(preferred);
    } else {
        candidates.emplace_back("libcupti.so.13");
        candidates.emplace_back("libcupti.so");
#ifdef STRATA_CUDA_LIBRARY_DIR
        candidates.emplace_back(std::string(STRATA_CUDA_LIBRARY_DIR) + "/libcupti.so");
#endif
    }
    std::string tried;
    for (const std::string& path : candidates) {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            tried += (tried.empty() ? "" : "; ") + std::string(why != nullptr ? why : path.c_str());
            continue;
        }
        std::string missing;
        bind(handle, "cuptiGetResultString", &cupti->get_result_string, &missing);
        bind(handle, "cuptiGetVersion", &cupti->get_version, &missing);
        bind(handle, "cuptiSubscribe", &cupti->subscribe, &missing);
        bind(handle, "cuptiEnableDomain", &cupti->enable_domain, &missing);
        bind(handle, "cuptiEnableCallback", &cupti->enable_callback, &missing);
        bind(handle, "cuptiActivityEnable", &cupti->activity_enable, &missing);
        bind(handle, "cuptiActivityRegisterCallbacks", &cupti->activity_register_callbacks, &missing);
        bind(handle, "cuptiActivityGetNextRecord", &cupti->activity_get_next_record, &missing);
        bind(handle, "cuptiActivityGetNumDroppedRecords", &cupti->activity_get_num_dropped_records, &missing);
        bind(handle, "cuptiActivityFlushAll", &cupti->activity_flush_all, &missing);
        bind(handle, "cuptiGetTimestamp", &cupti->get_timestamp, &missing);
        // Optional: older CUPTI has no timestamp callback (times are then converted by sync points).
        std::string optional;
        bind(handle, "cuptiActivityRegisterTimestampCallback", &cupti->activity_register_timestamp_callback,
             &optional);
        bind(handle, "cuptiGetDeviceId", &cupti->get_device_id, &optional);  // GPU metrics only
        if (!missing.empty()) {
            tried += (tried.empty() ? "" : "; ") + path + " has no " + missing;
            continue;
        }
        cupti->origin = path;
        return {};
    }
    return "no usable libcupti (" + tried + ")";
}

}  // namespace strata::cuda
