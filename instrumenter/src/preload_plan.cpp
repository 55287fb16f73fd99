// SPDX-License-Identifier: BSD-3-Clause
// The options of `strata-preload` and the choice of libraries it preloads.
#include "preload_plan.hpp"

#include <algorithm>

#include "layout.hpp"
#include "wrapper_options.hpp"

namespace strata::instrumenter {
namespace {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string joined;
    for (const auto& item : items) {
        if (!joined.empty()) joined += separator;
        joined += item;
    }
    return joined;
}

/// The entries of an LD_PRELOAD value (the loader splits at spaces and colons).
std::vector<std::string> preload_entries(const std::string& value) {
    std::vector<std::string> entries;
    std::string current;
    for (char c : value) {
        if (c == ' ' || c == ':') {
            if (!current.empty()) entries.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) entries.push_back(current);
    return entries;
}

std::string lib_file(const std::string& library) {
    return "lib" + library + ".so";
}

/// "libmpi.so.40" or "libmpi.so.40 (needed by libhdf5_openmpi.so.103)".
std::string describe(const NeededLibrary& library) {
    return library.needed_by.empty() ? library.name : library.name + " (needed by " + library.needed_by + ")";
}

/// `name` is one of the libraries that make `adapter` wanted.
bool is_trigger(const PreloadAdapter& adapter, const std::string& name) {
    const auto base = library_base_name(name);
    return std::find(adapter.triggers.begin(), adapter.triggers.end(), base) != adapter.triggers.end();
}

/// Why the adapter at `path` cannot go with the program: it links another runtime of its paradigm
/// (libmpi.so.40 for a program of libmpi.so.12).  Empty when it can, or when that is unknown.
std::string runtime_conflict(const PreloadAdapter& adapter, const std::string& path,
                             const NeededLibrary& trigger, const PreloadInputs& inputs) {
    if (!inputs.library_needed) return {};
    std::vector<std::string> runtimes;
    for (const auto& name : inputs.library_needed(path)) {
        if (!is_trigger(adapter, name)) continue;
        const bool shared = std::any_of(inputs.needed.begin(), inputs.needed.end(),
                                        [&name](const NeededLibrary& l) { return l.name == name; });
        if (shared) return {};
        runtimes.push_back(name);
    }
    if (runtimes.empty()) return {};
    return lib_file(adapter.library) + " was built for " + runtimes.front() + " but the program uses " +
           describe(trigger) +
           ": the two cannot be loaded together; measure it with a Strata built for the program's " +
           adapter.paradigm;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// THE ADAPTER TABLE.  One row per adapter library of adapters/; `strata-preload` adds the library
// when it exists in Strata's library directory and the program needs one of the trigger libraries
// (directly or through its libraries), and gains `--<feature>` / `--no-<feature>` options.
// Rows whose library is not built yet (openmp, cuda) are harmless: the program then runs without
// that adapter and a warning says so.
// - OpenMP: the OMPT tool of adapters/openmp/ is found by the OpenMP runtime through the
//   ompt_start_tool symbol, which LD_PRELOAD makes visible.  GCC's libgomp has no OMPT: a
//   program on libgomp gets libstrata-openmp-gomp instead, whose GOMP_* entry points come before
//   libgomp's; with --gcc-openmp-runtime=libomp, LLVM's libomp is preloaded after the OMPT tool
//   instead, and the loader takes libgomp's GOMP_* entry points from it.
// - CUDA: CUPTI needs nothing more, and libstrata-cuda points NVTX_INJECTION64_PATH at itself.
//   nvcc links the CUDA runtime statically by default: a program with CUDA device code (a
//   .nv_fatbin section) wants the adapter too.  Python programs (PyTorch) need --cuda.
// ------------------------------------------------------------------------------------------------
const std::vector<PreloadAdapter>& preload_adapters() {
    static const std::vector<PreloadAdapter> adapters = {
        {"mpi",
         "strata-mpi",
         "MPI",
         {"libmpi", "libmpich", "libmpi_mpifh", "libmpi_usempif08", "libmpi_usempi_ignore_tkr", "libmpifort",
          "libmpi_cxx", "libmpicxx"}},
        {"openmp", "strata-openmp", "OpenMP", {"libgomp", "libomp", "libiomp5"}},
        {"cuda", "strata-cuda", "CUDA", {"libcudart", "libcuda", "libnvToolsExt"}},
    };
    return adapters;
}

const std::vector<std::string>& preload_core_libraries() {
    static const std::vector<std::string> core = {"strata-user", "strata-measurement"};
    return core;
}

ParsedPreloadArguments parse_preload_arguments(const std::vector<std::string>& args) {
    ParsedPreloadArguments parsed;
    auto& options = parsed.options;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--") {
            ++i;
            break;
        }
        if (arg.empty() || arg[0] != '-') break;
        bool shared = false;
        parsed.error = apply_shared_option(arg, options, &shared);
        if (parsed.error) return parsed;
        if (!shared) {
            bool known = false;
            for (const auto& adapter : preload_adapters()) {
                if (arg == "--" + adapter.feature || arg == "--no-" + adapter.feature) {
                    options.forced[adapter.feature] = arg.compare(0, 5, "--no-") != 0;
                    known = true;
                }
            }
            if (!known) {
                parsed.error = "unknown option '" + arg + "' (see 'strata-preload --help')";
                return parsed;
            }
        }
    }
    options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    return parsed;
}

std::string preload_usage_text() {
    std::string adapters;
    for (const auto& adapter : preload_adapters()) {
        std::string names = "--" + adapter.feature + ", --no-" + adapter.feature;
        names.resize(std::max<std::size_t>(names.size() + 1, 23), ' ');
        adapters += "  " + names + "lib" + adapter.library +
                    ".so always / never (default: when the program links " + adapter.triggers.front() +
                    ", ...)\n";
    }
    return "usage: strata-preload [options] <program> [arguments...]\n"
           "\n"
           "Measures an existing, dynamically linked program without rebuilding it: runs it with\n"
           "LD_PRELOAD set to Strata's libraries (libstrata-measurement.so, libstrata-user.so and the\n"
           "adapters the program needs, found from its ELF DT_NEEDED entries).\n"
           "\n"
           "  mpirun -np 4 strata-preload ./app args...    # MPI: one experiment for all ranks\n"
           "  strata-preload ./app args...                 # a program without MPI\n"
           "\n"
           "options (before the program):\n" +
           adapters +
           "  --gcc-openmp-runtime=libgomp|libomp\n"
           "                         a program on GCC's libgomp keeps it (the default; its GOMP_*\n"
           "                         entry points are measured) or runs on LLVM's libomp (OMPT)\n"
           "  --verbose              print the libraries, why, and LD_PRELOAD to stderr\n"
           "  --dry-run              print LD_PRELOAD=... and the command to stdout, run nothing\n"
           "  --help, --version\n"
           "\n"
           "An existing LD_PRELOAD is kept, after Strata's libraries.  Only the program is measured:\n"
           "the programs it starts get the LD_PRELOAD found here.  Static programs, scripts and\n"
           "setuid programs are refused (exit status 2): the loader would not apply LD_PRELOAD, or\n"
           "would apply it to every program a script starts.  Configure the measurement with the\n"
           "usual STRATA_* variables ('strata-info config-vars').\n";
}

std::string preload_version_text() {
    return std::string("strata-preload (Strata) ") + STRATA_VERSION + "\n";
}

PreloadPlan plan_preload(const PreloadOptions& options, const PreloadInputs& inputs) {
    PreloadPlan plan;
    const auto existing = preload_entries(inputs.existing_preload);
    for (const auto& library : inputs.needed) {
        if (library_base_name(library.name) == "libstrata-measurement") {
            plan.already_linked = true;
            plan.ld_preload = inputs.existing_preload;
            plan.notes.push_back("the program is linked with Strata already (" + describe(library) +
                                 "): it runs as it is, without Strata's libraries in LD_PRELOAD");
            return plan;
        }
    }
    for (const auto& library : inputs.needed) {
        if (library.path.empty()) {
            plan.notes.push_back(describe(library) +
                                 " was not found; the loader may fail to start the program");
        }
    }

    for (const auto& adapter : preload_adapters()) {
        const auto forced = options.forced.find(adapter.feature);
        const NeededLibrary* trigger = nullptr;
        for (const auto& library : inputs.needed) {
            if (is_trigger(adapter, library.name)) {
                trigger = &library;
                break;
            }
        }
        static const NeededLibrary device_code{"CUDA device code (a .nv_fatbin section; the CUDA runtime "
                                               "linked statically)", "", ""};
        if (trigger == nullptr && adapter.feature == "cuda" && inputs.cuda_device_code) {
            trigger = &device_code;
        }
        if (forced != options.forced.end() && !forced->second) {
            if (trigger != nullptr) {
                plan.notes.push_back(adapter.paradigm + ": left out (--no-" + adapter.feature +
                                     ") although the program needs " + describe(*trigger));
            }
            continue;
        }
        if (forced == options.forced.end() && trigger == nullptr) continue;
        const bool on_libgomp = adapter.feature == "openmp" && trigger != nullptr &&
                                library_base_name(trigger->name) == "libgomp";
        // A program on GCC's libgomp keeps it: libstrata-openmp-gomp measures its GOMP_* entry
        // points (unless --gcc-openmp-runtime=libomp moves it to LLVM's libomp, below).
        const bool keeps_libgomp = on_libgomp && !options.gcc_openmp_on_libomp;
        const std::string library = keeps_libgomp ? openmp_gomp_library : adapter.library;
        const std::string file = lib_file(library);
        const std::string path = inputs.find_library(library);
        if (path.empty()) {
            const std::string where =
                file + " is not in Strata's library directory (" + inputs.library_dirs + ")";
            if (forced != options.forced.end()) {
                plan.error = "--" + adapter.feature + ": " + where;
                return plan;
            }
            plan.warnings.push_back("warning: the program uses " + adapter.paradigm + " (" +
                                    describe(*trigger) + ") but " + where + ": its " + adapter.paradigm +
                                    " activity is not recorded");
            continue;
        }
        const std::string conflict =
            trigger != nullptr ? runtime_conflict(adapter, path, *trigger, inputs) : "";
        if (!conflict.empty()) {
            if (forced != options.forced.end()) {
                plan.error = "--" + adapter.feature + ": " + conflict;
                return plan;
            }
            plan.warnings.push_back("warning: " + conflict + " (its " + adapter.paradigm +
                                    " activity is not recorded)");
            continue;
        }
        if (on_libgomp && !keeps_libgomp && inputs.openmp_runtime.empty()) {
            plan.warnings.push_back("warning: the program uses GCC's OpenMP runtime (" + describe(*trigger) +
                                    "), which has no OMPT interface, and LLVM's libomp was not found when "
                                    "Strata was built: its OpenMP activity is not recorded");
            continue;
        }
        plan.notes.push_back(
            adapter.paradigm + ": " + file +
            (trigger != nullptr ? " for " + describe(*trigger) : " (--" + adapter.feature + ")"));
        plan.libraries.push_back(path);
        plan.features.push_back(adapter.feature);
        // --openmp without an OpenMP runtime among the program's libraries (one it opens
        // itself, as Python does PyTorch's libgomp): libgomp's adapter too, for whichever
        // runtime comes (each records only for its own; they share STRATA_OPENMP_ENABLE).
        if (adapter.feature == "openmp" && trigger == nullptr && !options.gcc_openmp_on_libomp) {
            const std::string gomp = inputs.find_library(openmp_gomp_library);
            if (!gomp.empty()) {
                plan.notes.push_back(adapter.paradigm + ": " + lib_file(openmp_gomp_library) +
                                     " (--openmp): for a GCC libgomp the program opens itself");
                plan.libraries.push_back(gomp);
            }
        }
        if (on_libgomp && !keeps_libgomp) {
            plan.notes.push_back("OpenMP: " + inputs.openmp_runtime + " (LLVM's libomp) runs the program's " +
                                 describe(*trigger) + " code: libgomp has no OMPT interface");
            plan.libraries.push_back(inputs.openmp_runtime);
            // libgomp's kind of locks for libomp (adapters/openmp/gnu_program_defaults.cpp).
            const std::string defaults = inputs.find_library(openmp_gnu_defaults_library);
            if (!defaults.empty()) {
                plan.notes.push_back("OpenMP: " + defaults +
                                     ": libomp's locks are futex locks, as libgomp's, unless KMP_LOCK_KIND is set");
                plan.libraries.push_back(defaults);
            }
        }
    }

    for (const auto& library : preload_core_libraries()) {
        const std::string path = inputs.find_library(library);
        if (path.empty()) {
            plan.error = lib_file(library) + " is not in Strata's library directory (" + inputs.library_dirs +
                         "): build the " + library +
                         " target, or use the strata-preload of a complete install";
            return plan;
        }
        plan.libraries.push_back(path);
    }

    for (const auto& path : plan.libraries) {
        if (path.empty() || path[0] != '/' || path.find_first_of(" :") != std::string::npos) {
            plan.error = "'" + path +
                         "' cannot be put in LD_PRELOAD, which needs absolute paths without spaces "
                         "and colons: install Strata under such a path";
            return plan;
        }
    }
    std::vector<std::string> entries = plan.libraries;
    for (const auto& entry : existing) {
        if (std::find(entries.begin(), entries.end(), entry) == entries.end()) entries.push_back(entry);
    }
    plan.ld_preload = join(entries, ":");
    return plan;
}

}  // namespace strata::instrumenter
