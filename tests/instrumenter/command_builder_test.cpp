// SPDX-License-Identifier: BSD-3-Clause
// The wrapper's options, response files, missing libraries and layouts in the built command.
#include <gtest/gtest.h>

#include <algorithm>

#include "command_builder.hpp"
#include "command_classifier.hpp"
#include "test_support.hpp"

namespace strata::instrumenter::test {
namespace {

/// Builds the command for `command` with `options` (whose compiler_command is replaced).
BuiltCommand build(const Args& command, WrapperOptions options = {}, Layout layout = fixed_layout()) {
    options.compiler_command = command;
    const auto classification = classify(command[0], Args(command.begin() + 1, command.end()));
    BuildContext context;
    context.layout = std::move(layout);
    return build_command(options, classification, context);
}

// A GCC-built OpenMP program keeps GCC's libgomp, measured by libstrata-openmp-gomp,
// linked where the OMPT adapter would be (before the -lgomp gcc adds at the end).
TEST(OpenmpRuntimeInCommand, GccProgramsKeepLibgompMeasuredThroughItsEntryPoints) {
    auto build_for = [](const Args& command, CompilerFamily family, bool gcc_openmp_on_libomp) {
        WrapperOptions options;
        options.compiler_command = command;
        options.gcc_openmp_on_libomp = gcc_openmp_on_libomp;
        BuildContext context;
        context.layout = fixed_layout();
        context.layout.openmp_runtime_dir = "/llvm/lib";
        context.layout.available_libraries.insert(openmp_gomp_library);
        context.host_family = family;
        return build_command(options, classify(command[0], Args(command.begin() + 1, command.end())), context);
    };
    const Args gcc = {"gcc", "-fopenmp", "a.o", "-o", "app"};
    const auto kept = build_for(gcc, CompilerFamily::gnu, false);
    EXPECT_EQ(kept.argv, gcc + link_additions({"-lstrata-openmp-gomp"}));
    ASSERT_EQ(kept.verbose_messages.size(), 1u);
    EXPECT_NE(kept.verbose_messages[0].find("GOMP_* entry points"), std::string::npos) << kept.verbose_messages[0];
    const Args gfortran = {"gfortran", "-fopenmp", "a.o", "-o", "app"};
    EXPECT_EQ(build_for(gfortran, CompilerFamily::gnu, false).argv,
              gfortran + link_additions({"-lstrata-openmp-gomp"}));
    // --gcc-openmp-runtime=libomp: the OMPT adapter and LLVM's libomp.
    EXPECT_EQ(build_for(gcc, CompilerFamily::gnu, true).argv,
              gcc + link_additions({"-lstrata-openmp"}) + Args({"-L/llvm/lib", "-Wl,-rpath,/llvm/lib", "-lomp"}));
    // clang's programs have libomp: the OMPT adapter, whatever the option.
    const Args clang = {"clang", "-fopenmp", "a.o", "-o", "app"};
    EXPECT_EQ(build_for(clang, CompilerFamily::clang, false).argv, clang + link_additions({"-lstrata-openmp"}));
}

// With --gcc-openmp-runtime=libomp (or an install without libstrata-openmp-gomp), a
// GCC-built OpenMP program runs on LLVM's libomp, with libgomp-like locks when
// libstrata-openmp-gnu is there; a clang-built one is left on its own runtime.
TEST(OpenmpRuntimeInCommand, GccProgramsGetLibompAndItsLibgompLikeDefaults) {
    auto build_for = [](const Args& command, CompilerFamily family, bool defaults) {
        WrapperOptions options;
        options.compiler_command = command;
        BuildContext context;
        context.layout = fixed_layout();
        context.layout.openmp_runtime_dir = "/llvm/lib";
        if (defaults) context.layout.available_libraries.insert(openmp_gnu_defaults_library);
        context.host_family = family;
        return build_command(options, classify(command[0], Args(command.begin() + 1, command.end())), context);
    };
    const Args gcc = {"gcc", "-fopenmp", "a.o", "-o", "app"};
    const Args runtime = {"-L/llvm/lib", "-Wl,-rpath,/llvm/lib", "-lomp"};
    const auto with = build_for(gcc, CompilerFamily::gnu, true);
    EXPECT_EQ(with.argv, gcc + link_additions({"-lstrata-openmp"}) + runtime + Args{"-lstrata-openmp-gnu"});
    ASSERT_EQ(with.verbose_messages.size(), 1u);
    EXPECT_NE(with.verbose_messages[0].find("its locks are futex locks, as libgomp's, unless KMP_LOCK_KIND is set"),
              std::string::npos);
    // An install without the library: libomp alone.
    EXPECT_EQ(build_for(gcc, CompilerFamily::gnu, false).argv, gcc + link_additions({"-lstrata-openmp"}) + runtime);
    const Args clang = {"clang", "-fopenmp", "a.o", "-o", "app"};
    EXPECT_EQ(build_for(clang, CompilerFamily::clang, true).argv, clang + link_additions({"-lstrata-openmp"}));
}

TEST(WrapperOptionsInCommand, NoUserDropsTheDefine) {
    WrapperOptions options;
    options.user = false;
    EXPECT_EQ(build({"g++", "-c", "x.cc"}, options).argv,
              (Args{"g++", "-c", "x.cc", "-finstrument-functions", "-I/prefix/include"}));
    EXPECT_EQ(build({"g++", "-E", "x.cc"}, options).argv, (Args{"g++", "-E", "x.cc", "-I/prefix/include"}));
}

TEST(WrapperOptionsInCommand, NoCompilerDropsInstrumentationAndHooks) {
    WrapperOptions options;
    options.compiler = false;
    EXPECT_EQ(
        build({"gcc", "a.c", "-o", "app"}, options).argv,
        (Args{"gcc", "a.c", "-o", "app", "-DSTRATA_USER_ENABLE", "-I/prefix/include", "-L/prefix/lib",
              "-Wl,-rpath,/prefix/lib", "-Wl,--no-as-needed", "-lstrata-user", "-lstrata-measurement"}));
}

TEST(WrapperOptionsInCommand, NoMpiOverridesTheCompilerName) {
    WrapperOptions options;
    options.mpi = false;
    EXPECT_EQ(build({"mpicc", "a.o", "-o", "app"}, options).argv,
              Args({"mpicc", "a.o", "-o", "app"}) + link_additions());
}

// A plain compiler that links an MPI library builds an MPI program: its calls are measured.
TEST(WrapperOptionsInCommand, LinkingAnMpiLibraryLinksTheMpiAdapter) {
    for (const Args& command : {Args{"gcc", "a.o", "-lmpi", "-o", "app"}, Args{"g++", "a.o", "-l", "mpi_cxx"},
                                Args{"gfortran", "a.o", "-lmpi_mpifh", "-lm"}, Args{"cc", "a.o", "-lmpich"},
                                Args{"gcc", "a.o", "/usr/lib/x86_64-linux-gnu/libmpi.so.40"},
                                Args{"gcc", "a.o", "/opt/mpich/lib/libmpifort.a"}}) {
        const Args argv = build(command).argv;
        // Before the MPI library: the program binds its MPI calls to the first definition.
        const auto adapter = std::find(argv.begin(), argv.end(), "-lstrata-mpi");
        ASSERT_NE(adapter, argv.end()) << format_command(command);
        EXPECT_EQ(adapter - argv.begin(), 2) << format_command(argv);
        EXPECT_EQ(std::count(argv.begin(), argv.end(), "-lstrata-mpi"), 1) << format_command(argv);
    }
    // The output's name is not an input.
    EXPECT_EQ(first_mpi_library_argument({"gcc", "-shared", "-o", "libmpi_tools.so", "t.o"}), 5u);
    EXPECT_EQ(first_mpi_library_argument({"mpicc", "a.o", "-o", "app", "-L/x", "-l", "mpi"}), 5u);
    for (const Args& command : {Args{"gcc", "a.o", "-lm", "-o", "app"}, Args{"gcc", "a.o", "-lmpfr", "-lmpc"},
                                Args{"gcc", "a.o", "-lmpi", "-o", "app"}}) {
        WrapperOptions options;
        if (command[2] == "-lmpi") options.mpi = false;  // --no-mpi wins
        const Args argv = build(command, options).argv;
        EXPECT_EQ(std::find(argv.begin(), argv.end(), "-lstrata-mpi"), argv.end()) << format_command(command);
    }
    EXPECT_TRUE(is_mpi_library("libmpi_usempif08.so.40"));
    EXPECT_TRUE(is_mpi_library("mpichf90"));
    EXPECT_FALSE(is_mpi_library("mpfr"));
    EXPECT_FALSE(is_mpi_library("libmpc.so.3"));
}

TEST(WrapperOptionsInCommand, ExplicitAdaptersForAPlainCompiler) {
    WrapperOptions options;
    options.mpi = true;
    options.openmp = true;
    options.cuda = true;
    EXPECT_EQ(build({"g++", "a.o", "-o", "app"}, options).argv,
              Args({"g++", "a.o", "-o", "app"}) +
                  link_additions({"-lstrata-mpi", "-lstrata-openmp", "-lstrata-cuda"}));
}

TEST(WrapperOptionsInCommand, NoOpenmpOverridesTheFlag) {
    WrapperOptions options;
    options.openmp = false;
    EXPECT_EQ(build({"gcc", "-fopenmp", "a.o", "-o", "app"}, options).argv,
              Args({"gcc", "-fopenmp", "a.o", "-o", "app"}) + link_additions());
}

TEST(MissingLibraries, AnAdapterIsLeftOutWithAWarning) {
    auto layout = fixed_layout();
    layout.available_libraries.erase("strata-cuda");
    const auto built = build({"nvcc", "k.o", "-o", "app"}, {}, layout);
    EXPECT_EQ(built.argv,
              (Args{"nvcc", "k.o", "-o", "app", "-L/prefix/lib", "-Xlinker", "-rpath,/prefix/lib", "-Xlinker",
                    "--no-as-needed", "-lstrata-compiler", "-lstrata-user", "-lstrata-measurement"}));
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_EQ(built.messages[0],
              "warning: libstrata-cuda (CUDA adapter) not found in /prefix/lib; linking without it");
}

TEST(MissingLibraries, TheRuntimeStaysInTheLinkWithAWarning) {
    auto layout = fixed_layout();
    layout.available_libraries.erase("strata-measurement");
    const auto built = build({"gcc", "a.o"}, {}, layout);
    EXPECT_EQ(built.argv, Args({"gcc", "a.o"}) + link_additions());
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_NE(built.messages[0].find("libstrata-measurement (measurement runtime) not found"),
              std::string::npos);
}

TEST(Layouts, BuildTreeWithSeveralLibraryDirectories) {
    Layout layout;
    layout.include_dirs = {"/src/measurement/include", "/build/measurement/include"};
    layout.library_dirs = {"/build/measurement", "/build/adapters/user"};
    for (const auto& name : strata_library_names()) layout.available_libraries.insert(name);
    EXPECT_EQ(
        build({"gcc", "a.c"}, {}, layout).argv,
        (Args{"gcc", "a.c", "-finstrument-functions", "-DSTRATA_USER_ENABLE", "-I/src/measurement/include",
              "-I/build/measurement/include", "-L/build/measurement", "-Wl,-rpath,/build/measurement",
              "-L/build/adapters/user", "-Wl,-rpath,/build/adapters/user", "-Wl,--no-as-needed",
              "-lstrata-compiler", "-lstrata-user", "-lstrata-measurement"}));
}

TEST(StaticLinking, IsRefusedWithAReason) {
    const auto built = build({"gcc", "-static", "a.o", "-o", "app"});
    EXPECT_NE(built.error->find("static linking (-static) is not supported"), std::string::npos);
}

TEST(ResponseFiles, ExpandedForClassificationButPassedUnchanged) {
    TempDir dir;
    const auto rsp = dir.write("compile.rsp", "-O2 -c 'my file.c' -o \"my file.o\"\n");
    const Args command = {"gcc", "@" + rsp};
    const auto classification = classify("gcc", {"@" + rsp});
    EXPECT_EQ(classification.step, Step::compile);
    ASSERT_EQ(classification.inputs.size(), 1u);
    EXPECT_EQ(classification.inputs[0].path, "my file.c");
    EXPECT_EQ(classification.output, "my file.o");
    EXPECT_EQ(build(command).argv, command + compile_additions());
}

TEST(ResponseFiles, LinkOfObjectsListedInAResponseFile) {
    TempDir dir;
    const auto rsp = dir.write("objects.rsp", "a.o\nb.o\n-fopenmp\n");
    const Args command = {"g++", "@" + rsp, "-o", "app"};
    EXPECT_EQ(build(command).argv, command + link_additions({"-lstrata-openmp"}));
}

TEST(ResponseFiles, NestedResponseFilesAndBackslashEscapes) {
    TempDir dir;
    const auto inner = dir.write("inner.rsp", "-c a\\ b.c");
    const auto outer = dir.write("outer.rsp", "-O2 @" + inner);
    const auto classification = classify("gcc", {"@" + outer});
    EXPECT_EQ(classification.step, Step::compile);
    ASSERT_EQ(classification.inputs.size(), 1u);
    EXPECT_EQ(classification.inputs[0].path, "a b.c");
}

TEST(ResponseFiles, AResponseFileThatIncludesItselfStops) {
    TempDir dir;
    const auto self = dir.path() + "/self.rsp";
    dir.write("self.rsp", "-c a.c @" + self);
    const auto classification = classify("gcc", {"@" + self});
    EXPECT_EQ(classification.step, Step::compile);
}

TEST(ResponseFiles, AnUnreadableResponseFileIsAnInputAsForGcc) {
    const auto classification = classify("gcc", {"@/nonexistent/strata.rsp", "-c"});
    ASSERT_EQ(classification.inputs.size(), 1u);
    EXPECT_EQ(classification.inputs[0].path, "@/nonexistent/strata.rsp");
}

TEST(ResponseFiles, NvccOptionsFile) {
    TempDir dir;
    const auto optf = dir.write("nvcc.opt", "-c -Xcompiler -fopenmp");
    const auto classification = classify("nvcc", {"-optf", optf, "k.cu"});
    EXPECT_EQ(classification.step, Step::compile);
    EXPECT_TRUE(classification.openmp);
    ASSERT_EQ(classification.inputs.size(), 1u);
    EXPECT_EQ(classification.inputs[0].path, "k.cu");
}

TEST(Classification, InputKindsFromExtensions) {
    const auto classification =
        classify("gcc", {"a.c", "b.cpp", "c.C", "d.c++", "e.cxx", "f.cc", "g.cu", "h.F90", "i.f08", "j.s",
                         "k.o", "libl.a", "libm.so", "libn.so.1.2", "script.ld"});
    const std::vector<std::pair<InputKind, Language>> expected = {{InputKind::source, Language::c},
                                                                  {InputKind::source, Language::cxx},
                                                                  {InputKind::source, Language::cxx},
                                                                  {InputKind::source, Language::cxx},
                                                                  {InputKind::source, Language::cxx},
                                                                  {InputKind::source, Language::cxx},
                                                                  {InputKind::source, Language::cuda},
                                                                  {InputKind::source, Language::fortran},
                                                                  {InputKind::source, Language::fortran},
                                                                  {InputKind::source, Language::assembler},
                                                                  {InputKind::object, Language::none},
                                                                  {InputKind::static_library, Language::none},
                                                                  {InputKind::shared_library, Language::none},
                                                                  {InputKind::shared_library, Language::none},
                                                                  {InputKind::other, Language::none}};
    ASSERT_EQ(classification.inputs.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(classification.inputs[i].kind, expected[i].first) << classification.inputs[i].path;
        EXPECT_EQ(classification.inputs[i].language, expected[i].second) << classification.inputs[i].path;
    }
}

TEST(Classification, LanguageFromXUntilNone) {
    const auto classification = classify("gcc", {"-x", "c++", "a.inl", "b.o", "-x", "none", "c.o"});
    ASSERT_EQ(classification.inputs.size(), 3u);
    EXPECT_EQ(classification.inputs[0].language, Language::cxx);
    EXPECT_EQ(classification.inputs[1].kind, InputKind::source);  // as GCC: -x applies to every file
    EXPECT_EQ(classification.inputs[2].kind, InputKind::object);
}

TEST(Classification, NvccHostCompilerAndOutput) {
    const auto classification = classify("nvcc", {"-ccbin", "clang++", "--output-file=k.o", "-c", "k.cu"});
    EXPECT_EQ(classification.host_compiler, "clang++");
    EXPECT_EQ(classification.output, "k.o");
}

TEST(Features, NvccWithAnMpiHostCompilerIsAnMpiBuild) {
    WrapperOptions options;
    const auto mpi_host = classify("nvcc", {"-ccbin", "mpicxx", "-o", "app", "app.cu"});
    EXPECT_TRUE(resolve_features(options, "nvcc", mpi_host).mpi);
    EXPECT_TRUE(resolve_features(options, "nvcc", mpi_host).cuda);
    const auto plain_host = classify("nvcc", {"-ccbin", "g++", "-o", "app", "app.cu"});
    EXPECT_FALSE(resolve_features(options, "nvcc", plain_host).mpi);
}

TEST(Classification, OutputInEverySpelling) {
    EXPECT_EQ(classify("gcc", {"-o", "a", "x.o"}).output, "a");
    EXPECT_EQ(classify("gcc", {"-ob", "x.o"}).output, "b");
    EXPECT_EQ(classify("gcc", {"--output=c", "x.o"}).output, "c");
    EXPECT_EQ(classify("gcc", {"--output", "d", "x.o"}).output, "d");
}

TEST(FormatCommand, QuotesWhatAShellWouldSplit) {
    EXPECT_EQ(format_command({"gcc", "-DMSG=\"hi there\"", "it's.c", "-o", "a b", "", "-Wl,-rpath,/x"}),
              "gcc '-DMSG=\"hi there\"' 'it'\\''s.c' -o 'a b' '' -Wl,-rpath,/x");
}

}  // namespace
}  // namespace strata::instrumenter::test
