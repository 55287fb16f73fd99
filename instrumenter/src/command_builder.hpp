// SPDX-License-Identifier: BSD-3-Clause
// Construction of the real compiler command from the user's command and the wrapper's options.
//
//   strata [options] <compiler> <args...>
//        |  classify(args) -> Step, inputs, -fopenmp, ...
//        |  resolve_features(options, compiler, classification) -> user/compiler/mpi/openmp/cuda
//        v  build_command(...)
//   <compiler> <args...> [compile additions] [link additions]
//
// compile, assemble, link with sources:  -finstrument-functions [GCC exclude lists]
//                                        (GCC with Strata's plugin: -fplugin=<strata_gcc.so>
//                                        [-fplugin-arg-strata_gcc-exclude-*-list=...])
//                                        -DSTRATA_USER_ENABLE -I<include dir>...
// preprocess:                            -DSTRATA_USER_ENABLE -I<include dir>...
// link, shared link:                     -L<dir> -Wl,-rpath,<dir>... -Wl,--no-as-needed
//                                        -lstrata-compiler -lstrata-mpi -lstrata-openmp
//                                        -lstrata-cuda -lstrata-user -lstrata-measurement
// query, partial link:                   nothing added
//
// The additions go after the user's arguments, so the user's -I and -L directories come first
// and Strata's libraries follow the objects that use them.  --as-needed is not re-enabled after
// Strata's libraries: they must stay linked even when the program references none of their
// symbols, because they start the measurement when the program loads.  For nvcc, host-compiler
// and linker flags are wrapped in -Xcompiler and -Xlinker.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command_classifier.hpp"
#include "compiler_kind.hpp"
#include "filter_file.hpp"
#include "layout.hpp"
#include "wrapper_options.hpp"

namespace strata::instrumenter {

/// What the wrapper turns on for one command, after detection.
struct Features {
    bool user = true;      ///< -DSTRATA_USER_ENABLE
    bool compiler = true;  ///< -finstrument-functions (or the GCC plugin) and -lstrata-compiler
    bool mpi = false;      ///< -lstrata-mpi
    bool openmp = false;   ///< -lstrata-openmp
    bool cuda = false;     ///< -lstrata-cuda
};

/// The options resolved against what the compiler's name and flags say.
Features resolve_features(const WrapperOptions& options, std::string_view compiler,
                          const Classification& classification);

/// Everything the builder needs besides the command line.
struct BuildContext {
    /// Strata's headers and libraries.
    Layout layout;
    /// The family receiving the instrumentation flags: the compiler's own, or nvcc's host
    /// compiler's.  Only GCC gets the exclude lists of --instrument-filter.
    CompilerFamily host_family = CompilerFamily::unknown;
    /// The --instrument-filter file, parsed.
    std::optional<FilterFile> filter;
    /// Strata's GCC plugin, loaded instead of -finstrument-functions; "" for
    /// -finstrument-functions (see choose_gcc_plugin()).
    std::string gcc_plugin;
};

/// The real command and what to tell the user about it.
struct BuiltCommand {
    /// The command to run: the compiler as given, its arguments, then Strata's additions.
    std::vector<std::string> argv;
    Features features;
    /// Printed always, each on one line after "strata: " ("warning: ..." or "note: ...").
    std::vector<std::string> messages;
    /// Printed with --verbose only, each after "strata: ".
    std::vector<std::string> verbose_messages;
    /// When set, nothing is run: the message is printed and strata exits with status 2.
    Error error;
};

/// Builds the real command for `options.compiler_command`, classified as `classification`.
BuiltCommand build_command(const WrapperOptions& options, const Classification& classification,
                           const BuildContext& context);

/// The names of all Strata libraries the wrapper may link, in link order.
std::vector<std::string> strata_library_names();

/// A command as one line a POSIX shell would read back into the same arguments.
std::string format_command(const std::vector<std::string>& argv);

}  // namespace strata::instrumenter
