// SPDX-License-Identifier: BSD-3-Clause
// What the completion of a request needs to know: MPI_Request -> RequestEntry
// (and MPI_Message -> communicator for MPI_Mprobe / MPI_Mrecv).
//
//   MPI_Isend   insert {send, comm, peer, tag, bytes, id}      MPI_Wait*  take (remove) the entries of
//   MPI_Irecv   insert {recv, comm, id}                         MPI_Test*  the requests before PMPI, put
//   MPI_*_init  insert {persistent, inactive}                              back those still open after it
//   MPI_Start   mark active, new id                            MPI_Request_free  take
//
// Taking the entries before the PMPI call matters with MPI_THREAD_MULTIPLE:
// once PMPI_Wait has freed a request, another thread's MPI_Isend may get the
// same handle and insert it while this thread has not yet looked its own up.
//
// Requests may be completed on another thread than the one that made them, so
// the table is shared: the key picks one of 64 stripes, each a mutex and a
// small vector whose capacity is reserved up front (no allocation per call
// unless a stripe holds more than 16 open requests).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "strata/measurement/events.hpp"

namespace strata::mpi {

/// An open point-to-point request.
struct RequestEntry {
    enum Kind : std::uint8_t { send, recv };
    enum Flags : std::uint8_t {
        persistent = 1u << 0,
        active = 1u << 1,            ///< started and not completed (always set for non-persistent ones)
        cancel_requested = 1u << 2,  ///< MPI_Cancel was called: ask MPI_Test_cancelled at completion
    };
    std::uintptr_t key = 0;
    std::uint64_t id = 0;     ///< request id of the events (new at each start of a persistent request)
    std::uint64_t bytes = 0;  ///< sends
    events::CommunicatorHandle comm = 0;
    std::int32_t peer = 0;  ///< sends: destination
    std::int32_t tag = 0;   ///< sends
    Kind kind = send;
    std::uint8_t flags = 0;
};

/// A matched message (MPI_Mprobe / MPI_Improbe) until it is received.
struct MessageEntry {
    std::uintptr_t key = 0;
    events::CommunicatorHandle comm = 0;
};

/// Entries keyed by a handle, shared by all threads (see the top of this file).
template <typename Entry>
class StripedTable {
public:
    StripedTable() {
        for (Stripe& s : stripes_) s.entries.reserve(16);
    }
    StripedTable(const StripedTable&) = delete;
    StripedTable& operator=(const StripedTable&) = delete;

    /// No entries at all: completion calls skip their look-ups (one relaxed load).
    bool empty() const { return size_.load(std::memory_order_relaxed) == 0; }

    void insert(const Entry& e) {
        Stripe& s = stripe(e.key);
        std::lock_guard<std::mutex> lock(s.mutex);
        for (Entry& old : s.entries) {
            if (old.key == e.key) {  // a handle MPI freed without our knowledge, reused
                old = e;
                return;
            }
        }
        s.entries.push_back(e);
        size_.fetch_add(1, std::memory_order_relaxed);
    }

    /// Removes the entry of `key` into *out; false when there is none.
    bool take(std::uintptr_t key, Entry* out) {
        if (empty()) return false;
        Stripe& s = stripe(key);
        std::lock_guard<std::mutex> lock(s.mutex);
        for (std::size_t i = 0; i < s.entries.size(); ++i) {
            if (s.entries[i].key == key) {
                *out = s.entries[i];
                s.entries[i] = s.entries.back();
                s.entries.pop_back();
                size_.fetch_sub(1, std::memory_order_relaxed);
                return true;
            }
        }
        return false;
    }

    /// Calls fn(entry&) on the entry of `key` under its stripe's lock; false when there is none.
    template <typename Fn>
    bool update(std::uintptr_t key, Fn&& fn) {
        if (empty()) return false;
        Stripe& s = stripe(key);
        std::lock_guard<std::mutex> lock(s.mutex);
        for (Entry& e : s.entries) {
            if (e.key == key) {
                fn(e);
                return true;
            }
        }
        return false;
    }

private:
    static constexpr std::size_t kStripes = 64;
    struct alignas(64) Stripe {
        std::mutex mutex;
        std::vector<Entry> entries;
    };
    Stripe& stripe(std::uintptr_t key) {
        std::uint64_t h = key * 0x9e3779b97f4a7c15ull;
        return stripes_[(h >> 58) & (kStripes - 1)];
    }

    Stripe stripes_[kStripes];
    std::atomic<std::size_t> size_{0};
};

/// The requests and messages of the process (created on first use, never destroyed).
StripedTable<RequestEntry>& requests();
StripedTable<MessageEntry>& messages();

/// A new request id (unique in the process, never 0).
std::uint64_t next_request_id();

}  // namespace strata::mpi
