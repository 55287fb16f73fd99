/* SPDX-License-Identifier: BSD-3-Clause */
/* The user-region benchmark through Strata's public macros, as a user writes them. */
#include <strata/strata.h>
#define BENCH_DECLARE(h)
#define BENCH_BEGIN(h, name) STRATA_REGION_BEGIN(name)
#define BENCH_END(h, name) STRATA_REGION_END(name)
