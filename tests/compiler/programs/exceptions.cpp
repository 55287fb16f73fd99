// SPDX-License-Identifier: BSD-3-Clause
// Exceptions: the exit hooks of the frames an exception unwinds are called, so regions stay nested.
//   main -> outer (2x) -> inner; the first inner throws through outer to main.
#include <cstdio>
#include <stdexcept>

int inner(int x) {
    if (x > 0) throw std::runtime_error("positive");
    return x;
}

int outer(int x) {
    return inner(x) + 1;
}

int main() {
    try {
        outer(1);
    } catch (const std::exception& e) {
        std::printf("caught %s\n", e.what());
    }
    std::printf("%d\n", outer(0));
    return 0;
}
