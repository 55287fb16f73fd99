// SPDX-License-Identifier: BSD-3-Clause
// What an instrumented function is: its name, source line, and whether Strata records it.
//
// resolve(address): object of the address -> ELF symbol -> demangled name -> DWARF file and
// line -> the policy (Strata's own libraries, system libraries and system headers are never
// recorded) -> the STRATA_FILTERING_FILE rules.  Runs once per function, off the hot path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "elf_symbols.hpp"
#include "filter/filter_rules.hpp"

namespace strata::compiler {

/// Why a function is or is not recorded.
enum class Verdict {
    record,          ///< recorded
    strata,          ///< a function of Strata's own libraries
    system_library,  ///< in a shared object under /usr/lib (or /lib, /lib64, /usr/lib64)
    system_header,   ///< declared in a file under /usr/include (an instrumented inline function)
    /// NVTX's and CUDA's own functions (the NVTX header's inline nvtx*, nvcc's registration and
    /// launch stubs): the CUDA adapter records what they do; as regions they would break the
    /// nesting (nvtxRangePushA returns with its range still open).
    toolkit,
    openmp_outlined, ///< the body of an OpenMP construct outlined by the compiler (".omp_outlined.",
                     ///< "f._omp_fn.0"): the OpenMP adapter names the construct instead
    filtered,        ///< excluded by the filter file
};

/// A function as Strata sees it.
struct FunctionInfo {
    std::string name;     ///< demangled name, or a description of the address when there is no symbol
    std::string mangled;  ///< the ELF symbol ("" when none)
    std::string file;     ///< source file from DWARF ("" when unknown)
    std::uint32_t line = 0;
    std::string object;  ///< path of the object containing the function
    Verdict verdict = Verdict::record;
};

/// True for the symbol of a compiler-outlined OpenMP construct body.
bool is_openmp_outlined(const std::string& symbol);

/// True when `path` is a system library directory's object (/usr/lib/, /lib/, /lib64/, /usr/lib64/).
bool is_system_library(const std::string& path);

class FunctionResolver {
public:
    /// `filter`: the rules of STRATA_FILTERING_FILE (none: nothing filtered).  `own_code`: an
    /// address inside Strata's compiler adapter, whose object is never recorded.
    FunctionResolver(std::optional<filter::FilterFile> filter, std::uintptr_t own_code);

    /// Everything about the function starting at run-time address `address`.  Not thread-safe.
    FunctionInfo resolve(std::uintptr_t address);

    /// The verdict on a function the compiler described itself (GCC plugin): `mangled`, `name`,
    /// `file` and `line` as compiled in; `code` is any address in the function's code, for the
    /// object it belongs to.  The region name is filter::demangled_name(mangled), as resolve() gives it, so
    /// that names and filters do not depend on how a program was instrumented.  Not thread-safe.
    FunctionInfo describe(std::uintptr_t code, const char* mangled, const char* name, const char* file,
                          std::uint32_t line);

private:
    /// The policy for the object containing `address`: fills info.object and, for Strata's own
    /// and system libraries, info.name and info.verdict.  Returns the object (null when none).
    LoadedObject* classify_object(std::uintptr_t address, FunctionInfo& info);
    /// The policy by source file and name, then the filter rules.
    void decide(FunctionInfo& info) const;

    std::optional<filter::FilterFile> filter_;
    std::uintptr_t own_code_;
    ObjectList objects_;
};

}  // namespace strata::compiler
