// SPDX-License-Identifier: BSD-3-Clause
#include "source_location.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#ifdef STRATA_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>

#include "debug_info/dwarf_unit_index.hpp"
#endif

namespace strata::openmp {

namespace {

std::string base_name(const char* path) {
    const char* slash = std::strrchr(path, '/');
    return slash != nullptr ? slash + 1 : path;
}

std::string demangled(const char* symbol) {
    if (std::strncmp(symbol, "_Z", 2) != 0) return symbol;
    int status = 0;
    char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    std::string out = status == 0 && text != nullptr ? text : symbol;
    std::free(text);
    return out;
}

#ifdef STRATA_HAVE_LIBDW
/// Separate debug information on this machine only: by build ID under the
/// debug directories, else by the module's .gnu_debuglink name beside it, in
/// its .debug/ and under /usr/lib/debug, accepted when its build ID is the
/// module's.  Unlike dwfl_standard_find_debuginfo this never loads the
/// debuginfod client (a dozen libraries, milliseconds inside the program's
/// first parallel region) nor, where DEBUGINFOD_URLS is set, asks a server
/// over the network from inside the measured program.
int find_local_debuginfo(Dwfl_Module* module, void** user, const char* name, Dwarf_Addr base, const char* file,
                         const char* debuglink, GElf_Word crc, char** found_name) {
    const int fd = dwfl_build_id_find_debuginfo(module, user, name, base, file, debuglink, crc, found_name);
    if (fd >= 0 || file == nullptr || debuglink == nullptr || debuglink[0] == '\0') return fd;
    const unsigned char* id = nullptr;
    GElf_Addr id_address = 0;
    const int id_size = dwfl_module_build_id(module, &id, &id_address);
    if (id_size <= 0) return -1;  // nothing to tell the right file from a stale one
    const char* slash = std::strrchr(file, '/');
    const std::string directory = slash != nullptr ? std::string(file, slash) : std::string(".");
    for (const std::string& candidate : {directory + '/' + debuglink, directory + "/.debug/" + debuglink,
                                         "/usr/lib/debug" + directory + '/' + debuglink}) {
        if (candidate == file) continue;
        const int candidate_fd = open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
        if (candidate_fd < 0) continue;
        bool same = false;
        if (Elf* elf = elf_begin(candidate_fd, ELF_C_READ_MMAP, nullptr)) {
            const void* candidate_id = nullptr;
            const ssize_t size = dwelf_elf_gnu_build_id(elf, &candidate_id);
            same = size == id_size && std::memcmp(candidate_id, id, static_cast<std::size_t>(size)) == 0;
            elf_end(elf);
        }
        if (same) {
            *found_name = strdup(candidate.c_str());
            return candidate_fd;
        }
        close(candidate_fd);
    }
    return -1;
}

/// The line tables and symbols of the objects that hold constructs.
class ProcessLines {
public:
    ~ProcessLines() {
        if (dwfl_ != nullptr) dwfl_end(dwfl_);
    }

    bool find(std::uintptr_t address, CodeLocation* out) {
        Dwfl_Module* module = report_object_of(address);
        if (module == nullptr) return false;
        int number = 0;
        const char* file = nullptr;
        if (Dwfl_Line* line = dwfl_module_getsrc(module, address)) {
            file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
        } else {
            file = search_units(module, address, &number);
        }
        if (file != nullptr && number > 0) {
            out->file = base_name(file);
            out->line = static_cast<unsigned>(number);
            out->text = out->file + ':' + std::to_string(number);
            return true;
        }
        // No line table (built without -g): the function from the symbol
        // table, which unlike dladdr also knows the functions not exported
        // (GCC's outlined construct bodies, "f._omp_fn.N"), and the offset
        // in it, which tells two constructs of one function apart.
        GElf_Off offset = 0;
        GElf_Sym symbol_entry;
        if (const char* symbol =
                dwfl_module_addrinfo(module, address, &offset, &symbol_entry, nullptr, nullptr, nullptr)) {
            char at[32];
            std::snprintf(at, sizeof at, "+0x%llx", static_cast<unsigned long long>(offset));
            out->text = demangled(symbol) + at;
            return true;
        }
        return false;
    }

private:
    /// Clang emits no .debug_aranges, without which libdwfl finds no unit for an
    /// address: the units' own address ranges tell (debug_info/dwarf_unit_index.hpp).
    const char* search_units(Dwfl_Module* module, std::uintptr_t address, int* number) {
        Dwarf_Addr bias = 0;
        Dwarf* dwarf = dwfl_module_getdwarf(module, &bias);
        if (dwarf == nullptr) return nullptr;
        auto found = units_.find(module);
        if (found == units_.end()) found = units_.emplace(module, debug_info::DwarfUnitIndex(dwarf)).first;
        const Dwarf_Addr pc = address - bias;
        for (const Dwarf_Off offset : found->second.units_at(pc)) {
            Dwarf_Die unit;
            if (dwarf_offdie(dwarf, offset, &unit) == nullptr) continue;
            Dwarf_Line* line = dwarf_getsrc_die(&unit, pc);
            if (line != nullptr && dwarf_lineno(line, number) == 0) return dwarf_linesrc(line, nullptr, nullptr);
        }
        return nullptr;
    }

    /// The module of the loaded object that holds `address`, reported the first
    /// time one of its addresses is asked for: only the objects that hold
    /// constructs are opened, not every library of the process (an MPI
    /// program maps a hundred), and an object opened with dlopen later is
    /// found as well.
    Dwfl_Module* report_object_of(std::uintptr_t address) {
        if (dwfl_ == nullptr) {
            static char* debuginfo_path = nullptr;
            static const Dwfl_Callbacks callbacks = {dwfl_linux_proc_find_elf, find_local_debuginfo, nullptr,
                                                     &debuginfo_path};
            dwfl_ = dwfl_begin(&callbacks);
            if (dwfl_ == nullptr) return nullptr;
        }
        if (Dwfl_Module* module = dwfl_addrmodule(dwfl_, address)) return module;
        struct Search {
            std::uintptr_t address;
            std::uintptr_t bias = 0;
            const char* name = nullptr;
            bool found = false;
        } search{address};
        dl_iterate_phdr(
            [](dl_phdr_info* info, std::size_t, void* data) {
                auto* s = static_cast<Search*>(data);
                for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
                    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
                    if (ph.p_type == PT_LOAD && s->address >= begin && s->address < begin + ph.p_memsz) {
                        s->bias = info->dlpi_addr;
                        s->name = info->dlpi_name;
                        s->found = true;
                        return 1;
                    }
                }
                return 0;
            },
            &search);
        if (!search.found || search.name == nullptr) return nullptr;
        // The program itself has no name here: its file, so that a debug file
        // named by .gnu_debuglink is looked for beside it.
        char program[4096];
        const char* file = search.name;
        if (file[0] == '\0') {
            const ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
            if (n <= 0) return nullptr;
            program[n] = '\0';
            file = program;
        }
        // A name without a directory is the vDSO: no file, no constructs.  A
        // library opened by a relative path ("./plugin.so") is found from here.
        char absolute[PATH_MAX];
        if (std::strchr(file, '/') == nullptr) return nullptr;
        if (file[0] != '/') {
            if (realpath(file, absolute) == nullptr) return nullptr;
            file = absolute;
        }
        dwfl_report_begin_add(dwfl_);
        Dwfl_Module* module = dwfl_report_elf(dwfl_, base_name(file).c_str(), file, -1, search.bias, true);
        dwfl_report_end(dwfl_, nullptr, nullptr);
        return module;
    }

    Dwfl* dwfl_ = nullptr;
    std::map<Dwfl_Module*, debug_info::DwarfUnitIndex> units_;
};
#endif

}  // namespace

CodeLocation describe_code_address(const void* return_address) {
    CodeLocation where;
    if (return_address == nullptr) return where;
    // The return address follows the call: the call itself is one byte before.
    const auto address = reinterpret_cast<std::uintptr_t>(return_address) - 1;
#ifdef STRATA_HAVE_LIBDW
    static ProcessLines* lines = new ProcessLines();  // lives until exit: callbacks may come late
    if (lines->find(address, &where)) return where;
#endif
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(address), &info) != 0) {
        if (info.dli_sname != nullptr) {
            where.text = demangled(info.dli_sname);
            return where;
        }
        if (info.dli_fname != nullptr) {
            char offset[32];
            std::snprintf(offset, sizeof offset, "+0x%zx",
                          static_cast<std::size_t>(address - reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
            where.text = base_name(info.dli_fname) + offset;
            return where;
        }
    }
    char text[32];
    std::snprintf(text, sizeof text, "0x%zx", static_cast<std::size_t>(address));
    where.text = text;
    return where;
}

CodeRange code_range_of(const void* address) {
    struct Search {
        std::uintptr_t address;
        CodeRange found;
    } search{reinterpret_cast<std::uintptr_t>(address), {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto* s = static_cast<Search*>(data);
            for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
                const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
                if (s->address >= begin && s->address < begin + ph.p_memsz) {
                    s->found = CodeRange{begin, begin + ph.p_memsz};
                    return 1;
                }
            }
            return 0;
        },
        &search);
    return search.found;
}

const void* first_caller_outside(const CodeRange& a, const CodeRange& b) {
    void* frames[48];
    const int n = backtrace(frames, 48);
    for (int i = 1; i < n; ++i) {  // frames[0]: this function
        if (!a.contains(frames[i]) && !b.contains(frames[i])) return frames[i];
    }
    return nullptr;
}

}  // namespace strata::openmp
