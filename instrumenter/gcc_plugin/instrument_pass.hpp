// SPDX-License-Identifier: BSD-3-Clause
// The GIMPLE pass of Strata's GCC plugin: which functions it instruments and with what.
#pragma once

#include <string>
#include <vector>

// Forward declarations only: GCC's headers are included by the .cpp files.
namespace gcc {
class context;
}
class opt_pass;
struct ggc_root_tab;

namespace strata::gcc_plugin {

/// The compile-time exclude lists, as GCC's -finstrument-functions-exclude-{function,file}-list.
struct ExcludeLists {
    /// A function is excluded when one of these is a substring of its printable name.
    std::vector<std::string> functions;
    /// ... or of its source file name.
    std::vector<std::string> files;
};

/// Splits "a,b\,c" into {"a", "b,c"}, as GCC splits its exclude lists.
std::vector<std::string> split_list(const char* text);

/// The trees the pass keeps between functions, for PLUGIN_REGISTER_GGC_ROOTS.
const ggc_root_tab* gc_roots();

/// The pass, run on each function before the "lower" pass (while the body is still a
/// GIMPLE_BIND with structured try/finally): it emits the function's descriptor and the
/// checked calls of strata_plugin_enter/exit.
opt_pass* make_instrument_pass(gcc::context* context, const ExcludeLists& excludes);

}  // namespace strata::gcc_plugin
