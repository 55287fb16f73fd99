// SPDX-License-Identifier: BSD-3-Clause
// The compile and link additions of the wrapper.
#include "command_builder.hpp"

#include <algorithm>
#include <filesystem>

#include "gcc_plugin_choice.hpp"

namespace strata::instrumenter {
namespace {

/// A library the wrapper may link.
struct LibrarySpec {
    std::string_view name;
    bool Features::*wanted;  // null: always linked
    /// An adapter is left out when it is missing; the core libraries stay (the link then fails
    /// with the linker's own message).
    bool adapter;
    std::string_view what;
};

constexpr LibrarySpec libraries[] = {
    {"strata-compiler", &Features::compiler, false, "function instrumentation hooks"},
    {"strata-mpi", &Features::mpi, true, "MPI adapter"},
    {"strata-openmp", &Features::openmp, true, "OpenMP adapter"},
    {"strata-cuda", &Features::cuda, true, "CUDA adapter"},
    {"strata-user", nullptr, false, "user API"},
    {"strata-measurement", nullptr, false, "measurement runtime"},
};

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string joined;
    for (const auto& item : items) {
        if (!joined.empty()) joined += separator;
        joined += item;
    }
    return joined.empty() ? "(no directory)" : joined;
}

void add_defines_and_includes(const Features& features, const Layout& layout,
                              std::vector<std::string>& argv) {
    if (features.user) argv.push_back("-DSTRATA_USER_ENABLE");
    for (const auto& dir : layout.include_dirs) argv.push_back("-I" + dir);
}

void add_filter_flags(const WrapperOptions& options, const BuildContext& context, bool nvcc,
                      const std::string& host_compiler, std::vector<std::string>& argv, BuiltCommand& built) {
    const auto& path = options.instrument_filter;
    const std::string run_time_hint = "set STRATA_FILTERING_FILE=" + path + " when running the program";
    if (context.host_family != CompilerFamily::gnu) {
        const std::string compiler =
            nvcc ? "'" + host_compiler + "' (nvcc's host compiler)" : "'" + options.compiler_command[0] + "'";
        built.messages.push_back("note: compile-time filtering (--instrument-filter) is not supported for " +
                                 compiler + "; the run-time filter applies: " + run_time_hint);
        return;
    }
    if (!context.gcc_plugin.empty() && !nvcc) {
        // The plugin reads the file itself and applies every rule exactly, as the runtime would.
        std::error_code ignored;
        const std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
        argv.push_back("-fplugin-arg-" + std::string(gcc_plugin_name) + "-filter=" +
                       (absolute.empty() ? path : absolute.string()));
        return;
    }
    const auto filter = compile_time_filter(*context.filter, nvcc);
    const auto flags = gcc_exclude_flags(filter, nvcc);
    argv.insert(argv.end(), flags.begin(), flags.end());
    if (filter.run_time_only.empty()) return;
    built.messages.push_back("note: " + std::to_string(filter.run_time_only.size()) +
                             " EXCLUDE pattern(s) of " + path +
                             " cannot be applied exactly at compile time; " + run_time_hint +
                             (options.verbose ? "" : " (--verbose lists them)"));
    for (const auto& line : filter.run_time_only) {
        built.verbose_messages.push_back("note: run time only: " + line);
    }
}

void add_compile_flags(const WrapperOptions& options, const Features& features, const BuildContext& context,
                       const Classification& classification, bool nvcc, std::vector<std::string>& argv,
                       BuiltCommand& built) {
    if (features.compiler) {
        if (!context.gcc_plugin.empty() && !nvcc) {
            argv.push_back("-fplugin=" + context.gcc_plugin);
        } else {
            if (nvcc) argv.push_back("-Xcompiler");
            argv.push_back("-finstrument-functions");
        }
        if (!options.instrument_filter.empty() && context.filter) {
            add_filter_flags(options, context, nvcc, classification.host_compiler, argv, built);
        }
    } else if (!options.instrument_filter.empty()) {
        built.verbose_messages.push_back("note: --instrument-filter has no effect with --no-compiler");
    }
    add_defines_and_includes(features, context.layout, argv);
}

/// `openmp_adapter`: the library linked for Features::openmp (strata-openmp or strata-openmp-gomp).
void add_link_flags(const Features& features, const Layout& layout, bool nvcc, std::string_view openmp_adapter,
                    std::vector<std::string>& argv, BuiltCommand& built) {
    for (const auto& dir : layout.library_dirs) {
        argv.push_back("-L" + dir);
        if (nvcc) {
            argv.push_back("-Xlinker");
            argv.push_back("-rpath," + dir);
        } else {
            argv.push_back("-Wl,-rpath," + dir);
        }
    }
    if (nvcc) {
        argv.push_back("-Xlinker");
        argv.push_back("--no-as-needed");
    } else {
        argv.push_back("-Wl,--no-as-needed");
    }
    for (const auto& library : libraries) {
        if (library.wanted && !(features.*(library.wanted))) continue;
        const std::string name(library.wanted == &Features::openmp ? openmp_adapter : library.name);
        if (layout.available_libraries.count(name) == 0) {
            const std::string where = "lib" + name + " (" + std::string(library.what) + ") not found in " +
                                      join(layout.library_dirs, ":");
            if (library.adapter) {
                built.messages.push_back("warning: " + where + "; linking without it");
                continue;
            }
            built.messages.push_back("warning: " + where + "; is Strata completely built and installed?");
        }
        if (library.wanted == &Features::mpi) {
            // The adapter's MPI_* must come before the MPI library the command names itself
            // (a plain compiler with -lmpi): the program binds to the first definition.
            const std::size_t mpi = first_mpi_library_argument(argv);
            if (mpi < argv.size()) {
                argv.insert(argv.begin() + static_cast<std::ptrdiff_t>(mpi), "-l" + name);
                continue;
            }
        }
        argv.push_back("-l" + name);
    }
}

/// With --gcc-openmp-runtime=libomp: GCC's OpenMP runtime (libgomp) has no OMPT,
/// so a GCC-built OpenMP program is linked against LLVM's libomp, which runs
/// GCC's OpenMP code (GOMP_* entry points) and reports its events.  libomp comes
/// first among the libraries, so GCC's own -lgomp, added after it, is not needed
/// any more.  libstrata-openmp-gnu gives libomp libgomp's kind of locks
/// (gnu_program_defaults.cpp).  By default such a program keeps libgomp, and
/// libstrata-openmp-gomp, linked before it, measures its GOMP_* entry points.
void add_openmp_runtime(const BuildContext& context, std::vector<std::string>& argv, BuiltCommand& built) {
    if (context.host_family != CompilerFamily::gnu) return;  // clang links libomp itself
    const std::string& dir = context.layout.openmp_runtime_dir;
    if (dir.empty()) {
        built.messages.push_back(
            "warning: LLVM's OpenMP runtime (libomp, Debian package libomp-dev) was not found when Strata "
            "was built; GCC's libgomp has no OMPT interface, so this program's OpenMP constructs will not "
            "be recorded");
        return;
    }
    argv.push_back("-L" + dir);
    argv.push_back("-Wl,-rpath," + dir);
    argv.push_back("-lomp");
    const bool defaults = context.layout.available_libraries.count(openmp_gnu_defaults_library) > 0;
    if (defaults) argv.push_back("-l" + std::string(openmp_gnu_defaults_library));
    built.verbose_messages.push_back("note: linked against LLVM's libomp (" + dir +
                                     ") instead of GCC's libgomp, which has no OMPT interface" +
                                     (defaults ? "; its locks are futex locks, as libgomp's, unless "
                                                 "KMP_LOCK_KIND is set"
                                               : ""));
}

bool shell_safe(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
}

}  // namespace

Features resolve_features(const WrapperOptions& options, std::string_view compiler,
                          const Classification& classification) {
    Features features;
    features.user = options.user;
    features.compiler = options.compiler;
    // nvcc -ccbin mpicxx: the host compiler is an MPI wrapper.
    const bool mpi_host = is_cuda_compiler(compiler) && !classification.host_compiler.empty() &&
                          is_mpi_compiler(classification.host_compiler);
    features.mpi = options.mpi.value_or(is_mpi_compiler(compiler) || mpi_host || classification.links_mpi);
    features.openmp = options.openmp.value_or(classification.openmp);
    features.cuda = options.cuda.value_or(is_cuda_compiler(compiler));
    return features;
}

BuiltCommand build_command(const WrapperOptions& options, const Classification& classification,
                           const BuildContext& context) {
    BuiltCommand built;
    const auto& command = options.compiler_command;
    built.argv = command;
    if (command.empty()) {
        built.error = "no compiler given";
        return built;
    }
    const std::string& compiler = command[0];
    const bool nvcc = is_cuda_compiler(compiler);
    built.features = resolve_features(options, compiler, classification);
    const auto step = classification.step;
    const bool links = step == Step::link || step == Step::shared_link;
    if (links && classification.static_link) {
        built.error =
            "static linking (-static) is not supported: Strata's libraries are shared libraries that "
            "start the measurement when the program loads; link without -static, or set "
            "STRATA_WRAPPER_DISABLE=1 to build without Strata";
        return built;
    }
    switch (step) {
        case Step::query: break;
        case Step::partial_link:
            if (classification.compiles_sources()) {
                add_compile_flags(options, built.features, context, classification, nvcc, built.argv, built);
            }
            break;
        case Step::preprocess: add_defines_and_includes(built.features, context.layout, built.argv); break;
        case Step::assemble:
        case Step::compile:
        case Step::link:
        case Step::shared_link:
            if (classification.compiles_sources()) {
                add_compile_flags(options, built.features, context, classification, nvcc, built.argv, built);
            }
            if (links) {
                const bool gcc_openmp = built.features.openmp && !nvcc && context.host_family == CompilerFamily::gnu;
                const bool on_libgomp = gcc_openmp && !options.gcc_openmp_on_libomp &&
                                        context.layout.available_libraries.count(openmp_gomp_library) > 0;
                add_link_flags(built.features, context.layout, nvcc,
                               on_libgomp ? openmp_gomp_library : "strata-openmp", built.argv, built);
                if (on_libgomp) {
                    built.verbose_messages.push_back(
                        "note: GCC's OpenMP runtime (libgomp) is measured through its GOMP_* entry points "
                        "(libstrata-openmp-gomp)");
                } else if (built.features.openmp && !nvcc &&
                           context.layout.available_libraries.count("strata-openmp")) {
                    add_openmp_runtime(context, built.argv, built);
                }
            }
            break;
    }
    return built;
}

std::vector<std::string> strata_library_names() {
    std::vector<std::string> names;
    for (const auto& library : libraries) names.emplace_back(library.name);
    return names;
}

std::string format_command(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& arg : argv) {
        if (!line.empty()) line += ' ';
        if (!arg.empty() && std::all_of(arg.begin(), arg.end(), shell_safe)) {
            line += arg;
            continue;
        }
        line += '\'';
        for (char c : arg) {
            if (c == '\'') {
                line += "'\\''";
            } else {
                line += c;
            }
        }
        line += '\'';
    }
    return line;
}

}  // namespace strata::instrumenter
