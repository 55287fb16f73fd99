/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared library of the demo project. */
#ifndef RENDER_H
#define RENDER_H
#ifdef __cplusplus
extern "C" {
#endif
int render_line(double value);
#ifdef __cplusplus
}
#endif
#endif
