// SPDX-License-Identifier: BSD-3-Clause
// C++ scopes and threads: each thread is a location with its own call paths.
#include <strata/strata.h>

#include <cstdio>
#include <thread>
#include <vector>

static thread_local volatile double sink;  // per thread: no data race between the threads

static void leaf() {
    STRATA_SCOPE("leaf");
    for (int i = 0; i < 1000; ++i) sink = sink + 1.0;
}

static void worker(int calls) {
    STRATA_SCOPE("worker");
    for (int i = 0; i < calls; ++i) leaf();
}

int main() {
    STRATA_SCOPE("main");
    std::vector<std::thread> threads;
    for (int t = 1; t <= 3; ++t) threads.emplace_back(worker, 10 * t);  // 10, 20, 30 leaves
    for (auto& t : threads) t.join();
    worker(5);
    std::printf("scope: done\n");
    return 0;
}
