/* SPDX-License-Identifier: BSD-3-Clause */
/* A shared object the resolver's tests open with dlopen after the first lookups. */
static int plugin_helper(int x) {
    return x + 2;
}

int plugin_entry(int x) {
    return plugin_helper(x) * 2;
}

/* The address of the static function, which dlsym cannot find. */
void* plugin_helper_address(void) {
    return (void*)&plugin_helper;
}
