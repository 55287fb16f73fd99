// SPDX-License-Identifier: BSD-3-Clause
// The `strata` compiler wrapper: reads its options, builds the real command and runs it.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "command_builder.hpp"
#include "command_classifier.hpp"
#include "compiler_kind.hpp"
#include "filter_file.hpp"
#include "gcc_plugin_choice.hpp"
#include "layout.hpp"
#include "process.hpp"
#include "wrapper_options.hpp"

namespace si = strata::instrumenter;

namespace {

constexpr int usage_error = 2;
constexpr int not_found = 127;

void say(const std::string& message) {
    std::cerr << "strata: " << message << '\n';
}

/// PATH as execvp uses it: the environment's, or the system default when unset.
std::string search_path() {
    if (const char* path = std::getenv("PATH")) return path;
    return "/bin:/usr/bin";
}

/// The family that receives the instrumentation flags, asking `--version` when the name is unclear.
si::CompilerFamily host_family(const std::string& compiler, const si::Classification& classification) {
    if (si::is_cuda_compiler(compiler)) {
        auto family = si::nvcc_host_family(classification.host_compiler);
        if (family == si::CompilerFamily::unknown) {
            family =
                si::family_from_version_text(si::capture_output({classification.host_compiler, "--version"}));
        }
        return family;
    }
    auto family = si::family_from_name(compiler);
    if (family == si::CompilerFamily::unknown) {
        family = si::family_from_version_text(si::capture_output({compiler, "--version"}));
    }
    return family;
}

/// What `compiler` reports about itself for the choice of the GCC plugin (two quick queries).
si::CompilerIdentity identity_of(const std::string& compiler) {
    si::CompilerIdentity identity;
    identity.version = si::first_line(si::capture_output({compiler, "-dumpfullversion"}));
    const auto dir = si::first_line(si::capture_output({compiler, "-print-file-name=plugin"}));
    std::error_code ec;
    const auto real = std::filesystem::canonical(dir, ec);
    identity.plugin_dir = ec ? dir : real.string();
    return identity;
}

std::string on_off(bool value) {
    return value ? "on" : "off";
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto parsed = si::parse_wrapper_arguments(args);
    if (parsed.error) {
        say(*parsed.error);
        return usage_error;
    }
    const auto& options = parsed.options;
    if (options.help) {
        std::cout << si::usage_text();
        return 0;
    }
    if (options.version) {
        std::cout << si::version_text();
        return 0;
    }
    if (options.compiler_command.empty()) {
        say("no compiler given: usage: strata [options] <compiler> [arguments...] (see 'strata --help')");
        return not_found;
    }
    const std::string& compiler = options.compiler_command[0];
    if (si::base_name(compiler) == "strata") {
        say("the compiler cannot be strata itself: give the real compiler, as in 'strata gcc ...'");
        return usage_error;
    }
    if (si::find_program(compiler, search_path()).empty()) {
        say("compiler '" + compiler + "' not found" +
            (compiler.find('/') == std::string::npos ? " in PATH" : ""));
        return not_found;
    }

    bool disabled = false;
    if (const char* value = std::getenv("STRATA_WRAPPER_DISABLE")) {
        const auto flag = si::parse_boolean(value);
        if (!flag) {
            say(std::string("STRATA_WRAPPER_DISABLE='") + value +
                "' is not understood: use 1, true, yes or on to disable, 0, false, no or off to enable");
            return usage_error;
        }
        disabled = *flag;
    }

    std::vector<std::string> command = options.compiler_command;
    if (disabled) {
        if (options.verbose) say("STRATA_WRAPPER_DISABLE is set: running the compiler untouched");
    } else {
        const std::vector<std::string> compiler_args(options.compiler_command.begin() + 1,
                                                     options.compiler_command.end());
        const auto classification = si::classify(compiler, compiler_args);
        si::BuildContext context;
        context.layout = si::discover_layout();
        if (!options.instrument_filter.empty() && options.compiler && classification.compiles_sources()) {
            si::FilterFile filter;
            if (const strata::Error error = si::read_filter_file(options.instrument_filter, &filter)) {
                say(*error);
                return usage_error;
            }
            context.filter = std::move(filter);
            context.host_family = host_family(compiler, classification);
        }
        // OpenMP programs of GCC get the adapter of their runtime, libgomp or libomp (see command_builder.cpp).
        const bool links = classification.step == si::Step::link || classification.step == si::Step::shared_link;
        if (links && options.openmp.value_or(classification.openmp) && context.host_family == si::CompilerFamily::unknown) {
            context.host_family = host_family(compiler, classification);
        }
        // GCC gets Strata's plugin instead of -finstrument-functions when it is the GCC the
        // plugin was built for; nvcc keeps -finstrument-functions for its host compiler.
        std::string plugin_note;
        const bool instruments = options.compiler && classification.compiles_sources() &&
                                 classification.step != si::Step::query &&
                                 classification.step != si::Step::preprocess;
        if (instruments && options.plugin && !si::is_cuda_compiler(compiler)) {
            if (context.host_family == si::CompilerFamily::unknown) {
                context.host_family = host_family(compiler, classification);
            }
            if (context.host_family == si::CompilerFamily::gnu) {
                const auto identity =
                    context.layout.gcc_plugin.empty() ? si::CompilerIdentity{} : identity_of(compiler);
                const auto choice = si::choose_gcc_plugin(context.layout, compiler, identity);
                context.gcc_plugin = choice.plugin;
                plugin_note = choice.note;
            }
        } else if (instruments && !options.plugin) {
            plugin_note = "note: --no-plugin: instrumenting with -finstrument-functions";
        }
        const auto built = si::build_command(options, classification, context);
        if (options.verbose) {
            const auto& f = built.features;
            say(std::string(si::step_name(classification.step)) + " step; user " + on_off(f.user) +
                ", compiler " + on_off(f.compiler) + ", mpi " + on_off(f.mpi) + ", openmp " +
                on_off(f.openmp) + ", cuda " + on_off(f.cuda));
        }
        for (const auto& message : built.messages) say(message);
        if (options.verbose) {
            if (!plugin_note.empty()) say(plugin_note);
            for (const auto& message : built.verbose_messages) say(message);
        }
        if (built.error) {
            say(*built.error);
            return usage_error;
        }
        command = built.argv;
    }

    if (options.dry_run) {
        std::cout << si::format_command(command) << '\n';
        return 0;
    }
    if (options.verbose) say(si::format_command(command));
    std::cout.flush();
    std::cerr.flush();
    si::exec_program(command);
    const int error = errno;
    say("cannot run '" + compiler + "': " + std::strerror(error));
    return error == ENOENT ? not_found : 126;
}
