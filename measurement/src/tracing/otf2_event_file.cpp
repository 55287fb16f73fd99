// SPDX-License-Identifier: BSD-3-Clause
#include "tracing/otf2_event_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace strata::tracing {

namespace {

using namespace otf2_encoding;
using namespace otf2_format;  // the buffer's records: end_of_chunk, chunk_header, ...
constexpr std::size_t kHeaderSize = 18;
/// What must stay free at the end of a chunk: its end-of-chunk byte, or the
/// end of file and of buffer after the last record.
constexpr std::size_t kChunkReserve = 2;
/// The scratch buffer is written out when this much is encoded: few, large writes.
constexpr std::size_t kWriteSize = 1u << 20;
constexpr std::uint8_t kTypeUint64 = 4;  // OTF2_TYPE_UINT64

/// A record's length byte (or 255 and 8 bytes) before `payload` bytes that
/// were encoded at `payload_at`, moved into place when the long form is needed.
inline std::uint8_t* put_length(std::uint8_t* length_at, std::uint8_t* end) {
    const auto size = static_cast<std::size_t>(end - (length_at + 1));
    if (size < 255) {
        *length_at = static_cast<std::uint8_t>(size);
        return end;
    }
    std::memmove(length_at + 9, length_at + 1, size);
    length_at[0] = 0xff;
    put_u64(length_at + 1, size);
    return end + 8;
}

}  // namespace

Otf2EventFile::Otf2EventFile(std::string path, std::uint64_t chunk_size)
    : path_(std::move(path)), chunk_size_(chunk_size) {}

void Otf2EventFile::update_limit() {
    if (buffer_ == nullptr || !in_chunk_ || error_) {
        limit_ = 0;
        return;
    }
    const std::uint64_t chunk_room = chunk_start_ + chunk_size_ - kChunkReserve - file_offset_;
    limit_ = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_room, kWriteSize + 2 * kMaxRecord));
}

std::uint8_t* Otf2EventFile::begin_record_slow(Ticks time, std::size_t size) {
    if (error_) return nullptr;
    if (buffer_ == nullptr) {
        buffer_.reset(new (std::nothrow) std::uint8_t[kWriteSize + 4 * kMaxRecord]);
        if (buffer_ == nullptr) {
            error_ = "no memory for the event file's buffer (" + path_ + ")";
            return nullptr;
        }
    }
    if (!in_chunk_) start_chunk();
    const std::uint64_t in_chunk = file_offset_ + used_ - chunk_start_;
    if (in_chunk + kTimestampSize + size + kChunkReserve > chunk_size_) {
        end_chunk();
        start_chunk();
    }
    if (used_ + kTimestampSize + size + 2 * kMaxRecord > kWriteSize + 4 * kMaxRecord && !write_scratch()) {
        return nullptr;
    }
    update_limit();
    std::uint8_t* p = buffer_.get() + used_;
    if (!chunk_has_time_ || time != chunk_time_) {
        *p++ = kTimestamp;
        p = put_u64(p, time);
        chunk_time_ = time;
        chunk_has_time_ = true;
    }
    return p;
}

void Otf2EventFile::start_chunk() {
    chunk_start_ = file_offset_ + used_;
    std::uint8_t* p = buffer_.get() + used_;
    *p++ = chunk_header;
    *p++ = little_endian;
    p = put_u64(p, events_ + 1);  // the number of the chunk's first event
    p = put_u64(p, events_);      // and of its last one (patched as events follow)
    used_ += kHeaderSize;
    in_chunk_ = true;
    chunk_has_time_ = false;
}

void Otf2EventFile::end_chunk() {
    patch_last_event();
    // The end-of-chunk byte and the padding to the chunk's size: zeros.
    const std::uint64_t end = chunk_start_ + chunk_size_;
    const std::size_t padding = static_cast<std::size_t>(end - (file_offset_ + used_));
    std::memset(buffer_.get() + used_, end_of_chunk, padding);
    used_ += padding;
    in_chunk_ = false;
    limit_ = 0;
}

void Otf2EventFile::patch_last_event() {
    if (!in_chunk_) return;
    const std::uint64_t at = chunk_start_ + 10;
    if (at >= file_offset_) {
        put_u64(buffer_.get() + (at - file_offset_), events_);
        return;
    }
    // The header went out with an earlier write.
    std::uint8_t bytes[8];
    put_u64(bytes, events_);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::pwrite(fd, bytes, sizeof bytes, static_cast<off_t>(at)) != static_cast<ssize_t>(sizeof bytes)) {
        if (!error_) error_ = std::string(std::strerror(errno)) + " (" + path_ + ")";
    }
    if (fd >= 0) ::close(fd);
}

bool Otf2EventFile::write_scratch() {
    if (error_) return false;
    if (used_ == 0 && created_) return true;
    // The first write makes the file (a leftover of the same name is replaced).
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (created_ ? 0 : O_TRUNC), 0644);
    if (fd < 0) {
        error_ = std::string(std::strerror(errno)) + " (" + path_ + ")";
        return false;
    }
    created_ = true;
    std::size_t done = 0;
    while (done < used_) {
        const ssize_t n = ::pwrite(fd, buffer_.get() + done, used_ - done, static_cast<off_t>(file_offset_ + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            error_ = std::string(n < 0 ? std::strerror(errno) : "nothing written") + " (" + path_ + ")";
            ::close(fd);
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && !error_) {
        error_ = std::string(std::strerror(errno)) + " (" + path_ + ")";
        return false;
    }
    file_offset_ += used_;
    used_ = 0;
    limit_ = 0;  // the room is counted from the new file offset
    return true;
}

void Otf2EventFile::enter_with_attributes(Ticks time, std::uint32_t region, const Otf2Attribute* attributes,
                                          std::uint32_t count) {
    if (count > 16) count = 16;
    std::uint8_t* p = begin_record(time, 10 + 5 + count * 15 + 1 + 5);  // 10: a long length
    if (p == nullptr) return;
    if (count > 0) {
        *p++ = attribute_list;
        std::uint8_t* length = p++;
        p = put_compressed(p, count, false);
        for (std::uint32_t k = 0; k < count; ++k) {
            p = put_compressed(p, attributes[k].id, false);
            *p++ = kTypeUint64;
            p = put_compressed(p, attributes[k].value, true);
        }
        p = put_length(length, p);
    }
    *p++ = otf2_kind::enter;
    end_record(put_compressed(p, region, false));
}

void Otf2EventFile::record(Ticks time, std::uint8_t kind, const char* layout, const std::uint64_t* fields) {
    const std::size_t n = std::strlen(layout);
    std::uint8_t* p = begin_record(time, 2 + 9 * n);
    if (p == nullptr) return;
    *p++ = kind;
    std::uint8_t* length = p++;
    for (std::size_t k = 0; k < n; ++k) {
        switch (layout[k]) {
            case 'b': *p++ = static_cast<std::uint8_t>(fields[k]); break;
            case 'w': p = put_compressed(p, fields[k], true); break;         // uint64
            case 'i': p = put_compressed(p, fields[k], true, true); break;   // int64, as its bits
            default: p = put_compressed(p, fields[k], false); break;  // 'c': uint32
        }
    }
    end_record(put_length(length, p));
}

void Otf2EventFile::metric(Ticks time, std::uint32_t metric_class, std::uint32_t count,
                           const std::uint64_t* values) {
    if (count > 255) count = 255;
    std::uint8_t* p = begin_record(time, 2 + 8 + 5 + 1 + count * 10);
    if (p == nullptr) return;
    *p++ = otf2_kind::metric;
    std::uint8_t* length = p++;
    p = put_compressed(p, metric_class, false);
    *p++ = static_cast<std::uint8_t>(count);
    for (std::uint32_t k = 0; k < count; ++k) {  // (type, value) pairs
        *p++ = kTypeUint64;
        p = put_compressed(p, values[k], true);
    }
    end_record(put_length(length, p));
}

Error Otf2EventFile::move_to(const std::string& path) {
    if (created_ && ::rename(path_.c_str(), path.c_str()) != 0)
        return std::string("cannot move ") + path_ + " to " + path + ": " + std::strerror(errno);
    path_ = path;
    return {};
}

Error Otf2EventFile::write_out() {
    if (!error_ && buffer_ == nullptr && !created_) {
        // A location without events still has its file: a chunk with no events.
        buffer_.reset(new (std::nothrow) std::uint8_t[kWriteSize + 4 * kMaxRecord]);
        if (buffer_ == nullptr) error_ = "no memory for the event file's buffer (" + path_ + ")";
    }
    if (!error_ && !in_chunk_ && buffer_ != nullptr) start_chunk();
    patch_last_event();
    write_scratch();
    buffer_.reset();  // nothing is held between conversions
    limit_ = 0;
    return error_;
}

Error Otf2EventFile::finish() {
    if (!error_ && buffer_ == nullptr) {
        buffer_.reset(new (std::nothrow) std::uint8_t[kWriteSize + 4 * kMaxRecord]);
        if (buffer_ == nullptr) error_ = "no memory for the event file's buffer (" + path_ + ")";
    }
    if (error_) return error_;
    if (!in_chunk_) start_chunk();
    patch_last_event();
    buffer_[used_++] = end_of_file;
    buffer_[used_++] = end_of_buffer;
    in_chunk_ = false;
    write_scratch();
    buffer_.reset();
    limit_ = 0;
    return error_;
}

}  // namespace strata::tracing
