// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the configuration registry: strict parsers, load(), strata.cfg, docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace strata::config {
namespace {

/// A fake environment: every test loads the registry from its own, so every test
/// starts from the defaults although the Registry is a singleton.
struct FakeEnv {
    std::map<std::string, std::string> values;

    std::function<const char*(const char*)> lookup() const {
        return [this](const char* name) -> const char* {
            const auto it = values.find(name);
            return it == values.end() ? nullptr : it->second.c_str();
        };
    }
    std::vector<std::string> entries() const {
        std::vector<std::string> out{"PATH=/usr/bin", "HOME=/home/user"};
        for (const auto& [name, value] : values) out.push_back(name + "=" + value);
        return out;
    }
    Error load(std::vector<std::string>* warnings = nullptr) const {
        std::vector<std::string> ignored;
        const std::vector<std::string> environment = entries();
        return Registry::instance().load(lookup(), warnings != nullptr ? warnings : &ignored, &environment);
    }
};

/// A parser's answer, as the tests below read it.
struct ParseResult {
    bool ok = false;
    std::string normalized;
    std::string error;
};
ParseResult answer(const Error& error, std::string normalized) { return {!error, std::move(normalized), error.message()}; }
ParseResult parse_boolean(const std::string& t) {
    std::string n;
    const Error e = config::parse_boolean(t, &n);
    return answer(e, n);
}
ParseResult parse_size(const std::string& t) {
    std::string n;
    const Error e = config::parse_size(t, &n);
    return answer(e, n);
}
ParseResult parse_integer(const std::string& t) {
    std::string n;
    const Error e = config::parse_integer(t, &n);
    return answer(e, n);
}
ParseResult parse_enumeration(const std::string& t, const std::vector<std::string>& accepted) {
    std::string n;
    const Error e = config::parse_enumeration(t, accepted, &n);
    return answer(e, n);
}
ParseResult parse_list(const std::string& t, const std::vector<std::string>& accepted) {
    std::string n;
    const Error e = config::parse_list(t, accepted, &n);
    return answer(e, n);
}
ParseResult parse_value(Type type, const std::string& t, const std::vector<std::string>& accepted) {
    std::string n;
    const Error e = config::parse_value(type, t, accepted, &n);
    return answer(e, n);
}

void expect_good(const ParseResult& r, const std::string& normalized) {
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.normalized, normalized);
}

// --- parsers ---------------------------------------------------------------

TEST(ConfigParse, BooleanAcceptsEverySpellingInAnyCase) {
    for (const char* t : {"true", "TRUE", "yes", "Yes", "on", "ON", "1", "  true\t", " on "})
        expect_good(parse_boolean(t), "true");
    for (const char* t : {"false", "False", "no", "NO", "off", "Off", "0", "\nfalse "})
        expect_good(parse_boolean(t), "false");
}

TEST(ConfigParse, BooleanRejectsEverythingElse) {
    for (const char* t : {"", "  ", "maybe", "2", "truee", "t", "y", "1 0", "enable"}) {
        const ParseResult r = parse_boolean(t);
        EXPECT_FALSE(r.ok) << "'" << t << "'";
        EXPECT_EQ(r.error, "expected true, false, yes, no, on, off, 1 or 0");
    }
}

TEST(ConfigParse, SizeAcceptsSuffixesInPowersOf1024) {
    expect_good(parse_size("4096"), "4096");
    expect_good(parse_size("0"), "0");
    expect_good(parse_size("100B"), "100");
    for (const char* t : {"64K", "64k", "64KB", "64kb", "64KiB", "64kib", " 64K ", "64 K"})
        expect_good(parse_size(t), "65536");
    expect_good(parse_size("512M"), std::to_string(512ull << 20));
    expect_good(parse_size("512MiB"), std::to_string(512ull << 20));
    expect_good(parse_size("2G"), std::to_string(2ull << 30));
    expect_good(parse_size("2gb"), std::to_string(2ull << 30));
    expect_good(parse_size("1T"), std::to_string(1ull << 40));
    expect_good(parse_size("18446744073709551615"), "18446744073709551615");
    expect_good(parse_size("16777215T"), std::to_string(16777215ull << 40));
}

TEST(ConfigParse, SizeRejectsGarbageNegativeFractionsAndOverflow) {
    const std::string expected = "expected a size such as 4096, 64K, 512M or 2G (powers of 1024)";
    for (const char* t : {"", "   ", "64Q", "64P", "K", "64KK", "64Ki", "0x10", "64K B", "sixty", "64-"})
        EXPECT_EQ(parse_size(t).error, expected) << "'" << t << "'";
    for (const char* t : {"-1", "-64K", " -0"}) {
        const ParseResult r = parse_size(t);
        EXPECT_FALSE(r.ok) << t;
        EXPECT_NE(r.error.find("cannot be negative"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find(expected), std::string::npos);
    }
    for (const char* t : {"1.5G", "0.5", ".5G", "1,5G"}) {
        const ParseResult r = parse_size(t);
        EXPECT_FALSE(r.ok) << t;
        EXPECT_NE(r.error.find("fractions are not accepted"), std::string::npos) << r.error;
    }
    for (const char* t : {"18446744073709551616", "99999999999999999999999", "16777216T", "17179869184G"}) {
        const ParseResult r = parse_size(t);
        EXPECT_FALSE(r.ok) << t;
        EXPECT_NE(r.error.find("too large"), std::string::npos) << r.error;
    }
}

TEST(ConfigParse, IntegerIsBase10WithOptionalSign) {
    expect_good(parse_integer("42"), "42");
    expect_good(parse_integer("-7"), "-7");
    expect_good(parse_integer("+7"), "7");
    expect_good(parse_integer("007"), "7");
    expect_good(parse_integer("-0"), "0");
    expect_good(parse_integer(" 12 "), "12");
    expect_good(parse_integer("9223372036854775807"), "9223372036854775807");
    expect_good(parse_integer("-9223372036854775808"), "-9223372036854775808");
}

TEST(ConfigParse, IntegerRejectsGarbageAndOverflow) {
    for (const char* t : {"", "-", "+", "12a", "1.0", "0x10", "1 2", "--1", "4K"})
        EXPECT_EQ(parse_integer(t).error, "expected a base-10 integer such as 42 or -7") << "'" << t << "'";
    for (const char* t : {"9223372036854775808", "-9223372036854775809", "123456789012345678901"}) {
        const ParseResult r = parse_integer(t);
        EXPECT_FALSE(r.ok) << t;
        EXPECT_NE(r.error.find("out of range"), std::string::npos) << r.error;
    }
}

TEST(ConfigParse, EnumerationIsCaseInsensitiveAndNormalised) {
    const std::vector<std::string> accepted{"tsc", "clock_gettime"};
    expect_good(parse_enumeration("TSC", accepted), "tsc");
    expect_good(parse_enumeration(" Clock_GetTime ", accepted), "clock_gettime");
    for (const char* t : {"", "rdtsc", "tsc,clock_gettime", "clock"})
        EXPECT_EQ(parse_enumeration(t, accepted).error, "expected one of: tsc, clock_gettime") << t;
}

TEST(ConfigParse, FreeListTrimsItemsAndRejectsEmptyOnes) {
    expect_good(parse_list("a, b ,c", {}), "a,b,c");
    expect_good(parse_list("", {}), "");
    expect_good(parse_list("  ", {}), "");
    expect_good(parse_list("PAPI_TOT_CYC", {}), "PAPI_TOT_CYC");
    for (const char* t : {"a,,b", "a,", ",a", "a, ,b", ","}) {
        const ParseResult r = parse_list(t, {});
        EXPECT_FALSE(r.ok) << t;
        EXPECT_EQ(r.error, "empty item in the list; expected a comma-separated list of non-empty items");
    }
}

TEST(ConfigParse, ListOfAcceptedItems) {
    const std::vector<std::string> accepted{"all", "none", "p2p", "coll", "io"};
    expect_good(parse_list("P2P, coll", accepted), "p2p,coll");
    expect_good(parse_list("all", accepted), "all");
    expect_good(parse_list("none", accepted), "none");
    expect_good(parse_list("io,io", accepted), "io");
    const ParseResult unknown = parse_list("p2p,rma", accepted);
    EXPECT_FALSE(unknown.ok);
    EXPECT_EQ(unknown.error, "unknown item 'rma'; expected a comma-separated list of: all, none, p2p, coll, io");
    EXPECT_FALSE(parse_list("p2p,,coll", accepted).ok);
    // An empty value where "none" exists is refused: it is usually an unset shell variable.
    for (const char* t : {"", "  "})
        EXPECT_EQ(parse_list(t, accepted).error,
                  "the value is empty; expected a comma-separated list of: all, none, p2p, coll, io "
                  "('none' selects nothing)")
            << t;
    EXPECT_NE(parse_list("none,io", accepted).error.find("'none' cannot be combined"), std::string::npos);
    // "all" and "none" are items like any other: special only where they are accepted.
    EXPECT_FALSE(parse_list("all", {"p2p", "coll"}).ok);
    EXPECT_FALSE(parse_list("none", {"p2p", "coll"}).ok);
}

TEST(ConfigParse, ValueDispatchAndStringsAsTheyAre) {
    expect_good(parse_value(Type::path, " /a b/ ", {}), " /a b/ ");
    expect_good(parse_value(Type::string, "", {}), "");
    expect_good(parse_value(Type::size, "1K", {}), "1024");
    EXPECT_FALSE(parse_value(Type::boolean, "x", {}).ok);
}

TEST(ConfigParse, FormatSizeUsesTheLargestExactSuffix) {
    EXPECT_EQ(format_size(0), "0");
    EXPECT_EQ(format_size(1000), "1000");
    EXPECT_EQ(format_size(65536), "64K");
    EXPECT_EQ(format_size(3ull << 30), "3G");
    EXPECT_EQ(format_size(1536ull << 20), "1536M");
    EXPECT_EQ(format_size(2ull << 40), "2T");
}

// --- the registry ----------------------------------------------------------

TEST(ConfigRegistry, CoreVariablesAreRegisteredOnce) {
    std::vector<std::string> names;
    for (const Variable& v : Registry::instance().variables()) names.push_back(v.env_name());
    for (const char* n : {"STRATA_ENABLE_PROFILING", "STRATA_ENABLE_TRACING", "STRATA_EXPERIMENT_DIRECTORY",
                          "STRATA_OVERWRITE_EXPERIMENT_DIRECTORY", "STRATA_TOTAL_MEMORY", "STRATA_PAGE_SIZE",
                          "STRATA_TIMER", "STRATA_VERBOSE", "STRATA_FILTERING_FILE"})
        EXPECT_EQ(std::count(names.begin(), names.end(), n), 1) << n;
    for (const Variable& v : Registry::instance().variables()) {
        EXPECT_FALSE(v.short_help.empty()) << v.env_name();
        EXPECT_FALSE(v.long_help.empty()) << v.env_name();
        EXPECT_NE(v.short_help.back(), '.') << v.env_name();
    }
}

TEST(ConfigRegistry, EnvNameIncludesTheNamespace) {
    Variable v;
    v.name = "ENABLE_GROUPS";
    EXPECT_EQ(v.env_name(), "STRATA_ENABLE_GROUPS");
    v.ns = "MPI";
    EXPECT_EQ(v.env_name(), "STRATA_MPI_ENABLE_GROUPS");
}

TEST(ConfigRegistry, LoadAppliesDefaultsFirst) {
    FakeEnv changed;
    changed.values = {{"STRATA_ENABLE_TRACING", "yes"}, {"STRATA_TOTAL_MEMORY", "1G"},
                      {"STRATA_TIMER", "CLOCK_GETTIME"}, {"STRATA_EXPERIMENT_DIRECTORY", "run1"}};
    ASSERT_EQ(changed.load(), Error());
    const Settings& s = settings();
    EXPECT_TRUE(s.enable_tracing);
    EXPECT_EQ(s.total_memory, 1ull << 30);
    EXPECT_EQ(s.timer, TimerKind::clock_gettime);
    EXPECT_EQ(s.experiment_directory, "run1");
    EXPECT_EQ(Registry::instance().value_of("STRATA_ENABLE_TRACING"), "true");
    EXPECT_EQ(Registry::instance().value_of("STRATA_TOTAL_MEMORY"), "1073741824");
    EXPECT_EQ(Registry::instance().value_of("STRATA_TIMER"), "clock_gettime");

    ASSERT_EQ(FakeEnv{}.load(), Error());
    EXPECT_TRUE(s.enable_profiling);
    EXPECT_FALSE(s.enable_tracing);
    EXPECT_EQ(s.experiment_directory, "");
    EXPECT_FALSE(s.overwrite_experiment_directory);
    EXPECT_EQ(s.total_memory, 64ull << 20);
    EXPECT_EQ(s.page_size, 64ull << 10);
    EXPECT_EQ(s.timer, TimerKind::tsc);
    EXPECT_FALSE(s.verbose);
    EXPECT_EQ(s.filtering_file, "");
    EXPECT_EQ(Registry::instance().value_of("STRATA_ENABLE_TRACING"), "false");
    EXPECT_EQ(Registry::instance().value_of("STRATA_TOTAL_MEMORY"), std::to_string(64ull << 20));
    EXPECT_EQ(Registry::instance().value_of("STRATA_NOT_A_VARIABLE"), "");
}

TEST(ConfigRegistry, BadValueGivesTheExactMessage) {
    FakeEnv env;
    env.values = {{"STRATA_TOTAL_MEMORY", "64Q"}};
    EXPECT_EQ(env.load(), Error(
        "strata: STRATA_TOTAL_MEMORY='64Q' is not valid: expected a size such as 4096, 64K, 512M or 2G "
        "(powers of 1024)"));
}

TEST(ConfigRegistry, OnlyTheFirstBadValueIsReported) {
    FakeEnv env;
    env.values = {{"STRATA_TOTAL_MEMORY", "64Q"}, {"STRATA_ENABLE_TRACING", "maybe"}, {"STRATA_TIMER", "rdtsc"}};
    EXPECT_EQ(env.load(), Error(
        "strata: STRATA_ENABLE_TRACING='maybe' is not valid: expected true, false, yes, no, on, off, 1 or 0"));
    env.values.erase("STRATA_ENABLE_TRACING");
    env.values.erase("STRATA_TOTAL_MEMORY");
    EXPECT_EQ(env.load(), Error(
        "strata: STRATA_TIMER='rdtsc' is not valid: expected one of: tsc, clock_gettime, steps"));
}

TEST(ConfigRegistry, UnknownStrataVariableWarnsWithSuggestion) {
    FakeEnv env;
    env.values = {{"STRATA_ENABLE_TRACNG", "1"}, {"STRATA_Total_Memory", "1G"},
                  {"STRATA_SOMETHING_ELSE_ENTIRELY", "1"}, {"STRATA_ENABLE_TRACING", "1"}};
    std::vector<std::string> warnings;
    ASSERT_EQ(env.load(&warnings), Error());
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_EQ(warnings[0], "strata: warning: STRATA_ENABLE_TRACNG is not a Strata variable "
                           "(did you mean STRATA_ENABLE_TRACING?)");
    EXPECT_EQ(warnings[1], "strata: warning: STRATA_SOMETHING_ELSE_ENTIRELY is not a Strata variable "
                           "(`strata-info config-vars` lists them)");
    EXPECT_EQ(warnings[2], "strata: warning: STRATA_Total_Memory is not a Strata variable "
                           "(did you mean STRATA_TOTAL_MEMORY?)");
    EXPECT_TRUE(settings().enable_tracing);
}

TEST(ConfigRegistry, AnAdapterVariableWithoutItsAdapterHasNoEffectButIsNoTypo) {
    FakeEnv env;
    env.values = {{"STRATA_OPENMP_ENABLE", "none"}};
    std::vector<std::string> warnings;
    ASSERT_EQ(env.load(&warnings), Error());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "strata: warning: STRATA_OPENMP_ENABLE has no effect in this program: it started no "
                           "OpenMP runtime with OMPT (such as LLVM's libomp), so Strata's OpenMP adapter is not "
                           "active");
}

TEST(ConfigRegistry, WarningsAreGivenEvenWhenAValueIsBad) {
    FakeEnv env;
    env.values = {{"STRATA_VERBOS", "1"}, {"STRATA_VERBOSE", "sometimes"}};
    std::vector<std::string> warnings;
    EXPECT_TRUE(env.load(&warnings));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("did you mean STRATA_VERBOSE?"), std::string::npos);
}

TEST(ConfigRegistry, WithoutLookupReadsTheProcessEnvironment) {
    ASSERT_EQ(setenv("STRATA_VERBOSE", "on", 1), 0);
    ASSERT_EQ(setenv("STRATA_ENABLE_TRACNG", "1", 1), 0);
    std::vector<std::string> warnings;
    const auto error = Registry::instance().load(nullptr, &warnings);
    unsetenv("STRATA_VERBOSE");
    unsetenv("STRATA_ENABLE_TRACNG");
    ASSERT_EQ(error, Error());
    EXPECT_TRUE(settings().verbose);
    EXPECT_NE(std::find(warnings.begin(), warnings.end(),
                        "strata: warning: STRATA_ENABLE_TRACNG is not a Strata variable "
                        "(did you mean STRATA_ENABLE_TRACING?)"),
              warnings.end());
}

TEST(ConfigRegistry, PageSizeMustFitTotalMemory) {
    FakeEnv env;
    env.values = {{"STRATA_PAGE_SIZE", "1M"}, {"STRATA_TOTAL_MEMORY", "2M"}};
    EXPECT_EQ(env.load(), Error(
        "strata: STRATA_PAGE_SIZE=1M does not fit STRATA_TOTAL_MEMORY=2M: a page may be at most a quarter of "
        "STRATA_TOTAL_MEMORY (512K); raise STRATA_TOTAL_MEMORY to at least 4M or lower STRATA_PAGE_SIZE"));

    env.values = {{"STRATA_PAGE_SIZE", "1K"}};
    const auto small = env.load();
    ASSERT_TRUE(small);
    EXPECT_NE(small->find("STRATA_PAGE_SIZE=1K is too small"), std::string::npos) << *small;
    EXPECT_NE(small->find("STRATA_TOTAL_MEMORY=64M"), std::string::npos) << *small;

    env.values = {{"STRATA_TOTAL_MEMORY", "128K"}};  // the default 64K page no longer fits
    EXPECT_TRUE(env.load());

    env.values = {{"STRATA_PAGE_SIZE", "16M"}, {"STRATA_TOTAL_MEMORY", "64M"}};  // exactly a quarter
    EXPECT_EQ(env.load(), Error());
    env.values = {{"STRATA_PAGE_SIZE", "4K"}, {"STRATA_TOTAL_MEMORY", "16K"}};
    EXPECT_EQ(env.load(), Error());
}

TEST(ConfigRegistry, AddRejectsProgrammingErrors) {
    Registry& r = Registry::instance();
    const std::size_t before = r.variables().size();
    EXPECT_THROW(r.add({"", "TIMER", Type::string, "", {}, "twice", "twice", {}}), std::invalid_argument);
    EXPECT_THROW(r.add({"TEST", "lower_case", Type::string, "", {}, "x", "x", {}}), std::invalid_argument);
    EXPECT_THROW(r.add({"TEST", "", Type::string, "", {}, "x", "x", {}}), std::invalid_argument);
    EXPECT_THROW(r.add({"TEST", "BAD_DEFAULT", Type::size, "lots", {}, "x", "x", {}}), std::invalid_argument);
    EXPECT_THROW(r.add({"TEST", "NO_MEMBERS", Type::enumeration, "", {}, "x", "x", {}}), std::invalid_argument);
    EXPECT_EQ(r.variables().size(), before);
}

TEST(ConfigRegistry, AdapterRowsAreParsedAndStored) {
    static std::string stored;
    Registry& r = Registry::instance();
    if (r.value_of("STRATA_TEST_GROUPS").empty()) {  // once, also under --gtest_repeat
        r.add({"TEST", "GROUPS", Type::list, "all", {"all", "none", "p2p", "coll"},
               "MPI groups to record", "Long help.", [](const std::string& v) { stored = v; }});
        r.add({"TEST", "LEVEL", Type::integer, "3", {}, "A level", "Long help.", {}});
    }
    FakeEnv env;
    ASSERT_EQ(env.load(), Error());
    EXPECT_EQ(stored, "all");
    EXPECT_EQ(r.value_of("STRATA_TEST_LEVEL"), "3");
    env.values = {{"STRATA_TEST_GROUPS", "Coll, P2P"}, {"STRATA_TEST_LEVEL", "+12"}};
    ASSERT_EQ(env.load(), Error());
    EXPECT_EQ(stored, "coll,p2p");
    EXPECT_EQ(r.value_of("STRATA_TEST_LEVEL"), "12");
    env.values = {{"STRATA_TEST_GROUPS", "p2p,,coll"}};
    EXPECT_EQ(env.load(), Error(
        "strata: STRATA_TEST_GROUPS='p2p,,coll' is not valid: empty item in the list; "
        "expected a comma-separated list of: all, none, p2p, coll"));
}

// --- strata.cfg and the documentation --------------------------------------

/// Reads back NAME="value" lines as a POSIX shell would (only what write_cfg writes).
std::map<std::string, std::string> parse_cfg(const std::string& text, std::vector<std::string>& comments) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("#", 0) == 0) {
            comments.push_back(line);
            continue;
        }
        const std::size_t eq = line.find('=');
        EXPECT_NE(eq, std::string::npos) << line;
        EXPECT_EQ(line.at(eq + 1), '"');
        EXPECT_EQ(line.back(), '"');
        std::string value;
        for (std::size_t i = eq + 2; i + 1 < line.size(); ++i) {
            if (line[i] == '\\') ++i;
            value += line[i];
        }
        out[line.substr(0, eq)] = value;
    }
    return out;
}

TEST(ConfigCfg, WrittenFileReadsBackToTheSameValues) {
    FakeEnv env;
    env.values = {{"STRATA_ENABLE_TRACING", "on"}, {"STRATA_TOTAL_MEMORY", "256M"},
                  {"STRATA_EXPERIMENT_DIRECTORY", "my \"run\" $HOME `x` back\\slash"},
                  {"STRATA_FILTERING_FILE", "filter file.txt"}};
    ASSERT_EQ(env.load(), Error());
    std::ostringstream cfg;
    Registry::instance().write_cfg(cfg);
    EXPECT_NE(cfg.str().find("STRATA_EXPERIMENT_DIRECTORY=\"my \\\"run\\\" \\$HOME \\`x\\` back\\\\slash\"\n"),
              std::string::npos) << cfg.str();

    std::vector<std::string> comments;
    FakeEnv back;
    back.values = parse_cfg(cfg.str(), comments);
    const auto& vars = Registry::instance().variables();
    EXPECT_EQ(back.values.size(), vars.size());
    EXPECT_EQ(comments.size(), vars.size() + 1);  // the header and one per variable
    EXPECT_EQ(comments.at(1), "# " + vars.at(0).short_help);
    EXPECT_EQ(back.values.at("STRATA_EXPERIMENT_DIRECTORY"), env.values.at("STRATA_EXPERIMENT_DIRECTORY"));
    EXPECT_EQ(back.values.at("STRATA_TOTAL_MEMORY"), std::to_string(256ull << 20));

    std::map<std::string, std::string> before;
    for (const Variable& v : vars) before[v.env_name()] = Registry::instance().value_of(v.env_name());
    ASSERT_EQ(FakeEnv{}.load(), Error());  // reset, then load what was written
    ASSERT_EQ(back.load(), Error());
    for (const Variable& v : vars) EXPECT_EQ(Registry::instance().value_of(v.env_name()), before[v.env_name()]);
    EXPECT_TRUE(settings().enable_tracing);
}

TEST(ConfigCfg, ShellSourcesTheWrittenFile) {
    FakeEnv env;
    env.values = {{"STRATA_EXPERIMENT_DIRECTORY", "a \"b\" $c `d` \\e 'f'"}};
    ASSERT_EQ(env.load(), Error());
    std::string path_text = (std::filesystem::temp_directory_path() / "strata-cfg-test-XXXXXX").string();
    std::vector<char> path(path_text.begin(), path_text.end());
    path.push_back('\0');
    const int fd = mkstemp(path.data());
    ASSERT_GE(fd, 0);
    std::ostringstream cfg;
    Registry::instance().write_cfg(cfg);
    FILE* f = fdopen(fd, "w");
    std::fputs(cfg.str().c_str(), f);
    std::fclose(f);
    const std::string command = std::string("sh -c '. \"$0\" && printf %s \"$STRATA_EXPERIMENT_DIRECTORY\"' \"") + path.data() + "\"";
    FILE* p = popen(command.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string output;
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, p) != nullptr) output += buffer;
    EXPECT_EQ(pclose(p), 0);
    std::remove(path.data());
    EXPECT_EQ(output, env.values.at("STRATA_EXPERIMENT_DIRECTORY"));
}

TEST(ConfigDocs, DescribeListsEveryVariable) {
    std::ostringstream brief, full;
    Registry::instance().describe(brief, false);
    Registry::instance().describe(full, true);
    EXPECT_NE(brief.str().find("STRATA_TOTAL_MEMORY\n    Type:        Size\n    Default:     64M\n"),
              std::string::npos) << brief.str();
    EXPECT_EQ(brief.str().find("Accepted:"), std::string::npos);
    EXPECT_NE(full.str().find("    Accepted:    tsc, clock_gettime, steps\n"), std::string::npos);
    EXPECT_NE(full.str().find("calibrated against CLOCK_MONOTONIC"), std::string::npos);
    EXPECT_NE(full.str().find("\n      SCOREP_REGION_NAMES_BEGIN\n"), std::string::npos);  // kept as is
    std::istringstream lines(full.str());
    std::string line;
    while (std::getline(lines, line)) EXPECT_LE(line.size(), 78u) << line;
}

TEST(ConfigDocs, MarkdownHasASectionPerVariable) {
    std::ostringstream md;
    Registry::instance().write_markdown(md);
    const std::string text = md.str();
    EXPECT_EQ(text.rfind("# Strata configuration variables\n", 0), 0u);
    for (const Variable& v : Registry::instance().variables()) {
        EXPECT_NE(text.find("\n## `" + v.env_name() + "`\n"), std::string::npos) << v.env_name();
        EXPECT_NE(text.find("| [`" + v.env_name() + "`](#"), std::string::npos) << v.env_name();
    }
    EXPECT_NE(text.find("- **Accepted values:** `tsc`, `clock_gettime`, `steps`\n"), std::string::npos);
    EXPECT_NE(text.find("```\nSCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n"), std::string::npos);
}

}  // namespace
}  // namespace strata::config

namespace strata::config {
namespace {

TEST(ConfigRegistryLate, AddAndLoadParsesAVariableAddedAfterTheCoreStarted) {
    Registry& registry = Registry::instance();
    const char* environment_value = "12";
    ASSERT_FALSE(registry.load_values([&](const char* name) -> const char* {
        return std::string(name) == "STRATA_LATE_TEST_COUNT" ? environment_value : nullptr;
    }));
    // The row stays in the registry after the test: it must store into something that lives on.
    static long stored = -1;
    Variable v;
    v.ns = "LATE";
    v.name = "TEST_COUNT";
    v.type = Type::integer;
    v.default_value = "1";
    v.short_help = "a row added by an adapter after the core loaded";
    v.store = [](const std::string& text) { stored = std::stol(text); };
    EXPECT_FALSE(registry.add_and_load(v));
    EXPECT_EQ(stored, 12);
    const std::vector<std::string> environment = {"STRATA_LATE_TEST_COUNT=12", "STRATA_LATE_TEST_CUONT=1"};
    const auto unknown = registry.unknown_variables(&environment);
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_NE(unknown[0].find("did you mean STRATA_LATE_TEST_COUNT?"), std::string::npos) << unknown[0];
}

TEST(ConfigRegistryLate, AddAndLoadReportsABadValue) {
    Registry& registry = Registry::instance();
    ASSERT_FALSE(registry.load_values([](const char* name) -> const char* {
        return std::string(name) == "STRATA_LATE_TEST_FLAG" ? "perhaps" : nullptr;
    }));
    Variable v;
    v.ns = "LATE";
    v.name = "TEST_FLAG";
    v.type = Type::boolean;
    v.default_value = "false";
    v.short_help = "a flag";
    const auto error = registry.add_and_load(v);
    ASSERT_TRUE(error);
    EXPECT_NE(error->find("STRATA_LATE_TEST_FLAG='perhaps' is not valid"), std::string::npos) << *error;
}

}  // namespace
}  // namespace strata::config
