// SPDX-License-Identifier: BSD-3-Clause
// Parsing of the wrapper's own options and the --help and --version texts.
#include "wrapper_options.hpp"

#include <algorithm>
#include <cctype>

#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

namespace strata::instrumenter {
namespace {

/// Applies a `--name`/`--no-name` switch; returns false when `arg` is not one.
bool apply_switch(std::string_view arg, WrapperOptions& options) {
    if (arg.substr(0, 2) != "--") return false;
    auto name = arg.substr(2);
    const bool value = name.substr(0, 3) != "no-";
    if (!value) name.remove_prefix(3);
    if (name == "user") {
        options.user = value;
    } else if (name == "compiler") {
        options.compiler = value;
    } else if (name == "plugin") {
        options.plugin = value;
    } else if (name == "mpi") {
        options.mpi = value;
    } else if (name == "openmp") {
        options.openmp = value;
    } else if (name == "cuda") {
        options.cuda = value;
    } else {
        return false;
    }
    return true;
}

}  // namespace

ParsedArguments parse_wrapper_arguments(const std::vector<std::string>& args) {
    ParsedArguments result;
    auto& options = result.options;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.empty() || arg[0] != '-') break;
        if (arg == "--") {
            ++i;
            break;
        }
        if (apply_switch(arg, options)) continue;
        bool shared = false;
        result.error = apply_shared_option(arg, options, &shared);
        if (result.error) return result;
        if (shared) continue;
        if (arg.rfind("--instrument-filter=", 0) == 0) {
            options.instrument_filter = arg.substr(sizeof("--instrument-filter=") - 1);
            if (options.instrument_filter.empty()) {
                result.error = "option '--instrument-filter' needs a file: --instrument-filter=FILE";
                return result;
            }
        } else if (arg == "--instrument-filter") {
            if (i + 1 == args.size()) {
                result.error = "option '--instrument-filter' needs a file: --instrument-filter=FILE";
                return result;
            }
            options.instrument_filter = args[++i];
        } else {
            result.error =
                "unknown option '" + arg + "' (strata's options go before the compiler; see 'strata --help')";
            return result;
        }
    }
    options.compiler_command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    return result;
}

Error apply_shared_option(const std::string& arg, SharedOptions& options, bool* applied) {
    *applied = true;
    if (arg == "--verbose") {
        options.verbose = true;
    } else if (arg == "--dry-run") {
        options.dry_run = true;
    } else if (arg == "--help" || arg == "-h") {
        options.help = true;
    } else if (arg == "--version") {
        options.version = true;
    } else if (arg.rfind("--gcc-openmp-runtime=", 0) == 0) {
        const std::string runtime = arg.substr(sizeof("--gcc-openmp-runtime=") - 1);
        const std::optional<bool> on_libomp = gcc_openmp_on_libomp(runtime);
        if (!on_libomp) {
            return "option '--gcc-openmp-runtime' takes libgomp (GCC's own, the default) or libomp (LLVM's), not '" +
                   runtime + "'";
        }
        options.gcc_openmp_on_libomp = *on_libomp;
    } else {
        *applied = false;
    }
    return {};
}

std::optional<bool> gcc_openmp_on_libomp(std::string_view runtime) {
    if (runtime == "libomp") return true;
    if (runtime == "libgomp") return false;
    return std::nullopt;
}

std::optional<bool> parse_boolean(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.empty() || lower == "0" || lower == "false" || lower == "no" || lower == "off") {
        return false;
    }
    if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
    return std::nullopt;
}

std::string usage_text() {
    return R"(Usage: strata [options] <compiler> [compiler arguments...]

Builds a program with Strata measurement: compile steps get the instrumentation
flags and Strata's include path; link steps get Strata's libraries and an rpath,
so the program runs without LD_LIBRARY_PATH.  Works with gcc, g++, gfortran,
clang, clang++, mpicc, mpicxx, mpif90 (any MPI wrapper), nvcc and others.

  strata mpicc -O2 -fopenmp app.c -o app
  CC="strata gcc" CXX="strata g++" cmake ..

Options (before the compiler):
  --user, --no-user          define STRATA_USER_ENABLE, which turns the macros of
                             <strata/strata.h> into recording calls (default: on)
  --compiler, --no-compiler  automatic function instrumentation (default: on):
                             with Strata's GCC plugin when the compiler is the
                             GCC Strata was built with, else -finstrument-functions
  --plugin, --no-plugin      --no-plugin: always use -finstrument-functions
  --mpi, --no-mpi            link the MPI adapter (default: on when the compiler's
                             name starts with "mpi", e.g. mpicc, mpicxx, mpif90, for
                             parallel HDF5's h5pcc and h5pfc, and when the command
                             links an MPI library: -lmpi, -lmpich, libmpi.so, ...)
  --openmp, --no-openmp      link the OpenMP adapter (default: on with -fopenmp,
                             -fopenmp=..., -fiopenmp, -qopenmp, nvcc -Xcompiler -fopenmp)
  --gcc-openmp-runtime=libgomp|libomp
                             the OpenMP runtime of a program whose OpenMP code GCC
                             compiles: libgomp (the default: its own, measured
                             through its GOMP_* entry points) or LLVM's libomp
                             (measured through OMPT; its threads wait differently)
  --cuda, --no-cuda          link the CUDA adapter (default: on for nvcc)
  --instrument-filter=FILE   apply a Score-P filter file at compile time: with
                             Strata's GCC plugin every rule, exactly; with
                             -finstrument-functions GCC's substring lists take the
                             rules of the form EXCLUDE *text*, other compilers none;
                             the other rules apply when the program runs with
                             STRATA_FILTERING_FILE=FILE
  --verbose                  print the real command to stderr before running it
  --dry-run                  print the real command to stdout and run nothing
  --help, -h                 print this help
  --version                  print Strata's version
  --                         end of strata's options

Environment:
  STRATA_WRAPPER_DISABLE=1   run the compiler untouched (e.g. while a configure
                             script probes the compiler)

Version and information queries (--version, -dumpversion, -print-*, ...) and
commands without input files are passed to the compiler unchanged.  The exit
status is the compiler's; 127 when the compiler is not found; 2 for a usage error.
)";
}

std::string version_text() {
    return std::string("strata (Strata) ") + STRATA_VERSION + "\n";
}

}  // namespace strata::instrumenter
