// SPDX-License-Identifier: BSD-3-Clause
// libstrata-openmp-gnu: loaded only into programs whose OpenMP code GCC compiled
// and which Strata runs on LLVM's libomp instead of GCC's libgomp (libgomp has
// no OMPT): the `strata` wrapper links it after libomp, strata-preload preloads
// it with libomp.
//
// libgomp's locks and critical sections sleep in the kernel (futex) after a
// short spin; libomp's default locks for GCC's 4-byte omp_lock_t keep spinning.
// On a busy machine that made a lock-heavy program (Velvet's velveth) 7 times
// slower on libomp than on libgomp before anything was measured.  So unless the
// user chose a lock kind, libomp gets futex locks, as the program had on
// libgomp.  libomp reads its settings when the program first uses OpenMP, after
// this constructor.
//
// Waiting is another matter: libgomp's threads spin a fixed count, then sleep
// on a futex; libomp's spin for KMP_BLOCKTIME (200 ms), yielding when there
// are more threads than cores, then sleep.  No setting of libomp waits as
// libgomp does (bench/run_omp_gcc.sh: with 2 processes of 2 threads on 2
// cores, 2000 parallel regions took many seconds on libgomp and a fraction of
// one on libomp, with or without Strata).  So the run says so, once per job.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

/// This process is the first of a job, or not in one (rank variables of Open MPI, MPICH, PMIx, Slurm).
bool first_of_job() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
        const char* rank = std::getenv(name);
        if (rank != nullptr) return std::strcmp(rank, "0") == 0;
    }
    return true;
}

__attribute__((constructor)) void use_libgomp_like_locks() {
    setenv("KMP_LOCK_KIND", "futex", /*overwrite=*/0);
    if (first_of_job()) {
        std::fputs("strata: note: this GCC-compiled OpenMP program runs on LLVM's libomp, which Strata can "
                   "measure (GCC's runtime has no tool interface): its threads wait as libomp's do, so where "
                   "threads outnumber cores its OpenMP timings can differ much from a run without Strata; "
                   "OMP_WAIT_POLICY=passive makes both runtimes' threads sleep at once\n",
                   stderr);
    }
}

}  // namespace
