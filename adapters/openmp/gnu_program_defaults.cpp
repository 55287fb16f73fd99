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
#include <cstdlib>

namespace {

__attribute__((constructor)) void use_libgomp_like_locks() {
    setenv("KMP_LOCK_KIND", "futex", /*overwrite=*/0);
}

}  // namespace
