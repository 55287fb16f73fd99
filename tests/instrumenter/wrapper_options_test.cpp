// SPDX-License-Identifier: BSD-3-Clause
// The wrapper's own options, compiler detection from names, and the layout of install and build trees.
#include <gtest/gtest.h>

#include <filesystem>

#include "command_builder.hpp"
#include "compiler_kind.hpp"
#include "layout.hpp"
#include "test_support.hpp"
#include "wrapper_options.hpp"

namespace strata::instrumenter::test {
namespace {

TEST(WrapperArguments, OptionsEndAtTheCompiler) {
    const auto parsed = parse_wrapper_arguments(
        {"--no-user", "--no-compiler", "--no-plugin", "--mpi", "--no-openmp", "--cuda", "--verbose",
         "--dry-run", "--instrument-filter=f.filter", "gcc", "--verbose", "-c", "a.c"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    const auto& o = parsed.options;
    EXPECT_FALSE(o.user);
    EXPECT_FALSE(o.compiler);
    EXPECT_FALSE(o.plugin);
    EXPECT_EQ(o.mpi, true);
    EXPECT_EQ(o.openmp, false);
    EXPECT_EQ(o.cuda, true);
    EXPECT_TRUE(o.verbose);
    EXPECT_TRUE(o.dry_run);
    EXPECT_EQ(o.instrument_filter, "f.filter");
    EXPECT_EQ(o.compiler_command, (Args{"gcc", "--verbose", "-c", "a.c"}));
}

TEST(WrapperArguments, DefaultsLeaveDetectionOpen) {
    const auto parsed = parse_wrapper_arguments({"mpicc", "a.c"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_TRUE(parsed.options.user);
    EXPECT_TRUE(parsed.options.compiler);
    EXPECT_TRUE(parsed.options.plugin);
    EXPECT_FALSE(parsed.options.mpi.has_value());
    EXPECT_FALSE(parsed.options.openmp.has_value());
    EXPECT_FALSE(parsed.options.cuda.has_value());
    EXPECT_EQ(parsed.options.compiler_command, (Args{"mpicc", "a.c"}));
}

TEST(WrapperArguments, SeparateFilterValueAndDoubleDash) {
    const auto parsed = parse_wrapper_arguments({"--user", "--instrument-filter", "x", "--", "gcc"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_EQ(parsed.options.instrument_filter, "x");
    EXPECT_EQ(parsed.options.compiler_command, (Args{"gcc"}));
}

TEST(WrapperArguments, UnknownOptionsAndMissingValuesAreErrors) {
    EXPECT_EQ(parse_wrapper_arguments({"--fast", "gcc"}).error,
              "unknown option '--fast' (strata's options go before the compiler; see 'strata --help')");
    EXPECT_EQ(parse_wrapper_arguments({"-v", "gcc"}).error,
              "unknown option '-v' (strata's options go before the compiler; see 'strata --help')");
    EXPECT_NE(parse_wrapper_arguments({"--instrument-filter="}).error, "");
    EXPECT_NE(parse_wrapper_arguments({"--instrument-filter"}).error, "");
}

TEST(WrapperArguments, GccOpenMpRuntime) {
    auto parsed = parse_wrapper_arguments({"--gcc-openmp-runtime=libomp", "gcc", "-fopenmp", "a.c"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_TRUE(parsed.options.gcc_openmp_on_libomp);
    EXPECT_EQ(parsed.options.compiler_command, (std::vector<std::string>{"gcc", "-fopenmp", "a.c"}));
    parsed = parse_wrapper_arguments({"--gcc-openmp-runtime=libgomp", "gcc"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_FALSE(parsed.options.gcc_openmp_on_libomp);
    EXPECT_FALSE(parse_wrapper_arguments({"gcc"}).options.gcc_openmp_on_libomp);
    parsed = parse_wrapper_arguments({"--gcc-openmp-runtime=", "gcc"});
    EXPECT_NE(parsed.error->find("takes libgomp (GCC's own, the default) or libomp"), std::string::npos)
        << *parsed.error;
}

TEST(WrapperArguments, HelpAndVersionNeedNoCompiler) {
    EXPECT_TRUE(parse_wrapper_arguments({"--help"}).options.help);
    EXPECT_TRUE(parse_wrapper_arguments({"-h"}).options.help);
    EXPECT_TRUE(parse_wrapper_arguments({"--version"}).options.version);
    EXPECT_TRUE(parse_wrapper_arguments({"--version"}).options.compiler_command.empty());
}

TEST(WrapperArguments, BooleanEnvironmentValues) {
    for (const char* yes : {"1", "true", "TRUE", "yes", "on"}) EXPECT_EQ(parse_boolean(yes), true) << yes;
    for (const char* no : {"", "0", "false", "No", "off"}) EXPECT_EQ(parse_boolean(no), false) << no;
    EXPECT_EQ(parse_boolean("maybe"), std::nullopt);
}

TEST(CompilerNames, FamiliesFromNames) {
    EXPECT_EQ(family_from_name("gcc"), CompilerFamily::gnu);
    EXPECT_EQ(family_from_name("/usr/bin/g++-12"), CompilerFamily::gnu);
    EXPECT_EQ(family_from_name("x86_64-linux-gnu-gfortran-12"), CompilerFamily::gnu);
    EXPECT_EQ(family_from_name("clang++-14"), CompilerFamily::clang);
    EXPECT_EQ(family_from_name("clang-cpp"), CompilerFamily::clang);
    EXPECT_EQ(family_from_name("flang-new"), CompilerFamily::clang);
    EXPECT_EQ(family_from_name("icpx"), CompilerFamily::intel);
    EXPECT_EQ(family_from_name("/usr/local/cuda/bin/nvcc"), CompilerFamily::nvcc);
    EXPECT_EQ(family_from_name("mpicc"), CompilerFamily::unknown);
    EXPECT_EQ(family_from_name("cc"), CompilerFamily::unknown);
}

TEST(CompilerNames, FamiliesFromVersionText) {
    EXPECT_EQ(family_from_version_text("gcc (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free "
                                       "Software Foundation, Inc.\n"),
              CompilerFamily::gnu);
    EXPECT_EQ(family_from_version_text("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"),
              CompilerFamily::clang);
    EXPECT_EQ(family_from_version_text("icx (ICX) 2024.0.0\nCopyright Intel Corporation\n"),
              CompilerFamily::intel);
    EXPECT_EQ(family_from_version_text(""), CompilerFamily::unknown);
    EXPECT_EQ(nvcc_host_family(""), CompilerFamily::gnu);
    EXPECT_EQ(nvcc_host_family("clang++"), CompilerFamily::clang);
}

TEST(CompilerNames, MpiAndCudaFromNames) {
    for (const char* mpi :
         {"mpicc", "mpicxx", "mpic++", "mpiCC", "mpif90", "mpifort", "mpif77", "/opt/mpi/bin/mpiicc", "h5pcc",
          "/usr/bin/h5pfc"}) {
        EXPECT_TRUE(is_mpi_compiler(mpi)) << mpi;
    }
    EXPECT_FALSE(is_mpi_compiler("gcc"));
    EXPECT_FALSE(is_mpi_compiler("/opt/mpi/bin/gcc"));
    EXPECT_FALSE(is_mpi_compiler("h5cc"));  // serial HDF5's wrapper
    EXPECT_TRUE(is_preprocessor("cpp"));
    EXPECT_TRUE(is_preprocessor("x86_64-linux-gnu-cpp-12"));
    EXPECT_FALSE(is_preprocessor("g++"));
    EXPECT_TRUE(is_cuda_compiler("nvcc"));
    EXPECT_FALSE(is_cuda_compiler("clang"));
}

TEST(Layouts, InstallTreeIsFoundRelativeToTheExecutable) {
    ConfiguredPaths paths;
    paths.build_wrapper_dir = "/build/instrumenter";
    paths.build_include_dirs = {"/src/measurement/include"};
    paths.build_library_dirs = {"/build/measurement"};
    paths.bin_to_lib = "../lib/x86_64-linux-gnu";
    paths.bin_to_include = "../include";
    const auto installed = layout_for_executable("/moved/prefix/bin", "/build/instrumenter", paths);
    EXPECT_EQ(installed.include_dirs, (Args{"/moved/prefix/include"}));
    EXPECT_EQ(installed.library_dirs, (Args{"/moved/prefix/lib/x86_64-linux-gnu"}));
    const auto build = layout_for_executable("/build/instrumenter", "/build/instrumenter", paths);
    EXPECT_EQ(build.include_dirs, (Args{"/src/measurement/include"}));
    EXPECT_EQ(build.library_dirs, (Args{"/build/measurement"}));
    // A build tree that no longer exists (empty real path) never matches.
    EXPECT_EQ(layout_for_executable("/build/instrumenter", "", paths).library_dirs,
              (Args{"/build/lib/x86_64-linux-gnu"}));
}

TEST(Layouts, LibrariesAreFoundInAnyDirectory) {
    TempDir a, b;
    a.write("libstrata-measurement.so", "");
    b.write("libstrata-mpi.a", "");
    b.write("libstrata-user.so.0", "");  // a versioned file alone is not what -l finds
    EXPECT_EQ(find_libraries({a.path(), b.path()}, strata_library_names()),
              (std::set<std::string>{"strata-measurement", "strata-mpi"}));
}

}  // namespace
}  // namespace strata::instrumenter::test
