// SPDX-License-Identifier: BSD-3-Clause
// The loaded objects: which object, which ELF symbol and which source line an address belongs to.
//
// The objects come from dl_iterate_phdr (the executable and every shared object, also those
// opened later with dlopen: an address outside every known object triggers a re-scan).  An
// object's symbols are read on the first address inside it, from its file: .symtab (static
// functions included), or .dynsym when the file is stripped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dwarf_source.hpp"

namespace strata::compiler {

/// The function symbols of one ELF file, sorted by address.
class ElfSymbols {
public:
    /// Reads the symbols of the file at `path`; empty when it cannot be read.
    explicit ElfSymbols(const std::string& path);
    ~ElfSymbols();
    ElfSymbols(const ElfSymbols&) = delete;
    ElfSymbols& operator=(const ElfSymbols&) = delete;

    struct Symbol {
        std::uint64_t value = 0;  ///< link-time address
        std::uint64_t size = 0;
        const char* name = "";  ///< points into the mapped file
    };

    /// The symbol starting at link-time address `address` (the global one of several aliases),
    /// or else the one containing it; nullptr when none.
    const Symbol* find(std::uint64_t address) const;

    /// True when the file had a .symtab (not only .dynsym).
    bool has_symtab() const { return has_symtab_; }
    std::size_t size() const { return symbols_.size(); }

private:
    std::vector<Symbol> symbols_;
    void* map_ = nullptr;
    std::size_t map_size_ = 0;
    bool has_symtab_ = false;
};

/// One object of the process, as the dynamic loader reports it.
struct LoadedObject {
    std::string path;         ///< file name ("" when unknown); the executable's from /proc/self/exe
    std::uintptr_t bias = 0;  ///< load bias: run-time address = link-time address + bias
    /// Run-time address ranges [begin, end) of its executable segments.
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> code;
    /// Read on first use (see symbols() and dwarf()).
    std::unique_ptr<ElfSymbols> symbols_;
    std::unique_ptr<DwarfSource> dwarf_;

    const ElfSymbols& symbols();
    DwarfSource& dwarf();
    bool contains(std::uintptr_t address) const;
};

/// The objects of the process.  Not thread-safe: the caller serialises.
class ObjectList {
public:
    /// The object whose code contains `address`; re-scans once when none does.
    LoadedObject* find(std::uintptr_t address);
    /// Reads the list of objects again (new objects are added; known ones keep their symbols).
    void rescan();
    const std::vector<std::unique_ptr<LoadedObject>>& objects() const { return objects_; }

private:
    std::vector<std::unique_ptr<LoadedObject>> objects_;
};

}  // namespace strata::compiler
