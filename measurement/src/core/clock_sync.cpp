// SPDX-License-Identifier: BSD-3-Clause
// Binomial-tree clock synchronisation by ping-pong.
#include "core/clock_sync.hpp"

#include <limits>

namespace strata::clock_sync {

namespace {

int lowest_bit(int r) { return r & -r; }

/// Whether `a` and `b` are known to read one clock.
bool same_clock(std::uint64_t a, std::uint64_t b) { return a != 0 && a == b; }

/// The parent's side of one ping-pong series: returns nothing, sends the
/// result.  First it learns the child's clock domain and tells it whether they
/// share the clock; if so, there is nothing to measure.
void serve(events::ProcessGroup& group, ClockFn clock, std::uint64_t domain, int child, int pings) {
    std::uint64_t child_domain = 0;
    group.receive(&child_domain, sizeof child_domain, child);
    const std::int64_t shared = same_clock(domain, child_domain) ? 1 : 0;
    group.send(&shared, sizeof shared, child);
    if (shared != 0) return;
    Ticks best_rtt = std::numeric_limits<Ticks>::max();
    std::int64_t best_offset = 0;
    for (int i = 0; i < pings; ++i) {
        const Ticks t1 = clock();
        group.send(&t1, sizeof t1, child);
        Ticks child_time = 0;
        group.receive(&child_time, sizeof child_time, child);
        const Ticks t2 = clock();
        const Ticks rtt = t2 - t1;
        if (rtt < best_rtt) {
            best_rtt = rtt;
            // The child read its clock halfway through the round trip.
            best_offset = static_cast<std::int64_t>(t1 + rtt / 2) - static_cast<std::int64_t>(child_time);
        }
    }
    const std::int64_t result[2] = {best_offset, static_cast<std::int64_t>(best_rtt / 2)};
    group.send(result, sizeof result, child);
}

}  // namespace

Point measure(events::ProcessGroup& group, ClockFn clock, std::uint64_t domain, int pings) {
    const int rank = group.rank(), size = group.size();
    Point point;
    Ticks my_time_at_sync = clock();
    std::int64_t offset_to_parent = 0, half_rtt = 0;
    // Rounds by increasing lowest bit: a rank pings at most once per round.
    for (int bit = 1; bit < size; bit <<= 1) {
        if (rank != 0 && lowest_bit(rank) == bit) {
            group.send(&domain, sizeof domain, rank - bit);
            std::int64_t shared = 0;
            group.receive(&shared, sizeof shared, rank - bit);
            if (shared != 0) continue;  // one clock: offset and error 0
            // Child: answer each ping with the local time.
            for (int i = 0; i < pings; ++i) {
                Ticks t1 = 0;
                group.receive(&t1, sizeof t1, rank - bit);
                const Ticks now = clock();
                if (i == pings - 1) my_time_at_sync = now;
                group.send(&now, sizeof now, rank - bit);
            }
            std::int64_t result[2] = {0, 0};
            group.receive(result, sizeof result, rank - bit);
            offset_to_parent = result[0];
            half_rtt = result[1];
        } else if (lowest_bit(rank) > bit || rank == 0) {
            if (rank + bit < size) serve(group, clock, domain, rank + bit, pings);
        }
    }
    // Down the tree: a parent's offset to rank 0 reaches its children, largest
    // subtrees first, so that every parent knows its own before it sends.
    std::int64_t to_root[2] = {0, 0};  // offset, accumulated error
    int top = 1;
    while (top < size) top <<= 1;
    for (int bit = top >> 1; bit >= 1; bit >>= 1) {
        if (rank != 0 && lowest_bit(rank) == bit) {
            group.receive(to_root, sizeof to_root, rank - bit);
            to_root[0] += offset_to_parent;
            to_root[1] += half_rtt;
        } else if ((rank == 0 || lowest_bit(rank) > bit) && rank + bit < size) {
            group.send(to_root, sizeof to_root, rank + bit);
        }
    }
    point.local_time = my_time_at_sync;
    point.offset = rank == 0 ? 0 : to_root[0];
    point.deviation = static_cast<double>(rank == 0 ? 0 : to_root[1]);
    return point;
}

}  // namespace strata::clock_sync
