// SPDX-License-Identifier: BSD-3-Clause
// What `strata-preload` needs to know of an ELF file: its kind, its program interpreter and its
// dynamic section (DT_NEEDED, DT_RPATH, DT_RUNPATH, DT_SONAME).
//
//   ELF header -> program headers -> PT_INTERP   (the loader: absent in static programs)
//                                 -> PT_DYNAMIC  -> DT_STRTAB (a virtual address, mapped to a file
//                                                   offset through the PT_LOAD segments)
//                                                -> DT_NEEDED / DT_RPATH / DT_RUNPATH / DT_SONAME
//
// 32- and 64-bit files of either byte order are read; only the headers, the dynamic section and the
// section names are read, never the whole file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/measurement/error.hpp"

namespace strata::instrumenter {

/// The ELF facts that decide whether and how a program can be measured through LD_PRELOAD.
struct ElfInfo {
    /// The file starts with the ELF magic and its headers could be read.
    bool elf = false;
    /// Why the file could not be read as ELF (none when `elf`); for example "not an ELF file".
    Error problem;
    /// 32 or 64.
    int bits = 0;
    /// Most significant byte first.
    bool big_endian = false;
    /// e_machine (EM_X86_64 = 62, ...).
    std::uint16_t machine = 0;
    /// e_type (ET_EXEC = 2, ET_DYN = 3, ...).
    std::uint16_t type = 0;
    /// A PT_INTERP segment: the program is started by the dynamic loader, which honours LD_PRELOAD.
    bool has_interpreter = false;
    /// The loader named by PT_INTERP ("/lib64/ld-linux-x86-64.so.2").
    std::string interpreter;
    /// A PT_DYNAMIC segment.
    bool has_dynamic = false;
    /// DT_FLAGS_1 has DF_1_PIE (a position-independent executable, also a static-pie one).
    bool pie = false;
    /// DT_NEEDED entries, in order.
    std::vector<std::string> needed;
    /// DT_RPATH and DT_RUNPATH, split at ':' (unexpanded: "$ORIGIN/../lib" stays as it is).
    std::vector<std::string> rpath;
    std::vector<std::string> runpath;
    /// DT_SONAME, empty when absent.
    std::string soname;
    /// A section named .nv_fatbin: CUDA device code.  nvcc links the CUDA runtime statically by
    /// default, so such a program needs no libcudart (read from the section headers when present).
    bool cuda_device_code = false;
};

/// Reads `size` bytes at `offset` into `out`; false when the file is shorter.
using ByteReader = std::function<bool(std::uint64_t offset, std::size_t size, unsigned char* out)>;

/// Parses the ELF headers and dynamic section through `read`.  Never throws: a file that is not
/// ELF, or a truncated or inconsistent one, gives `elf == false` and a `problem`.
ElfInfo parse_elf(const ByteReader& read);

/// Parses the ELF file at `path`; `problem` names the system error when it cannot be opened.
ElfInfo read_elf_file(const std::string& path);

/// Parses an ELF image held in memory (for tests).
ElfInfo parse_elf_bytes(const std::vector<unsigned char>& bytes);

/// "x86-64", "i386", "AArch64", ... for messages; "machine <n>" for others.
std::string machine_name(std::uint16_t machine);

/// The name of a shared library without its directory and ".so" suffix: "libmpi.so.40" -> "libmpi",
/// "/usr/lib/libcudart.so" -> "libcudart".  Names without ".so" are returned without directory.
std::string library_base_name(const std::string& soname);

}  // namespace strata::instrumenter
