// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of strata-preload: ELF reading, the loader's library search, options, the plan, the checks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "elf_file.hpp"
#include "library_search.hpp"
#include "preload_plan.hpp"
#include "preload_program.hpp"

namespace si = strata::instrumenter;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- synthetic ELF images

struct ElfSpec {
    int bits = 64;
    bool big_endian = false;
    std::uint16_t type = 3;  // ET_DYN
    std::uint16_t machine = 62;
    bool interpreter = true;
    bool dynamic = true;
    bool pie = true;
    std::vector<std::string> needed;
    std::string rpath, runpath, soname;
};

void put(std::vector<unsigned char>& bytes, std::size_t at, std::uint64_t value, std::size_t width,
         bool big) {
    if (bytes.size() < at + width) bytes.resize(at + width);
    for (std::size_t i = 0; i < width; ++i) {
        const std::size_t index = big ? at + width - 1 - i : at + i;
        bytes[index] = static_cast<unsigned char>(value >> (8 * i));
    }
}

/// One PT_LOAD over the whole file (vaddr = 0x10000 + offset), PT_INTERP and PT_DYNAMIC as asked.
std::vector<unsigned char> make_elf(const ElfSpec& spec) {
    const bool is64 = spec.bits == 64, big = spec.big_endian;
    const std::size_t word = is64 ? 8 : 4, header = is64 ? 64 : 52, phent = is64 ? 56 : 32;
    const std::uint64_t base = 0x10000;
    const std::size_t phnum = 1 + (spec.interpreter ? 1 : 0) + (spec.dynamic ? 1 : 0);
    std::vector<unsigned char> bytes(header + phnum * phent, 0);
    const char ident[] = {0x7f, 'E', 'L', 'F'};
    std::copy(ident, ident + 4, bytes.begin());
    bytes[4] = is64 ? 2 : 1;
    bytes[5] = big ? 2 : 1;
    bytes[6] = 1;
    put(bytes, 16, spec.type, 2, big);
    put(bytes, 18, spec.machine, 2, big);
    put(bytes, is64 ? 32 : 28, header, word, big);  // e_phoff
    put(bytes, is64 ? 54 : 42, phent, 2, big);
    put(bytes, is64 ? 56 : 44, phnum, 2, big);

    const std::string interp = "/lib/ld-test.so.1";
    const std::size_t interp_at = bytes.size();
    bytes.insert(bytes.end(), interp.begin(), interp.end());
    bytes.push_back(0);
    // String table: offset 0 is the empty string.
    std::string strings(1, '\0');
    const auto add = [&strings](const std::string& s) {
        const auto at = strings.size();
        strings += s + '\0';
        return at;
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> dyn;
    for (const auto& n : spec.needed) dyn.emplace_back(1, add(n));
    if (!spec.soname.empty()) dyn.emplace_back(14, add(spec.soname));
    if (!spec.rpath.empty()) dyn.emplace_back(15, add(spec.rpath));
    if (!spec.runpath.empty()) dyn.emplace_back(29, add(spec.runpath));
    const std::size_t strtab_at = bytes.size();
    bytes.insert(bytes.end(), strings.begin(), strings.end());
    while (bytes.size() % 8 != 0) bytes.push_back(0);
    dyn.emplace_back(5, base + strtab_at);
    dyn.emplace_back(10, strings.size());
    if (spec.pie) dyn.emplace_back(0x6ffffffb, 0x08000000);
    dyn.emplace_back(0, 0);
    const std::size_t dynamic_at = bytes.size();
    for (const auto& [tag, value] : dyn) {
        const auto at = bytes.size();
        put(bytes, at, tag, word, big);
        put(bytes, at + word, value, word, big);
    }
    const std::size_t dynamic_size = bytes.size() - dynamic_at;

    std::size_t ph = header;
    const auto segment = [&](std::uint32_t type, std::uint64_t offset, std::uint64_t size) {
        put(bytes, ph, type, 4, big);
        if (is64) {
            put(bytes, ph + 8, offset, 8, big);
            put(bytes, ph + 16, base + offset, 8, big);
            put(bytes, ph + 32, size, 8, big);
            put(bytes, ph + 40, size, 8, big);
        } else {
            put(bytes, ph + 4, offset, 4, big);
            put(bytes, ph + 8, base + offset, 4, big);
            put(bytes, ph + 16, size, 4, big);
            put(bytes, ph + 20, size, 4, big);
        }
        ph += phent;
    };
    segment(1, 0, bytes.size());
    if (spec.interpreter) segment(3, interp_at, interp.size() + 1);
    if (spec.dynamic) segment(2, dynamic_at, dynamic_size);
    return bytes;
}

/// A fresh directory under the test's temporary folder.
fs::path scratch(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("strata-preload-test-" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write_file(const fs::path& path, const std::vector<unsigned char>& bytes, bool executable = false) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ::chmod(path.c_str(), executable ? 0755 : 0644);
}

void write_text(const fs::path& path, const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
}

// ---------------------------------------------------------------- helpers for the plan

si::NeededLibrary needed(const std::string& name, const std::string& by = "") {
    return {name, "/usr/lib/" + name, by};
}

si::PreloadInputs inputs_with(std::vector<si::NeededLibrary> libraries,
                              std::vector<std::string> built = {"strata-mpi", "strata-user",
                                                                "strata-measurement"}) {
    si::PreloadInputs inputs;
    inputs.needed = std::move(libraries);
    inputs.find_library = [built](const std::string& name) {
        return std::find(built.begin(), built.end(), name) != built.end()
                   ? "/opt/strata/lib/lib" + name + ".so"
                   : std::string();
    };
    inputs.library_dirs = "/opt/strata/lib";
    return inputs;
}

si::PreloadOptions options_from(const std::vector<std::string>& args) {
    auto parsed = si::parse_preload_arguments(args);
    EXPECT_FALSE(parsed.error) << *parsed.error;
    return parsed.options;
}

const std::string core = "/opt/strata/lib/libstrata-user.so:/opt/strata/lib/libstrata-measurement.so";
const std::string mpi = "/opt/strata/lib/libstrata-mpi.so";

}  // namespace

// ---------------------------------------------------------------- ELF

TEST(ElfFile, Reads64BitLittleEndian) {
    ElfSpec spec;
    spec.needed = {"libmpi.so.40", "libc.so.6"};
    spec.runpath = "$ORIGIN/../lib:/opt/x";
    spec.soname = "libapp.so";
    const auto elf = si::parse_elf_bytes(make_elf(spec));
    ASSERT_TRUE(elf.elf) << *elf.problem;
    EXPECT_EQ(elf.bits, 64);
    EXPECT_FALSE(elf.big_endian);
    EXPECT_EQ(elf.machine, 62);
    EXPECT_TRUE(elf.has_interpreter);
    EXPECT_EQ(elf.interpreter, "/lib/ld-test.so.1");
    EXPECT_TRUE(elf.has_dynamic);
    EXPECT_TRUE(elf.pie);
    EXPECT_EQ(elf.needed, (std::vector<std::string>{"libmpi.so.40", "libc.so.6"}));
    EXPECT_EQ(elf.runpath, (std::vector<std::string>{"$ORIGIN/../lib", "/opt/x"}));
    EXPECT_TRUE(elf.rpath.empty());
    EXPECT_EQ(elf.soname, "libapp.so");
}

TEST(ElfFile, Reads32BitBigEndian) {
    ElfSpec spec;
    spec.bits = 32;
    spec.big_endian = true;
    spec.machine = 20;
    spec.type = 2;
    spec.pie = false;
    spec.needed = {"libgomp.so.1"};
    spec.rpath = "/a:/b";
    const auto elf = si::parse_elf_bytes(make_elf(spec));
    ASSERT_TRUE(elf.elf) << *elf.problem;
    EXPECT_EQ(elf.bits, 32);
    EXPECT_TRUE(elf.big_endian);
    EXPECT_EQ(elf.machine, 20);
    EXPECT_EQ(elf.type, 2);
    EXPECT_FALSE(elf.pie);
    EXPECT_EQ(elf.needed, std::vector<std::string>{"libgomp.so.1"});
    EXPECT_EQ(elf.rpath, (std::vector<std::string>{"/a", "/b"}));
}

TEST(ElfFile, StaticImageHasNoInterpreterNorDynamicSection) {
    ElfSpec spec;
    spec.type = 2;
    spec.interpreter = false;
    spec.dynamic = false;
    const auto elf = si::parse_elf_bytes(make_elf(spec));
    ASSERT_TRUE(elf.elf);
    EXPECT_FALSE(elf.has_interpreter);
    EXPECT_FALSE(elf.has_dynamic);
    EXPECT_TRUE(elf.needed.empty());
}

TEST(ElfFile, RejectsWhatIsNotElfAndTruncatedFiles) {
    const std::string text = "#!/bin/sh\necho hi\n";
    auto elf = si::parse_elf_bytes(std::vector<unsigned char>(text.begin(), text.end()));
    EXPECT_FALSE(elf.elf);
    EXPECT_EQ(elf.problem, "not an ELF file");
    EXPECT_FALSE(si::parse_elf_bytes({}).elf);

    ElfSpec spec;
    spec.needed = {"libmpi.so.40"};
    const auto full = make_elf(spec);
    for (std::size_t size : {std::size_t{4}, std::size_t{20}, std::size_t{70}, full.size() - 8}) {
        elf = si::parse_elf_bytes(std::vector<unsigned char>(full.begin(), full.begin() + size));
        EXPECT_FALSE(elf.elf) << size;
        EXPECT_NE(elf.problem->find("truncated"), std::string::npos) << size << ": " << *elf.problem;
    }
    auto bad_class = full;
    bad_class[4] = 7;
    EXPECT_EQ(si::parse_elf_bytes(bad_class).problem, "unknown ELF class");
}

TEST(ElfFile, ReadsRealPrograms) {
    const auto serial = si::read_elf_file(STRATA_PRELOAD_SERIAL);
    ASSERT_TRUE(serial.elf) << *serial.problem;
    EXPECT_TRUE(serial.has_interpreter);
    EXPECT_NE(std::find(serial.needed.begin(), serial.needed.end(), "libc.so.6"), serial.needed.end());
    const auto self = si::read_elf_file("/proc/self/exe");
    EXPECT_EQ(serial.machine, self.machine);
    EXPECT_EQ(si::read_elf_file("/nonexistent/file").problem, "No such file or directory");
#ifdef STRATA_PRELOAD_STATIC
    const auto fixed = si::read_elf_file(STRATA_PRELOAD_STATIC);
    ASSERT_TRUE(fixed.elf);
    EXPECT_FALSE(fixed.has_interpreter);
    EXPECT_TRUE(fixed.needed.empty());
#endif
#ifdef STRATA_PRELOAD_STATIC_PIE
    const auto pie = si::read_elf_file(STRATA_PRELOAD_STATIC_PIE);
    ASSERT_TRUE(pie.elf);
    EXPECT_FALSE(pie.has_interpreter);
    EXPECT_TRUE(pie.has_dynamic);
    EXPECT_TRUE(pie.pie);
#endif
#ifdef STRATA_PRELOAD_PLAIN_RING
    const auto ring = si::read_elf_file(STRATA_PRELOAD_PLAIN_RING);
    ASSERT_TRUE(ring.elf);
    EXPECT_TRUE(std::any_of(ring.needed.begin(), ring.needed.end(),
                            [](const std::string& n) { return si::library_base_name(n) == "libmpi"; }));
    EXPECT_TRUE(std::none_of(ring.needed.begin(), ring.needed.end(),
                             [](const std::string& n) { return n.find("strata") != std::string::npos; }));
#endif
}

TEST(ElfFile, LibraryBaseNames) {
    EXPECT_EQ(si::library_base_name("libmpi.so.40"), "libmpi");
    EXPECT_EQ(si::library_base_name("libmpi.so"), "libmpi");
    EXPECT_EQ(si::library_base_name("/usr/lib/libcudart.so.12.2"), "libcudart");
    EXPECT_EQ(si::library_base_name("libevent_core-2.1.so.7"), "libevent_core-2.1");
    EXPECT_EQ(si::library_base_name("libsomething.sox"), "libsomething.sox");
    EXPECT_EQ(si::library_base_name("ld-linux-x86-64.so.2"), "ld-linux-x86-64");
}

// ---------------------------------------------------------------- library search

TEST(LibrarySearch, FollowsRunpathRpathAndSkipsOtherArchitectures) {
    const auto dir = scratch("closure");
    // program: RUNPATH $ORIGIN/lib -> liba.so.1 -> (RUNPATH ${ORIGIN}) libb.so.2 -> libmpi.so.40 (missing)
    // libb.so.2 exists first as a 32-bit library in elsewhere/, listed before lib/ in LD_LIBRARY_PATH.
    ElfSpec program;
    program.needed = {"liba.so.1", "libnone.so.3"};
    program.runpath = "$ORIGIN/lib";
    write_file(dir / "bin" / "app", make_elf(program), true);
    ElfSpec a;
    a.needed = {"libb.so.2", "liba.so.1"};
    a.runpath = "${ORIGIN}";
    a.soname = "liba.so.1";
    write_file(dir / "bin" / "lib" / "liba.so.1", make_elf(a));
    ElfSpec b32;
    b32.bits = 32;
    b32.machine = 3;
    write_file(dir / "elsewhere" / "libb.so.2", make_elf(b32));
    ElfSpec b;
    b.needed = {"libmpi.so.40"};
    write_file(dir / "bin" / "lib" / "libb.so.2", make_elf(b));

    si::SearchSettings settings;
    settings.library_path = {(dir / "elsewhere").string()};
    const auto closure =
        si::needed_closure((dir / "bin" / "app").string(), si::parse_elf_bytes(make_elf(program)), settings);
    ASSERT_EQ(closure.size(), 4u);
    EXPECT_EQ(closure[0].name, "liba.so.1");
    EXPECT_EQ(fs::path(closure[0].path), fs::canonical(dir / "bin" / "lib" / "liba.so.1"));
    EXPECT_EQ(closure[0].needed_by, "");
    EXPECT_EQ(closure[1].name, "libnone.so.3");
    EXPECT_EQ(closure[1].path, "");
    EXPECT_EQ(closure[2].name, "libb.so.2");
    EXPECT_EQ(closure[2].needed_by, "liba.so.1");
    EXPECT_EQ(fs::path(closure[2].path),
              fs::canonical(dir / "bin" / "lib" / "libb.so.2"));  // not the 32-bit one
    EXPECT_EQ(closure[3].name, "libmpi.so.40");
    EXPECT_EQ(closure[3].needed_by, "libb.so.2");
    EXPECT_EQ(closure[3].path, "");
}

TEST(LibrarySearch, ProgramRpathAppliesToItsLibrariesAndCacheAndDefaultsComeLast) {
    const auto dir = scratch("rpath");
    ElfSpec program;
    program.needed = {"liba.so.1", "libc.so.7"};
    program.rpath = "/nonexistent:" + (dir / "rp").string();
    ElfSpec a;
    a.needed = {"libfromrpath.so.1", "libcached.so.1"};
    write_file(dir / "rp" / "liba.so.1", make_elf(a));
    write_file(dir / "rp" / "libfromrpath.so.1", make_elf(ElfSpec()));
    write_file(dir / "cache" / "libcached.so.1", make_elf(ElfSpec()));
    write_file(dir / "default" / "libc.so.7", make_elf(ElfSpec()));
    si::SearchSettings settings;
    settings.cache_lookup = [&dir](const std::string& name) {
        return name == "libcached.so.1" ? std::vector<std::string>{(dir / "cache" / name).string()}
                                        : std::vector<std::string>{};
    };
    settings.default_dirs = {(dir / "default").string()};
    const auto closure =
        si::needed_closure((dir / "app").string(), si::parse_elf_bytes(make_elf(program)), settings);
    ASSERT_EQ(closure.size(), 4u);
    EXPECT_EQ(closure[0].path, (dir / "rp" / "liba.so.1").string());
    EXPECT_EQ(closure[1].path, (dir / "default" / "libc.so.7").string());
    EXPECT_EQ(closure[2].path, (dir / "rp" / "libfromrpath.so.1").string());
    EXPECT_EQ(closure[3].path, (dir / "cache" / "libcached.so.1").string());
}

TEST(LibrarySearch, ParsesLdSoCacheImages) {
    // Header: magic+version (20), nlibs, len_strings, flags + padding, extension offset, 3 unused.
    std::vector<unsigned char> image(48, 0);
    const std::string magic = "glibc-ld.so.cache1.1";
    std::copy(magic.begin(), magic.end(), image.begin());
    put(image, 20, 2, 4, false);
    image.resize(48 + 2 * 24, 0);
    const std::string strings = std::string("libx.so.1\0/lib/libx.so.1\0liby.so\0/usr/lib/liby.so\0", 51);
    const std::size_t s = image.size();
    image.insert(image.end(), strings.begin(), strings.end());
    put(image, 48 + 4, s, 4, false);
    put(image, 48 + 8, s + 10, 4, false);
    put(image, 72 + 4, s + 25, 4, false);
    put(image, 72 + 8, s + 33, 4, false);
    const auto entries = si::parse_ld_so_cache(std::string(image.begin(), image.end()));
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries.find("libx.so.1")->second, "/lib/libx.so.1");
    EXPECT_EQ(entries.find("liby.so")->second, "/usr/lib/liby.so");
    EXPECT_TRUE(si::parse_ld_so_cache("garbage").empty());
    EXPECT_TRUE(si::parse_ld_so_cache(std::string(image.begin(), image.begin() + 60)).empty());
}

TEST(LibrarySearch, FindsTheSystemLibrariesOfARealProgram) {
    const auto elf = si::read_elf_file(STRATA_PRELOAD_SERIAL);
    const auto closure =
        si::needed_closure(STRATA_PRELOAD_SERIAL, elf, si::system_search_settings(elf.machine));
    const auto libc = std::find_if(closure.begin(), closure.end(),
                                   [](const si::NeededLibrary& l) { return l.name == "libc.so.6"; });
    ASSERT_NE(libc, closure.end());
    EXPECT_TRUE(fs::exists(libc->path)) << libc->path;
#ifdef STRATA_PRELOAD_PLAIN_RING
    const auto ring = si::read_elf_file(STRATA_PRELOAD_PLAIN_RING);
    const auto all =
        si::needed_closure(STRATA_PRELOAD_PLAIN_RING, ring, si::system_search_settings(ring.machine));
    const auto mpi_library = std::find_if(all.begin(), all.end(), [](const si::NeededLibrary& l) {
        return si::library_base_name(l.name) == "libmpi";
    });
    ASSERT_NE(mpi_library, all.end());
    EXPECT_TRUE(fs::exists(mpi_library->path)) << mpi_library->path;
    // libmpi's own libraries are in the closure too, named with what needs them.
    EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                            [&](const si::NeededLibrary& l) { return l.needed_by == mpi_library->name; }));
#endif
}

// ---------------------------------------------------------------- options

TEST(PreloadOptions, ReadsOptionsUntilTheProgram) {
    auto parsed = si::parse_preload_arguments({"--verbose", "--no-mpi", "--dry-run", "./app", "--mpi", "-x"});
    EXPECT_FALSE(parsed.error) << *parsed.error;
    EXPECT_TRUE(parsed.options.verbose);
    EXPECT_TRUE(parsed.options.dry_run);
    EXPECT_EQ(parsed.options.forced, (std::map<std::string, bool>{{"mpi", false}}));
    EXPECT_EQ(parsed.options.command, (std::vector<std::string>{"./app", "--mpi", "-x"}));

    parsed = si::parse_preload_arguments({"--mpi", "--openmp", "--no-cuda", "--", "-app"});
    EXPECT_EQ(parsed.options.forced,
              (std::map<std::string, bool>{{"mpi", true}, {"openmp", true}, {"cuda", false}}));
    EXPECT_EQ(parsed.options.command, std::vector<std::string>{"-app"});

    parsed = si::parse_preload_arguments({"--frobnicate", "./app"});
    EXPECT_EQ(parsed.error, "unknown option '--frobnicate' (see 'strata-preload --help')");
    EXPECT_TRUE(si::parse_preload_arguments({"--help"}).options.help);
    EXPECT_TRUE(si::parse_preload_arguments({"--version"}).options.version);
    EXPECT_TRUE(si::parse_preload_arguments({}).options.command.empty());
}

TEST(PreloadOptions, HelpNamesEveryAdapterOption) {
    const auto help = si::preload_usage_text();
    for (const auto& adapter : si::preload_adapters()) {
        EXPECT_NE(help.find("--" + adapter.feature + ", --no-" + adapter.feature), std::string::npos)
            << adapter.feature;
        EXPECT_EQ(adapter.library, "strata-" + adapter.feature);
        EXPECT_FALSE(adapter.triggers.empty());
    }
    EXPECT_EQ(si::preload_version_text().rfind("strata-preload (Strata) ", 0), 0u);
}

// ---------------------------------------------------------------- the plan

TEST(PreloadPlan, CoreLibrariesForAProgramWithoutMpi) {
    const auto plan = si::plan_preload(options_from({"./app"}), inputs_with({needed("libc.so.6")}));
    EXPECT_FALSE(plan.error) << *plan.error;
    EXPECT_EQ(plan.ld_preload, core);
    EXPECT_TRUE(plan.features.empty());
    EXPECT_FALSE(plan.already_linked);
}

TEST(PreloadPlan, MpiAdapterWhenTheProgramOrALibraryNeedsLibmpi) {
    auto plan =
        si::plan_preload(options_from({"./app"}), inputs_with({needed("libmpi.so.40"), needed("libc.so.6")}));
    EXPECT_EQ(plan.ld_preload, mpi + ":" + core);
    EXPECT_EQ(plan.features, std::vector<std::string>{"mpi"});
    ASSERT_EQ(plan.notes.size(), 1u);
    EXPECT_EQ(plan.notes[0], "MPI: libstrata-mpi.so for libmpi.so.40");

    plan = si::plan_preload(
        options_from({"./app"}),
        inputs_with({needed("libhdf5_openmpi.so.103"), needed("libmpi.so.40", "libhdf5_openmpi.so.103")}));
    EXPECT_EQ(plan.ld_preload, mpi + ":" + core);
    EXPECT_EQ(plan.notes[0], "MPI: libstrata-mpi.so for libmpi.so.40 (needed by libhdf5_openmpi.so.103)");

    for (const char* name :
         {"libmpich.so.12", "libmpi_mpifh.so.40", "libmpi_usempif08.so.40", "libmpifort.so.12"}) {
        EXPECT_EQ(si::plan_preload(options_from({"./app"}), inputs_with({needed(name)})).ld_preload,
                  mpi + ":" + core)
            << name;
    }
    // Names that only look alike.
    for (const char* name : {"libmpfr.so.6", "libmpiP.so", "libmpi-extra.so.1"}) {
        EXPECT_EQ(si::plan_preload(options_from({"./app"}), inputs_with({needed(name)})).ld_preload, core)
            << name;
    }
}

TEST(PreloadPlan, ForcedOnAndOff) {
    auto plan = si::plan_preload(options_from({"--no-mpi", "./app"}), inputs_with({needed("libmpi.so.40")}));
    EXPECT_EQ(plan.ld_preload, core);
    ASSERT_EQ(plan.notes.size(), 1u);
    EXPECT_NE(plan.notes[0].find("--no-mpi"), std::string::npos);

    plan = si::plan_preload(options_from({"--mpi", "./app"}), inputs_with({needed("libc.so.6")}));
    EXPECT_EQ(plan.ld_preload, mpi + ":" + core);
    EXPECT_EQ(plan.notes[0], "MPI: libstrata-mpi.so (--mpi)");
}

TEST(PreloadPlan, MissingAdapterWarnsUnlessForced) {
    const std::vector<std::string> without_mpi = {"strata-user", "strata-measurement"};
    auto plan = si::plan_preload(options_from({"./app"}), inputs_with({needed("libmpi.so.40")}, without_mpi));
    EXPECT_FALSE(plan.error) << *plan.error;
    EXPECT_EQ(plan.ld_preload, core);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0],
              "warning: the program uses MPI (libmpi.so.40) but libstrata-mpi.so is not in Strata's library "
              "directory (/opt/strata/lib): its MPI activity is not recorded");

    plan = si::plan_preload(options_from({"--mpi", "./app"}), inputs_with({}, without_mpi));
    EXPECT_EQ(plan.error, "--mpi: libstrata-mpi.so is not in Strata's library directory (/opt/strata/lib)");

    // Adapters not built: OpenMP and CUDA programs run with the core libraries and a warning.
    plan = si::plan_preload(options_from({"./app"}),
                            inputs_with({needed("libgomp.so.1"), needed("libcudart.so.12")}));
    EXPECT_EQ(plan.ld_preload, core);
    EXPECT_EQ(plan.warnings.size(), 2u);
}

TEST(PreloadPlan, OpenMpProgramsOfGccKeepTheirRuntime) {
    const std::vector<std::string> both = {"strata-openmp", "strata-openmp-gomp", "strata-user",
                                           "strata-measurement"};
    // libgomp has no OMPT: its GOMP_* entry points are measured, before libgomp's.
    auto inputs = inputs_with({needed("libgomp.so.1")}, both);
    inputs.openmp_runtime = "/usr/lib/llvm/lib/libomp.so";
    auto plan = si::plan_preload(options_from({"./app"}), inputs);
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp-gomp.so:" + core);
    EXPECT_TRUE(plan.warnings.empty());
    // libomp has OMPT: the OMPT tool, as before.
    plan = si::plan_preload(options_from({"./app"}), inputs_with({needed("libomp.so.5")}, both));
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp.so:" + core);
    // Without libstrata-openmp-gomp, a clear warning and no OpenMP adapter.
    plan = si::plan_preload(options_from({"./app"}),
                            inputs_with({needed("libgomp.so.1")}, {"strata-openmp", "strata-user", "strata-measurement"}));
    EXPECT_EQ(plan.ld_preload, core);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_NE(plan.warnings[0].find("libstrata-openmp-gomp.so"), std::string::npos) << plan.warnings[0];
}

// --openmp for a program that opens its OpenMP runtime itself (Python and PyTorch's libgomp):
// both adapters, each recording only for its own kind of runtime.
TEST(PreloadPlan, ForcedOpenMpWithoutARuntimeGetsBothAdapters) {
    const std::vector<std::string> both = {"strata-openmp", "strata-openmp-gomp", "strata-user",
                                           "strata-measurement"};
    auto plan = si::plan_preload(options_from({"--openmp", "./app"}), inputs_with({needed("libc.so.6")}, both));
    EXPECT_FALSE(plan.error) << *plan.error;
    EXPECT_EQ(plan.ld_preload,
              "/opt/strata/lib/libstrata-openmp.so:/opt/strata/lib/libstrata-openmp-gomp.so:" + core);
    // Without libgomp's adapter, the OMPT tool alone.
    plan = si::plan_preload(options_from({"--openmp", "./app"}),
                            inputs_with({needed("libc.so.6")}, {"strata-openmp", "strata-user", "strata-measurement"}));
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp.so:" + core);
}

TEST(PreloadPlan, GccOpenMpRuntimeOption) {
    auto parsed = si::parse_preload_arguments({"--gcc-openmp-runtime=libomp", "./app"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_TRUE(parsed.options.gcc_openmp_on_libomp);
    parsed = si::parse_preload_arguments({"--gcc-openmp-runtime=libgomp", "./app"});
    ASSERT_FALSE(parsed.error) << *parsed.error;
    EXPECT_FALSE(parsed.options.gcc_openmp_on_libomp);
    parsed = si::parse_preload_arguments({"--gcc-openmp-runtime=iomp", "./app"});
    EXPECT_NE(parsed.error->find("takes libgomp"), std::string::npos) << *parsed.error;
    EXPECT_NE(parsed.error->find("'iomp'"), std::string::npos) << *parsed.error;
}

TEST(PreloadPlan, OpenMpProgramsOfGccOnLlvmsRuntime) {
    const std::vector<std::string> with_openmp = {"strata-openmp", "strata-user", "strata-measurement"};
    auto on_libomp = options_from({"./app"});
    on_libomp.gcc_openmp_on_libomp = true;
    // libgomp has none: LLVM's libomp is preloaded after the adapter and runs GCC's OpenMP code.
    auto inputs = inputs_with({needed("libgomp.so.1")}, with_openmp);
    inputs.openmp_runtime = "/usr/lib/llvm/lib/libomp.so";
    auto plan = si::plan_preload(on_libomp, inputs);
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp.so:/usr/lib/llvm/lib/libomp.so:" + core);
    EXPECT_TRUE(plan.warnings.empty());
    // With libstrata-openmp-gnu, libomp gets libgomp's kind of locks.
    auto with_defaults = inputs_with({needed("libgomp.so.1")},
                                     {"strata-openmp", "strata-openmp-gnu", "strata-user", "strata-measurement"});
    with_defaults.openmp_runtime = "/usr/lib/llvm/lib/libomp.so";
    plan = si::plan_preload(on_libomp, with_defaults);
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp.so:/usr/lib/llvm/lib/libomp.so:"
                               "/opt/strata/lib/libstrata-openmp-gnu.so:" + core);
    // A program on libomp already keeps its own settings.
    plan = si::plan_preload(
        options_from({"./app"}),
        inputs_with({needed("libomp.so.5")}, {"strata-openmp", "strata-openmp-gnu", "strata-user", "strata-measurement"}));
    EXPECT_EQ(plan.ld_preload, "/opt/strata/lib/libstrata-openmp.so:" + core);
    // Without libomp, the program runs unmeasured for OpenMP, and the user is told why.
    inputs.openmp_runtime.clear();
    plan = si::plan_preload(on_libomp, inputs);
    EXPECT_EQ(plan.ld_preload, core);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_NE(plan.warnings[0].find("libgomp.so.1"), std::string::npos) << plan.warnings[0];
    EXPECT_NE(plan.warnings[0].find("no OMPT"), std::string::npos) << plan.warnings[0];
}

TEST(PreloadPlan, AdapterBuiltForAnotherRuntimeIsLeftOut) {
    const auto with_adapter_needing = [](std::vector<si::NeededLibrary> libraries) {
        auto inputs = inputs_with(std::move(libraries));
        inputs.library_needed = [](const std::string& path) {
            return path == "/opt/strata/lib/libstrata-mpi.so"
                       ? std::vector<std::string>{"libstrata-measurement.so.0", "libmpi.so.40", "libc.so.6"}
                       : std::vector<std::string>{};
        };
        return inputs;
    };
    // MPICH's libmpi.so.12 against an adapter built with Open MPI's libmpi.so.40.
    auto plan = si::plan_preload(options_from({"./app"}), with_adapter_needing({needed("libmpi.so.12")}));
    EXPECT_FALSE(plan.error) << *plan.error;
    EXPECT_EQ(plan.ld_preload, core);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(
        plan.warnings[0],
        "warning: libstrata-mpi.so was built for libmpi.so.40 but the program uses libmpi.so.12: the two "
        "cannot be loaded together; measure it with a Strata built for the program's MPI (its MPI activity "
        "is not recorded)");
    plan = si::plan_preload(options_from({"--mpi", "./app"}), with_adapter_needing({needed("libmpi.so.12")}));
    EXPECT_EQ(plan.error->rfind("--mpi: libstrata-mpi.so was built for libmpi.so.40", 0), 0u) << *plan.error;
    // The same runtime, also for a Fortran program (libmpi_mpifh needs libmpi).
    plan = si::plan_preload(
        options_from({"./app"}),
        with_adapter_needing({needed("libmpi_mpifh.so.40"), needed("libmpi.so.40", "libmpi_mpifh.so.40")}));
    EXPECT_EQ(plan.ld_preload, mpi + ":" + core);
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(PreloadPlan, MissingCoreLibraryIsAnError) {
    const auto plan = si::plan_preload(options_from({"./app"}), inputs_with({}, {"strata-user"}));
    EXPECT_EQ(plan.error->rfind(
                  "libstrata-measurement.so is not in Strata's library directory (/opt/strata/lib)", 0),
              0u)
        << *plan.error;
}

TEST(PreloadPlan, KeepsTheUsersPreloadAfterOurs) {
    auto inputs = inputs_with({needed("libmpi.so.40")});
    inputs.existing_preload = "/x/libfaketime.so /opt/strata/lib/libstrata-user.so:/y/libz.so";
    const auto plan = si::plan_preload(options_from({"./app"}), inputs);
    EXPECT_EQ(plan.ld_preload, mpi + ":" + core + ":/x/libfaketime.so:/y/libz.so");
}

TEST(PreloadPlan, RefusesPathsLdPreloadCannotHold) {
    si::PreloadInputs inputs;
    inputs.find_library = [](const std::string& name) { return "/opt/my strata/lib" + name + ".so"; };
    const auto plan = si::plan_preload(options_from({"./app"}), inputs);
    EXPECT_NE(plan.error->find("cannot be put in LD_PRELOAD"), std::string::npos) << *plan.error;
}

TEST(PreloadPlan, ProgramsLinkedWithStrataRunAsTheyAre) {
    auto inputs = inputs_with(
        {needed("libstrata-user.so.0"), needed("libstrata-measurement.so.0", "libstrata-user.so.0")});
    inputs.existing_preload = "/x/liba.so";
    const auto plan = si::plan_preload(options_from({"./app"}), inputs);
    EXPECT_TRUE(plan.already_linked);
    EXPECT_EQ(plan.ld_preload, "/x/liba.so");
    EXPECT_TRUE(plan.libraries.empty());
}

TEST(PreloadPlan, RealProgramBuiltWithTheWrapperIsRecognised) {
    const auto elf = si::read_elf_file(STRATA_PRELOAD_LINKED);
    ASSERT_TRUE(elf.elf) << *elf.problem;
    auto inputs =
        inputs_with(si::needed_closure(STRATA_PRELOAD_LINKED, elf, si::system_search_settings(elf.machine)));
    EXPECT_TRUE(si::plan_preload(options_from({"./app"}), inputs).already_linked);
    const auto serial = si::read_elf_file(STRATA_PRELOAD_SERIAL);
    inputs = inputs_with(
        si::needed_closure(STRATA_PRELOAD_SERIAL, serial, si::system_search_settings(serial.machine)));
    EXPECT_FALSE(si::plan_preload(options_from({"./app"}), inputs).already_linked);
}

// ---------------------------------------------------------------- the checks

TEST(PreloadProgram, AcceptsADynamicProgramAndFindsItInPath) {
    const auto self = si::read_elf_file("/proc/self/exe");
    auto check = si::check_program(STRATA_PRELOAD_SERIAL, "/bin", self);
    EXPECT_FALSE(check.error) << *check.error;
    EXPECT_EQ(check.path, STRATA_PRELOAD_SERIAL);
    const auto dir = fs::path(STRATA_PRELOAD_SERIAL).parent_path().string();
    check = si::check_program("serial_work", "/nonexistent:" + dir, self);
    EXPECT_FALSE(check.error) << *check.error;
    EXPECT_EQ(check.path, dir + "/serial_work");
}

TEST(PreloadProgram, RefusesWithAReason) {
    const auto self = si::read_elf_file("/proc/self/exe");
    const auto dir = scratch("checks");
    const auto error = [&](const std::string& program) {
        return si::check_program(program, "/nonexistent", self).error.message();
    };
    EXPECT_EQ(error((dir / "nosuch").string()), "program '" + (dir / "nosuch").string() + "' not found");
    EXPECT_EQ(error("nosuch-program"), "program 'nosuch-program' not found in PATH");
    EXPECT_EQ(error(dir.string()), "'" + dir.string() + "' is a directory, not a program");
    write_text(dir / "data", "text", 0644);
    EXPECT_NE(error((dir / "data").string()).find("is not an executable file"), std::string::npos);
    write_text(dir / "text", "just text", 0755);
    EXPECT_NE(error((dir / "text").string()).find("is not an ELF program (not an ELF file)"),
              std::string::npos);
    write_text(dir / "run.sh", "#!/bin/sh\nexec ./app\n", 0755);
    const auto script = error((dir / "run.sh").string());
    EXPECT_NE(script.find("is a script (#!/bin/sh), not a binary"), std::string::npos) << script;
    EXPECT_NE(script.find("exec strata-preload ./app"), std::string::npos) << script;
    EXPECT_NE(error("mpirun").find("is a launcher: put strata-preload after it"), std::string::npos);
    EXPECT_NE(error("/usr/bin/mpiexec.openmpi").find("is a launcher"), std::string::npos);
    EXPECT_NE(error("srun").find("is a launcher"), std::string::npos);
    EXPECT_NE(error("strata-preload").find("cannot be strata-preload itself"), std::string::npos);

    ElfSpec other;
    other.bits = 32;
    other.machine = 3;
    write_file(dir / "app32", make_elf(other), true);
    EXPECT_NE(
        error((dir / "app32").string()).find("is a 32-bit i386 program, but Strata's libraries are 64-bit"),
        std::string::npos)
        << error((dir / "app32").string());
    ElfSpec library = ElfSpec();
    library.machine = self.machine;
    library.interpreter = false;
    library.pie = false;
    write_file(dir / "libx.so", make_elf(library), true);
    EXPECT_NE(error((dir / "libx.so").string()).find("is a shared library, not a program"),
              std::string::npos);
    ElfSpec object = library;
    object.type = 1;
    write_file(dir / "x.o", make_elf(object), true);
    EXPECT_NE(error((dir / "x.o").string()).find("not a program"), std::string::npos);
}

TEST(PreloadProgram, RefusesStaticPrograms) {
    const auto self = si::read_elf_file("/proc/self/exe");
#ifdef STRATA_PRELOAD_STATIC
    EXPECT_EQ(si::check_program(STRATA_PRELOAD_STATIC, "", self).error,
              si::static_program_message(STRATA_PRELOAD_STATIC));
#endif
#ifdef STRATA_PRELOAD_STATIC_PIE
    EXPECT_EQ(si::check_program(STRATA_PRELOAD_STATIC_PIE, "", self).error,
              si::static_program_message(STRATA_PRELOAD_STATIC_PIE));
#endif
    const auto message = si::static_program_message("./app");
    EXPECT_NE(message.find("cannot be measured through LD_PRELOAD; rebuild it with `strata <compiler>`"),
              std::string::npos);
}
