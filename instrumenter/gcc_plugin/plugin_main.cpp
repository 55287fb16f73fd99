// SPDX-License-Identifier: BSD-3-Clause
// Strata's GCC plugin: loaded with -fplugin=strata_gcc.so (the `strata` wrapper adds it), it
// replaces -finstrument-functions.  Argument:
//   -fplugin-arg-strata_gcc-filter=FILE   a Score-P filter file (the wrapper's --instrument-filter),
//                                         applied exactly as STRATA_FILTERING_FILE is at run time
// GCC's headers in the order they need (gcc-plugin.h first): not sorted.
// clang-format off
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "context.h"
#include "diagnostic-core.h"
#include "ggc.h"
#include "tree-pass.h"
// clang-format on

#include <cstring>

#include "instrument_pass.hpp"

// GCC loads only plugins that declare this; Strata's BSD-3-Clause licence is GPL-compatible.
int plugin_is_GPL_compatible;

namespace {

strata::gcc_plugin::CompileTimeFilter g_filter;

plugin_info g_info = {"0.1",
                      "Strata: records function entries and exits with a pre-registered region per function\n"
                      "  -fplugin-arg-strata_gcc-filter=FILE   (a Score-P filter file)\n"};

}  // namespace

int plugin_init(plugin_name_args* plugin, plugin_gcc_version* version) {
    // A plugin works only in the GCC it was built for (its data structures and passes differ
    // between releases): refuse any other, with a message the wrapper's users can act on.
    if (!plugin_default_version_check(version, &gcc_version)) {
        error(
            "%qs was built for GCC %s and cannot be loaded by GCC %s; rebuild Strata with this "
            "compiler, or use %<strata --no-plugin%>",
            plugin->full_name, gcc_version.basever, version->basever);
        return 1;
    }
    for (int i = 0; i < plugin->argc; ++i) {
        const plugin_argument& arg = plugin->argv[i];
        if (std::strcmp(arg.key, "filter") == 0 && arg.value != nullptr) {
            strata::filter::FilterFile filter;
            if (const strata::Error problem = strata::filter::read_filter_file(arg.value, &filter)) {
                error("%qs: %s", plugin->full_name, problem->c_str());
                return 1;
            }
            g_filter = std::move(filter);
        } else {
            error("%qs: unknown argument %<-fplugin-arg-%s-%s%>; the known argument is %<filter=FILE%>",
                  plugin->full_name, plugin->base_name, arg.key);
            return 1;
        }
    }
    register_callback(plugin->base_name, PLUGIN_INFO, nullptr, &g_info);
    register_callback(plugin->base_name, PLUGIN_REGISTER_GGC_ROOTS, nullptr,
                      const_cast<ggc_root_tab*>(strata::gcc_plugin::gc_roots()));

    register_pass_info pass;
    pass.pass = strata::gcc_plugin::make_instrument_pass(g, g_filter);
    // Before "lower": the body is still one GIMPLE_BIND whose try/finally the EH lowering
    // turns into the exit calls of every return and every unwinding path, exactly as it does
    // for -finstrument-functions (which GCC adds while gimplifying).
    pass.reference_pass_name = "lower";
    pass.ref_pass_instance_number = 1;
    pass.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(plugin->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
    return 0;
}
