// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the parsers of STRATA_* values (config.hpp).  Every type
// with and without a list of accepted words; a value that parses must parse
// again from its normalized text to the same text (the runtime stores the
// normalized form, strata.cfg writes it back).  With bit 6 of the first byte,
// the rest is an environment loaded into the registry of every core variable.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "config/config.hpp"

using strata::Error;
using strata::config::Type;

namespace {

/// The input as an environment ("NAME=value" lines), loaded into the registry of
/// every variable: each value parsed, the relations between them checked, the
/// names that are not variables found.  A refusal always names what is wrong.
void load_environment(const std::string& text) {
    std::vector<std::string> environment;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        environment.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    const auto lookup = [&](const char* name) -> const char* {
        const std::string prefix = std::string(name) + "=";
        for (const std::string& line : environment)
            if (line.compare(0, prefix.size(), prefix) == 0) return line.c_str() + prefix.size();
        return nullptr;
    };
    std::vector<std::string> warnings;
    // A refusal names the variable it refuses.
    const Error error = strata::config::Registry::instance().load(lookup, &warnings, &environment);
    if (error && error->find("STRATA_") == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    if ((data[0] & 0x40) != 0) {
        load_environment(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
        return 0;
    }
    const Type types[] = {Type::boolean, Type::size,        Type::integer, Type::string,
                          Type::path,    Type::enumeration, Type::list};
    const Type type = types[data[0] % (sizeof types / sizeof types[0])];
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    static const std::vector<std::string> words = {"all", "default", "p2p", "coll", "none", "tsc", "clock_gettime"};
    const std::vector<std::string>& accepted = (data[0] & 0x80) ? words : std::vector<std::string>{};
    std::string first, again;
    if (strata::config::parse_value(type, text, accepted, &first)) return 0;  // refused, saying what is accepted
    if (strata::config::parse_value(type, first, accepted, &again) || again != first) std::abort();
    return 0;
}
