/* SPDX-License-Identifier: BSD-3-Clause */
/* A shared object that dlopen_main.c opens while it runs. */
static int plugin_helper(int x) {
    return x + 2;
}

int plugin_run(int x) {
    return plugin_helper(x) * 2;
}
