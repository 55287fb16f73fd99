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
// A handle may stand for several open requests: Open MPI returns one shared,
// already completed request object (ompi_request_empty) for every MPI_Isend it
// could finish at once.  So a key may have several entries; they complete
// oldest first, those the calling thread made before others' (so that with
// MPI_THREAD_MULTIPLE a completion is recorded on the thread of its MPI_Isend).
// (A request freed where Strata cannot see it, e.g. by a Fortran
// entry point that is not wrapped, leaves its entry behind; a later request
// with the same handle then completes the stale entry first.)
//
// Requests may be completed on another thread than the one that made them, so
// the table is shared: the key picks one of 64 stripes, each a spin lock and a
// small vector whose capacity is reserved up front (no allocation per call
// unless a stripe holds more than 16 open requests).  The lock is held for a
// few dozen instructions; a thread that finds it taken spins briefly, then
// yields (the holder may have been descheduled on an oversubscribed node).
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "strata/measurement/events.hpp"

namespace strata::mpi {

/// An open point-to-point request.
struct RequestEntry {
    enum Kind : std::uint8_t { send, recv, collective };
    enum Flags : std::uint8_t {
        persistent = 1u << 0,
        active = 1u << 1,            ///< started and not completed (always set for non-persistent ones)
        cancel_requested = 1u << 2,  ///< MPI_Cancel was called: ask MPI_Test_cancelled at completion
    };
    std::uintptr_t key = 0;
    std::uint32_t thread = 0;  ///< this_thread() of the thread that made it
    std::uint64_t id = 0;      ///< request id of the events (new at each start of a persistent request)
    std::uint64_t bytes = 0;   ///< sends; collectives: bytes sent
    std::uint64_t bytes_received = 0;  ///< collectives
    events::CommunicatorHandle comm = 0;
    std::int32_t peer = 0;  ///< sends: destination; collectives: root (-1: none)
    std::int32_t tag = 0;   ///< sends; collectives: the events::CollectiveOp
    Kind kind = send;
    std::uint8_t flags = 0;
};

/// A matched message (MPI_Mprobe / MPI_Improbe) until it is received.
struct MessageEntry {
    std::uintptr_t key = 0;
    std::uint32_t thread = 0;
    events::CommunicatorHandle comm = 0;
};

/// A small number for the calling thread (1, 2, ... in the order threads ask).
std::uint32_t this_thread();

/// A test-and-test-and-set lock for the table's short critical sections
/// (uncontended: one atomic exchange and one store, cheaper than a mutex).
class SpinLock {
public:
    void lock() {
        // Acquire: the stripe's entries written by the previous holder are visible.
        for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
            while (locked_.load(std::memory_order_relaxed)) {
                if (++spins > 100) {
                    sched_yield();
                    spins = 0;
                }
            }
        }
    }
    void unlock() { locked_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> locked_{false};
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

    /// Adds an entry (a new one, with `thread` 0, gets the caller's); a key may have several.
    void insert(Entry e) {
        if (e.thread == 0) e.thread = this_thread();
        Stripe& s = stripe(e.key);
        std::lock_guard<SpinLock> lock(s.lock);
        s.entries.push_back(e);
        size_.fetch_add(1, std::memory_order_relaxed);
    }

    /// Removes the oldest entry of `key` the calling thread made, else the oldest
    /// of `key`, into *out; false when there is none.
    bool take(std::uintptr_t key, Entry* out) {
        if (empty()) return false;
        const std::uint32_t me = this_thread();
        Stripe& s = stripe(key);
        std::lock_guard<SpinLock> lock(s.lock);
        auto found = s.entries.end();
        for (auto it = s.entries.begin(); it != s.entries.end(); ++it) {
            if (it->key != key) continue;
            if (found == s.entries.end()) found = it;
            if (it->thread == me) {
                found = it;
                break;
            }
        }
        if (found == s.entries.end()) return false;
        *out = *found;
        s.entries.erase(found);  // keeps the order: the oldest entry of a key comes first
        size_.fetch_sub(1, std::memory_order_relaxed);
        return true;
    }

    /// Calls fn(entry&) on the oldest entry of `key` under its stripe's lock; false when there is none.
    template <typename Fn>
    bool update(std::uintptr_t key, Fn&& fn) {
        if (empty()) return false;
        Stripe& s = stripe(key);
        std::lock_guard<SpinLock> lock(s.lock);
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
        SpinLock lock;
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
