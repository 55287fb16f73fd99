// SPDX-License-Identifier: BSD-3-Clause
// Threads that each record a little and end, 8 at a time, hundreds in all (a
// thread per task): every one is a location of the trace and of the profile.
#include <strata/strata.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 400;
    for (int done = 0; done < n; done += 8) {
        std::vector<std::thread> threads;
        for (int t = 0; t < 8 && done + t < n; ++t) {
            threads.emplace_back([] {
                for (int i = 0; i < 3; ++i) {
                    STRATA_REGION_BEGIN("task");
                    STRATA_REGION_END("task");
                }
            });
        }
        for (std::thread& t : threads) t.join();
    }
    std::printf("many_threads: %d\n", n);
    return 0;
}
