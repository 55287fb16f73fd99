// SPDX-License-Identifier: BSD-3-Clause
// See ranks_writing_alone.hpp.
#include "core/ranks_writing_alone.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/host_name.hpp"

namespace strata::ranks_writing_alone {

namespace {

long long now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

/// Whether the marker `path` names a process of this host that is still alive.
bool writer_alive(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return false;
    long pid = 0;
    const bool read = std::fscanf(f, "%ld", &pid) == 1;
    std::fclose(f);
    if (!read || pid <= 0) return false;
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

/// Whether a rank of `directory`'s markers is still writing (the caller's own is removed).
bool siblings_writing(const std::string& directory) {
    DIR* dir = opendir(directory.c_str());
    if (dir == nullptr) return false;
    bool writing = false;
    while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        if (writer_alive(directory + "/" + name)) {
            writing = true;
            break;
        }
    }
    closedir(dir);
    return writing;
}

}  // namespace

std::string host_directory_name() {
    // A host name is a path component here: anything else than [A-Za-z0-9._-] becomes '_'.
    std::string host = host_name();
    for (char& c : host) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '-' || c == '_';
        if (!keep) c = '_';
    }
    if (host.empty() || host == "." || host == "..") host = "host";
    return "writing-" + host;
}

std::string begin(const std::string& job_directory, int rank) {
    const std::string directory = job_directory + "/" + host_directory_name();
    const std::string marker = directory + "/" + std::to_string(rank);
    int fd = -1;
    // A sibling that has just written removes the directory when its marker was the last: make it again.
    // O_EXCL | O_NOFOLLOW: never through a planted link, as every file Strata writes.
    for (int attempt = 0; attempt < 3 && fd < 0; ++attempt) {
        if (mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) return "";
        fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != ENOENT) return "";
    }
    if (fd < 0) return "";
    const std::string pid = std::to_string(getpid()) + "\n";
    const bool written = write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
    if (close(fd) != 0 || !written) {
        unlink(marker.c_str());
        return "";
    }
    return marker;
}

void end(const std::string& marker) {
    if (marker.empty()) return;
    unlink(marker.c_str());
    const std::size_t slash = marker.rfind('/');
    if (slash != std::string::npos) rmdir(marker.substr(0, slash).c_str());  // fails while others write
}

void wait_for_siblings(const std::string& job_directory, int at_least_ms, int at_most_ms) {
    const std::string directory = job_directory + "/" + host_directory_name();
    const long long start = now_ms();
    for (;;) {
        const long long waited = now_ms() - start;
        if (waited >= at_most_ms) return;
        if (waited >= at_least_ms && !siblings_writing(directory)) return;
        usleep(5000);
    }
}

}  // namespace strata::ranks_writing_alone
