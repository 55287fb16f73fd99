// SPDX-License-Identifier: BSD-3-Clause
// Whether a compile step gets Strata's GCC plugin or -finstrument-functions.
//
// A GCC plugin runs inside the compiler and is tied to the exact GCC build it was compiled
// against: GCC refuses any other.  The wrapper therefore uses it only when the compiler (or
// what an MPI wrapper runs) reports the version and plugin directory recorded when Strata was
// built, and falls back to -finstrument-functions, with a --verbose note, otherwise.
#pragma once

#include <string>

#include "layout.hpp"

namespace strata::instrumenter {

/// The plugin's name for GCC: the file name without ".so", the <name> of -fplugin-arg-<name>-<key>.
inline constexpr const char* gcc_plugin_name = "strata_gcc";

/// What the compiler said about itself: `-dumpfullversion` and `-print-file-name=plugin`
/// (its real path), each without the final newline; empty when it could not be asked.
struct CompilerIdentity {
    std::string version;
    std::string plugin_dir;
};

/// The decision for one command.
struct PluginChoice {
    /// The plugin to load (-fplugin=...), "" for -finstrument-functions.
    std::string plugin;
    /// Why (printed with --verbose, after "strata: ").
    std::string note;
};

/// The plugin when `compiler`'s identity matches the GCC the plugin of `layout` was built for.
PluginChoice choose_gcc_plugin(const Layout& layout, const std::string& compiler,
                               const CompilerIdentity& identity);

/// The first line of `text` without surrounding white space.
std::string first_line(const std::string& text);

}  // namespace strata::instrumenter
