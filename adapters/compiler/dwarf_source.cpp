// SPDX-License-Identifier: BSD-3-Clause
// DWARF lookups with elfutils libdw; without it (STRATA_HAVE_LIBDW undefined) every lookup fails.
#include "dwarf_source.hpp"

#ifdef STRATA_HAVE_LIBDW

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "debug_info/dwarf_unit_index.hpp"

namespace strata::compiler {

struct DwarfSource::Impl {
    int fd = -1;
    Dwarf* dwarf = nullptr;
    std::unordered_map<std::uint64_t, SourceLine> functions;
    std::unordered_set<std::uint64_t> indexed_units;  // offsets of the units already walked
    /// Without .debug_aranges (clang): the units by address, read at the first miss.
    std::unique_ptr<debug_info::DwarfUnitIndex> unit_index;

    /// The entry address of a function DIE: DW_AT_entry_pc or DW_AT_low_pc, else the start of
    /// its first range (functions split into hot and cold parts).
    static bool entry_of(Dwarf_Die* die, Dwarf_Addr* entry) {
        if (dwarf_entrypc(die, entry) == 0) return true;
        Dwarf_Addr base = 0, start = 0, end = 0;
        return dwarf_ranges(die, 0, &base, &start, &end) > 0 && (*entry = start, true);
    }

    void add_function(Dwarf_Die* die, Dwarf_Die* unit, const char* comp_dir) {
        Dwarf_Addr entry = 0;
        if (!entry_of(die, &entry) || functions.count(entry) != 0) return;
        const char* file = dwarf_decl_file(die);
        int line = 0;
        if (file != nullptr) {
            dwarf_decl_line(die, &line);
        } else if (Dwarf_Line* row = dwarf_getsrc_die(unit, entry)) {
            // Artificial functions (a lambda's operator()) have no declaration: the line
            // table's row of the entry address is the line of the lambda.
            file = dwarf_linesrc(row, nullptr, nullptr);
            dwarf_lineno(row, &line);
        }
        if (file == nullptr) return;
        SourceLine source;
        source.file = file;
        if (source.file[0] != '/' && comp_dir != nullptr)
            source.file = std::string(comp_dir) + "/" + source.file;
        if (line > 0) source.line = static_cast<std::uint32_t>(line);
        functions.emplace(entry, std::move(source));
    }

    /// Walks the DIE tree below `parent` (functions sit in namespaces, classes, other functions).
    void walk(Dwarf_Die* parent, Dwarf_Die* unit, const char* comp_dir) {
        Dwarf_Die child;
        if (dwarf_child(parent, &child) != 0) return;
        do {
            const int tag = dwarf_tag(&child);
            if (tag == DW_TAG_subprogram) add_function(&child, unit, comp_dir);
            if (dwarf_haschildren(&child) > 0 && tag != DW_TAG_inlined_subroutine)
                walk(&child, unit, comp_dir);
        } while (dwarf_siblingof(&child, &child) == 0);
    }

    void index_unit(Dwarf_Die* unit) {
        if (!indexed_units.insert(dwarf_dieoffset(unit)).second) return;
        Dwarf_Attribute attr;
        const char* comp_dir = dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attr));
        walk(unit, unit, comp_dir);
    }

    /// Indexes the units that may hold the function at `address`: by aranges,
    /// else by the units' own ranges.
    void index_units_of(std::uint64_t address) {
        Dwarf_Die unit;
        if (dwarf_addrdie(dwarf, address, &unit) != nullptr) return index_unit(&unit);
        if (unit_index == nullptr) unit_index = std::make_unique<debug_info::DwarfUnitIndex>(dwarf);
        for (const Dwarf_Off offset : unit_index->units_at(address)) {
            if (dwarf_offdie(dwarf, offset, &unit) != nullptr) index_unit(&unit);
            if (functions.count(address) != 0) return;
        }
    }
};

DwarfSource::DwarfSource(const std::string& path) : impl_(std::make_unique<Impl>()) {
    impl_->fd = path.empty() ? -1 : open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl_->fd >= 0) impl_->dwarf = dwarf_begin(impl_->fd, DWARF_C_READ);
}

DwarfSource::~DwarfSource() {
    if (impl_->dwarf != nullptr) dwarf_end(impl_->dwarf);
    if (impl_->fd >= 0) close(impl_->fd);
}

bool DwarfSource::find(std::uint64_t address, SourceLine* out) {
    if (impl_->dwarf == nullptr) return false;
    auto it = impl_->functions.find(address);
    if (it == impl_->functions.end()) {
        impl_->index_units_of(address);
        it = impl_->functions.find(address);
        if (it == impl_->functions.end()) return false;
    }
    *out = it->second;
    return true;
}

bool DwarfSource::available() {
    return true;
}

}  // namespace strata::compiler

#else  // no libdw: no file and line

namespace strata::compiler {

struct DwarfSource::Impl {};
DwarfSource::DwarfSource(const std::string&) {}
DwarfSource::~DwarfSource() = default;
bool DwarfSource::find(std::uint64_t, SourceLine*) {
    return false;
}
bool DwarfSource::available() {
    return false;
}

}  // namespace strata::compiler

#endif
