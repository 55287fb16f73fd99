// SPDX-License-Identifier: BSD-3-Clause
// Many threads that fill small trace buffers at once (STRATA_TOTAL_MEMORY=1M):
// every buffer is flushed again and again while the others record, which is
// where memory outside the budget (the writing of the event files) shows.
//   bench-flush-threads-strata [THREADS] [REGIONS PER THREAD]
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 64;
    const long regions = argc > 2 ? std::atol(argv[2]) : 200000;
    std::vector<std::thread> team;
    for (int t = 0; t < threads; ++t) {
        team.emplace_back([regions] {
            for (long i = 0; i < regions; ++i) {
                BENCH_BEGIN(a, "a");
                BENCH_END(a, "a");
            }
        });
    }
    for (std::thread& t : team) t.join();
    std::printf("threads=%d regions=%ld\n", threads, threads * regions);
    return 0;
}
