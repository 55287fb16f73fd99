// SPDX-License-Identifier: BSD-3-Clause
// What a compiler is, judged from its name (and from its --version text when the name says too little).
#pragma once

#include <string>
#include <string_view>

namespace strata::instrumenter {

/// The compiler family decides which instrumentation flags the compiler understands.
enum class CompilerFamily {
    unknown,  ///< the name says nothing (mpicc, cc, c++): ask `--version` when it matters
    gnu,      ///< gcc, g++, gfortran: `-finstrument-functions` and its exclude lists
    clang,    ///< clang, clang++, flang: `-finstrument-functions`, no exclude lists
    intel,    ///< icx, icpx, ifx, icc, icpc, ifort
    nvcc,     ///< NVIDIA's CUDA driver; host code goes to its host compiler (`-ccbin`)
    other,    ///< a compiler known not to be one of the above
};

/// The file name of `path` without its directories ("/usr/bin/mpicc" -> "mpicc").
std::string base_name(std::string_view path);

/// The family a compiler name stands for: "gcc-12", "x86_64-linux-gnu-g++", "clang++-14", "nvcc".
/// Names that may stand for several families (mpicc, cc, c++) give `unknown`.
CompilerFamily family_from_name(std::string_view compiler);

/// The family from what `<compiler> --version` printed; `unknown` for empty text.
CompilerFamily family_from_version_text(std::string_view text);

/// The family of nvcc's host compiler: the `-ccbin` value when given (`unknown` when it names a
/// directory or an ambiguous program), otherwise gcc, nvcc's default on Linux.
CompilerFamily nvcc_host_family(std::string_view ccbin);

/// True when the name says MPI: mpicc, mpicxx, mpic++, mpiCC, mpif90, mpifort, mpif77, mpiicc, ...,
/// and parallel HDF5's h5pcc and h5pfc.
bool is_mpi_compiler(std::string_view compiler);

/// True when the program is a C preprocessor (cpp, clang-cpp, x86_64-linux-gnu-cpp-12):
/// everything it does is preprocessing.
bool is_preprocessor(std::string_view compiler);

/// True when the compiler is nvcc.
bool is_cuda_compiler(std::string_view compiler);

/// The family's name, for messages.
std::string_view family_name(CompilerFamily family);

}  // namespace strata::instrumenter
