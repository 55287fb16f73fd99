// SPDX-License-Identifier: BSD-3-Clause
// Runs MpiUnitDispenser under mpirun and prints, on rank 0, which rank took
// which unit: "rank R: u u u" per rank, then "left: u u" (what stop() left
// on rank 0).  The scenario is the first argument:
//   all       every rank takes units until none is left; rank 1 is slow
//   stop      rank 0 stops at once, rank 1 after its first unit; the others take the rest
//   stop-all  every rank stops at once: rank 0 is left with every unit
//   reverse, stop-all-reverse   as all and stop-all, the units handed out last first
// The second argument is the number of units.
#include <mpi.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "trace/message_exchange_mpi.hpp"

using strata::analysis::trace::MpiExchange;

namespace {

void nap_ms(long ms) {
    const timespec t{0, ms * 1000000L};
    nanosleep(&t, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const std::string scenario = argc > 1 ? argv[1] : "all";
    const std::int64_t count = argc > 2 ? std::atoll(argv[2]) : 20;
    MpiExchange exchange(MPI_COMM_WORLD);
    const std::size_t me = exchange.rank();
    std::vector<std::int64_t> taken, left;
    {
        std::vector<std::int64_t> order;
        if (scenario.size() >= 7 && scenario.compare(scenario.size() - 7, 7, "reverse") == 0) {
            for (std::int64_t u = count; u-- > 0;) order.push_back(u);
        }
        auto units = exchange.dispenser(count, order);
        const bool stop_now =
            scenario == "stop-all" || scenario == "stop-all-reverse" || (scenario == "stop" && me == 0);
        if (!stop_now) {
            for (std::int64_t unit = units->next(); unit >= 0; unit = units->next()) {
                taken.push_back(unit);
                if (scenario == "stop" && me == 1) break;
                // "Reading": rank 1 is four times as slow; rank 0 serves between batches.
                for (int batch = 0; batch < 4; ++batch) {
                    nap_ms(me == 1 ? 4 : 1);
                    units->serve();
                }
            }
        }
        left = units->stop();
    }
    std::string mine;
    for (const std::int64_t unit : taken) mine += " " + std::to_string(unit);
    const std::vector<std::string> all = exchange.gather(mine);
    if (me == 0) {
        for (std::size_t r = 0; r < all.size(); ++r) std::printf("rank %zu:%s\n", r, all[r].c_str());
        std::printf("left:");
        for (const std::int64_t unit : left) std::printf(" %lld", static_cast<long long>(unit));
        std::printf("\n");
    }
    MPI_Finalize();
    return 0;
}
