// SPDX-License-Identifier: BSD-3-Clause
// Reading ELF symbol tables of the loaded objects (no libelf needed: the file is mapped and walked).
#include "elf_symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace strata::compiler {
namespace {

using Ehdr = ElfW(Ehdr);
using Shdr = ElfW(Shdr);
using Sym = ElfW(Sym);

/// Global before weak before local, so that of aliases the exported name is used.
int binding_rank(unsigned char info) {
    switch (ELF64_ST_BIND(info)) {
        case STB_GLOBAL:
            return 0;
        case STB_WEAK:
            return 1;
        default:
            return 2;
    }
}

bool in_file(std::size_t file_size, std::uint64_t offset, std::uint64_t size) {
    return offset <= file_size && size <= file_size - offset;
}

std::string executable_path() {
    char buffer[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0) return {};
    return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace

ElfSymbols::ElfSymbols(const std::string& path) {
    const int fd = path.empty() ? -1 : open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) >= sizeof(Ehdr)) {
        map_size_ = static_cast<std::size_t>(st.st_size);
        map_ = mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map_ == MAP_FAILED) map_ = nullptr;
    }
    close(fd);
    if (map_ == nullptr) return;

    const auto* base = static_cast<const unsigned char*>(map_);
    const auto* ehdr = reinterpret_cast<const Ehdr*>(base);
    // Only files of this process's own class and byte order can be loaded into it.
    if (std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0 || ehdr->e_ident[EI_CLASS] != ELFCLASS64 ||
        ehdr->e_shentsize != sizeof(Shdr) || !in_file(map_size_, ehdr->e_shoff, sizeof(Shdr))) {
        return;
    }
    const auto* sections = reinterpret_cast<const Shdr*>(base + ehdr->e_shoff);
    std::size_t count =
        ehdr->e_shnum != 0 ? ehdr->e_shnum : sections[0].sh_size;  // many sections: count in [0]
    if (!in_file(map_size_, ehdr->e_shoff, count * sizeof(Shdr))) return;

    const Shdr* table = nullptr;
    for (std::size_t i = 0; i < count; ++i) {
        if (sections[i].sh_type == SHT_SYMTAB) table = &sections[i];
    }
    has_symtab_ = table != nullptr;
    if (table == nullptr) {
        for (std::size_t i = 0; i < count; ++i) {
            if (sections[i].sh_type == SHT_DYNSYM) table = &sections[i];
        }
    }
    if (table == nullptr || table->sh_link >= count || table->sh_entsize != sizeof(Sym) ||
        !in_file(map_size_, table->sh_offset, table->sh_size)) {
        return;
    }
    const Shdr& strings = sections[table->sh_link];
    if (!in_file(map_size_, strings.sh_offset, strings.sh_size) || strings.sh_size == 0) return;
    const char* names = reinterpret_cast<const char*>(base + strings.sh_offset);

    const auto* syms = reinterpret_cast<const Sym*>(base + table->sh_offset);
    const std::size_t n = table->sh_size / sizeof(Sym);
    std::vector<std::pair<Symbol, int>> found;
    for (std::size_t i = 0; i < n; ++i) {
        const Sym& s = syms[i];
        const unsigned type = ELF64_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_value == 0)
            continue;
        // The name must end inside the string table.
        if (s.st_name >= strings.sh_size ||
            std::memchr(names + s.st_name, 0, strings.sh_size - s.st_name) == nullptr) {
            continue;
        }
        found.push_back({Symbol{s.st_value, s.st_size, names + s.st_name}, binding_rank(s.st_info)});
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        if (a.first.value != b.first.value) return a.first.value < b.first.value;
        if (a.second != b.second) return a.second < b.second;
        return std::strcmp(a.first.name, b.first.name) < 0;  // deterministic among equals
    });
    symbols_.reserve(found.size());
    for (const auto& f : found) {
        // Keep the best-ranked symbol of each address.
        if (!symbols_.empty() && symbols_.back().value == f.first.value) continue;
        symbols_.push_back(f.first);
    }
}

ElfSymbols::~ElfSymbols() {
    if (map_ != nullptr) munmap(map_, map_size_);
}

const ElfSymbols::Symbol* ElfSymbols::find(std::uint64_t address) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](std::uint64_t a, const Symbol& s) { return a < s.value; });
    if (it == symbols_.begin()) return nullptr;
    --it;  // the last symbol starting at or before `address`
    if (it->value == address || address - it->value < it->size) return &*it;
    return nullptr;
}

const ElfSymbols& LoadedObject::symbols() {
    if (!symbols_) symbols_ = std::make_unique<ElfSymbols>(path);
    return *symbols_;
}

DwarfSource& LoadedObject::dwarf() {
    if (!dwarf_) dwarf_ = std::make_unique<DwarfSource>(path);
    return *dwarf_;
}

bool LoadedObject::contains(std::uintptr_t address) const {
    for (const auto& [begin, end] : code) {
        if (address >= begin && address < end) return true;
    }
    return false;
}

LoadedObject* ObjectList::find(std::uintptr_t address) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        for (const auto& object : objects_) {
            if (object->contains(address)) return object.get();
        }
        if (attempt == 0) rescan();
    }
    return nullptr;
}

void ObjectList::rescan() {
    std::vector<std::unique_ptr<LoadedObject>> current;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) -> int {
            auto object = std::make_unique<LoadedObject>();
            object->bias = info->dlpi_addr;
            object->path = info->dlpi_name != nullptr ? info->dlpi_name : "";
            for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) != 0) {
                    object->code.emplace_back(info->dlpi_addr + ph.p_vaddr,
                                              info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
                }
            }
            static_cast<std::vector<std::unique_ptr<LoadedObject>>*>(data)->push_back(std::move(object));
            return 0;
        },
        &current);
    // The executable is reported first, without a name.
    if (!current.empty() && current.front()->path.empty()) current.front()->path = executable_path();
    for (auto& object : current) {
        for (auto& known : objects_) {
            if (known && known->bias == object->bias && known->path == object->path) {
                object = std::move(known);  // keep the symbols already read
                break;
            }
        }
    }
    // Objects no longer loaded (dlclose) are dropped: their addresses may be reused.
    objects_ = std::move(current);
}

}  // namespace strata::compiler
