// SPDX-License-Identifier: BSD-3-Clause
// Where an OpenMP construct is in the program: the source file and line of the
// return address the runtime reports (codeptr_ra), for region names such as
// "!$omp parallel @jacobi.c:42".
//
// DWARF line tables through elfutils' libdw (when built with it); without line
// information, the enclosing function's symbol; without a symbol, the object
// and offset.  Runs once per construct and call site, off the hot path.
#pragma once

#include <cstdint>
#include <string>

namespace strata::openmp {

struct CodeLocation {
    std::string text;  ///< "file.c:42", "function", "libfoo.so+0x1234"; "" for a null address
    std::string file;  ///< source file name without directories ("" when unknown)
    unsigned line = 0;
};

/// Where `return_address` is.  Not thread-safe (callers hold the region table's lock).
CodeLocation describe_code_address(const void* return_address);

/// The executable segment of the loaded object that contains an address.
struct CodeRange {
    std::uintptr_t begin = 0, end = 0;  ///< [begin, end); empty when unknown
    bool contains(const void* address) const {
        const auto a = reinterpret_cast<std::uintptr_t>(address);
        return a >= begin && a < end;
    }
};
CodeRange code_range_of(const void* address);

/// The innermost return address on this thread's stack outside both ranges
/// (nullptr when there is none).  A stack walk: for rare cases only.
const void* first_caller_outside(const CodeRange& a, const CodeRange& b);

}  // namespace strata::openmp
