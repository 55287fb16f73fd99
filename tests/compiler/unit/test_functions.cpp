// SPDX-License-Identifier: BSD-3-Clause
// Functions of known name, file and line, resolved by function_resolver_test.cpp.
#include "test_functions.hpp"

#include <algorithm>
#include <cstring>

namespace {
constexpr int static_helper_line = __LINE__ + 1;
int static_helper(int x) {
    return x + 1;
}
}  // namespace

constexpr int c_function_line = __LINE__ + 1;
extern "C" int c_function(int x) {
    return static_helper(x);
}

namespace shapes {
constexpr int twice_line = __LINE__ + 2;  // the line of the name, not of "template"
template <typename T>
T twice(T x) {
    return x + x;
}

constexpr int area_line = __LINE__ + 2;
struct Circle {
    double area() const { return 3.0 * r * r; }
    double r = 1.0;
};
}  // namespace shapes

namespace strata::compiler::test {
namespace {

/// The code address of a non-virtual member function (Itanium ABI: the pointer's first word).
template <typename Member>
std::uintptr_t address_of(Member member) {
    std::uintptr_t address = 0;
    std::memcpy(&address, &member, sizeof address);
    return address;
}

}  // namespace

TestFunctions test_functions() {
    constexpr int lambda_line = __LINE__ + 1;
    auto lambda = [](int x) { return x * 3; };
    TestFunctions f;
    f.c_function = {reinterpret_cast<std::uintptr_t>(&c_function), c_function_line};
    f.static_helper = {reinterpret_cast<std::uintptr_t>(&static_helper), static_helper_line};
    f.twice_int = {reinterpret_cast<std::uintptr_t>(&shapes::twice<int>), shapes::twice_line};
    f.member = {address_of(&shapes::Circle::area), shapes::area_line};
    f.lambda = {address_of(&decltype(lambda)::operator()), lambda_line};
    f.system_header = reinterpret_cast<std::uintptr_t>(
        static_cast<const long& (*)(const long&, const long&)>(&std::min<long>));
    f.file = __FILE__;
    return f;
}

}  // namespace strata::compiler::test
