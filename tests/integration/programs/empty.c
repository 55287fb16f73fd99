/* SPDX-License-Identifier: BSD-3-Clause */
/* Records nothing: the trace must still be a readable (empty) archive. */
int main(void) { return 0; }
