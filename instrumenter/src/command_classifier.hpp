// SPDX-License-Identifier: BSD-3-Clause
// Classification of a compiler command line: which step it performs and on which inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::instrumenter {

/// The step a compiler command performs, which decides what the wrapper adds.
enum class Step {
    query,         ///< --version, -dumpversion, -print-*, --help, or no input: passed through untouched
    preprocess,    ///< -E, -M or -MM without -MD/-MMD, nvcc -cuda: only -I and -D are added
    assemble,      ///< -S: compiled (and instrumented) to assembly, not linked
    compile,       ///< -c, -fsyntax-only, nvcc -dc/-ptx/...: compiled and instrumented, not linked
    partial_link,  ///< -r, nvcc -lib/-dlink: objects combined, nothing linked against Strata
    link,          ///< an executable: sources compiled and instrumented, Strata's libraries linked
    shared_link,   ///< -shared: like link, for a shared library
};

/// The kind of an input file, judged from its extension (or from `-x`).
enum class InputKind { source, object, static_library, shared_library, other };

/// True when `library` (the name after -l, or a library file's name) is an MPI library:
/// mpi, mpi_cxx, mpi_mpifh, mpi_usempif08, mpich, mpichf90, mpicxx, mpifort, ...
bool is_mpi_library(std::string_view library);

/// The index in `argv` (a compiler command) of the first argument that links an MPI library
/// (-lmpi, `-l mpi`, libmpi.so.40, ...); argv.size() when there is none.
std::size_t first_mpi_library_argument(const std::vector<std::string>& argv);

/// The language of a source input.
enum class Language { none, c, cxx, cuda, fortran, assembler, objc, other };

/// One input file of the command line.
struct InputFile {
    std::string path;
    InputKind kind = InputKind::other;
    Language language = Language::none;
};

/// What a compiler command line does.
struct Classification {
    Step step = Step::link;
    /// The input files in command-line order (after expanding response files).
    std::vector<InputFile> inputs;
    /// The `-o` value, empty when there is none.
    std::string output;
    /// OpenMP is enabled by a flag (-fopenmp, -fopenmp=..., -fiopenmp, -qopenmp, -Xcompiler -fopenmp).
    bool openmp = false;
    /// The command links an MPI library by name (-lmpi, -lmpich, libmpi.so, ...): an MPI
    /// program built with a plain compiler.
    bool links_mpi = false;
    /// -static or -static-pie: Strata's shared libraries cannot be linked.
    bool static_link = false;
    /// -MD or -MMD: a normal compile that also writes a dependency file.
    bool dependency_file = false;
    /// nvcc's host compiler (-ccbin, --compiler-bindir), empty when not given.
    std::string host_compiler;

    /// True when at least one input is a source file that this command compiles.
    bool compiles_sources() const;
};

/// Classifies `args` (the compiler's arguments, without the compiler itself) for `compiler`.
/// Response files are expanded for classification; flags are understood in the spelling of
/// GCC, Clang, gfortran, Intel and (when `compiler` is nvcc) nvcc.
Classification classify(std::string_view compiler, const std::vector<std::string>& args);

/// The kind and language of a file from its name: "a.cpp" -> source C++, "libx.so.1" -> shared library.
InputFile classify_input(const std::string& path);

/// The step's name, for messages and tests.
std::string_view step_name(Step step);

}  // namespace strata::instrumenter
