// SPDX-License-Identifier: BSD-3-Clause
// The options of `strata` itself (those before the compiler), their parsing and help text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/measurement/error.hpp"

namespace strata::instrumenter {

/// The options `strata` and `strata-preload` share.
struct SharedOptions {
    /// GCC-compiled OpenMP programs run on LLVM's libomp (measured through OMPT) instead of
    /// their own libgomp (measured through its GOMP_* entry points): `--gcc-openmp-runtime=libomp`.
    bool gcc_openmp_on_libomp = false;
    /// Print what is run (the real command; the libraries and LD_PRELOAD) to stderr first.
    bool verbose = false;
    /// Print it to stdout and run nothing.
    bool dry_run = false;
    /// Print the help text and exit.
    bool help = false;
    /// Print the version and exit.
    bool version = false;
};

/// Applies `arg` when it is one of the shared options (`*applied` then true);
/// the error names a bad value and the accepted ones.
Error apply_shared_option(const std::string& arg, SharedOptions& options, bool* applied);

/// What the user asked of the wrapper, before the compiler's name.
struct WrapperOptions : SharedOptions {
    /// Define STRATA_USER_ENABLE so the macros of <strata/strata.h> record (`--user`, `--no-user`).
    bool user = true;
    /// Automatic function instrumentation (`--compiler`, `--no-compiler`).
    bool compiler = true;
    /// Instrument with Strata's GCC plugin when the compiler is the GCC it was built for, else
    /// with -finstrument-functions (`--plugin`, `--no-plugin`: always -finstrument-functions).
    bool plugin = true;
    /// Link the MPI adapter; unset means detect from the compiler name (mpicc, mpif90, ...).
    std::optional<bool> mpi;
    /// Link the OpenMP adapter; unset means detect from the flags (-fopenmp, -qopenmp, ...).
    std::optional<bool> openmp;
    /// Link the CUDA adapter; unset means detect from the compiler name (nvcc).
    std::optional<bool> cuda;
    /// A Score-P filter file whose EXCLUDE rules are applied at compile time where possible.
    std::string instrument_filter;
    /// The compiler and its arguments, exactly as given.
    std::vector<std::string> compiler_command;
};

/// The result of reading the command line: options, or an error message (exit status 2).
struct ParsedArguments {
    WrapperOptions options;
    /// None on success; otherwise a one-line message without the "strata: " prefix.
    Error error;
};

/// Reads `strata [options] <compiler> [arguments...]` (`args` excludes argv[0]).
/// Options end at the first argument that does not start with '-', or after `--`.
ParsedArguments parse_wrapper_arguments(const std::vector<std::string>& args);

/// Reads a boolean environment value: 1/true/yes/on and 0/false/no/off (any case), empty = false.
/// Returns nullopt for anything else.
std::optional<bool> parse_boolean(std::string_view text);

/// The value of `--gcc-openmp-runtime=` (of the wrapper and of strata-preload): true for
/// "libomp", false for "libgomp", nullopt for anything else.
std::optional<bool> gcc_openmp_on_libomp(std::string_view runtime);

/// The text printed by `strata --help`.
std::string usage_text();

/// The text printed by `strata --version`.
std::string version_text();

}  // namespace strata::instrumenter
