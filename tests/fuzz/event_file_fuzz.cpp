// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the direct decoder of OTF2 event files (event_file.hpp),
// on any bytes.  It must decode what it can and report damage, never read
// out of bounds (AddressSanitizer) or loop; the input goes through a memfd.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/event_file.hpp"

namespace {

/// Accepts every event; counts them.
struct CountingVisitor {
    std::uint64_t events = 0;
    template <typename... Args>
    bool enter(Args...) { return ++events, true; }
    template <typename... Args>
    bool leave(Args...) { return ++events, true; }
    template <typename... Args>
    bool send(Args...) { return ++events, true; }
    template <typename... Args>
    bool isend(Args...) { return ++events, true; }
    template <typename... Args>
    bool recv(Args...) { return ++events, true; }
    template <typename... Args>
    bool irecv(Args...) { return ++events, true; }
    template <typename... Args>
    bool isend_complete(Args...) { return ++events, true; }
    template <typename... Args>
    bool irecv_request(Args...) { return ++events, true; }
    template <typename... Args>
    bool cancelled(Args...) { return ++events, true; }
    template <typename... Args>
    bool collective_end(Args...) { return ++events, true; }
    template <typename... Args>
    bool measurement_on_off(Args...) { return ++events, true; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    // The first byte picks the chunk size (small ones split the input into several chunks).
    const std::uint64_t chunk_size = std::uint64_t{64} << (data[0] % 16);
    const int fd = memfd_create("evt", 0);
    if (fd < 0) return 0;
    const std::uint8_t* bytes = data + 1;
    std::size_t left = size - 1;
    while (left > 0) {
        const ssize_t n = write(fd, bytes, left);
        if (n <= 0) break;
        bytes += n;
        left -= static_cast<std::size_t>(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    strata::analysis::trace::EventFile file;
    if (file.open(path, chunk_size)) {
        CountingVisitor visitor;
        (void)file.read(visitor, 1000, [] {}, data[0] & 1 ? 3u : UINT32_MAX);
    }
    close(fd);
    return 0;
}
