// SPDX-License-Identifier: BSD-3-Clause
// Four threads fill small trace buffers at once: every thread keeps recording
// (no thread is starved of pages by the others) and nothing is lost.
#include <strata/strata.h>

#include <thread>
#include <vector>

int main() {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([] {
            for (int i = 0; i < 100000; ++i) {
                STRATA_REGION_BEGIN("a");
                STRATA_REGION_BEGIN("b");
                STRATA_REGION_END("b");
                STRATA_REGION_END("a");
            }
        });
    }
    for (auto& t : threads) t.join();
    return 0;
}
