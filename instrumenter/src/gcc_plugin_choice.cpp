// SPDX-License-Identifier: BSD-3-Clause
// The choice between Strata's GCC plugin and -finstrument-functions.
#include "gcc_plugin_choice.hpp"

namespace strata::instrumenter {

std::string first_line(const std::string& text) {
    const auto end = text.find('\n');
    std::string line = text.substr(0, end);
    const auto first = line.find_first_not_of(" \t\r");
    const auto last = line.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : line.substr(first, last - first + 1);
}

PluginChoice choose_gcc_plugin(const Layout& layout, const std::string& compiler,
                               const CompilerIdentity& identity) {
    PluginChoice choice;
    const std::string fallback = "; instrumenting with -finstrument-functions";
    if (layout.gcc_plugin.empty()) {
        choice.note = "note: Strata was built without its GCC plugin" + fallback;
        return choice;
    }
    if (identity.version != layout.gcc_plugin_gcc_version) {
        choice.note = "note: '" + compiler + "' is GCC " +
                      (identity.version.empty() ? "(unknown version)" : identity.version) +
                      ", Strata's GCC plugin was built for GCC " + layout.gcc_plugin_gcc_version + fallback;
        return choice;
    }
    if (identity.plugin_dir != layout.gcc_plugin_gcc_dir) {
        choice.note =
            "note: '" + compiler + "' is another build of GCC " + identity.version + " (plugin directory " +
            (identity.plugin_dir.empty() ? "unknown" : identity.plugin_dir) +
            ") than the one Strata's GCC plugin was built for (" + layout.gcc_plugin_gcc_dir + ")" + fallback;
        return choice;
    }
    choice.plugin = layout.gcc_plugin;
    choice.note = "note: instrumenting with Strata's GCC plugin (" + layout.gcc_plugin + ")";
    return choice;
}

}  // namespace strata::instrumenter
