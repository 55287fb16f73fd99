// SPDX-License-Identifier: BSD-3-Clause
// Functions of known name, file and line for the resolver's tests (test_functions.cpp, built with -g -O0).
#pragma once

#include <cstdint>

namespace strata::compiler::test {

/// One function: its run-time address and where it is declared.
struct KnownFunction {
    std::uintptr_t address = 0;
    int line = 0;
};

struct TestFunctions {
    KnownFunction c_function;          ///< extern "C" int c_function(int)
    KnownFunction static_helper;       ///< a function with internal linkage
    KnownFunction twice_int;           ///< int shapes::twice<int>(int)
    KnownFunction member;              ///< shapes::Circle::area() const
    KnownFunction lambda;              ///< the operator() of a lambda in test_functions()
    std::uintptr_t system_header = 0;  ///< std::min<long>, from a system header
    const char* file = nullptr;        ///< __FILE__ of test_functions.cpp
};

TestFunctions test_functions();

}  // namespace strata::compiler::test
