/* SPDX-License-Identifier: BSD-3-Clause */
/* The user-region benchmark through NVTX ranges (header-only NVTX v3), as a
 * CUDA program marks its phases; measured when Strata's CUDA adapter is the
 * NVTX injection library (strata-preload --cuda, or libstrata-cuda preloaded). */
#include <nvtx3/nvToolsExt.h>
#define BENCH_DECLARE(h)
#define BENCH_BEGIN(h, name) nvtxRangePushA(name)
#define BENCH_END(h, name) nvtxRangePop()
