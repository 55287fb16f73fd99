/* SPDX-License-Identifier: BSD-3-Clause */
/* A shared library of the test programs. */
#ifndef STRATA_TEST_MATHLIB_H
#define STRATA_TEST_MATHLIB_H
#ifdef __cplusplus
extern "C" {
#endif
int lib_square(int x);
#ifdef __cplusplus
}
#endif
#endif
