// SPDX-License-Identifier: BSD-3-Clause
// Synthetic experiments with known ground truth for strata-analyze, built
// on the profile fixture (raw HDF5 API, profile_fixture.hpp).
//
// imbalanced_profile(): 4 ranks x 1 thread; rank 3 computes twice as long,
// MPI_Allreduce compensates, so every rank runs R = 5 s:
//
//   call path            paradigm   rank 0   rank 1   rank 2   rank 3    (exclusive s)
//   MPI_Init (root)      mpi          0.5      0.25     0.25     0.25     (set apart)
//   main (root)          user         0.5      0.5      0.5      0.5
//   main/compute         user         2        2        2        4
//   main/MPI_Allreduce   mpi          2.5      2.5      2.5      0.5
//   MPI_Finalize (root)  mpi          0        0        0        0        (visited, no time)
//
//   U_p = 2.5, 2.5, 2.5, 4.5; mean 3, max 4.5 (rank 3); R = 5, wall 5.5 (rank 0)
//   LB = 3/4.5 = 0.666666667, CommE = 4.5/5 = 0.9, PE = 3/5 = 0.6
//   compute: mean 2.5, max 4 (rank 3), imbalance 0.375, saved 1.5, stddev sqrt(0.75)
//
// hybrid_profile(): 2 ranks x 2 threads (worker threads' call trees start at
// the parallel region):
//
//   call path                   r0 t0  r0 t1  r1 t0  r1 t1
//   main (root, user)            1.5     -     1.5     -
//   main/parallel (openmp wait)  0.5     -     0.5     -
//   main/parallel/work (user)    4       -     6       -
//   main/MPI_Allreduce (mpi)     2       -     0 (1 visit)
//   parallel (root, openmp)       -     0.5     -     0.5
//   parallel/work (user)          -     4       -     4
//
//   per thread useful: r0 5.5, 4; r1 7.5, 4 -> U_0 = 9.5/2 = 4.75, U_1 = 11.5/2 = 5.75
//   R = 8 (each rank's master thread); LB = 5.25/5.75 = 0.913043478,
//   CommE = 5.75/8 = 0.71875, PE = 5.25/8 = 0.65625
//   region work: r0 (4+4)/2 = 4, r1 (6+4)/2 = 5: mean 4.5, imbalance 0.1, saved 0.5
//
// Every figure is exact in binary floating point and in nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile_fixture.hpp"

namespace strata::analysis::test {

/// Builds a FixtureProfile from regions, locations, call paths and
/// exclusive times; inclusive times are derived (exclusive + children).
class ProfileBuilder {
public:
    ProfileBuilder();

    /// Adds a region; paradigm and role as the format numbers them.
    std::uint32_t region(const std::string& name, std::uint8_t paradigm, std::uint8_t role);
    /// Adds a location of `type` (0 CPU thread, 1 GPU stream) with id rank << 32 | thread.
    std::size_t location(std::uint32_t rank, std::uint32_t thread, std::uint8_t type = 0);
    /// Adds a call path below `parent` (-1: a root).
    std::size_t callpath(std::int64_t parent, std::uint32_t region);
    /// Adds a parameter node `name`=`value` below `parent` (of the parent's region).
    std::size_t parameter_callpath(std::size_t parent, const std::string& name, std::int64_t value);
    /// Sets the visits and exclusive time of (call path, location).
    void set(std::size_t callpath, std::size_t location, std::uint64_t visits, double exclusive);
    /// Sets an integral metric (e.g. bytes_sent, unit `unit`) of (call path, location); it exists once set.
    void set_count(const std::string& metric, const std::string& unit, std::size_t callpath,
                   std::size_t location, std::uint64_t value);
    /// Sets the exclusive value of a counter (e.g. "papi:PAPI_TOT_INS"): build() writes
    /// "<counter>_exclusive" and "<counter>_inclusive" (exclusive + the children's inclusive).
    void set_counter(const std::string& counter, std::size_t callpath, std::size_t location,
                     std::uint64_t exclusive);

    /// The profile, with the three metrics.
    FixtureProfile build() const;

private:
    std::uint32_t string(const std::string& text);

    /// Values of an integral metric, [call path][location], grown as call paths and locations are added.
    struct Counts {
        std::string name, unit;
        bool counter;  ///< a counter: exclusive values, written as _exclusive and _inclusive
        std::vector<std::vector<std::uint64_t>> values;
    };
    Counts& counts(const std::string& name, const std::string& unit, bool counter);

    FixtureProfile profile_;
    std::vector<std::vector<std::uint64_t>> visits_;  ///< [call path][location]
    std::vector<std::vector<double>> exclusive_;
    std::vector<Counts> counts_;
};

/// Paradigm and role numbers of the format.
namespace paradigm {
inline constexpr std::uint8_t user = 1, compiler = 2, mpi = 3, openmp = 4, cuda = 5, measurement = 6;
}
namespace role {
inline constexpr std::uint8_t function = 1, code = 2, loop = 3, parallel = 5, barrier = 6, implicit_barrier = 7,
                              point_to_point = 8, coll_all2all = 11, artificial = 13, critical = 19,
                              critical_sblock = 20, task = 24, lock = 28, file_io = 29;
}

/// The 4-rank profile described above.
FixtureProfile imbalanced_profile();

/// A recursion `depth` deep on one thread: call paths f, f/f, ... (1 visit and
/// `exclusive` seconds each), and below the deepest, when `bottom` is not
/// empty, one call path of the MPI region `bottom` with 0.5 s.
FixtureProfile deep_recursion_profile(std::size_t depth, double exclusive, const std::string& bottom = "");

/// The 2 ranks x 2 threads profile described above.
FixtureProfile hybrid_profile();

/// calltree_profile(): what calltree.json and the page's call tree are checked on:
/// 2 ranks, rank 0 with 2 CPU threads, rank 1 with a CPU thread and a GPU stream,
/// a parameter node, bytes sent, a PAPI counter pair and a region named like markup
/// (`odd_region_name`):
///
///   call path (exclusive s)         L0 r0t0    L1 r0t1   L2 r1t0   L3 r1 stream 1
///   main                            1 (1)        -       0.5 (1)      -
///   main/solve                      2 (2)        -       3 (2)        -
///   main/solve/<odd>                0.5 (4)      -       1.5 (4)      -
///   main/solve/n=4                  0.125 (1)    -       -            -
///   main/MPI_Send                   0.25 (3)     -       0.75 (3)     -          bytes_sent 4096, 1024
///   worker                          -          2 (1)     -            -
///   kernel                          -            -       -          0.5 (5)
///   (visits in parentheses)
///
///   papi:PAPI_TOT_INS exclusive: main 100, 50; solve 1000, 3000; <odd> 10, 30; n=4 7, -;
///   worker 2000 on L1
FixtureProfile calltree_profile();

/// The region name of calltree_profile() that must stay text on the page.
inline constexpr const char* odd_region_name = "</script><img src=x onerror=alert(1)>";

/// Writes `profile` as `<directory>/profile.h5` (creating the directory).
void write_experiment(const FixtureProfile& profile, const std::string& directory);

}  // namespace strata::analysis::test
