// SPDX-License-Identifier: BSD-3-Clause
// Known C++ call structure: namespaces, templates, a member function, a lambda, recursion,
// a static function, a function of a shared library, and std::vector (system header, not recorded).
#include <cstdio>
#include <vector>

#include "mathlib.h"

namespace geo {

struct Square {
    double side;
    double area() const { return side * side; }
};

template <typename T>
T twice(T x) {
    return x + x;
}

template <int N>
int power(int x) {
    if constexpr (N == 0) {
        return 1;
    } else {
        return x * power<N - 1>(x);
    }
}

}  // namespace geo

static int bump(int x) {
    return x + 1;
}

int count_down(int n) {
    return n == 0 ? 0 : count_down(n - 1) + 1;
}

int main() {
    std::vector<int> values{1, 2, 3};
    values.push_back(4);
    const geo::Square square{3.0};
    auto scale = [](double x) { return x * 2; };
    const double a = scale(square.area());
    const int t = geo::twice(2) + static_cast<int>(geo::twice(1.5));
    const int p = geo::power<2>(3);
    const int c = count_down(2);
    const int l = lib_square(bump(1));
    std::printf("%g %d %d %d %d %zu\n", a, t, p, c, l, values.size());
    return 0;
}
