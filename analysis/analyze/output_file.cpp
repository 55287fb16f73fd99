// SPDX-License-Identifier: BSD-3-Clause
// Writing without following symbolic links (see output_file.hpp).
#include "analyze/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::analysis {

OutputFile::OutputFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        error_ = errno == ELOOP ? std::string("it is a symbolic link, which is not written through")
                                : std::string(std::strerror(errno));
    }
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
}

bool OutputFile::write(const void* data, std::size_t bytes) {
    if (fd_ < 0 || error_) return false;
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd_, p, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            error_ = n < 0 ? std::strerror(errno) : "nothing was written";
            return false;
        }
        p += n;
        bytes -= static_cast<std::size_t>(n);
    }
    return true;
}

bool OutputFile::close() {
    if (fd_ >= 0) {
        if (::close(fd_) != 0 && !error_) error_ = std::strerror(errno);
        fd_ = -1;
    }
    return !error_;
}

}  // namespace strata::analysis
