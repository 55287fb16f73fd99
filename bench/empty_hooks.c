/* SPDX-License-Identifier: BSD-3-Clause */
/* -finstrument-functions hooks that do nothing, in a shared library as Strata's are: calls.c
 * linked with them measures what the compiler's instrumentation costs before any tool runs. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void* fn, void* call_site) {
    (void)fn;
    (void)call_site;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void* fn, void* call_site) {
    (void)fn;
    (void)call_site;
}
