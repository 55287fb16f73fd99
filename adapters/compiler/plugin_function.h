// SPDX-License-Identifier: BSD-3-Clause
// The descriptor Strata's GCC plugin (instrumenter/gcc_plugin/) emits for each instrumented
// function, and the two entry points its code calls.  The plugin builds the same layout as GCC
// trees; both sides check it against this header.
//
//   static struct strata_plugin_function d = {0, line, "mangled", "name", "file"};
//   f() {
//       if (d.handle != STRATA_PLUGIN_FILTERED) strata_plugin_enter(&d);
//       try { body } finally { if (d.handle != STRATA_PLUGIN_FILTERED) strata_plugin_exit(&d); }
//   }
// (The instrumented code refers to the two functions weakly and skips the calls when they are
// not linked.)
#ifndef STRATA_PLUGIN_FUNCTION_H
#define STRATA_PLUGIN_FUNCTION_H

#include <stdint.h>

/// `handle` of a function that is never recorded: its calls cost a load and a branch.
#define STRATA_PLUGIN_FILTERED 0xFFFFFFFFu
/// `handle` of a function not seen yet by the runtime.
#define STRATA_PLUGIN_UNREGISTERED 0u

/// One instrumented function, a static object of the translation unit that defines it.
struct strata_plugin_function {
    /// 0 until the first call, then the region handle or STRATA_PLUGIN_FILTERED.  Written once
    /// by the runtime (atomically, under its lock); read without synchronisation by the code.
    uint32_t handle;
    uint32_t line;        ///< line of the function's declaration (0 when unknown)
    const char* mangled;  ///< the assembler name ("_Z4workv"; C: the name)
    const char* name;     ///< the name as the compiler prints it
    const char* file;     ///< absolute path of the source file ("" when unknown)
};

#ifdef __cplusplus
extern "C" {
#endif
/// Called at the entry of an instrumented function whose handle is not FILTERED.
void strata_plugin_enter(struct strata_plugin_function* function);
/// Called at every exit (returns and exceptions) of such a function.
void strata_plugin_exit(struct strata_plugin_function* function);
#ifdef __cplusplus
}
#endif

#endif
