// SPDX-License-Identifier: BSD-3-Clause
#include "profile/profile_guard.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <string>

#include "profile/profile_reader.hpp"

namespace strata::analysis {

namespace {
constexpr unsigned kReadSeconds = 120;
}

Error check_profile_in_child(const std::string& path) {
    const pid_t child = fork();
    if (child < 0) return {};  // no child to spare: read as usual
    if (child == 0) {
        // The child only reads; it never returns into the caller's code (MPI
        // included), and its exit skips the parent's atexit handlers.  Crash
        // handlers inherited from MPI would print a backtrace from a heap HDF5
        // may have damaged (and hang on its lock): the default action instead.
        for (int fatal : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(fatal, SIG_DFL);
        alarm(kReadSeconds);  // a read that never ends (a damaged loop of links) counts as a crash
        try {
            (void)read_profile(path);
        } catch (...) {
        }
        _exit(0);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return {};
    }
    if (!WIFSIGNALED(status)) return {};
    const int signal = WTERMSIG(status);
    if (signal == SIGALRM) {
        return path + ": reading it did not finish within " + std::to_string(kReadSeconds) +
               " s (HDF5 loops on it): the file is damaged";
    }
    const char* name = strsignal(signal);
    return path + ": reading it crashed the HDF5 library (" + (name != nullptr ? name : "signal") +
           "): the file is damaged";
}

}  // namespace strata::analysis
