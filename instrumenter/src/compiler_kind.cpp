// SPDX-License-Identifier: BSD-3-Clause
// Compiler family, MPI and CUDA detection from compiler names and --version text.
#include "compiler_kind.hpp"

#include <cctype>

namespace strata::instrumenter {
namespace {

/// "gcc-12" -> "gcc", "clang++-14.0" -> "clang++": drops a trailing "-<digits and dots>".
std::string_view strip_version_suffix(std::string_view name) {
    const auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash + 1 == name.size()) return name;
    for (auto c : name.substr(dash + 1)) {
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return name;
    }
    return name.substr(0, dash);
}

/// The family of an exact program name, or `unknown`.
CompilerFamily family_of_program(std::string_view name) {
    constexpr std::string_view gnu[] = {"gcc", "g++", "gfortran", "cpp"};
    constexpr std::string_view clang[] = {"clang", "clang++", "flang", "flang-new", "clang-cpp"};
    constexpr std::string_view intel[] = {"icx", "icpx", "ifx", "icc", "icpc", "ifort", "dpcpp"};
    constexpr std::string_view other[] = {"nvc", "nvc++", "nvfortran", "pgcc", "pgf90"};
    for (auto known : gnu) {
        if (name == known) return CompilerFamily::gnu;
    }
    for (auto known : clang) {
        if (name == known) return CompilerFamily::clang;
    }
    for (auto known : intel) {
        if (name == known) return CompilerFamily::intel;
    }
    if (name == "nvcc") return CompilerFamily::nvcc;
    for (auto known : other) {
        if (name == known) return CompilerFamily::other;
    }
    return CompilerFamily::unknown;
}

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string base_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

CompilerFamily family_from_name(std::string_view compiler) {
    const auto base = base_name(compiler);
    const auto name = strip_version_suffix(base);
    if (const auto family = family_of_program(name); family != CompilerFamily::unknown) {
        return family;
    }
    // A cross compiler's target prefix: "x86_64-linux-gnu-g++" -> "g++".
    const auto dash = name.rfind('-');
    if (dash == std::string_view::npos) return CompilerFamily::unknown;
    return family_of_program(name.substr(dash + 1));
}

CompilerFamily family_from_version_text(std::string_view text) {
    if (text.empty()) return CompilerFamily::unknown;
    if (contains(text, "clang version") || contains(text, "flang version")) {
        return CompilerFamily::clang;
    }
    if (contains(text, "Intel")) return CompilerFamily::intel;
    if (contains(text, "Cuda compilation tools")) return CompilerFamily::nvcc;
    if (contains(text, "Free Software Foundation")) return CompilerFamily::gnu;
    return CompilerFamily::other;
}

CompilerFamily nvcc_host_family(std::string_view ccbin) {
    if (ccbin.empty()) return CompilerFamily::gnu;
    return family_from_name(ccbin);
}

bool is_mpi_compiler(std::string_view compiler) {
    const std::string base = base_name(compiler);
    // h5pcc and h5pfc exist only in parallel HDF5 builds, where they wrap mpicc and mpif90.
    return base.rfind("mpi", 0) == 0 || base == "h5pcc" || base == "h5pfc";
}

bool is_preprocessor(std::string_view compiler) {
    const auto base = base_name(compiler);
    const auto name = strip_version_suffix(base);
    return name == "cpp" || (name.size() > 4 && name.substr(name.size() - 4) == "-cpp");
}

bool is_cuda_compiler(std::string_view compiler) {
    return family_from_name(compiler) == CompilerFamily::nvcc;
}

std::string_view family_name(CompilerFamily family) {
    switch (family) {
        case CompilerFamily::gnu: return "GCC";
        case CompilerFamily::clang: return "Clang";
        case CompilerFamily::intel: return "Intel";
        case CompilerFamily::nvcc: return "nvcc";
        case CompilerFamily::other: return "other";
        case CompilerFamily::unknown: break;
    }
    return "unknown";
}

}  // namespace strata::instrumenter
