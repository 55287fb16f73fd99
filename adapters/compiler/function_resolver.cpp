// SPDX-License-Identifier: BSD-3-Clause
// Resolution of an instrumented function's address to its name, source line and verdict.
#include "function_resolver.hpp"


#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strata::compiler {
namespace {

bool starts_with(const std::string& text, const char* prefix) {
    return text.compare(0, std::strlen(prefix), prefix) == 0;
}

std::string base_name(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string hex(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

bool is_openmp_outlined(const std::string& symbol) {
    // Clang: .omp_outlined., .omp_outlined._debug__.2, .omp_task_entry.; GCC: main._omp_fn.0.
    return starts_with(symbol, ".omp_outlined.") || starts_with(symbol, ".omp_task_entry.") ||
           symbol.find("._omp_fn.") != std::string::npos || symbol.find("._omp_cpyfn.") != std::string::npos;
}

bool is_system_library(const std::string& path) {
    return starts_with(path, "/usr/lib/") || starts_with(path, "/lib/") || starts_with(path, "/lib64/") ||
           starts_with(path, "/usr/lib64/");
}

FunctionResolver::FunctionResolver(std::optional<filter::FilterFile> filter, std::uintptr_t own_code)
    : filter_(std::move(filter)), own_code_(own_code) {}

LoadedObject* FunctionResolver::classify_object(std::uintptr_t address, FunctionInfo& info) {
    LoadedObject* object = objects_.find(address);
    if (object == nullptr) return nullptr;
    info.object = object->path;
    // Never recorded whatever their name: no need to read their symbols.
    if (object->contains(own_code_) || starts_with(base_name(object->path), "libstrata-")) {
        info.verdict = Verdict::strata;
    } else if (is_system_library(object->path)) {
        info.verdict = Verdict::system_library;
    }
    if (info.verdict != Verdict::record) info.name = "function in " + object->path;
    return object;
}

namespace {
bool is_toolkit_function(const FunctionInfo& info) {
    // By name too: without debug information the file is unknown.  "nvtx" is NVTX's prefix,
    // "__nv_", "____nv_", "__cuda" and "__device_stub__" nvcc's.
    static const char* const names[] = {"nvtx",   "__nv_",         "____nv_",
                                        "__cuda", "__sti____cuda", "__device_stub__"};
    static const char* const files[] = {"/nvtx3/", "nvToolsExt", ".cudafe1.stub.c", "/include/crt/",
                                        "/include/cuda_"};
    for (const char* prefix : names) {
        if (starts_with(info.name, prefix)) return true;
    }
    for (const char* part : files) {
        if (info.file.find(part) != std::string::npos) return true;
    }
    return false;
}
}  // namespace

void FunctionResolver::decide(FunctionInfo& info) const {
    if (starts_with(info.file, "/usr/include/")) {
        info.verdict = Verdict::system_header;
    } else if (is_toolkit_function(info)) {
        info.verdict = Verdict::toolkit;
    } else if (is_openmp_outlined(info.mangled)) {
        info.verdict = Verdict::openmp_outlined;
    } else if (filter_ && filter_->excluded(info.name, info.mangled, info.file)) {
        info.verdict = Verdict::filtered;
    }
}

FunctionInfo FunctionResolver::resolve(std::uintptr_t address) {
    FunctionInfo info;
    LoadedObject* object = classify_object(address, info);
    if (object == nullptr) {
        info.name = "function at " + hex(address);
    } else {
        if (info.verdict != Verdict::record) return info;
        const std::uint64_t link_address = address - object->bias;
        if (const auto* symbol = object->symbols().find(link_address)) {
            info.mangled = symbol->name;
            info.name = filter::demangled_name(symbol->name);
            if (symbol->value != link_address) info.name += "+" + hex(link_address - symbol->value);
        } else {
            info.name = "function at " + base_name(object->path) + "+" + hex(link_address);
        }
        SourceLine source;
        if (object->dwarf().find(link_address, &source)) {
            info.file = std::move(source.file);
            info.line = source.line;
        }
    }
    decide(info);
    return info;
}

FunctionInfo FunctionResolver::describe(std::uintptr_t code, const char* mangled, const char* name,
                                        const char* file, std::uint32_t line) {
    FunctionInfo info;
    classify_object(code, info);
    if (info.verdict != Verdict::record) return info;
    info.mangled = mangled != nullptr ? mangled : "";
    info.name =
        !info.mangled.empty() ? filter::demangled_name(info.mangled.c_str()) : (name != nullptr ? name : "");
    if (info.name.empty()) info.name = "function at " + hex(code);
    info.file = file != nullptr ? file : "";
    info.line = info.file.empty() ? 0 : line;
    decide(info);
    return info;
}

}  // namespace strata::compiler
