// SPDX-License-Identifier: BSD-3-Clause
// The compilation units of a DWARF file by address, for files without
// .debug_aranges (clang writes none by default), where libdw's
// dwarf_addrdie and libdwfl's dwfl_module_getsrc find no unit.  Asking every
// unit for every address costs a pass over all units per look-up; the units'
// address ranges are read once and sorted instead.
//
// Header-only: the compiler and the OpenMP adapters each compile their own
// copy (hidden, like the rest of each library), so that no library exports it.
#pragma once

#include <elfutils/libdw.h>

#include <algorithm>
#include <vector>

namespace strata::debug_info {

class DwarfUnitIndex {
public:
    /// Reads the address ranges of every unit of `dwarf` (link-time addresses).
    explicit DwarfUnitIndex(Dwarf* dwarf) {
        Dwarf_Off offset = 0, next = 0;
        std::size_t header_size = 0;
        while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
            Dwarf_Die unit;
            if (dwarf_offdie(dwarf, offset + header_size, &unit) != nullptr) {
                Dwarf_Addr base = 0, low = 0, high = 0;
                for (ptrdiff_t at = 0; (at = dwarf_ranges(&unit, at, &base, &low, &high)) > 0;) {
                    if (low < high) ranges_.push_back(Range{low, high, offset + header_size, 0});
                }
            }
            offset = next;
        }
        std::sort(ranges_.begin(), ranges_.end(), [](const Range& x, const Range& y) { return x.low < y.low; });
        Dwarf_Addr reach = 0;
        for (Range& r : ranges_) r.reach = reach = std::max(reach, r.high);
    }

    /// The DIE offsets of the units with a range that holds `pc`, the range
    /// that starts nearest below it first.  Usually one; more where the ranges
    /// of discarded code (starting at 0) overlap the real ones.
    std::vector<Dwarf_Off> units_at(Dwarf_Addr pc) const {
        std::vector<Dwarf_Off> units;
        auto it = std::upper_bound(ranges_.begin(), ranges_.end(), pc,
                                   [](Dwarf_Addr value, const Range& r) { return value < r.low; });
        while (it != ranges_.begin()) {
            --it;
            if (it->reach <= pc) break;  // no range from here down reaches pc
            if (pc < it->high) units.push_back(it->unit);
        }
        return units;
    }

private:
    struct Range {
        Dwarf_Addr low, high;
        Dwarf_Off unit;     ///< offset of the unit's DIE
        Dwarf_Addr reach;   ///< the highest end of this and every range sorted before it
    };
    std::vector<Range> ranges_;
};

}  // namespace strata::debug_info
