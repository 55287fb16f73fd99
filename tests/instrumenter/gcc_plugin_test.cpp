// SPDX-License-Identifier: BSD-3-Clause
// The GCC plugin in the wrapper: when it is chosen, and the commands built with it.
#include <gtest/gtest.h>

#include <filesystem>

#include "command_builder.hpp"
#include "command_classifier.hpp"
#include "gcc_plugin_choice.hpp"
#include "test_support.hpp"

namespace strata::instrumenter::test {
namespace {

const std::string plugin = "/prefix/lib/strata/strata_gcc.so";

Layout plugin_layout() {
    auto layout = fixed_layout();
    layout.gcc_plugin = plugin;
    layout.gcc_plugin_gcc_version = "12.2.0";
    layout.gcc_plugin_gcc_dir = "/usr/lib/gcc/x86_64-linux-gnu/12/plugin";
    return layout;
}

TEST(GccPluginChoice, TheGccThePluginWasBuiltForGetsIt) {
    const auto choice =
        choose_gcc_plugin(plugin_layout(), "gcc", {"12.2.0", "/usr/lib/gcc/x86_64-linux-gnu/12/plugin"});
    EXPECT_EQ(choice.plugin, plugin);
    EXPECT_EQ(choice.note, "note: instrumenting with Strata's GCC plugin (" + plugin + ")");
}

TEST(GccPluginChoice, AnotherVersionFallsBack) {
    const auto choice =
        choose_gcc_plugin(plugin_layout(), "gcc-13", {"13.1.0", "/usr/lib/gcc/x86_64-linux-gnu/13/plugin"});
    EXPECT_EQ(choice.plugin, "");
    EXPECT_EQ(
        choice.note,
        "note: 'gcc-13' is GCC 13.1.0, Strata's GCC plugin was built for GCC 12.2.0; instrumenting with "
        "-finstrument-functions");
    // A compiler that could not be asked is another version too.
    EXPECT_EQ(choose_gcc_plugin(plugin_layout(), "mpicc", {}).plugin, "");
}

TEST(GccPluginChoice, AnotherBuildOfTheSameVersionFallsBack) {
    const auto choice =
        choose_gcc_plugin(plugin_layout(), "/opt/gcc/bin/gcc", {"12.2.0", "/opt/gcc/lib/gcc/12/plugin"});
    EXPECT_EQ(choice.plugin, "");
    EXPECT_EQ(choice.note,
              "note: '/opt/gcc/bin/gcc' is another build of GCC 12.2.0 (plugin directory "
              "/opt/gcc/lib/gcc/12/plugin) "
              "than the one Strata's GCC plugin was built for (/usr/lib/gcc/x86_64-linux-gnu/12/plugin); "
              "instrumenting with -finstrument-functions");
}

TEST(GccPluginChoice, NoPluginBuiltFallsBack) {
    const auto choice =
        choose_gcc_plugin(fixed_layout(), "gcc", {"12.2.0", "/usr/lib/gcc/x86_64-linux-gnu/12/plugin"});
    EXPECT_EQ(choice.plugin, "");
    EXPECT_EQ(choice.note,
              "note: Strata was built without its GCC plugin; instrumenting with -finstrument-functions");
}

TEST(GccPluginChoice, FirstLineOfAnAnswer) {
    EXPECT_EQ(first_line("12.2.0\n"), "12.2.0");
    EXPECT_EQ(first_line("  /usr/lib/gcc/x86_64-linux-gnu/12/plugin \r\nmore\n"),
              "/usr/lib/gcc/x86_64-linux-gnu/12/plugin");
    EXPECT_EQ(first_line(""), "");
}

/// Builds `command` with the plugin chosen, and optionally a filter.
BuiltCommand build_with_plugin(const Args& command, const char* filter_text = nullptr) {
    WrapperOptions options;
    options.compiler_command = command;
    BuildContext context;
    context.layout = plugin_layout();
    context.gcc_plugin = plugin;
    context.host_family = CompilerFamily::gnu;
    if (filter_text != nullptr) {
        options.instrument_filter = "f.filter";
        context.filter = parse_filter_text(filter_text, "f.filter");
    }
    return build_command(options, classify(command[0], Args(command.begin() + 1, command.end())), context);
}

TEST(GccPluginInCommand, ReplacesFinstrumentFunctions) {
    EXPECT_EQ(
        build_with_plugin({"gcc", "-O2", "-c", "a.c"}).argv,
        (Args{"gcc", "-O2", "-c", "a.c", "-fplugin=" + plugin, "-DSTRATA_USER_ENABLE", "-I/prefix/include"}));
    // Compile and link in one step: the plugin, then the same libraries (strata_plugin_* are in
    // libstrata-compiler, beside the -finstrument-functions hooks).
    EXPECT_EQ(build_with_plugin({"g++", "a.cc", "-o", "app"}).argv,
              Args({"g++", "a.cc", "-o", "app", "-fplugin=" + plugin, "-DSTRATA_USER_ENABLE",
                    "-I/prefix/include"}) +
                  link_additions());
    // Nothing to instrument: nothing changes.
    EXPECT_EQ(build_with_plugin({"gcc", "a.o", "-o", "app"}).argv,
              Args({"gcc", "a.o", "-o", "app"}) + link_additions());
    EXPECT_EQ(build_with_plugin({"gcc", "-E", "a.c"}).argv,
              (Args{"gcc", "-E", "a.c", "-DSTRATA_USER_ENABLE", "-I/prefix/include"}));
}

TEST(GccPluginInCommand, TheFilterFileIsGivenToThePluginWhole) {
    // Exact names, INCLUDE and MANGLED rules: nothing is left to the run-time filter.
    const auto built = build_with_plugin({"gcc", "-c", "a.c"},
                                         "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE helper *a,b*\n INCLUDE main\n"
                                         " EXCLUDE MANGLED _Z4leafv\nSCOREP_REGION_NAMES_END\n");
    EXPECT_EQ(built.argv, (Args{"gcc", "-c", "a.c", "-fplugin=" + plugin,
                                "-fplugin-arg-strata_gcc-filter=" + (std::filesystem::current_path() / "f.filter").string(),
                                "-DSTRATA_USER_ENABLE", "-I/prefix/include"}));
    EXPECT_TRUE(built.messages.empty());
    EXPECT_TRUE(built.verbose_messages.empty());
}

TEST(GccPluginInCommand, NvccKeepsFinstrumentFunctions) {
    WrapperOptions options;
    options.compiler_command = {"nvcc", "-c", "k.cu"};
    BuildContext context;
    context.layout = plugin_layout();
    context.gcc_plugin = plugin;  // even if set by mistake
    context.host_family = CompilerFamily::gnu;
    const auto built = build_command(options, classify("nvcc", {"-c", "k.cu"}), context);
    EXPECT_EQ(built.argv, (Args{"nvcc", "-c", "k.cu", "-Xcompiler", "-finstrument-functions",
                                "-DSTRATA_USER_ENABLE", "-I/prefix/include"}));
}

TEST(GccPluginInCommand, LayoutsFindThePlugin) {
    ConfiguredPaths paths;
    paths.build_wrapper_dir = "/build/instrumenter";
    paths.bin_to_lib = "../lib";
    paths.bin_to_include = "../include";
    paths.build_gcc_plugin = "/build/instrumenter/gcc_plugin/strata_gcc.so";
    paths.bin_to_gcc_plugin = "../lib/strata/strata_gcc.so";
    paths.gcc_plugin_gcc_version = "12.2.0";
    paths.gcc_plugin_gcc_dir = "/usr/lib/gcc/x86_64-linux-gnu/12/plugin";
    const auto installed = layout_for_executable("/moved/prefix/bin", "/build/instrumenter", paths);
    EXPECT_EQ(installed.gcc_plugin, "/moved/prefix/lib/strata/strata_gcc.so");
    EXPECT_EQ(installed.gcc_plugin_gcc_version, "12.2.0");
    EXPECT_EQ(installed.gcc_plugin_gcc_dir, "/usr/lib/gcc/x86_64-linux-gnu/12/plugin");
    const auto build = layout_for_executable("/build/instrumenter", "/build/instrumenter", paths);
    EXPECT_EQ(build.gcc_plugin, "/build/instrumenter/gcc_plugin/strata_gcc.so");
    paths.bin_to_gcc_plugin.clear();  // built without the plugin
    EXPECT_EQ(layout_for_executable("/moved/prefix/bin", "/build/instrumenter", paths).gcc_plugin, "");
}

}  // namespace
}  // namespace strata::instrumenter::test
