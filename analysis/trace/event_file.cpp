// SPDX-License-Identifier: BSD-3-Clause
// Opening an event file and reading its chunks (see event_file.hpp).
#include "trace/event_file.hpp"

#include <fcntl.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <unistd.h>

#include <cerrno>
#include <new>

namespace strata::analysis::trace {

EventFile::~EventFile() {
    if (fd_ >= 0) ::close(fd_);
}

bool EventFile::open(const std::string& path, std::uint64_t chunk_size) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    damage_.clear();
    // A chunk smaller than its header, or larger than any OTF2 writes (a
    // damaged anchor file): OTF2's reader decides.
    if (chunk_size < kHeaderSize + 2 || chunk_size > OTF2_CHUNK_SIZE_MAX) return false;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return false;
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    chunk_size_ = chunk_size;
    buffer_.reset(new (std::nothrow) std::uint8_t[chunk_size + kPadding]);
    if (buffer_ == nullptr) {
        ::close(fd_);
        fd_ = -1;
        return false;
    }
    offset_ = 0;
    bytes_ = 0;
    // The first chunk decides: a file this decoder would call damaged is left
    // to OTF2's reader, which explains damage in its own terms.
    if (next_chunk()) return true;
    damage_.clear();
    ::close(fd_);
    fd_ = -1;
    return false;
}

bool EventFile::next_chunk() {
    const std::uint64_t offset = bytes_ == 0 ? 0 : offset_ + chunk_size_;
    std::size_t got = 0;
    while (got < chunk_size_) {
        const ssize_t n =
            ::pread(fd_, buffer_.get() + got, chunk_size_ - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            damage_ = std::string("a read failed (byte ") + std::to_string(offset + got) + ": " +
                      std::strerror(errno) + ")";
            return false;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    std::memset(buffer_.get() + got, 0, kPadding);
    offset_ = offset;
    bytes_ = got;
    if (got == 0) {
        damage_ = "the file ends without its end record (byte " + std::to_string(offset) + "; truncated?)";
        return false;
    }
    if (got < kHeaderSize || buffer_[0] != evt::chunk_header || buffer_[1] != evt::little_endian) {
        damage_ = "no valid chunk header (byte " + std::to_string(offset) + ")";
        return false;
    }
    return true;
}

EventFile::Status EventFile::damaged(const std::uint8_t* at, const char* what) {
    const auto within = static_cast<std::uint64_t>(at - buffer_.get());
    damage_ = std::string(what) + " (byte " + std::to_string(offset_ + within) + ")";
    return Status::damaged;
}

}  // namespace strata::analysis::trace
