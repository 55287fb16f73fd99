// SPDX-License-Identifier: BSD-3-Clause
// Exceptions through several instrumented frames: every frame an exception leaves records its
// exit, and destructors run during unwinding are recorded inside the frame they belong to.
//   main -> rethrower (2x, both throw) -> top -> middle -> deepest(2) -> deepest(1) -> deepest(0) throws
//        -> top(-1) returns normally; absorb -> deepest(0) throws and absorb catches it
#include <cstdio>
#include <stdexcept>

int destroyed = 0;

struct Guard {
    ~Guard() { ++destroyed; }
};

int deepest(int n) {
    if (n == 0) throw std::runtime_error("deep");
    if (n < 0) return 7;
    return deepest(n - 1) + 1;
}

int middle(int n) {
    Guard guard;
    return deepest(n);
}

int top(int n) {
    try {
        return middle(n);
    } catch (const std::logic_error&) {  // not what deepest throws: the exception passes on
        return -1;
    }
}

int rethrower(int n) {
    try {
        return top(n);
    } catch (...) {
        throw;
    }
}

int absorb() {
    try {
        return deepest(0);
    } catch (const std::exception&) {
        return 5;
    }
}

int main() {
    int caught = 0;
    for (int i = 0; i < 2; ++i) {
        try {
            rethrower(2);
        } catch (const std::exception&) {
            ++caught;
        }
    }
    const int normal = top(-1);
    const int absorbed = absorb();
    std::printf("%d %d %d %d\n", caught, normal, absorbed, destroyed);
    return 0;
}
