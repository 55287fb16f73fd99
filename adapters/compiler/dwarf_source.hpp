// SPDX-License-Identifier: BSD-3-Clause
// Source file and line of functions, from the DWARF of an ELF file (elfutils libdw).
//
// The compilation unit of an address is found through .debug_aranges, or by asking each
// unit when there are none; then every function of that unit is indexed at once (its entry
// address -> DW_AT_decl_file, DW_AT_decl_line, following DW_AT_specification and
// DW_AT_abstract_origin), so each unit is walked once.  Without libdw at build time, or
// without debug information in the file, nothing is found.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace strata::compiler {

/// Where a function is declared in the source.
struct SourceLine {
    std::string file;  ///< as the compiler recorded it, made absolute with the unit's directory
    std::uint32_t line = 0;
};

class DwarfSource {
public:
    /// Opens the DWARF of the file at `path` (nothing is read yet).
    explicit DwarfSource(const std::string& path);
    ~DwarfSource();
    DwarfSource(const DwarfSource&) = delete;
    DwarfSource& operator=(const DwarfSource&) = delete;

    /// The declaration of the function whose entry is at link-time address `address`;
    /// false when unknown.  Not thread-safe.
    bool find(std::uint64_t address, SourceLine* out);

    /// True when this build can read DWARF at all (libdw was found).
    static bool available();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace strata::compiler
