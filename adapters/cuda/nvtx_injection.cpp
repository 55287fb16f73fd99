// SPDX-License-Identifier: BSD-3-Clause
// NVTX capture: Strata as an NVTX v3 injection library (share/doc/nvtx.md).
//
//   program: nvtxRangePushA("step")          (NVTX v3 is header-only: every library that
//      -> its copy of NVTX, first call:        carries NVTX has its own copy and initialises once)
//         dlopen($NVTX_INJECTION64_PATH), InitializeInjectionNvtx2(getExportTable)
//      -> we fill that copy's CORE and CORE2 tables with the functions below
//      -> later calls come straight here, and are recorded (nvtx_recording.*):
//           push/pop, marks   -> events::enter / exit on the calling thread (thread-local cache
//                                of regions by (domain, message): no lock after the first call)
//           start/end         -> events::location_enter / exit on lanes of their own (mutex)
//
// Nothing here may throw into the program or crash on what a program passes:
// every callback catches, and handles we hand out are table indexes, checked
// before use.  Everything the copies of NVTX share (domains, strings, lanes)
// lives in nvtx_recording.cpp, once per process.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "nvtx_recording.hpp"  // first: NVTX's types

#define NVTX_EXT_TYPES_GUARD  // as nvToolsExtPayload.h does, for nvtxExtModuleInfo_t
#include <nvtx3/nvtxDetail/nvtxExtTypes.h>
#undef NVTX_EXT_TYPES_GUARD

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nvtx_injection.hpp"

namespace {

using namespace strata::cuda::nvtx::recording;

// --- the callbacks NVTX calls --------------------------------------------------

/// Runs `body`; what it throws (out of memory) becomes `fallback`: nothing may
/// leave a callback into the program's C code.
template <typename R, typename Body>
inline R guarded(R fallback, Body&& body) noexcept {
    try {
        return body();
    } catch (...) {
        return fallback;
    }
}
template <typename Body>
inline void guarded_void(Body&& body) noexcept {
    try {
        body();
    } catch (...) {
    }
}

void ignore() {
    count(shared().ignored_calls);
}

std::string utf8(const wchar_t* text) {
    std::string out;
    to_utf8(text, out);
    return out;
}

// Push and pop
int push_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    return guarded(-1, [&] {
        const std::uint32_t domain = domain_of(domain_handle);
        if (domain == invalid_domain) return ignore(), -1;  // its pop is ignored too
        ThreadState& t = thread_state();
        Message text;
        if (!message_of(attributes, t, &text)) return push_ignored(t, domain);
        return push_range(t, domain, text);
    });
}
int range_push_ex(const nvtxEventAttributes_t* attributes) {
    return push_ex(nullptr, attributes);
}
int range_push_a(const char* message) {
    return guarded(-1, [&] {
        ThreadState& t = thread_state();
        if (message == nullptr) return push_ignored(t, default_domain);
        return push_range(t, default_domain, message);
    });
}
int range_push_w(const wchar_t* message) {
    return guarded(-1, [&] {
        ThreadState& t = thread_state();
        if (message == nullptr) return push_ignored(t, default_domain);
        to_utf8(message, t.scratch);
        return push_range(t, default_domain, t.scratch);
    });
}
int range_pop() {
    return guarded(-1, [] { return pop_range(default_domain); });
}
int domain_range_pop(nvtxDomainHandle_t domain_handle) {
    return guarded(-1, [&] {
        const std::uint32_t domain = domain_of(domain_handle);
        if (domain == invalid_domain) return ignore(), -1;
        return pop_range(domain);
    });
}

// Marks
void mark_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    guarded_void([&] {
        const std::uint32_t domain = domain_of(domain_handle);
        ThreadState& t = thread_state();
        Message text;
        if (domain == invalid_domain || !message_of(attributes, t, &text)) return ignore();
        mark(t, domain, text);
    });
}
void range_mark_ex(const nvtxEventAttributes_t* attributes) {
    mark_ex(nullptr, attributes);
}
void mark_a(const char* message) {
    guarded_void([&] {
        if (message == nullptr) return ignore();
        mark(thread_state(), default_domain, message);
    });
}
void mark_w(const wchar_t* message) {
    guarded_void([&] {
        if (message == nullptr) return ignore();
        ThreadState& t = thread_state();
        to_utf8(message, t.scratch);
        mark(t, default_domain, t.scratch);
    });
}

// Start and end
nvtxRangeId_t start_ex(nvtxDomainHandle_t domain_handle, const nvtxEventAttributes_t* attributes) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        const std::uint32_t domain = domain_of(domain_handle);
        ThreadState& t = thread_state();
        Message text;
        if (domain == invalid_domain || !message_of(attributes, t, &text)) return ignore(), 0;
        return start_range(region_of(t, domain, Use::range, text));
    });
}
nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t* attributes) {
    return start_ex(nullptr, attributes);
}
nvtxRangeId_t range_start_a(const char* message) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        if (message == nullptr) return ignore(), 0;
        return start_range(region_of(thread_state(), default_domain, Use::range, message));
    });
}
nvtxRangeId_t range_start_w(const wchar_t* message) {
    return guarded<nvtxRangeId_t>(0, [&]() -> nvtxRangeId_t {
        if (message == nullptr) return ignore(), 0;
        ThreadState& t = thread_state();
        to_utf8(message, t.scratch);
        return start_range(region_of(t, default_domain, Use::range, t.scratch));
    });
}
void range_end(nvtxRangeId_t id) {
    guarded_void([&] { end_range(id); });
}
// Range ids are unique in the process, whatever their domain.
void domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) {
    range_end(id);
}

// Domains and registered strings
nvtxDomainHandle_t domain_create_a(const char* name) {
    return guarded<nvtxDomainHandle_t>(nullptr, [&] { return create_domain(name ? name : ""); });
}
nvtxDomainHandle_t domain_create_w(const wchar_t* name) {
    return guarded<nvtxDomainHandle_t>(nullptr, [&] { return create_domain(name ? utf8(name) : ""); });
}
// Handles stay valid: the regions cached for a domain refer to it, and another
// library may hold a handle of the same name.
void domain_destroy(nvtxDomainHandle_t) {}
nvtxStringHandle_t register_string_a(nvtxDomainHandle_t domain, const char* text) {
    return guarded<nvtxStringHandle_t>(nullptr, [&]() -> nvtxStringHandle_t {
        if (text == nullptr) return ignore(), nullptr;
        return register_string(domain, text);
    });
}
nvtxStringHandle_t register_string_w(nvtxDomainHandle_t domain, const wchar_t* text) {
    return guarded<nvtxStringHandle_t>(nullptr, [&]() -> nvtxStringHandle_t {
        if (text == nullptr) return ignore(), nullptr;
        return register_string(domain, utf8(text));
    });
}

// Categories and thread names
void domain_name_category_a(nvtxDomainHandle_t domain, std::uint32_t category, const char* name) {
    guarded_void([&] { name != nullptr ? name_category(domain, category, name) : ignore(); });
}
void domain_name_category_w(nvtxDomainHandle_t domain, std::uint32_t category, const wchar_t* name) {
    guarded_void([&] { name != nullptr ? name_category(domain, category, utf8(name)) : ignore(); });
}
void name_category_a(std::uint32_t category, const char* name) {
    domain_name_category_a(nullptr, category, name);
}
void name_category_w(std::uint32_t category, const wchar_t* name) {
    domain_name_category_w(nullptr, category, name);
}
void name_os_thread_a(std::uint32_t thread, const char* name) {
    guarded_void([&] { name != nullptr ? name_thread(thread, name) : ignore(); });
}
void name_os_thread_w(std::uint32_t thread, const wchar_t* name) {
    guarded_void([&] { name != nullptr ? name_thread(thread, utf8(name)) : ignore(); });
}

// --- the tables ------------------------------------------------------------------

struct Slot {
    unsigned id;
    NvtxFunctionPointer function;
};

/// `function` as NVTX stores it; Fn spelled out checks its signature against NVTX's.
template <typename Fn>
NvtxFunctionPointer entry(Fn function) {
    return reinterpret_cast<NvtxFunctionPointer>(function);
}

// Built at the first initialisation (not by a static initialiser, which may not
// have run when a library's constructor makes the first NVTX call).
template <std::size_t N>
using Slots = Slot[N];

const Slots<15>& core_slots() {
    static const Slots<15> slots = {
        {NVTX_CBID_CORE_MarkEx, entry<nvtxMarkEx_impl_fntype>(range_mark_ex)},
        {NVTX_CBID_CORE_MarkA, entry<nvtxMarkA_impl_fntype>(mark_a)},
        {NVTX_CBID_CORE_MarkW, entry<nvtxMarkW_impl_fntype>(mark_w)},
        {NVTX_CBID_CORE_RangeStartEx, entry<nvtxRangeStartEx_impl_fntype>(range_start_ex)},
        {NVTX_CBID_CORE_RangeStartA, entry<nvtxRangeStartA_impl_fntype>(range_start_a)},
        {NVTX_CBID_CORE_RangeStartW, entry<nvtxRangeStartW_impl_fntype>(range_start_w)},
        {NVTX_CBID_CORE_RangeEnd, entry<nvtxRangeEnd_impl_fntype>(range_end)},
        {NVTX_CBID_CORE_RangePushEx, entry<nvtxRangePushEx_impl_fntype>(range_push_ex)},
        {NVTX_CBID_CORE_RangePushA, entry<nvtxRangePushA_impl_fntype>(range_push_a)},
        {NVTX_CBID_CORE_RangePushW, entry<nvtxRangePushW_impl_fntype>(range_push_w)},
        {NVTX_CBID_CORE_RangePop, entry<nvtxRangePop_impl_fntype>(range_pop)},
        {NVTX_CBID_CORE_NameCategoryA, entry<nvtxNameCategoryA_impl_fntype>(name_category_a)},
        {NVTX_CBID_CORE_NameCategoryW, entry<nvtxNameCategoryW_impl_fntype>(name_category_w)},
        {NVTX_CBID_CORE_NameOsThreadA, entry<nvtxNameOsThreadA_impl_fntype>(name_os_thread_a)},
        {NVTX_CBID_CORE_NameOsThreadW, entry<nvtxNameOsThreadW_impl_fntype>(name_os_thread_w)},
    };
    return slots;
}

// Resources, nvtxInitialize and the CUDA, OpenCL and sync modules stay NVTX's no-ops.
const Slots<12>& core2_slots() {
    static const Slots<12> slots = {
        {NVTX_CBID_CORE2_DomainMarkEx, entry<nvtxDomainMarkEx_impl_fntype>(mark_ex)},
        {NVTX_CBID_CORE2_DomainRangeStartEx, entry<nvtxDomainRangeStartEx_impl_fntype>(start_ex)},
        {NVTX_CBID_CORE2_DomainRangeEnd, entry<nvtxDomainRangeEnd_impl_fntype>(domain_range_end)},
        {NVTX_CBID_CORE2_DomainRangePushEx, entry<nvtxDomainRangePushEx_impl_fntype>(push_ex)},
        {NVTX_CBID_CORE2_DomainRangePop, entry<nvtxDomainRangePop_impl_fntype>(domain_range_pop)},
        {NVTX_CBID_CORE2_DomainNameCategoryA,
         entry<nvtxDomainNameCategoryA_impl_fntype>(domain_name_category_a)},
        {NVTX_CBID_CORE2_DomainNameCategoryW,
         entry<nvtxDomainNameCategoryW_impl_fntype>(domain_name_category_w)},
        {NVTX_CBID_CORE2_DomainRegisterStringA,
         entry<nvtxDomainRegisterStringA_impl_fntype>(register_string_a)},
        {NVTX_CBID_CORE2_DomainRegisterStringW,
         entry<nvtxDomainRegisterStringW_impl_fntype>(register_string_w)},
        {NVTX_CBID_CORE2_DomainCreateA, entry<nvtxDomainCreateA_impl_fntype>(domain_create_a)},
        {NVTX_CBID_CORE2_DomainCreateW, entry<nvtxDomainCreateW_impl_fntype>(domain_create_w)},
        {NVTX_CBID_CORE2_DomainDestroy, entry<nvtxDomainDestroy_impl_fntype>(domain_destroy)},
    };
    return slots;
}

/// Writes `slots` into one module's table of one copy of NVTX; false when it has no such module.
template <std::size_t N>
bool fill(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module, const Slot (&slots)[N]) {
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;  // entries, without the null at the end
    if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return false;
    for (const Slot& slot : slots) {
        // An older copy has fewer entries: only those it has.
        if (slot.id < size && table[slot.id] != nullptr) *table[slot.id] = slot.function;
    }
    return true;
}

}  // namespace

namespace strata::cuda::nvtx {

using recording::Shared;
using recording::shared;

void announce_injection_library() {
    if (!shared().enabled.load(std::memory_order_relaxed)) return;
    if (std::getenv("NVTX_INJECTION64_PATH") != nullptr) return;  // the user's choice (or another tool's)
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&announce_injection_library), &info) == 0 ||
        info.dli_fname == nullptr || info.dli_fname[0] == '\0') {
        return;
    }
    // NVTX dlopens the path later, maybe from another directory: make it absolute.
    // A bare name (no '/') is found as the loaded library's name.
    std::string path = info.dli_fname;
    if (path.find('/') != std::string::npos) {
        if (char* real = realpath(info.dli_fname, nullptr)) {
            path = real;
            std::free(real);
        }
    }
    // The variable reaches the program's child processes: name the forwarder
    // beside this library (nvtx_forwarder.c), which loads nothing of Strata's
    // into a child that is not measured.  This library itself only without it.
    const std::size_t slash = path.rfind('/');
    if (slash != std::string::npos) {
        const std::string forwarder = path.substr(0, slash + 1) + "libstrata-nvtx.so";
        if (access(forwarder.c_str(), R_OK) == 0) path = forwarder;
    }
    setenv("NVTX_INJECTION64_PATH", path.c_str(), 0);
}

void set_enabled(bool enabled) {
    shared().enabled.store(enabled, std::memory_order_relaxed);
}

Statistics statistics() {
    const Shared& s = shared();
    Statistics result;
    result.unmatched_pops = s.unmatched_pops.load(std::memory_order_relaxed);
    result.unknown_ends = s.unknown_ends.load(std::memory_order_relaxed);
    result.ignored_calls = s.ignored_calls.load(std::memory_order_relaxed);
    result.crossed_pops = s.crossed_pops.load(std::memory_order_relaxed);
    result.initialisations = s.initialisations.load(std::memory_order_relaxed);
    return result;
}

}  // namespace strata::cuda::nvtx

/// NVTX's entry point, called once by every copy of NVTX in the process (each
/// library that carries the NVTX v3 headers) at its first NVTX call, through
/// libstrata-nvtx (nvtx_forwarder.c) or directly when NVTX_INJECTION64_PATH
/// names this library.  Returns 1 when that copy's tables are filled, 0 to
/// decline (NVTX capture disabled).
extern "C" __attribute__((visibility("default"))) int strata_nvtx_initialize(
    NvtxGetExportTableFunc_t get_export_table) {
    Shared& s = shared();
    if (!s.enabled.load(std::memory_order_relaxed) || get_export_table == nullptr) return 0;
    return guarded(0, [&] {
        const auto* callbacks =
            static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
        if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
            callbacks->GetModuleFunctionTable == nullptr) {
            return 0;
        }
        if (!fill(*callbacks, NVTX_CB_MODULE_CORE, core_slots())) return 0;
        fill(*callbacks, NVTX_CB_MODULE_CORE2, core2_slots());  // a copy without domains (NVTX 1) has none
        const auto* version =
            static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
        if (version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
            version->SetInjectionNvtxVersion != nullptr) {
            version->SetInjectionNvtxVersion(NVTX_VERSION);
        }
        // Each copy of NVTX in the process comes here; the subsystem is registered once.
        static constexpr events::Subsystem nvtx_subsystem{"nvtx", false, nullptr, at_measurement_end};
        events::register_subsystem(&nvtx_subsystem);
        count(s.initialisations);
        return 1;
    });
}

/// The entry point of NVTX extensions (payloads, counters, memory): Strata
/// records none of them; success with no function registered leaves their
/// calls no-ops.
extern "C" __attribute__((visibility("default"))) int strata_nvtx_initialize_extension(
    nvtxExtModuleInfo_t* module_info) {
    (void)module_info;
    return 1;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
    return strata_nvtx_initialize(get_export_table);
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    nvtxExtModuleInfo_t* module_info) {
    return strata_nvtx_initialize_extension(module_info);
}
