// SPDX-License-Identifier: BSD-3-Clause
// Real compiler command lines: their classification and the exact command the wrapper builds.
#include <gtest/gtest.h>

#include "command_builder.hpp"
#include "command_classifier.hpp"
#include "test_support.hpp"

namespace strata::instrumenter::test {
namespace {

/// One command line as a user or a build system types it, and what the wrapper makes of it.
struct CommandCase {
    const char* name;
    Args command;  ///< the compiler and its arguments
    Step step;
    Args added;  ///< what the wrapper appends to `command`
};

void PrintTo(const CommandCase& c, std::ostream* os) {
    *os << c.name;
}

const Args nvcc_compile = {"-Xcompiler", "-finstrument-functions", "-DSTRATA_USER_ENABLE",
                           "-I/prefix/include"};
const Args preprocess = {"-DSTRATA_USER_ENABLE", "-I/prefix/include"};

Args nvcc_link(const Args& adapters) {
    return Args{"-L/prefix/lib", "-Xlinker",       "-rpath,/prefix/lib",
                "-Xlinker",      "--no-as-needed", "-lstrata-compiler"} +
           adapters + Args{"-lstrata-user", "-lstrata-measurement"};
}

const CommandCase command_cases[] = {
    // Plain compile and link steps.
    {"gcc_compile_with_output", {"gcc", "-O2", "-c", "a.c", "-o", "a.o"}, Step::compile, compile_additions()},
    {"gxx_link_objects", {"g++", "a.o", "b.o", "-o", "app", "-lm"}, Step::link, link_additions()},
    {"gcc_compile_and_link",
     {"gcc", "-O2", "a.c", "-o", "app"},
     Step::link,
     compile_additions() + link_additions()},
    {"gcc_several_sources", {"gcc", "-c", "a.c", "b.c", "c.cpp"}, Step::compile, compile_additions()},
    {"gcc_verbose_compile", {"gcc", "-v", "-c", "a.c"}, Step::compile, compile_additions()},
    {"gcc_joined_output", {"gcc", "-oapp", "main.o"}, Step::link, link_additions()},
    {"gcc_separate_include_value",
     {"gcc", "-I", "include", "-o", "app", "main.o"},
     Step::link,
     link_additions()},
    {"gcc_user_as_needed_stays_before",
     {"gcc", "-o", "app", "main.c", "-Wl,--as-needed", "-lm"},
     Step::link,
     compile_additions() + link_additions()},
    {"gcc_xlinker_values_are_not_inputs",
     {"gcc", "-Xlinker", "-Map", "-Xlinker", "out.map", "main.o", "-o", "app"},
     Step::link,
     link_additions()},
    {"gcc_syntax_only", {"gcc", "-fsyntax-only", "a.c"}, Step::compile, compile_additions()},
    {"gcc_static_compile_is_fine", {"gcc", "-static", "-c", "a.c"}, Step::compile, compile_additions()},
    {"cc_compile", {"cc", "-c", "a.c"}, Step::compile, compile_additions()},
    {"clang_target_value",
     {"clang", "-target", "x86_64-linux-gnu", "-c", "a.c"},
     Step::compile,
     compile_additions()},

    // MPI compiler wrappers mean MPI; -fopenmp and friends mean OpenMP.
    {"mpicc_openmp_compile_and_link",
     {"mpicc", "-fopenmp", "x.c"},
     Step::link,
     compile_additions() + link_additions({"-lstrata-mpi", "-lstrata-openmp"})},
    {"mpicc_compile", {"mpicc", "-c", "x.c"}, Step::compile, compile_additions()},
    {"mpicxx_link", {"mpicxx", "main.o", "-o", "app"}, Step::link, link_additions({"-lstrata-mpi"})},
    {"mpic++_link", {"mpic++", "main.o", "-o", "app"}, Step::link, link_additions({"-lstrata-mpi"})},
    {"mpiCC_link", {"mpiCC", "main.o", "-o", "app"}, Step::link, link_additions({"-lstrata-mpi"})},
    {"mpif77_link", {"mpif77", "main.o", "-o", "app"}, Step::link, link_additions({"-lstrata-mpi"})},
    {"mpifort_link_with_path",
     {"/usr/bin/mpifort", "main.o", "-o", "app"},
     Step::link,
     link_additions({"-lstrata-mpi"})},
    {"mpif90_compile_fortran", {"mpif90", "-c", "solver.f90"}, Step::compile, compile_additions()},
    {"clang_openmp_libomp_link",
     {"clang", "-fopenmp=libomp", "a.o", "-o", "app"},
     Step::link,
     link_additions({"-lstrata-openmp"})},
    {"icx_qopenmp_link",
     {"icx", "-qopenmp", "a.o", "-o", "app"},
     Step::link,
     link_additions({"-lstrata-openmp"})},
    {"gcc_openmp_simd_is_not_openmp",
     {"gcc", "-fopenmp-simd", "a.o", "-o", "app"},
     Step::link,
     link_additions()},
    {"gcc_no_openmp_after_openmp",
     {"gcc", "-fopenmp", "-fno-openmp", "a.o", "-o", "app"},
     Step::link,
     link_additions()},
    {"icx_xhost_is_not_a_language", {"icx", "-xHost", "a.o", "-o", "app"}, Step::link, link_additions()},

    // nvcc: CUDA, host flags through -Xcompiler, linker flags through -Xlinker.
    {"nvcc_compile_with_host_openmp",
     {"nvcc", "-c", "k.cu", "-Xcompiler", "-fopenmp"},
     Step::compile,
     nvcc_compile},
    {"nvcc_link", {"nvcc", "k.o", "-o", "app"}, Step::link, nvcc_link({"-lstrata-cuda"})},
    {"nvcc_link_host_openmp_list",
     {"nvcc", "-Xcompiler", "-fopenmp,-O2", "k.o", "-o", "app"},
     Step::link,
     nvcc_link({"-lstrata-openmp", "-lstrata-cuda"})},
    {"nvcc_compile_and_link_joined_host_options",
     {"nvcc", "-Xcompiler=-fopenmp", "main.cu"},
     Step::link,
     nvcc_compile + nvcc_link({"-lstrata-openmp", "-lstrata-cuda"})},
    {"nvcc_device_compile", {"nvcc", "-dc", "k.cu", "-arch", "sm_80"}, Step::compile, nvcc_compile},
    {"nvcc_library_is_partial_link",
     {"nvcc", "-lib", "a.cu", "-o", "liba.a"},
     Step::partial_link,
     nvcc_compile},
    {"nvcc_version", {"nvcc", "--version"}, Step::query, {}},
    {"nvcc_short_version", {"nvcc", "-V"}, Step::query, {}},

    // Build systems: CMake and autotools.
    {"cmake_depfile_compile",
     {"g++", "-DFOO", "-I/src/include", "-O3", "-DNDEBUG", "-MD", "-MT", "CMakeFiles/x.dir/x.cpp.o", "-MF",
      "CMakeFiles/x.dir/x.cpp.o.d", "-o", "CMakeFiles/x.dir/x.cpp.o", "-c", "/src/x.cpp"},
     Step::compile,
     compile_additions()},
    {"cmake_shared_library_link",
     {"g++", "-fPIC", "-shared", "-Wl,-soname,libx.so.1", "-o", "libx.so.1.0", "a.o", "b.o"},
     Step::shared_link,
     link_additions()},
    {"autotools_depcomp_compile",
     {"gcc", "-DHAVE_CONFIG_H", "-I.", "-g", "-O2", "-MT", "foo.o", "-MD", "-MP", "-MF", ".deps/foo.Tpo",
      "-c", "-o", "foo.o", "foo.c"},
     Step::compile,
     compile_additions()},
    {"autotools_preprocessor_check", {"gcc", "-E", "conftest.c"}, Step::preprocess, preprocess},
    {"preprocess_macros_from_dev_null",
     {"gcc", "-E", "-dM", "-x", "c", "/dev/null"},
     Step::preprocess,
     preprocess},
    {"dependencies_only_M", {"gcc", "-M", "a.c"}, Step::preprocess, preprocess},
    {"dependencies_only_MM", {"gcc", "-MM", "a.c", "-MF", "a.d"}, Step::preprocess, preprocess},
    {"MMD_is_a_normal_compile", {"gcc", "-MMD", "-c", "a.c"}, Step::compile, compile_additions()},
    {"cpp_is_a_preprocessor", {"cpp", "-P", "a.c"}, Step::preprocess, preprocess},
    {"gcc_long_output_option", {"gcc", "--output", "app", "main.o"}, Step::link, link_additions()},
    {"preprocess_wins_over_MD", {"gcc", "-E", "-MD", "a.c"}, Step::preprocess, preprocess},
    {"assembly_output", {"gcc", "-S", "a.c", "-o", "a.s"}, Step::assemble, compile_additions()},
    {"shared_library_from_source",
     {"gcc", "-shared", "-fPIC", "a.c", "-o", "liba.so"},
     Step::shared_link,
     compile_additions() + link_additions()},
    {"relocatable_link_untouched", {"gcc", "-r", "a.o", "b.o", "-o", "c.o"}, Step::partial_link, {}},
    {"stdin_source_with_language",
     {"gcc", "-x", "c", "-", "-o", "conftest"},
     Step::link,
     compile_additions() + link_additions()},
    {"stdin_preprocess", {"gcc", "-E", "-x", "c++", "-"}, Step::preprocess, preprocess},
    {"forced_language_for_odd_extension",
     {"g++", "-c", "-x", "c++", "a.inl"},
     Step::compile,
     compile_additions()},
    {"assembler_with_cpp",
     {"gcc", "-x", "assembler-with-cpp", "-c", "start.S"},
     Step::compile,
     compile_additions()},

    // Queries pass through untouched.
    {"gcc_version", {"gcc", "--version"}, Step::query, {}},
    {"gcc_dumpversion", {"gcc", "-dumpversion"}, Step::query, {}},
    {"gcc_dumpfullversion", {"gcc", "-dumpfullversion"}, Step::query, {}},
    {"gcc_dumpmachine", {"gcc", "-dumpmachine"}, Step::query, {}},
    {"gcc_print_file_name", {"gcc", "-print-file-name=libgomp.so"}, Step::query, {}},
    {"gcc_print_prog_name", {"gcc", "-print-prog-name=ld"}, Step::query, {}},
    {"gcc_print_search_dirs", {"gcc", "-print-search-dirs"}, Step::query, {}},
    {"gcc_verbose_alone", {"gcc", "-v"}, Step::query, {}},
    {"gcc_help_optimizers", {"gcc", "-Q", "--help=optimizers"}, Step::query, {}},
    {"gcc_no_input", {"gcc"}, Step::query, {}},
    {"version_wins_over_inputs", {"gcc", "--version", "a.c"}, Step::query, {}},
    {"dumpdir_is_not_a_query", {"gcc", "-dumpdir", "out/", "-c", "a.c"}, Step::compile, compile_additions()},

    // Fortran and libraries.
    {"gfortran_compile_preprocessed",
     {"gfortran", "-O2", "-c", "mod.F90", "-J", "mods"},
     Step::compile,
     compile_additions()},
    {"gfortran_compile_and_link",
     {"gfortran", "main.f90", "-o", "app"},
     Step::link,
     compile_additions() + link_additions()},
    {"gfortran_fixed_form_f77", {"gfortran", "-c", "old.f"}, Step::compile, compile_additions()},
    {"static_archive_link", {"gcc", "main.o", "libfoo.a", "-o", "app"}, Step::link, link_additions()},
    {"versioned_shared_object_link",
     {"gcc", "main.o", "-L.", "-lfoo", "libbar.so.1", "-o", "app"},
     Step::link,
     link_additions()},
};

class CommandLineTest : public ::testing::TestWithParam<CommandCase> {};

TEST_P(CommandLineTest, ClassifiesAndBuildsTheExactCommand) {
    const auto& c = GetParam();
    WrapperOptions options;
    options.compiler_command = c.command;
    const Args args(c.command.begin() + 1, c.command.end());
    const auto classification = classify(c.command[0], args);
    EXPECT_EQ(step_name(classification.step), step_name(c.step));
    BuildContext context;
    context.layout = fixed_layout();
    const auto built = build_command(options, classification, context);
    EXPECT_FALSE(built.error) << *built.error;
    EXPECT_EQ(built.argv, c.command + c.added);
    EXPECT_TRUE(built.messages.empty()) << built.messages.front();
}

INSTANTIATE_TEST_SUITE_P(RealCommandLines, CommandLineTest, ::testing::ValuesIn(command_cases),
                         [](const ::testing::TestParamInfo<CommandCase>& info) {
                             std::string name = info.param.name;
                             for (auto& ch : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             }
                             return name;
                         });

}  // namespace
}  // namespace strata::instrumenter::test
