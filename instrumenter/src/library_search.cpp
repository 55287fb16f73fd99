// SPDX-License-Identifier: BSD-3-Clause
// The loader's library search, as far as `strata-preload` needs it to see what a program links.
#include "library_search.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <system_error>

namespace strata::instrumenter {
namespace fs = std::filesystem;

namespace {

constexpr char cache_magic[] = "glibc-ld.so.cache1.1";
constexpr std::size_t cache_header_bytes = 48;  // magic, version, nlibs, len_strings, flags, ...
constexpr std::size_t cache_entry_bytes = 24;   // flags, key, value, osversion, hwcap

std::uint32_t little_u32(const std::string& image, std::size_t at) {
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(image[at + i]);
    return value;
}

std::vector<std::string> split(const std::string& text, const char* separators) {
    std::vector<std::string> parts;
    std::string current;
    for (char c : text) {
        if (std::strchr(separators, c) != nullptr) {
            if (!current.empty()) parts.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) parts.push_back(current);
    return parts;
}

/// $ORIGIN and ${ORIGIN} replaced by `origin`; empty when another token ($LIB, $PLATFORM) remains.
std::string expand_origin(const std::string& dir, const std::string& origin) {
    std::string out;
    for (std::size_t i = 0; i < dir.size();) {
        if (dir.compare(i, 9, "${ORIGIN}") == 0) {
            out += origin;
            i += 9;
        } else if (dir.compare(i, 7, "$ORIGIN") == 0) {
            out += origin;
            i += 7;
        } else if (dir[i] == '$') {
            return {};
        } else {
            out += dir[i++];
        }
    }
    return out;
}

/// The directory of `path` as the loader sees it for $ORIGIN (symbolic links resolved).
std::string origin_of(const std::string& path) {
    std::error_code ec;
    auto real = fs::canonical(path, ec);
    return (ec ? fs::path(path) : real).parent_path().string();
}

/// An object found on the way: its facts and where it is.
struct Object {
    ElfInfo elf;
    std::string path;
    /// The program itself (its DT_RPATH applies to all libraries, not twice to itself).
    bool program = false;
};

class Search {
public:
    Search(const ElfInfo& program, const std::string& program_path, const SearchSettings& settings)
        : program_(program), settings_(settings) {
        if (program.runpath.empty()) program_rpath_ = expanded(program.rpath, origin_of(program_path));
    }

    /// The path of `name` needed by `requirer`, or empty; `elf` receives the library's facts.
    std::string find(const std::string& name, const Object& requirer, ElfInfo& elf) const {
        if (name.find('/') != std::string::npos) {
            const auto path = expand_origin(name, origin_of(requirer.path));
            return usable(path, elf) ? path : std::string();
        }
        const auto origin = origin_of(requirer.path);
        std::vector<std::string> dirs;
        if (requirer.elf.runpath.empty()) {
            const auto own = expanded(requirer.elf.rpath, origin);
            dirs.insert(dirs.end(), own.begin(), own.end());
            if (!requirer.program) dirs.insert(dirs.end(), program_rpath_.begin(), program_rpath_.end());
        }
        dirs.insert(dirs.end(), settings_.library_path.begin(), settings_.library_path.end());
        const auto runpath = expanded(requirer.elf.runpath, origin);
        dirs.insert(dirs.end(), runpath.begin(), runpath.end());
        for (const auto& dir : dirs) {
            const auto path = dir + "/" + name;
            if (usable(path, elf)) return path;
        }
        if (settings_.cache_lookup) {
            for (const auto& path : settings_.cache_lookup(name)) {
                if (usable(path, elf)) return path;
            }
        }
        for (const auto& dir : settings_.default_dirs) {
            const auto path = dir + "/" + name;
            if (usable(path, elf)) return path;
        }
        return {};
    }

private:
    static std::vector<std::string> expanded(const std::vector<std::string>& dirs,
                                             const std::string& origin) {
        std::vector<std::string> out;
        for (const auto& dir : dirs) {
            auto e = expand_origin(dir, origin);
            if (!e.empty()) out.push_back(e);
        }
        return out;
    }

    /// An ELF shared object of the program's class and machine.
    bool usable(const std::string& path, ElfInfo& elf) const {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) return false;
        elf = read_elf_file(path);
        return elf.elf && elf.bits == program_.bits && elf.machine == program_.machine;
    }

    const ElfInfo& program_;
    const SearchSettings& settings_;
    std::vector<std::string> program_rpath_;
};

}  // namespace

std::multimap<std::string, std::string> parse_ld_so_cache(const std::string& image) {
    std::multimap<std::string, std::string> entries;
    // The new format, alone (glibc >= 2.32) or after the old one.
    const auto header = image.find(cache_magic);
    if (header == std::string::npos || image.size() < header + cache_header_bytes) return entries;
    const std::uint32_t count = little_u32(image, header + 20);
    if (count > (image.size() - header - cache_header_bytes) / cache_entry_bytes) return entries;
    // String offsets are relative to the new header; the old combined files counted from the
    // start of the file.  Try the former, then the latter.
    const auto string_at = [&](std::uint32_t offset, std::size_t base, std::string& out) {
        if (base + offset >= image.size()) return false;
        out = image.c_str() + base + offset;
        return true;
    };
    for (const std::size_t base : {header, std::size_t{0}}) {
        entries.clear();
        bool ok = true;
        for (std::uint32_t i = 0; i < count && ok; ++i) {
            const std::size_t at = header + cache_header_bytes + i * cache_entry_bytes;
            std::string key, value;
            ok = string_at(little_u32(image, at + 4), base, key) &&
                 string_at(little_u32(image, at + 8), base, value) && !value.empty() && value[0] == '/';
            if (ok) entries.emplace(key, value);
        }
        if (ok) return entries;
        if (header == 0) break;
    }
    entries.clear();
    return entries;
}

SearchSettings system_search_settings(std::uint16_t machine) {
    SearchSettings settings;
    if (const char* path = std::getenv("LD_LIBRARY_PATH")) settings.library_path = split(path, ":;");
    std::ifstream file("/etc/ld.so.cache", std::ios::binary);
    auto cache = std::make_shared<std::multimap<std::string, std::string>>(
        parse_ld_so_cache(std::string(std::istreambuf_iterator<char>(file), {})));
    settings.cache_lookup = [cache](const std::string& name) {
        std::vector<std::string> paths;
        const auto range = cache->equal_range(name);
        for (auto it = range.first; it != range.second; ++it) paths.push_back(it->second);
        return paths;
    };
    // Debian-style multiarch folders first, as the loader of those systems does.
    const char* triple = machine == 62    ? "x86_64-linux-gnu"
                         : machine == 183 ? "aarch64-linux-gnu"
                         : machine == 21  ? "powerpc64le-linux-gnu"
                         : machine == 3   ? "i386-linux-gnu"
                                          : nullptr;
    if (triple != nullptr) {
        settings.default_dirs.push_back(std::string("/lib/") + triple);
        settings.default_dirs.push_back(std::string("/usr/lib/") + triple);
    }
    for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
        settings.default_dirs.emplace_back(dir);
    return settings;
}

std::vector<NeededLibrary> needed_closure(const std::string& program_path, const ElfInfo& program,
                                          const SearchSettings& settings) {
    std::vector<NeededLibrary> found;
    const Search search(program, program_path, settings);
    std::set<std::string> seen;
    // Objects whose DT_NEEDED entries are still to be visited; a deque keeps references stable.
    std::deque<Object> objects;
    objects.push_back({program, program_path, true});
    std::deque<std::pair<const Object*, std::string>> queue;  // (object, its name as needed)
    queue.emplace_back(&objects.front(), std::string());
    while (!queue.empty() && objects.size() <= settings.max_libraries) {
        const auto [object, object_name] = queue.front();
        queue.pop_front();
        for (const auto& name : object->elf.needed) {
            if (!seen.insert(name).second) continue;
            ElfInfo elf;
            const auto path = search.find(name, *object, elf);
            found.push_back({name, path, object_name});
            if (path.empty()) continue;
            // A library already seen under its SONAME is not read again.
            if (!elf.soname.empty() && elf.soname != name && !seen.insert(elf.soname).second) continue;
            objects.push_back({elf, path, false});
            queue.emplace_back(&objects.back(), name);
        }
    }
    return found;
}

}  // namespace strata::instrumenter
