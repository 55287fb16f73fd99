// SPDX-License-Identifier: BSD-3-Clause
// Fixed-layout byte encoding of the records analysis ranks exchange.  All
// ranks of one strata-analyze run are the same binary on the same kind of
// machine, so trivially copyable values travel as their bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <type_traits>

namespace strata::analysis::trace {

/// Appends values to a byte string.
class ByteWriter {
public:
    template <typename T>
    void put(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    /// `count` values as one block, without a size (the reader knows it).
    template <typename T>
    void put_array(const T* values, std::size_t count) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes_.append(reinterpret_cast<const char*>(values), count * sizeof(T));
    }
    void put_string(const std::string& text) {
        put<std::uint64_t>(text.size());
        bytes_ += text;
    }
    std::string& bytes() { return bytes_; }

private:
    std::string bytes_;
};

/// The bytes of each writer, moved out: an exchange's boxes, one per analysis rank.
inline std::vector<std::string> boxes_of(std::vector<ByteWriter>& writers) {
    std::vector<std::string> boxes;
    boxes.reserve(writers.size());
    for (ByteWriter& w : writers) boxes.push_back(std::move(w.bytes()));
    return boxes;
}

/// Reads values back; a short buffer throws std::runtime_error (a bug, not bad input).
class ByteReader {
public:
    explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
    bool done() const { return bytes_.empty(); }
    template <typename T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        if (bytes_.size() < sizeof(T)) throw std::runtime_error("trace analysis: short exchange buffer");
        T value;
        std::memcpy(&value, bytes_.data(), sizeof value);
        bytes_.remove_prefix(sizeof value);
        return value;
    }
    /// The next `bytes` bytes, left in place (they live as long as the buffer).
    std::string_view get_block(std::size_t bytes) {
        if (bytes_.size() < bytes) throw std::runtime_error("trace analysis: short exchange buffer");
        const std::string_view block = bytes_.substr(0, bytes);
        bytes_.remove_prefix(bytes);
        return block;
    }
    std::string get_string() {
        const auto n = get<std::uint64_t>();
        if (bytes_.size() < n) throw std::runtime_error("trace analysis: short exchange buffer");
        std::string text(bytes_.substr(0, n));
        bytes_.remove_prefix(n);
        return text;
    }

private:
    std::string_view bytes_;
};

}  // namespace strata::analysis::trace
