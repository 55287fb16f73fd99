// SPDX-License-Identifier: BSD-3-Clause
// strata-info: what this build of Strata contains and how it is configured.
//
//     strata-info config-vars [--full | --doc]   the STRATA_* variables (from the registry)
//     strata-info build-config                  version, compiler, dependencies, features
//     strata-info metrics                       the counters STRATA_METRIC_* accept here
//
// It shows the variables of the code linked into it; adapters that are built as
// separate libraries list their rows only where they are linked in.
#include <iostream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "metrics/kernel_software_events.hpp"
#include "metrics/papi_counters.hpp"
#include "metrics/rusage_counters.hpp"
#include "strata/build_config.h"
#if STRATA_HAVE_MPI
#include "mpi_config.hpp"
#endif
#include "openmp_config.hpp"
#ifdef STRATA_HAVE_CUDA_ROWS
#include "cuda_config.hpp"
#endif

namespace {

constexpr int exit_usage = 2;

void print_usage(std::ostream& out) {
    out << "Usage: strata-info <subcommand> [options]\n"
           "\n"
           "Subcommands:\n"
           "  config-vars            list the STRATA_* configuration variables with their\n"
           "                         type, default and a one-line description\n"
           "  config-vars --full     ... and the full description and accepted values\n"
           "  config-vars --doc      ... as a Markdown reference page\n"
           "  build-config           version, build type, compiler, OTF2 and HDF5 versions\n"
           "                         and the optional features of this build\n"
           "  metrics                the PAPI events this machine can count and the rusage\n"
           "                         members (for STRATA_METRIC_PAPI, STRATA_METRIC_RUSAGE)\n"
           "\n"
           "Options:\n"
           "  --help                 show this text\n"
           "  --version              show the version of Strata\n";
}

const char* yes_no(int flag) { return flag != 0 ? "yes" : "no"; }

/// A version string from CMake, or "unknown" when the dependency did not report one.
const char* version_or_unknown(const char* version) { return version[0] != '\0' ? version : "unknown"; }

void print_build_config(std::ostream& out) {
    out << "Strata " << STRATA_VERSION_STRING << '\n'
        << "  Build type:      " << STRATA_BUILD_TYPE << '\n'
        << "  C++ compiler:    " << STRATA_CXX_COMPILER << '\n'
        << "  Install prefix:  " << STRATA_INSTALL_PREFIX << '\n'
        << "  OTF2:            " << version_or_unknown(STRATA_OTF2_VERSION) << '\n'
        << "  HDF5:            " << version_or_unknown(STRATA_HDF5_VERSION) << '\n'
        << "  MPI:             " << yes_no(STRATA_HAVE_MPI) << '\n'
        << "  PAPI:            " << yes_no(STRATA_HAVE_PAPI) << '\n'
        << "  OMPT:            " << yes_no(STRATA_HAVE_OMPT) << '\n'
        << "  libgomp adapter: yes (GCC's OpenMP runtime through its GOMP_* entry points)\n"
        << "  CUDA:            " << yes_no(STRATA_HAVE_CUDA) << '\n'
        << "  Parallel HDF5:   " << yes_no(STRATA_HDF5_PARALLEL) << '\n';
}

/// The adapters' rows as well: they register when their library starts, and
/// strata-info starts none of them.  It lists the rows: a bad value in the
/// environment is the measured program's to refuse, not strata-info's.
void register_adapter_variables(strata::config::Registry& registry) {
#if STRATA_HAVE_MPI
    (void)strata::mpi::register_variables(registry, [](std::uint32_t) {});
#endif
    (void)strata::openmp::register_variables(registry, [](std::uint32_t) {});
#ifdef STRATA_HAVE_CUDA_ROWS
    static strata::cuda::Settings cuda_settings;
    (void)strata::cuda::register_variables(registry, &cuda_settings);
#endif
    (void)registry;
}

int config_vars(const std::vector<std::string>& options) {
    auto& registry = strata::config::Registry::instance();
    register_adapter_variables(registry);
    if (options.empty()) {
        registry.describe(std::cout, false);
        return 0;
    }
    if (options.size() == 1 && options[0] == "--full") {
        registry.describe(std::cout, true);
        return 0;
    }
    if (options.size() == 1 && options[0] == "--doc") {
        registry.write_markdown(std::cout);
        return 0;
    }
    std::cerr << "strata-info: config-vars takes one of --full or --doc, not '";
    for (std::size_t i = 0; i < options.size(); ++i) std::cerr << (i > 0 ? " " : "") << options[i];
    std::cerr << "'\n";
    return exit_usage;
}

void print_metrics(std::ostream& out) {
    namespace m = strata::metrics;
    out << "PAPI events usable on this machine (STRATA_METRIC_PAPI):\n";
    std::string note;
    const std::vector<m::papi::EventInfo> events = m::papi::usable_events(&note);
    std::size_t hardware = 0;
    for (const m::papi::EventInfo& e : events) {
        out << "  " << e.name << std::string(e.name.size() < 32 ? 32 - e.name.size() : 1, ' ') << e.description
            << (e.hardware ? "" : " [software]") << '\n';
        if (e.hardware) ++hardware;
    }
    // Where PAPI cannot reach the kernel's software events, Strata counts them itself.
    const strata::Error papi_cannot = m::papi::kernel_events_problem();
    const std::vector<m::kernel_events::UsableEvent> kernel_events =
        papi_cannot ? m::kernel_events::usable_events() : std::vector<m::kernel_events::UsableEvent>();
    for (const m::kernel_events::UsableEvent& e : kernel_events) {
        out << "  " << e.name << std::string(e.name.size() < 32 ? 32 - e.name.size() : 1, ' ')
            << e.description << " [counted by Strata]\n";
    }
    if (events.empty() && kernel_events.empty()) out << "  (none)\n";
    if (!kernel_events.empty()) {
        out << "  PAPI cannot count the kernel's software events here (" << *papi_cannot
            << ");\n"
               "  Strata counts those above itself, with the same values and names.\n";
    }
    if (!m::papi::available_in_build()) {
        out << "  This build of Strata has no PAPI support.\n";
    } else if (!events.empty() && hardware == 0) {
        out << "  None of them is a hardware counter: this machine (often a virtual machine) offers\n"
               "  only the kernel's software events.\n";
    }
    if (!note.empty() && m::papi::available_in_build()) out << "  Note: " << note << '\n';
    out << "\ngetrusage() members (STRATA_METRIC_RUSAGE, or all), "
        << (m::rusage::per_thread() ? "per thread" : "per process (no per-thread getrusage here)") << ":\n";
    for (const m::MetricSpec& r : m::rusage::members()) {
        out << "  " << r.name << std::string(r.name.size() < 32 ? 32 - r.name.size() : 1, ' ') << r.description
            << " (" << r.unit << ")\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        print_usage(std::cerr);
        return exit_usage;
    }
    const std::string& command = args[0];
    const std::vector<std::string> options(args.begin() + 1, args.end());
    try {
        if (command == "--help" || command == "-h" || command == "help") {
            print_usage(std::cout);
            return 0;
        }
        if (command == "--version") {
            std::cout << "strata-info (Strata) " << STRATA_VERSION_STRING << '\n';
            return 0;
        }
        if (command == "config-vars") return config_vars(options);
        if (command == "metrics") {
            if (!options.empty()) {
                std::cerr << "strata-info: metrics takes no options\n";
                return exit_usage;
            }
            print_metrics(std::cout);
            return 0;
        }
        if (command == "build-config") {
            if (!options.empty()) {
                std::cerr << "strata-info: build-config takes no options\n";
                return exit_usage;
            }
            print_build_config(std::cout);
            return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "strata-info: " << e.what() << '\n';
        return 1;
    }
    std::cerr << "strata-info: unknown subcommand '" << command
              << "'; valid subcommands are config-vars, build-config and metrics (and --help, --version)\n";
    return exit_usage;
}
