// SPDX-License-Identifier: BSD-3-Clause
// A minimal reader of ELF headers and dynamic sections for `strata-preload` (no libelf needed).
#include "elf_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strata::instrumenter {
namespace {

// Values from the System V ABI (<elf.h>), spelled out so the reader needs no system header.
constexpr std::uint32_t pt_load = 1, pt_dynamic = 2, pt_interp = 3;
constexpr std::int64_t dt_null = 0, dt_needed = 1, dt_strtab = 5, dt_strsz = 10, dt_soname = 14,
                       dt_rpath = 15, dt_runpath = 29, dt_flags_1 = 0x6ffffffb;
constexpr std::uint64_t df_1_pie = 0x08000000;
constexpr std::uint16_t pn_xnum = 0xffff;
// Bounds against corrupt files: no real dynamic section or string table comes near these.
constexpr std::uint64_t max_dynamic_bytes = 1u << 20;
constexpr std::uint64_t max_string_table_bytes = 64u << 20;
constexpr std::size_t max_interpreter_bytes = 4096;

/// Fixed-width integers of the file's byte order, read through a ByteReader.
class Fields {
public:
    Fields(const ByteReader& read, bool big_endian) : read_(read), big_endian_(big_endian) {}

    bool get(std::uint64_t offset, std::size_t width, std::uint64_t& value) const {
        unsigned char bytes[8];
        if (!read_(offset, width, bytes)) return false;
        value = 0;
        for (std::size_t i = 0; i < width; ++i) {
            const std::size_t index = big_endian_ ? i : width - 1 - i;
            value = (value << 8) | bytes[index];
        }
        return true;
    }

private:
    const ByteReader& read_;
    bool big_endian_;
};

struct Segment {
    std::uint32_t type = 0;
    std::uint64_t offset = 0, vaddr = 0, filesz = 0;
};

std::vector<std::string> split_path_list(const std::string& list) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= list.size()) {
        auto end = list.find(':', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) parts.push_back(list.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

ElfInfo fail(ElfInfo info, const std::string& problem) {
    info.elf = false;
    info.problem = problem;
    return info;
}

/// The file offset of virtual address `address`, through the PT_LOAD segments.
bool file_offset(const std::vector<Segment>& segments, std::uint64_t address, std::uint64_t& offset) {
    for (const auto& s : segments) {
        if (s.type == pt_load && address >= s.vaddr && address - s.vaddr < s.filesz) {
            offset = s.offset + (address - s.vaddr);
            return true;
        }
    }
    return false;
}

/// Whether a section is named `wanted`; false when the section headers cannot be read (they are
/// optional: a loader never needs them).
bool has_section(const Fields& f, const ByteReader& read, bool is64, std::uint64_t shoff,
                 const char* wanted) {
    std::uint64_t shentsize = 0, shnum = 0, shstrndx = 0;
    if (shoff == 0 || !f.get(is64 ? 58 : 46, 2, shentsize) || !f.get(is64 ? 60 : 48, 2, shnum) ||
        !f.get(is64 ? 62 : 50, 2, shstrndx) || shentsize < (is64 ? 64u : 40u) || shstrndx >= shnum) {
        return false;
    }
    const auto field = [&](std::uint64_t index, std::uint64_t at64, std::uint64_t at32, std::uint64_t& out) {
        return f.get(shoff + index * shentsize + (is64 ? at64 : at32), is64 ? 8 : 4, out);
    };
    std::uint64_t names_offset = 0, names_size = 0;
    if (!field(shstrndx, 24, 16, names_offset) || !field(shstrndx, 32, 20, names_size) ||
        names_size == 0 || names_size > max_string_table_bytes) {
        return false;
    }
    std::string names(static_cast<std::size_t>(names_size), '\0');
    if (!read(names_offset, names.size(), reinterpret_cast<unsigned char*>(&names[0]))) return false;
    for (std::uint64_t i = 0; i < shnum; ++i) {
        std::uint64_t name = 0;
        if (!f.get(shoff + i * shentsize, 4, name)) return false;
        if (name < names.size() && std::strcmp(names.c_str() + name, wanted) == 0) return true;
    }
    return false;
}

}  // namespace

ElfInfo parse_elf(const ByteReader& read) {
    ElfInfo info;
    unsigned char ident[16];
    if (!read(0, 4, ident) || std::memcmp(ident,
                                          "\x7f"
                                          "ELF",
                                          4) != 0)
        return fail(info, "not an ELF file");
    if (!read(0, sizeof ident, ident)) return fail(info, "truncated ELF header");
    if (ident[4] != 1 && ident[4] != 2) return fail(info, "unknown ELF class");
    if (ident[5] != 1 && ident[5] != 2) return fail(info, "unknown ELF byte order");
    info.bits = ident[4] == 2 ? 64 : 32;
    info.big_endian = ident[5] == 2;
    const bool is64 = info.bits == 64;
    const Fields f(read, info.big_endian);

    std::uint64_t type = 0, machine = 0, phoff = 0, phentsize = 0, phnum = 0, shoff = 0;
    const bool header_ok = f.get(16, 2, type) && f.get(18, 2, machine) &&
                           f.get(is64 ? 32 : 28, is64 ? 8 : 4, phoff) &&
                           f.get(is64 ? 40 : 32, is64 ? 8 : 4, shoff) &&
                           f.get(is64 ? 54 : 42, 2, phentsize) && f.get(is64 ? 56 : 44, 2, phnum);
    if (!header_ok) return fail(info, "truncated ELF header");
    info.type = static_cast<std::uint16_t>(type);
    info.machine = static_cast<std::uint16_t>(machine);
    if (phnum == pn_xnum) {
        // The real count is sh_info of section header 0.
        if (shoff == 0 || !f.get(shoff + (is64 ? 44 : 28), 4, phnum)) {
            return fail(info, "truncated ELF section header 0");
        }
    }
    if (phnum > 0 && phentsize < (is64 ? 56u : 32u)) return fail(info, "bad ELF program header size");

    std::vector<Segment> segments;
    for (std::uint64_t i = 0; i < phnum; ++i) {
        const std::uint64_t at = phoff + i * phentsize;
        Segment s;
        std::uint64_t seg_type = 0;
        const bool ok = is64 ? f.get(at, 4, seg_type) && f.get(at + 8, 8, s.offset) &&
                                   f.get(at + 16, 8, s.vaddr) && f.get(at + 32, 8, s.filesz)
                             : f.get(at, 4, seg_type) && f.get(at + 4, 4, s.offset) &&
                                   f.get(at + 8, 4, s.vaddr) && f.get(at + 16, 4, s.filesz);
        if (!ok) return fail(info, "truncated ELF program headers");
        s.type = static_cast<std::uint32_t>(seg_type);
        segments.push_back(s);
    }

    const Segment* dynamic = nullptr;
    for (const auto& s : segments) {
        if (s.type == pt_interp) {
            info.has_interpreter = true;
            const std::size_t n =
                static_cast<std::size_t>(std::min<std::uint64_t>(s.filesz, max_interpreter_bytes));
            std::string text(n, '\0');
            if (n > 0 && !read(s.offset, n, reinterpret_cast<unsigned char*>(&text[0]))) {
                return fail(info, "truncated PT_INTERP segment");
            }
            info.interpreter = text.substr(0, text.find('\0'));
        } else if (s.type == pt_dynamic && dynamic == nullptr) {
            dynamic = &s;
        }
    }
    info.elf = true;
    info.cuda_device_code = has_section(f, read, is64, shoff, ".nv_fatbin");
    if (dynamic == nullptr) return info;
    info.has_dynamic = true;

    // The dynamic entries: tag and value, each a word of the file's class.
    const std::size_t word = is64 ? 8 : 4;
    const std::uint64_t size = std::min<std::uint64_t>(dynamic->filesz, max_dynamic_bytes);
    std::vector<std::pair<std::int64_t, std::uint64_t>> entries;
    for (std::uint64_t at = 0; at + 2 * word <= size; at += 2 * word) {
        std::uint64_t tag = 0, value = 0;
        if (!f.get(dynamic->offset + at, word, tag) || !f.get(dynamic->offset + at + word, word, value)) {
            return fail(info, "truncated ELF dynamic section");
        }
        const auto signed_tag =
            is64 ? static_cast<std::int64_t>(tag) : static_cast<std::int64_t>(static_cast<std::int32_t>(tag));
        if (signed_tag == dt_null) break;
        entries.emplace_back(signed_tag, value);
    }
    std::uint64_t strtab = 0, strsz = 0;
    bool have_strtab = false;
    for (const auto& [tag, value] : entries) {
        if (tag == dt_strtab) {
            strtab = value;
            have_strtab = true;
        } else if (tag == dt_strsz) {
            strsz = value;
        } else if (tag == dt_flags_1) {
            info.pie = (value & df_1_pie) != 0;
        }
    }
    std::string strings;
    std::uint64_t strings_offset = 0;
    if (have_strtab && strsz > 0 && strsz <= max_string_table_bytes &&
        file_offset(segments, strtab, strings_offset)) {
        strings.assign(static_cast<std::size_t>(strsz), '\0');
        if (!read(strings_offset, strings.size(), reinterpret_cast<unsigned char*>(&strings[0]))) {
            return fail(info, "truncated ELF dynamic string table");
        }
    }
    const auto string_at = [&](std::uint64_t offset, std::string& out) {
        if (offset >= strings.size()) return false;
        out = strings.c_str() + offset;
        return true;
    };
    for (const auto& [tag, value] : entries) {
        std::string text;
        if (tag != dt_needed && tag != dt_soname && tag != dt_rpath && tag != dt_runpath) continue;
        if (!string_at(value, text)) return fail(info, "ELF dynamic entry outside the string table");
        if (tag == dt_needed) info.needed.push_back(text);
        if (tag == dt_soname) info.soname = text;
        if (tag == dt_rpath) info.rpath = split_path_list(text);
        if (tag == dt_runpath) info.runpath = split_path_list(text);
    }
    return info;
}

ElfInfo read_elf_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ElfInfo info;
        info.problem = std::strerror(errno);
        return info;
    }
    const ByteReader read = [fd](std::uint64_t offset, std::size_t size, unsigned char* out) {
        std::size_t done = 0;
        while (done < size) {
            const auto n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    };
    ElfInfo info = parse_elf(read);
    ::close(fd);
    return info;
}

ElfInfo parse_elf_bytes(const std::vector<unsigned char>& bytes) {
    return parse_elf([&bytes](std::uint64_t offset, std::size_t size, unsigned char* out) {
        if (offset > bytes.size() || size > bytes.size() - offset) return false;
        std::memcpy(out, bytes.data() + offset, size);
        return true;
    });
}

std::string machine_name(std::uint16_t machine) {
    switch (machine) {
        case 3:
            return "i386";
        case 20:
            return "PowerPC";
        case 21:
            return "PowerPC64";
        case 40:
            return "ARM";
        case 62:
            return "x86-64";
        case 183:
            return "AArch64";
        case 243:
            return "RISC-V";
        default:
            return "machine " + std::to_string(machine);
    }
}

std::string library_base_name(const std::string& soname) {
    const auto slash = soname.rfind('/');
    std::string name = slash == std::string::npos ? soname : soname.substr(slash + 1);
    const auto so = name.find(".so");
    if (so != std::string::npos && (so + 3 == name.size() || name[so + 3] == '.')) name.erase(so);
    return name;
}

}  // namespace strata::instrumenter
