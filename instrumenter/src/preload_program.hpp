// SPDX-License-Identifier: BSD-3-Clause
// Whether a program can be measured through LD_PRELOAD, and why not when it cannot.
//
//   found (PATH) -> regular, executable file -> not a launcher (mpirun) -> not a script
//     -> ELF of our class and machine -> a program interpreter (not static) -> not secure-exec (setuid)
//
// Every refusal is one message saying why and what to do instead; `strata-preload` exits with 2.
#pragma once

#include <string>

#include "elf_file.hpp"

namespace strata::instrumenter {

/// The outcome of checking the program.
struct ProgramCheck {
    /// The file that will be executed (the argument, or where PATH found it).
    std::string path;
    /// Its ELF facts (valid when `error` is empty).
    ElfInfo elf;
    /// Why it cannot be measured through LD_PRELOAD, with what to do; none when it can.
    Error error;
};

/// Checks `program` (as given on the command line; without '/' it is looked up in `path_variable`).
/// `own` is the ELF of strata-preload itself: the program must have the same class and machine
/// as Strata's libraries.
ProgramCheck check_program(const std::string& program, const std::string& path_variable, const ElfInfo& own);

/// A failure of a given check, as a message (exposed for tests).
std::string static_program_message(const std::string& program);

}  // namespace strata::instrumenter
