// SPDX-License-Identifier: BSD-3-Clause
// POSIX process helpers of the wrapper.
#include "process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace strata::instrumenter {
namespace {

bool is_executable_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> pointers;
    pointers.reserve(argv.size() + 1);
    for (const auto& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

}  // namespace

std::string find_program(const std::string& program, const std::string& path_variable) {
    if (program.empty()) return {};
    if (program.find('/') != std::string::npos) {
        return is_executable_file(program) ? program : std::string();
    }
    std::size_t start = 0;
    while (start <= path_variable.size()) {
        auto end = path_variable.find(':', start);
        if (end == std::string::npos) end = path_variable.size();
        std::string dir = path_variable.substr(start, end - start);
        if (dir.empty()) dir = ".";  // an empty PATH entry means the current directory
        const std::string candidate = dir + "/" + program;
        if (is_executable_file(candidate)) return candidate;
        start = end + 1;
    }
    return {};
}

std::string capture_output(const std::vector<std::string>& argv) {
    if (argv.empty()) return {};
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {};
    }
    if (pid == 0) {
        const int null_fd = ::open("/dev/null", O_RDONLY);
        if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
        ::dup2(fds[1], STDOUT_FILENO);
        ::dup2(fds[1], STDERR_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        auto args = c_argv(argv);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    std::string output;
    char buffer[4096];
    for (;;) {
        const auto n = ::read(fds[0], buffer, sizeof buffer);
        if (n > 0) {
            output.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return output;
}

void exec_program(const std::vector<std::string>& argv) {
    auto args = c_argv(argv);
    ::execvp(args[0], args.data());
}

}  // namespace strata::instrumenter
