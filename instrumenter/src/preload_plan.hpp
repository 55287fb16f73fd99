// SPDX-License-Identifier: BSD-3-Clause
// What `strata-preload` preloads: its options, the adapter table, and the LD_PRELOAD value.
//
//   options (--mpi/--no-mpi, ...) + the program's DT_NEEDED closure + the library directory
//     -> [adapters the program needs] strata-user strata-measurement [the user's LD_PRELOAD]
//
// Pure functions over strings, unit-tested in tests/preload/.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "library_search.hpp"
#include "wrapper_options.hpp"

#include "strata/measurement/error.hpp"

namespace strata::instrumenter {

/// What the user asked of `strata-preload`, before the program's name.
struct PreloadOptions : SharedOptions {
    /// Adapters forced on (`--mpi`) or off (`--no-mpi`), by feature name ("mpi"); others are detected.
    std::map<std::string, bool> forced;
    /// The program and its arguments, exactly as given.
    std::vector<std::string> command;
};

/// The command line read: options, or a one-line error (exit status 2).
struct ParsedPreloadArguments {
    PreloadOptions options;
    Error error;
};

/// Reads `strata-preload [options] <program> [arguments...]` (without argv[0]).  Options end at
/// the first argument not starting with '-', or after `--`.
ParsedPreloadArguments parse_preload_arguments(const std::vector<std::string>& args);

/// The text of `strata-preload --help`.
std::string preload_usage_text();

/// The text of `strata-preload --version`.
std::string preload_version_text();

/// An adapter library preloaded when the program needs one of its trigger libraries.
struct PreloadAdapter {
    /// The option and feature name: `--<feature>` forces it, `--no-<feature>` leaves it out.
    std::string feature;
    /// The Strata library, without "lib" and ".so" ("strata-mpi").
    std::string library;
    /// For messages: "MPI".
    std::string paradigm;
    /// Base names (library_base_name) of the libraries that mean the program uses the paradigm,
    /// anywhere in its DT_NEEDED closure.
    std::vector<std::string> triggers;
};

/// The adapter table, in LD_PRELOAD order (a new adapter is one more row; see preload_plan.cpp).
const std::vector<PreloadAdapter>& preload_adapters();

/// The libraries always preloaded, in LD_PRELOAD order after the adapters.
const std::vector<std::string>& preload_core_libraries();

/// Everything the plan is made from.
struct PreloadInputs {
    /// The program's DT_NEEDED closure (needed_closure).
    std::vector<NeededLibrary> needed;
    /// The absolute path of lib<library>.so in Strata's library directory, or empty when missing.
    std::function<std::string(const std::string& library)> find_library;
    /// The DT_NEEDED entries of a Strata library given by path, to tell an adapter built for another
    /// runtime of its paradigm (libmpi.so.12 against libmpi.so.40); unset: no such check.
    std::function<std::vector<std::string>(const std::string& path)> library_needed;
    /// The library directories, for messages ("/opt/strata/lib").
    std::string library_dirs;
    /// LD_PRELOAD of the environment (empty when unset).
    std::string existing_preload;
    /// The program carries CUDA device code (ElfInfo::cuda_device_code): the CUDA adapter is wanted
    /// although no CUDA library is in `needed`.
    bool cuda_device_code = false;
    /// LLVM's OpenMP runtime (libomp.so, which has OMPT), preloaded for programs on GCC's
    /// libgomp (which has none); empty when this build knows of none.
    std::string openmp_runtime;
};

/// The outcome: the value of LD_PRELOAD, or an error.
struct PreloadPlan {
    /// Strata's libraries to preload, absolute, in order.
    std::vector<std::string> libraries;
    /// The new value of LD_PRELOAD: `libraries` joined by ':', then the existing entries that are
    /// not among them.
    std::string ld_preload;
    /// The program links Strata already (it was built with `strata <compiler>`): run it as it is.
    bool already_linked = false;
    /// The adapters preloaded, by feature name ("mpi").
    std::vector<std::string> features;
    /// Printed with --verbose: why each adapter is in or out.
    std::vector<std::string> notes;
    /// Always printed (an adapter the program needs is not built, ...).
    std::vector<std::string> warnings;
    /// When set, nothing is run, exit status 2.
    Error error;
};

/// Decides what to preload for a program.
PreloadPlan plan_preload(const PreloadOptions& options, const PreloadInputs& inputs);

}  // namespace strata::instrumenter
