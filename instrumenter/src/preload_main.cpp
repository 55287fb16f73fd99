// SPDX-License-Identifier: BSD-3-Clause
// `strata-preload`: runs an existing program with Strata's libraries in LD_PRELOAD (no rebuild).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "command_builder.hpp"
#include "layout.hpp"
#include "library_search.hpp"
#include "preload_plan.hpp"
#include "preload_program.hpp"
#include "strata/measurement/preload_environment.hpp"

namespace si = strata::instrumenter;

namespace {

constexpr int refused = 2;

void say(const std::string& message) {
    std::cerr << "strata-preload: " << message << '\n';
}

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

/// lib<name>.so in the first of `dirs` that has it, or empty.
std::string find_shared_library(const std::vector<std::string>& dirs, const std::string& name) {
    for (const auto& dir : dirs) {
        const auto path = std::filesystem::path(dir) / ("lib" + name + ".so");
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) return path.lexically_normal().string();
    }
    return {};
}

/// The number of processes of the MPI job this process was started in, and whether it is the
/// first; 0 when not started by a known launcher.
int launcher_size(bool& first) {
    for (const auto& [size, rank] :
         {std::pair{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, std::pair{"PMI_SIZE", "PMI_RANK"},
          std::pair{"PMIX_SIZE", "PMIX_RANK"}, std::pair{"SLURM_NTASKS", "SLURM_PROCID"}}) {
        const auto n = environment(size);
        if (!n.empty()) {
            first = environment(rank) == "0";
            return std::atoi(n.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const auto parsed = si::parse_preload_arguments(std::vector<std::string>(argv + 1, argv + argc));
    if (parsed.error) {
        say(*parsed.error);
        return refused;
    }
    const auto& options = parsed.options;
    if (options.help) {
        std::cout << si::preload_usage_text();
        return 0;
    }
    if (options.version) {
        std::cout << si::preload_version_text();
        return 0;
    }
    if (options.command.empty()) {
        say("no program given: usage: strata-preload [options] <program> [arguments...] (see 'strata-preload "
            "--help')");
        return refused;
    }

    const std::string& program = options.command[0];
    const std::string path_variable = std::getenv("PATH") != nullptr ? environment("PATH") : "/bin:/usr/bin";
    const auto check = si::check_program(program, path_variable, si::read_elf_file("/proc/self/exe"));
    if (check.error) {
        say(*check.error);
        return refused;
    }

    const auto layout = si::discover_layout();
    si::PreloadInputs inputs;
    inputs.needed = si::needed_closure(check.path, check.elf, si::system_search_settings(check.elf.machine));
    inputs.find_library = [&layout](const std::string& name) {
        return find_shared_library(layout.library_dirs, name);
    };
    inputs.library_needed = [](const std::string& path) { return si::read_elf_file(path).needed; };
    for (const auto& dir : layout.library_dirs)
        inputs.library_dirs += (inputs.library_dirs.empty() ? "" : ", ") + dir;
    if (inputs.library_dirs.empty()) inputs.library_dirs = "none found";
    inputs.existing_preload = environment("LD_PRELOAD");
    inputs.cuda_device_code = check.elf.cuda_device_code;
    if (!layout.openmp_runtime_dir.empty()) {
        const std::string libomp = layout.openmp_runtime_dir + "/libomp.so";
        if (::access(libomp.c_str(), R_OK) == 0) inputs.openmp_runtime = libomp;
    }
    const auto plan = si::plan_preload(options, inputs);

    for (const auto& warning : plan.warnings) say(warning);
    if (plan.error) {
        say(*plan.error);
        return refused;
    }
    if (options.verbose) {
        for (const auto& note : plan.notes) say(note);
    }
    bool first = false;
    const int processes = launcher_size(first);
    const bool mpi = std::find(plan.features.begin(), plan.features.end(), "mpi") != plan.features.end();
    if (processes > 1 && first && !mpi && !plan.already_linked) {
        say("note: '" + program + "' does not use MPI: each of the " + std::to_string(processes) +
            " processes writes an experiment directory of its own (--mpi if it does use MPI: a program "
            "that loads MPI at run time, such as Python with mpi4py, does not show it)");
    }

    const std::string assignment =
        plan.ld_preload.empty() ? std::string() : "LD_PRELOAD=" + si::format_command({plan.ld_preload});
    if (options.dry_run) {
        std::cout << (assignment.empty() ? "" : assignment + " ") << si::format_command(options.command)
                  << '\n';
        return 0;
    }
    if (options.verbose) {
        if (!assignment.empty()) say(assignment);
        say(si::format_command(options.command));
    }
    // The runtime gives the programs this one starts the LD_PRELOAD found here (see
    // runtime.cpp): they are not measured, and do not write experiments of their own.
    if (!plan.already_linked &&
        (::setenv("LD_PRELOAD", plan.ld_preload.c_str(), 1) != 0 ||
         ::setenv(strata::preload_original_variable, inputs.existing_preload.c_str(), 1) != 0)) {
        say(std::string("cannot set LD_PRELOAD: ") + std::strerror(errno));
        return refused;
    }
    std::cout.flush();
    std::cerr.flush();
    std::vector<char*> args;
    for (const auto& arg : options.command) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(check.path.c_str(), args.data());
    const int error = errno;
    say("cannot run '" + program + "': " + std::strerror(error));
    return error == ENOENT ? 127 : 126;
}
