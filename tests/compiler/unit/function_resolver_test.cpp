// SPDX-License-Identifier: BSD-3-Clause
// Address -> function: ELF symbols, demangling, DWARF file and line, dlopen, the never-recorded
// policy (Strata, system libraries, system headers) and the filter.
#include "function_resolver.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstdlib>
#include <string>

#include "test_functions.hpp"

namespace strata::compiler::test {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

FunctionResolver resolver_with(const std::string& filter_text = "") {
    std::optional<filter::FilterFile> rules;
    if (!filter_text.empty()) rules = filter::parse_filter_text(filter_text, "t.filter");
    return FunctionResolver(std::move(rules), 0);
}

TEST(Demangle, CppNamesAreReadableAndCNamesStay) {
    EXPECT_EQ(filter::demangled_name("_ZN3geo5twiceIiEET_S1_"), "int geo::twice<int>(int)");
    EXPECT_EQ(filter::demangled_name("_ZZ4mainENKUliE_clEi"), "main::{lambda(int)#1}::operator()(int) const");
    EXPECT_EQ(filter::demangled_name("_ZNK3geo6Square4areaEv"), "geo::Square::area() const");
    EXPECT_EQ(filter::demangled_name("_Z10count_downi.constprop.0"), "count_down(int) [clone .constprop.0]");
    EXPECT_EQ(filter::demangled_name("main"), "main");
    // One-letter C names are not read as type codes ("f" would demangle to "float").
    EXPECT_EQ(filter::demangled_name("f"), "f");
    EXPECT_EQ(filter::demangled_name("g"), "g");
    EXPECT_EQ(filter::demangled_name("i"), "i");
    EXPECT_EQ(filter::demangled_name("leaf.cold"), "leaf.cold");
}

TEST(SystemLibraries, AreRecognisedByTheirDirectory) {
    EXPECT_TRUE(is_system_library("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"));
    EXPECT_TRUE(is_system_library("/lib/x86_64-linux-gnu/libc.so.6"));
    EXPECT_TRUE(is_system_library("/lib64/ld-linux-x86-64.so.2"));
    EXPECT_FALSE(is_system_library("/usr/local/lib/libapp.so"));
    EXPECT_FALSE(is_system_library("/home/u/usr/lib/libapp.so"));
    EXPECT_FALSE(is_system_library("/usr/libexec/app"));
}

TEST(FunctionResolver, NamesOfTheProgramsFunctions) {
    const auto f = test_functions();
    auto resolver = resolver_with();
    const auto check = [&](const KnownFunction& function, const std::string& name,
                           const std::string& mangled) {
        const FunctionInfo info = resolver.resolve(function.address);
        EXPECT_EQ(info.name, name);
        EXPECT_EQ(info.mangled, mangled);
        EXPECT_EQ(info.verdict, Verdict::record) << name;
        if (DwarfSource::available()) {
            EXPECT_EQ(info.file, f.file) << name;
            EXPECT_EQ(info.line, static_cast<std::uint32_t>(function.line)) << name;
        }
    };
    check(f.c_function, "c_function", "c_function");
    check(f.static_helper, "(anonymous namespace)::static_helper(int)", "_ZN12_GLOBAL__N_113static_helperEi");
    check(f.twice_int, "int shapes::twice<int>(int)", "_ZN6shapes5twiceIiEET_S1_");
    check(f.member, "shapes::Circle::area() const", "_ZNK6shapes6Circle4areaEv");
    check(f.lambda, "strata::compiler::test::test_functions()::{lambda(int)#1}::operator()(int) const",
          "_ZZN6strata8compiler4test14test_functionsEvENKUliE_clEi");
}

TEST(FunctionResolver, FunctionsOfSystemHeadersAreNotRecorded) {
    if (!DwarfSource::available()) GTEST_SKIP() << "built without libdw";
    auto resolver = resolver_with();
    const FunctionInfo info = resolver.resolve(test_functions().system_header);
    EXPECT_EQ(info.name, "long const& std::min<long>(long const&, long const&)");
    EXPECT_EQ(info.file.rfind("/usr/include/", 0), 0u) << info.file;
    EXPECT_EQ(info.verdict, Verdict::system_header);
}

TEST(FunctionResolver, FunctionsOfSystemLibrariesAreNotRecorded) {
    auto resolver = resolver_with();
    const FunctionInfo info =
        resolver.resolve(reinterpret_cast<std::uintptr_t>(dlsym(RTLD_DEFAULT, "abort")));
    EXPECT_EQ(info.verdict, Verdict::system_library) << info.object;
}

TEST(FunctionResolver, SharedObjectsOpenedLaterAreFound) {
    auto resolver = resolver_with();
    resolver.resolve(test_functions().c_function.address);  // the object list is read before dlopen
    void* plugin = dlopen(STRATA_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(plugin, nullptr) << dlerror();
    const auto entry = reinterpret_cast<std::uintptr_t>(dlsym(plugin, "plugin_entry"));
    const auto helper = reinterpret_cast<std::uintptr_t>(
        reinterpret_cast<void* (*)()>(dlsym(plugin, "plugin_helper_address"))());
    FunctionInfo info = resolver.resolve(entry);
    EXPECT_EQ(info.name, "plugin_entry");
    EXPECT_EQ(info.object, STRATA_TEST_PLUGIN);
    EXPECT_EQ(info.verdict, Verdict::record);
    info = resolver.resolve(helper);
    EXPECT_EQ(info.name, "plugin_helper");  // static: only in .symtab
    if (DwarfSource::available()) {
        EXPECT_TRUE(ends_with(info.file, "/plugin.c")) << info.file;
        EXPECT_EQ(info.line, 3u);
    }
    // The same object as Strata's own: never recorded.
    FunctionResolver own(std::nullopt, entry);
    EXPECT_EQ(own.resolve(helper).verdict, Verdict::strata);
    dlclose(plugin);
}

TEST(FunctionResolver, StrippedObjectsFallBackToTheDynamicSymbols) {
    const std::string stripped = ::testing::TempDir() + "strata_plugin_stripped.so";
    const std::string command = "strip -o " + stripped + " " STRATA_TEST_PLUGIN " 2>/dev/null";
    if (std::system(command.c_str()) != 0) GTEST_SKIP() << "strip not available";
    void* plugin = dlopen(STRATA_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(plugin, nullptr) << dlerror();
    link_map* map = nullptr;
    ASSERT_EQ(dlinfo(plugin, RTLD_DI_LINKMAP, &map), 0);
    const auto bias = map->l_addr;
    const auto entry = reinterpret_cast<std::uintptr_t>(dlsym(plugin, "plugin_entry")) - bias;
    const auto helper = reinterpret_cast<std::uintptr_t>(
                            reinterpret_cast<void* (*)()>(dlsym(plugin, "plugin_helper_address"))()) -
                        bias;
    ElfSymbols full(STRATA_TEST_PLUGIN);
    ElfSymbols dynamic(stripped);
    EXPECT_TRUE(full.has_symtab());
    EXPECT_FALSE(dynamic.has_symtab());
    ASSERT_NE(dynamic.find(entry), nullptr);
    EXPECT_STREQ(dynamic.find(entry)->name, "plugin_entry");
    EXPECT_EQ(dynamic.find(helper), nullptr);  // static functions are not exported
    ASSERT_NE(full.find(helper), nullptr);
    EXPECT_STREQ(full.find(helper)->name, "plugin_helper");
    EXPECT_EQ(ElfSymbols("/nonexistent").size(), 0u);
    dlclose(plugin);
}

TEST(FunctionResolver, TheFilterDecidesWithNameSymbolAndFile) {
    const auto f = test_functions();
    auto by_name =
        resolver_with("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE c_function *::twice<*\nSCOREP_REGION_NAMES_END\n");
    EXPECT_EQ(by_name.resolve(f.c_function.address).verdict, Verdict::filtered);
    EXPECT_EQ(by_name.resolve(f.twice_int.address).verdict, Verdict::filtered);
    EXPECT_EQ(by_name.resolve(f.static_helper.address).verdict, Verdict::record);

    auto by_symbol =
        resolver_with("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE MANGLED _ZNK6shapes*\nSCOREP_REGION_NAMES_END\n");
    EXPECT_EQ(by_symbol.resolve(f.member.address).verdict, Verdict::filtered);
    EXPECT_EQ(by_symbol.resolve(f.twice_int.address).verdict, Verdict::record);

    if (!DwarfSource::available()) return;
    auto by_file =
        resolver_with("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */test_functions.cpp\nSCOREP_FILE_NAMES_END\n");
    EXPECT_EQ(by_file.resolve(f.lambda.address).verdict, Verdict::filtered);
}

TEST(FunctionResolver, AnAddressOutsideEveryObjectIsDescribed) {
    auto resolver = resolver_with();
    const FunctionInfo info = resolver.resolve(0x10);
    EXPECT_EQ(info.name, "function at 0x10");
    EXPECT_EQ(info.object, "");
}

// describe(): what the GCC plugin compiled in, decided by the same policy and filter.

TEST(FunctionResolverDescribe, NamesAreDemangledFromTheAssemblerName) {
    const auto f = test_functions();
    auto resolver = resolver_with();
    const auto info = resolver.describe(f.member.address, "_ZNK6shapes6Circle4areaEv", "shapes::Circle::area",
                                        "/src/shapes.cpp", 12);
    EXPECT_EQ(info.name, "shapes::Circle::area() const");
    EXPECT_EQ(info.mangled, "_ZNK6shapes6Circle4areaEv");
    EXPECT_EQ(info.file, "/src/shapes.cpp");
    EXPECT_EQ(info.line, 12u);
    EXPECT_EQ(info.verdict, Verdict::record);
    EXPECT_FALSE(info.object.empty());
    // C: the assembler name is the name.  No file: no line either.
    const auto c = resolver.describe(f.c_function.address, "c_function", "c_function", "", 7);
    EXPECT_EQ(c.name, "c_function");
    EXPECT_EQ(c.line, 0u);
    // No assembler name: the printable name.
    EXPECT_EQ(resolver.describe(f.c_function.address, "", "work", "", 0).name, "work");
}

TEST(FunctionResolverDescribe, ThePolicyAppliesAsForAddresses) {
    const auto f = test_functions();
    auto resolver = resolver_with();
    EXPECT_EQ(resolver
                  .describe(f.c_function.address, "_ZSt3minIlERKT_S2_S2_", "std::min",
                            "/usr/include/c++/12/bits/stl_algobase.h", 230)
                  .verdict,
              Verdict::system_header);
    EXPECT_EQ(
        resolver.describe(f.c_function.address, "main._omp_fn.0", "main._omp_fn.0", "/src/a.c", 3).verdict,
        Verdict::openmp_outlined);
    // The object decides first: code in a system library is never recorded, whatever its name.
    const auto abort_code = reinterpret_cast<std::uintptr_t>(dlsym(RTLD_DEFAULT, "abort"));
    EXPECT_EQ(resolver.describe(abort_code, "work", "work", "/src/a.c", 3).verdict, Verdict::system_library);
}

TEST(FunctionResolverDescribe, TheFilterDecidesWithNameSymbolAndFile) {
    const auto f = test_functions();
    const auto address = f.c_function.address;
    auto rules = resolver_with(
        "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *::twice<* \n EXCLUDE MANGLED _ZNK6shapes*\n"
        "SCOREP_REGION_NAMES_END\n"
        "SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */generated/*\nSCOREP_FILE_NAMES_END\n");
    EXPECT_EQ(rules.describe(address, "_ZN6shapes5twiceIiEET_S1_", "twice", "/src/s.cpp", 1).verdict,
              Verdict::filtered);
    EXPECT_EQ(rules.describe(address, "_ZNK6shapes6Circle4areaEv", "area", "/src/s.cpp", 1).verdict,
              Verdict::filtered);
    EXPECT_EQ(rules.describe(address, "leaf", "leaf", "/src/generated/l.c", 1).verdict, Verdict::filtered);
    EXPECT_EQ(rules.describe(address, "leaf", "leaf", "/src/l.c", 1).verdict, Verdict::record);
}

TEST(OpenMpOutlined, CompilerGeneratedConstructBodiesAreRecognised) {
    EXPECT_TRUE(is_openmp_outlined(".omp_outlined."));
    EXPECT_TRUE(is_openmp_outlined(".omp_outlined._debug__.2"));
    EXPECT_TRUE(is_openmp_outlined(".omp_task_entry."));
    EXPECT_TRUE(is_openmp_outlined("main._omp_fn.0"));
    EXPECT_TRUE(is_openmp_outlined("_ZN3foo3barEv._omp_fn.12"));
    EXPECT_FALSE(is_openmp_outlined("omp_outlined"));
    EXPECT_FALSE(is_openmp_outlined("main"));
    EXPECT_FALSE(is_openmp_outlined(""));
}

}  // namespace
}  // namespace strata::compiler::test
