// SPDX-License-Identifier: BSD-3-Clause
// The checks `strata-preload` makes on a program before it runs it.
#include "preload_program.hpp"

#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "compiler_kind.hpp"
#include "process.hpp"

namespace strata::instrumenter {
namespace {

constexpr std::uint16_t et_exec = 2, et_dyn = 3;

/// Programs that start other programs: LD_PRELOAD must be applied after them, not to them.
bool is_launcher(const std::string& name) {
    for (const char* prefix : {"mpirun", "mpiexec"}) {
        if (name.compare(0, std::strlen(prefix), prefix) == 0) return true;
    }
    for (const char* launcher : {"orterun", "prterun", "prun", "srun", "aprun", "jsrun", "ibrun"}) {
        if (name == launcher) return true;
    }
    return false;
}

/// The "#!" line of a script, or empty.
std::string shebang(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::string line;
    if (!std::getline(file, line) || line.compare(0, 2, "#!") != 0) return {};
    if (line.size() > 80) line = line.substr(0, 80) + "...";
    return line;
}

}  // namespace

std::string static_program_message(const std::string& program) {
    return "'" + program +
           "' is statically linked (it has no program interpreter): it cannot be measured through "
           "LD_PRELOAD; "
           "rebuild it with `strata <compiler>` (for example `strata mpicc app.c -o app`), without -static";
}

ProgramCheck check_program(const std::string& program, const std::string& path_variable, const ElfInfo& own) {
    ProgramCheck check;
    const std::string name = base_name(program);
    if (name == "strata-preload" || name == "strata") {
        check.error = "the program cannot be " + name +
                      " itself: give the program to measure, as in "
                      "'strata-preload ./app'";
        return check;
    }
    if (is_launcher(name)) {
        check.error = "'" + program +
                      "' is a launcher: put strata-preload after it, in front of the program, "
                      "as in 'mpirun -np 4 strata-preload ./app'";
        return check;
    }

    if (program.find('/') == std::string::npos) {
        check.path = find_program(program, path_variable);
        if (check.path.empty()) {
            struct stat here {};
            check.error =
                "program '" + program + "' not found in PATH" +
                (::stat(program.c_str(), &here) == 0 ? std::string("; did you mean './") + program + "'?"
                                                     : std::string());
            return check;
        }
    } else {
        check.path = program;
    }
    struct stat info {};
    if (::stat(check.path.c_str(), &info) != 0) {
        const int error = errno;
        check.error = "program '" + program + "' " +
                      (error == ENOENT ? std::string("not found")
                                       : "cannot be read: " + std::string(std::strerror(error)));
        return check;
    }
    if (S_ISDIR(info.st_mode)) {
        check.error = "'" + program + "' is a directory, not a program";
        return check;
    }
    if (!S_ISREG(info.st_mode) || ::access(check.path.c_str(), X_OK) != 0) {
        check.error = "'" + program +
                      "' is not an executable file (check its permissions, or name the program's binary)";
        return check;
    }

    const std::string script = shebang(check.path);
    if (!script.empty()) {
        check.error =
            "'" + program + "' is a script (" + script +
            "), not a binary: LD_PRELOAD would measure its interpreter and every program it starts, each "
            "writing an experiment of its own.  Put strata-preload in front of the binary inside the "
            "script instead, as in 'exec strata-preload ./app \"$@\"'";
        return check;
    }
    check.elf = read_elf_file(check.path);
    if (!check.elf.elf) {
        check.error = "'" + program + "' is not an ELF program (" + *check.elf.problem +
                      "): strata-preload runs binaries; name the program's binary";
        return check;
    }
    if (check.elf.type != et_exec && check.elf.type != et_dyn) {
        check.error = "'" + program + "' is an ELF file but not a program (an object file or a core dump?)";
        return check;
    }
    if (own.elf && (check.elf.bits != own.bits || check.elf.machine != own.machine)) {
        check.error = "'" + program + "' is a " + std::to_string(check.elf.bits) + "-bit " +
                      machine_name(check.elf.machine) + " program, but Strata's libraries are " +
                      std::to_string(own.bits) + "-bit " + machine_name(own.machine) +
                      ": use a build of Strata for that architecture";
        return check;
    }
    if (!check.elf.has_interpreter) {
        if (check.elf.type == et_dyn && check.elf.has_dynamic && !check.elf.pie) {
            check.error =
                "'" + program + "' is a shared library, not a program: give the program that loads it";
        } else {
            check.error = static_program_message(program);
        }
        return check;
    }

    // The kernel starts a program in secure mode when it changes the user or group, or gains
    // capabilities; the loader then ignores LD_PRELOAD (except setuid libraries of its own folders).
    const bool setuid = (info.st_mode & S_ISUID) != 0 && info.st_uid != ::getuid();
    const bool setgid = (info.st_mode & S_ISGID) != 0 && info.st_gid != ::getgid();
    if (setuid || setgid) {
        check.error =
            "'" + program + "' is " + (setuid ? "setuid" : "setgid") +
            ": the loader ignores LD_PRELOAD for it, so it cannot be measured this way; measure a copy "
            "without the " +
            (setuid ? "setuid" : "setgid") + " bit, or rebuild it with `strata <compiler>`";
        return check;
    }
    if (::geteuid() != 0 && ::getxattr(check.path.c_str(), "security.capability", nullptr, 0) >= 0) {
        check.error =
            "'" + program +
            "' has file capabilities: the loader ignores LD_PRELOAD for it, so it cannot be measured this "
            "way; measure a copy without them, or rebuild it with `strata <compiler>`";
        return check;
    }
    return check;
}

}  // namespace strata::instrumenter
