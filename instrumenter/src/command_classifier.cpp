// SPDX-License-Identifier: BSD-3-Clause
// Classification of compiler command lines (GCC, Clang, gfortran, Intel and nvcc spellings).
#include "command_classifier.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "compiler_kind.hpp"
#include "response_file.hpp"

namespace strata::instrumenter {
namespace {

template <std::size_t N>
bool one_of(std::string_view arg, const std::string_view (&names)[N]) {
    return std::find(std::begin(names), std::end(names), arg) != std::end(names);
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

/// Options of the GCC-style drivers whose value is the next argument.
// clang-format off
constexpr std::string_view separate_value_options[] = {
    "-o", "-x", "-I", "-L", "-D", "-U", "-l", "-u", "-T", "-e", "-z", "-A", "-B", "-J", "-MF",
    "-MT", "-MQ", "-MJ", "-include", "-imacros", "-isystem", "-idirafter", "-iprefix",
    "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-iquote", "-imultilib", "-Xlinker",
    "-Xassembler", "-Xpreprocessor", "-Xclang", "-Xopenmp-target", "-aux-info", "--param",
    "-dumpbase", "-dumpbase-ext", "-dumpdir", "-target", "-arch", "-mllvm", "--sysroot",
    "--output"};
// clang-format on

/// Options of nvcc whose value is the next argument (nvcc also accepts `--option=value`).
// clang-format off
constexpr std::string_view nvcc_separate_value_options[] = {
    "--x", "-ccbin", "--compiler-bindir", "-Xcompiler", "--compiler-options", "-Xlinker",
    "--linker-options", "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xarchive",
    "--archive-options", "-Xfatbin", "--fatbin-options", "-Xcudafe", "-arch", "--gpu-architecture",
    "-code", "--gpu-code", "-gencode", "--generate-code", "-odir", "--output-directory", "-optf",
    "--options-file", "-rdc", "--relocatable-device-code", "--output-file", "--include-path",
    "--library-path", "--library", "--define-macro", "--undefine-macro", "--pre-include",
    "--system-include", "--dependency-output", "--dependency-target-name", "-maxrregcount",
    "--maxrregcount", "-t", "--threads", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt",
    "-ldir", "--libdevice-directory", "-m", "--machine", "-std", "--std", "-Werror", "--Werror",
    "-diag-suppress", "--diag-suppress", "-diag-error", "--diag-error", "-diag-warn",
    "--diag-warn", "-keep-dir", "--keep-dir", "-ftz", "--ftz", "-prec-div", "--prec-div",
    "-default-stream"};
// clang-format on

/// Arguments that make the command a query to pass through (exact spellings).
// clang-format off
constexpr std::string_view query_options[] = {
    "--version", "-dumpversion", "-dumpfullversion", "-dumpmachine", "-dumpspecs", "--help",
    "--target-help"};
// clang-format on

/// nvcc's own query options.
// clang-format off
constexpr std::string_view nvcc_query_options[] = {
    "-V", "-h", "--list-gpu-arch", "--list-gpu-code", "-arch-ls"};
// clang-format on

bool is_query_option(std::string_view arg, bool nvcc) {
    if (one_of(arg, query_options)) return true;
    if (starts_with(arg, "-print-") || starts_with(arg, "--print-") || starts_with(arg, "--help=")) {
        return true;
    }
    return nvcc && one_of(arg, nvcc_query_options);
}

/// The language named by `-x LANG`.
Language language_of_x(std::string_view lang) {
    if (lang == "c" || lang == "c-header" || lang == "cpp-output") return Language::c;
    if (lang == "c++" || lang == "c++-header" || lang == "c++-cpp-output" || lang == "cxx") {
        return Language::cxx;
    }
    if (lang == "cu" || lang == "cuda") return Language::cuda;
    if (starts_with(lang, "f77") || starts_with(lang, "f95") || lang == "fortran") {
        return Language::fortran;
    }
    if (starts_with(lang, "assembler")) return Language::assembler;
    if (starts_with(lang, "objective-c")) return Language::objc;
    return Language::other;
}

/// True for OpenMP flags; `enable` says whether the flag turns OpenMP on or off.
bool openmp_flag(std::string_view flag, bool& enable) {
    if (flag == "-fopenmp" || starts_with(flag, "-fopenmp=") || flag == "-fiopenmp" || flag == "-qopenmp" ||
        flag == "-Qopenmp") {
        enable = true;
        return true;
    }
    if (flag == "-fno-openmp" || flag == "-qno-openmp") {
        enable = false;
        return true;
    }
    return false;
}

/// Applies the OpenMP flags inside an nvcc `-Xcompiler` value ("-fopenmp,-O2").
void scan_host_options(std::string_view value, bool& openmp) {
    while (!value.empty()) {
        const auto comma = value.find(',');
        bool enable = false;
        if (openmp_flag(value.substr(0, comma), enable)) openmp = enable;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
}

/// What the flags seen so far ask for; the step is decided once all are read.
struct StepFlags {
    bool query = false;
    bool preprocess = false;    // -E, nvcc -cuda
    bool dependencies = false;  // -M, -MM
    bool assemble = false;      // -S
    bool compile = false;       // -c and friends
    bool partial = false;       // -r, nvcc -lib/-dlink
    bool shared = false;        // -shared
};

/// Records what a flag without a value means for the step; returns false when it is none of them.
bool step_flag(std::string_view arg, bool nvcc, StepFlags& flags, Classification& result) {
    constexpr std::string_view nvcc_compile[] = {
        "--compile", "-dc",     "--device-c", "-dw",       "--device-w", "-ptx",    "--ptx",   "-cubin",
        "--cubin",   "-fatbin", "--fatbin",   "-optix-ir", "--optix-ir", "-lto-ir", "--lto-ir"};
    if (arg == "-E" || (nvcc && arg == "--preprocess")) {
        flags.preprocess = true;
    } else if (arg == "-M" || arg == "-MM" ||
               (nvcc && (arg == "--generate-dependencies" || arg == "--generate-nonsystem-dependencies"))) {
        flags.dependencies = true;
    } else if (arg == "-MD" || arg == "-MMD" ||
               (nvcc && (arg == "--generate-dependencies-with-compile" ||
                         arg == "--generate-nonsystem-dependencies-with-compile"))) {
        result.dependency_file = true;
    } else if (arg == "-S") {
        flags.assemble = true;
    } else if (arg == "-c" || arg == "-fsyntax-only" || (nvcc && one_of(arg, nvcc_compile))) {
        flags.compile = true;
    } else if (nvcc && (arg == "-cuda" || arg == "--cuda")) {
        flags.preprocess = true;
    } else if (arg == "-r" ||
               (nvcc && (arg == "-lib" || arg == "--lib" || arg == "-dlink" || arg == "--device-link"))) {
        flags.partial = true;
    } else if (arg == "-shared" || (nvcc && arg == "--shared")) {
        flags.shared = true;
    } else if (arg == "-static" || arg == "-static-pie") {
        result.static_link = true;
    } else {
        return false;
    }
    return true;
}

Step decide_step(const StepFlags& flags, const Classification& result) {
    if (flags.query || result.inputs.empty()) return Step::query;
    if (flags.preprocess || (flags.dependencies && !result.dependency_file)) return Step::preprocess;
    if (flags.assemble) return Step::assemble;
    if (flags.compile) return Step::compile;
    if (flags.partial) return Step::partial_link;
    if (flags.shared) return Step::shared_link;
    return Step::link;
}

/// True when `name` ends in ".so" or ".so.<digits and dots>".
bool is_shared_library_name(std::string_view name) {
    const auto so = name.rfind(".so");
    if (so == std::string_view::npos || so == 0) return false;
    const auto rest = name.substr(so + 3);
    if (rest.empty()) return true;
    if (rest[0] != '.') return false;
    return std::all_of(rest.begin() + 1, rest.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

}  // namespace

bool is_mpi_library(std::string_view library) {
    const std::string base = base_name(library);
    std::string_view name = base;
    if (starts_with(name, "lib")) name.remove_prefix(3);
    name = name.substr(0, name.find('.'));
    // Open MPI: mpi, mpi_cxx, mpi_mpifh, mpi_usempif08, mpi_usempi_ignore_tkr; MPICH and
    // its derivatives: mpich, mpichf90, mpichcxx, mpicxx, mpifort, mpi_f08 ...
    return name == "mpi" || starts_with(name, "mpi_") || starts_with(name, "mpich") || name == "mpicxx" ||
           name == "mpifort";
}

std::size_t first_mpi_library_argument(const std::vector<std::string>& argv) {
    for (std::size_t i = 1; i < argv.size(); ++i) {
        const std::string& arg = argv[i];
        if (arg == "-l" && i + 1 < argv.size() && is_mpi_library(argv[i + 1])) return i;
        if (starts_with(arg, "-l") && arg.size() > 2 && is_mpi_library(std::string_view(arg).substr(2))) return i;
        if (one_of(arg, separate_value_options)) {
            ++i;  // -o libmpi_tools.so names the output, not an input
            continue;
        }
        if (!starts_with(arg, "-")) {
            const InputKind kind = classify_input(arg).kind;
            if ((kind == InputKind::shared_library || kind == InputKind::static_library) && is_mpi_library(arg)) {
                return i;
            }
        }
    }
    return argv.size();
}

bool Classification::compiles_sources() const {
    if (step == Step::query || step == Step::preprocess) return false;
    return std::any_of(inputs.begin(), inputs.end(),
                       [](const InputFile& in) { return in.kind == InputKind::source; });
}

InputFile classify_input(const std::string& path) {
    InputFile input;
    input.path = path;
    const auto base = base_name(path);
    if (is_shared_library_name(base)) {
        input.kind = InputKind::shared_library;
        return input;
    }
    const auto dot = base.rfind('.');
    if (dot == std::string::npos || dot == 0) return input;
    const std::string_view ext = std::string_view(base).substr(dot + 1);
    struct Extension {
        std::string_view ext;
        Language language;
    };
    constexpr Extension sources[] = {
        {"c", Language::c},           {"i", Language::c},         {"h", Language::c},
        {"cc", Language::cxx},        {"cp", Language::cxx},      {"cxx", Language::cxx},
        {"cpp", Language::cxx},       {"CPP", Language::cxx},     {"c++", Language::cxx},
        {"C", Language::cxx},         {"CC", Language::cxx},      {"ii", Language::cxx},
        {"hh", Language::cxx},        {"hpp", Language::cxx},     {"hxx", Language::cxx},
        {"H", Language::cxx},         {"cu", Language::cuda},     {"f", Language::fortran},
        {"for", Language::fortran},   {"ftn", Language::fortran}, {"F", Language::fortran},
        {"FOR", Language::fortran},   {"FTN", Language::fortran}, {"fpp", Language::fortran},
        {"FPP", Language::fortran},   {"f90", Language::fortran}, {"f95", Language::fortran},
        {"f03", Language::fortran},   {"f08", Language::fortran}, {"F90", Language::fortran},
        {"F95", Language::fortran},   {"F03", Language::fortran}, {"F08", Language::fortran},
        {"s", Language::assembler},   {"S", Language::assembler}, {"sx", Language::assembler},
        {"asm", Language::assembler}, {"m", Language::objc},      {"mm", Language::objc},
        {"M", Language::objc}};
    for (const auto& e : sources) {
        if (ext == e.ext) {
            input.kind = InputKind::source;
            input.language = e.language;
            return input;
        }
    }
    if (ext == "o" || ext == "obj") {
        input.kind = InputKind::object;
    } else if (ext == "a") {
        input.kind = InputKind::static_library;
    }
    return input;
}

Classification classify(std::string_view compiler, const std::vector<std::string>& original_args) {
    const bool nvcc = is_cuda_compiler(compiler);
    const auto args = expand_response_files(original_args, nvcc);
    Classification result;
    StepFlags flags;
    Language forced = Language::none;  // from -x, for the inputs that follow
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool has_next = i + 1 < args.size();
        if (arg.size() < 2 || arg[0] != '-') {
            InputFile input = classify_input(arg);
            if (forced != Language::none) {
                input.kind = InputKind::source;
                input.language = forced;
            } else if (arg == "-") {
                input.kind = InputKind::source;
            }
            if ((input.kind == InputKind::shared_library || input.kind == InputKind::static_library) &&
                is_mpi_library(arg)) {
                result.links_mpi = true;
            }
            result.inputs.push_back(input);
            continue;
        }
        if (is_query_option(arg, nvcc)) {
            flags.query = true;
            continue;
        }
        if (step_flag(arg, nvcc, flags, result)) continue;
        bool enable = false;
        if (openmp_flag(arg, enable)) {
            result.openmp = enable;
            continue;
        }
        if (starts_with(arg, "-l") && arg.size() > 2 && is_mpi_library(std::string_view(arg).substr(2))) {
            result.links_mpi = true;
            continue;
        }
        // Options with a value, separate or joined.
        std::string_view name = arg;
        std::string value;
        bool separate =
            one_of(name, separate_value_options) || (nvcc && one_of(name, nvcc_separate_value_options));
        if (nvcc && !separate && starts_with(arg, "-") && arg.find('=') != std::string::npos) {
            // nvcc's `--option=value` and `-option=value`.
            const auto eq = arg.find('=');
            name = std::string_view(arg).substr(0, eq);
            value = arg.substr(eq + 1);
        } else if (separate) {
            if (!has_next) continue;
            value = args[++i];
        } else if (starts_with(arg, "--output=")) {
            name = "-o";
            value = arg.substr(sizeof("--output=") - 1);
        } else if (starts_with(arg, "-o")) {
            name = "-o";
            value = arg.substr(2);
        } else if (starts_with(arg, "-x") &&
                   (arg == "-xnone" || language_of_x(std::string_view(arg).substr(2)) != Language::other)) {
            // "-xc++"; Intel's "-xHost" and "-xCORE-AVX2" are not languages.
            name = "-x";
            value = arg.substr(2);
        } else {
            continue;  // a flag without value, or a joined value that does not matter here
        }
        if (name == "-o" || name == "--output" || name == "--output-file") {
            result.output = value;
        } else if (name == "-x" || name == "--x") {
            forced = value == "none" ? Language::none : language_of_x(value);
        } else if (name == "-l" && is_mpi_library(value)) {
            result.links_mpi = true;
        } else if (nvcc && (name == "-Xcompiler" || name == "--compiler-options")) {
            scan_host_options(value, result.openmp);
        } else if (nvcc && (name == "-ccbin" || name == "--compiler-bindir")) {
            result.host_compiler = value;
        }
    }
    if (is_preprocessor(compiler)) flags.preprocess = true;
    result.step = decide_step(flags, result);
    return result;
}

std::string_view step_name(Step step) {
    switch (step) {
        case Step::query: return "query";
        case Step::preprocess: return "preprocess";
        case Step::assemble: return "assemble";
        case Step::compile: return "compile";
        case Step::partial_link: return "partial-link";
        case Step::link: return "link";
        case Step::shared_link: return "shared-link";
    }
    return "?";
}

}  // namespace strata::instrumenter
