// SPDX-License-Identifier: BSD-3-Clause
// The communicator table and the job-wide ids of new communicators (see communicators.hpp).
#include "communicators.hpp"

#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "mpi_handles.hpp"

namespace strata::mpi {

namespace {

/// MPI_Comm -> CommInfo*, open addressing with linear probing.  Readers take no
/// lock: they probe, then check that the sequence number did not change (a
/// sequence lock), and retry if a writer was active.  Writers (creation and
/// freeing of communicators: rare) take a mutex.  Slots are atomics, so a
/// reader racing a writer reads stale values, never torn ones, and retries.
/// Arrays replaced by a larger one are kept (a reader may still be probing
/// one); they grow geometrically, so that costs at most the final size again.
class CommTable {
public:
    const CommInfo* find(std::uintptr_t key) const {
        for (int spins = 0;; ++spins) {
            const std::uint32_t before = sequence_.load(std::memory_order_acquire);
            if ((before & 1u) != 0) {
                if (spins > 64) sched_yield();  // a writer was descheduled (oversubscribed nodes)
                continue;
            }
            const CommInfo* found = probe(array_.load(std::memory_order_acquire), key);
            std::atomic_thread_fence(std::memory_order_acquire);
            if (sequence_.load(std::memory_order_relaxed) == before) return found;
        }
    }

    void insert(std::uintptr_t key, CommInfo* info) {
        std::lock_guard<std::mutex> lock(writer_);
        begin_write();
        if (Slot* slot = slot_of(key)) {
            delete slot->info.load(std::memory_order_relaxed);  // a handle MPI reused behind our back
            slot->info.store(info, std::memory_order_relaxed);
        } else {
            if ((live_ + tombstones_ + 1) * 2 > capacity()) rebuild();
            place(array_.load(std::memory_order_relaxed), key, info);
            ++live_;
        }
        end_write();
    }

    /// Removes the entry; returns it (the caller deletes it) or nullptr.
    CommInfo* erase(std::uintptr_t key) {
        std::lock_guard<std::mutex> lock(writer_);
        Slot* slot = slot_of(key);
        if (slot == nullptr) return nullptr;
        begin_write();
        CommInfo* info = slot->info.load(std::memory_order_relaxed);
        slot->key.store(kTombstone, std::memory_order_relaxed);
        slot->info.store(nullptr, std::memory_order_relaxed);
        --live_;
        ++tombstones_;
        end_write();
        return info;
    }

private:
    static constexpr std::uintptr_t kEmpty = 0, kTombstone = 1;  // no MPI_Comm is 0 or 1
    struct Slot {
        std::atomic<std::uintptr_t> key{kEmpty};
        std::atomic<CommInfo*> info{nullptr};
    };
    struct Array {
        explicit Array(std::size_t n) : mask(n - 1), slots(new Slot[n]) {}
        std::size_t mask;
        std::unique_ptr<Slot[]> slots;
    };

    static std::size_t hash(std::uintptr_t key) {
        std::uint64_t h = key;
        h ^= h >> 29;
        h *= 0x9e3779b97f4a7c15ull;
        return static_cast<std::size_t>(h ^ (h >> 32));
    }

    static const CommInfo* probe(const Array* a, std::uintptr_t key) {
        if (a == nullptr) return nullptr;
        std::size_t i = hash(key) & a->mask;
        for (std::size_t n = 0; n <= a->mask; ++n, i = (i + 1) & a->mask) {
            const std::uintptr_t k = a->slots[i].key.load(std::memory_order_relaxed);
            if (k == key) return a->slots[i].info.load(std::memory_order_relaxed);
            if (k == kEmpty) return nullptr;
        }
        return nullptr;
    }

    static void place(Array* a, std::uintptr_t key, CommInfo* info) {
        std::size_t i = hash(key) & a->mask;
        for (;; i = (i + 1) & a->mask) {
            const std::uintptr_t k = a->slots[i].key.load(std::memory_order_relaxed);
            if (k == kEmpty || k == kTombstone) break;
        }
        a->slots[i].info.store(info, std::memory_order_relaxed);
        a->slots[i].key.store(key, std::memory_order_relaxed);
    }

    std::size_t capacity() const {
        const Array* a = array_.load(std::memory_order_relaxed);
        return a == nullptr ? 0 : a->mask + 1;
    }

    Slot* slot_of(std::uintptr_t key) {
        Array* a = array_.load(std::memory_order_relaxed);
        if (a == nullptr) return nullptr;
        std::size_t i = hash(key) & a->mask;
        for (std::size_t n = 0; n <= a->mask; ++n, i = (i + 1) & a->mask) {
            const std::uintptr_t k = a->slots[i].key.load(std::memory_order_relaxed);
            if (k == key) return &a->slots[i];
            if (k == kEmpty) return nullptr;
        }
        return nullptr;
    }

    /// Drops the tombstones, growing when more than a quarter would be in use (inside a write).
    void rebuild() {
        std::vector<std::pair<std::uintptr_t, CommInfo*>> live;
        if (Array* a = array_.load(std::memory_order_relaxed)) {
            for (std::size_t i = 0; i <= a->mask; ++i) {
                const std::uintptr_t k = a->slots[i].key.load(std::memory_order_relaxed);
                if (k != kEmpty && k != kTombstone)
                    live.emplace_back(k, a->slots[i].info.load(std::memory_order_relaxed));
            }
        }
        std::size_t n = capacity() == 0 ? 64 : capacity();
        while ((live.size() + 1) * 4 > n) n *= 2;
        Array* target = array_.load(std::memory_order_relaxed);
        if (target == nullptr || n != capacity()) {
            arrays_.push_back(std::make_unique<Array>(n));
            target = arrays_.back().get();
        } else {
            for (std::size_t i = 0; i <= target->mask; ++i) {
                target->slots[i].key.store(kEmpty, std::memory_order_relaxed);
                target->slots[i].info.store(nullptr, std::memory_order_relaxed);
            }
        }
        for (const auto& [k, info] : live) place(target, k, info);
        array_.store(target, std::memory_order_relaxed);
        tombstones_ = 0;
    }

    void begin_write() {
        sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
    }
    void end_write() {
        sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    std::atomic<Array*> array_{nullptr};
    std::atomic<std::uint32_t> sequence_{0};
    std::mutex writer_;
    std::size_t live_ = 0, tombstones_ = 0;
    std::vector<std::unique_ptr<Array>> arrays_;
};

CommTable& table() {
    static CommTable* t = new CommTable();  // never destroyed: wrappers may run during exit
    return *t;
}

std::atomic<bool> g_ready{false};
int g_world_rank = 0;
MPI_Group g_world_group = MPI_GROUP_NULL;
/// The numbers this rank gives the communicators of which it is rank 0.
std::atomic<std::uint32_t> g_next_sequence{2};
std::atomic<events::CommunicatorHandle> g_unknown_handle{0};
std::atomic<std::uint64_t> g_unknown_uses{0};

/// MPI_COMM_WORLD ranks of the members of `comm`'s (local) group; false when
/// one is not in this job's MPI_COMM_WORLD (a communicator with spawned or
/// connected processes: no id can be agreed with them).
bool world_ranks(MPI_Comm comm, std::vector<std::int32_t>* out) {
    MPI_Group group = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &group);
    int n = 0;
    PMPI_Group_size(group, &n);
    std::vector<int> ranks(n), translated(n);
    for (int i = 0; i < n; ++i) ranks[i] = i;
    PMPI_Group_translate_ranks(group, n, ranks.data(), g_world_group, translated.data());
    PMPI_Group_free(&group);
    out->assign(translated.begin(), translated.end());
    for (int r : translated) {
        if (r == MPI_UNDEFINED) return false;
    }
    return true;
}

}  // namespace

namespace detail {

CommInfo world_info;

const CommInfo* find_communicator(MPI_Comm comm) {
    return table().find(handle_key(comm));
}

events::CommunicatorHandle unknown_communicator() {
    g_unknown_uses.fetch_add(1, std::memory_order_relaxed);
    events::CommunicatorHandle h = g_unknown_handle.load(std::memory_order_acquire);
    if (h != 0) return h;
    events::CommunicatorSpec spec;
    spec.name = "unknown communicator";
    spec.id_root = UINT32_MAX;
    spec.id_sequence = UINT32_MAX;
    h = events::define_communicator(spec);  // the same handle when two threads race here
    g_unknown_handle.store(h, std::memory_order_release);
    return h;
}

}  // namespace detail

const CommInfo& communicator_info(MPI_Comm comm, CommInfo& unknown) {
    if (comm == MPI_COMM_WORLD) return detail::world_info;
    if (const CommInfo* known = detail::find_communicator(comm)) return *known;
    CommInfo& info = unknown;
    info.handle = detail::unknown_communicator();
    int inter = 0;
    PMPI_Comm_rank(comm, &info.rank);
    PMPI_Comm_size(comm, &info.size);
    PMPI_Comm_test_inter(comm, &inter);
    info.inter = inter != 0;
    if (info.inter) PMPI_Comm_remote_size(comm, &info.remote_size);
    return info;
}

void define_world_and_self() {
    MeasurementScope scope;
    int size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_group(MPI_COMM_WORLD, &g_world_group);
    std::vector<std::int32_t> members(size);
    for (int i = 0; i < size; ++i) members[i] = i;
    events::CommunicatorSpec world;
    world.name = "MPI_COMM_WORLD";
    world.world_ranks = members.data();
    world.size = members.size();
    detail::world_info.handle = events::define_communicator(world);
    detail::world_info.rank = g_world_rank;
    detail::world_info.size = size;

    const std::int32_t me = g_world_rank;
    events::CommunicatorSpec self;
    self.name = "MPI_COMM_SELF";
    self.id_root = static_cast<std::uint32_t>(g_world_rank);
    self.id_sequence = 1;
    self.world_ranks = &me;
    self.size = 1;
    auto* info = new CommInfo();
    info->handle = events::define_communicator(self);
    info->size = 1;
    info->id_root = self.id_root;
    info->id_sequence = self.id_sequence;
    table().insert(handle_key(MPI_COMM_SELF), info);
    g_ready.store(true, std::memory_order_release);
}

void communicator_created(const char* function, MPI_Comm parent, MPI_Comm created) {
    if (!g_ready.load(std::memory_order_acquire)) return;
    MeasurementScope scope;
    int parent_inter = 0;
    if (parent != MPI_COMM_NULL) PMPI_Comm_test_inter(parent, &parent_inter);
    // A new intercommunicator from an intercommunicator: the members of the parent's
    // local group split Strata's intracommunicator of it, also those that got none.
    MPI_Comm local = MPI_COMM_NULL;
    std::vector<std::int32_t> members;
    const bool members_in_job = created != MPI_COMM_NULL && world_ranks(created, &members);
    if (parent_inter && std::strcmp(function, "MPI_Intercomm_merge") != 0) {
        const CommInfo* parent_info = detail::find_communicator(parent);
        if (parent_info == nullptr || parent_info->local == MPI_COMM_NULL)
            return;  // unknown parent: unknown child
        int rank = 0;
        if (created != MPI_COMM_NULL) PMPI_Comm_rank(created, &rank);
        PMPI_Comm_split(parent_info->local, members_in_job ? members[0] : MPI_UNDEFINED, rank, &local);
    }
    if (!members_in_job) return;
    int inter = 0;
    PMPI_Comm_test_inter(created, &inter);
    if (inter && local == MPI_COMM_NULL) {
        // Made from an intracommunicator of the local group (MPI_Intercomm_create's
        // local_comm, MPI_Comm_spawn's comm, ...), or from none (MPI_Comm_join).
        PMPI_Comm_dup(parent != MPI_COMM_NULL ? parent : MPI_COMM_SELF, &local);
    }
    auto* info = new CommInfo();
    info->inter = inter != 0;
    info->local = local;
    PMPI_Comm_rank(created, &info->rank);
    PMPI_Comm_size(created, &info->size);
    if (info->inter) PMPI_Comm_remote_size(created, &info->remote_size);
    // Rank 0 names the communicator and tells the others, as Score-P does.
    std::uint32_t id[2] = {0, 0};
    if (info->rank == 0) {
        id[0] = static_cast<std::uint32_t>(g_world_rank);
        id[1] = g_next_sequence.fetch_add(1, std::memory_order_relaxed);
    }
    if (info->size > 1) PMPI_Bcast(id, 2, MPI_UINT32_T, 0, info->inter ? local : created);
    events::CommunicatorSpec spec;
    spec.name = function;
    spec.id_root = id[0];
    spec.id_sequence = id[1];
    spec.world_ranks = members.data();
    spec.size = members.size();
    info->handle = events::define_communicator(spec);
    info->id_root = id[0];
    info->id_sequence = id[1];
    table().insert(handle_key(created), info);
}

/// Sequences of idup'd communicators: the high bit (the counters of rank 0s
/// never reach it), the parent's sequence and the idup's number on the parent.
constexpr std::uint32_t kIdupBit = 0x80000000u;
constexpr std::uint32_t kIdupNumberBits = 15;
constexpr std::uint32_t kIdupParentLimit = 1u << (31 - kIdupNumberBits);

void communicator_idup(MPI_Comm parent, MPI_Comm created) {
    if (!g_ready.load(std::memory_order_acquire) || created == MPI_COMM_NULL) return;
    MeasurementScope scope;
    const CommInfo* parent_info =
        parent == MPI_COMM_WORLD ? &detail::world_info : detail::find_communicator(parent);
    if (parent_info == nullptr || parent_info->inter) return;  // unknown parent (or inter): unknown child
    const std::uint32_t number = parent_info->idups++;
    // Beyond what the id can hold (an idup of an idup, more than 32768 idups of
    // one communicator), the communicator stays unknown, and its uses are counted.
    if (parent_info->id_sequence >= kIdupParentLimit || number >= (1u << kIdupNumberBits)) return;
    std::vector<std::int32_t> members;
    if (!world_ranks(parent, &members)) return;
    auto* info = new CommInfo();
    info->rank = parent_info->rank;
    info->size = parent_info->size;
    // Rank 0 of a duplicate is rank 0 of its parent, whose world rank is the parent's id_root.
    info->id_root = parent_info->id_root;
    info->id_sequence = kIdupBit | (parent_info->id_sequence << kIdupNumberBits) | number;
    events::CommunicatorSpec spec;
    spec.name = "MPI_Comm_idup";
    spec.id_root = info->id_root;
    spec.id_sequence = info->id_sequence;
    spec.world_ranks = members.data();
    spec.size = members.size();
    info->handle = events::define_communicator(spec);
    table().insert(handle_key(created), info);
}

void communicator_freed(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) return;
    CommInfo* info = table().erase(handle_key(comm));
    if (info == nullptr) return;
    if (info->local != MPI_COMM_NULL) {
        MeasurementScope scope;
        PMPI_Comm_free(&info->local);
    }
    delete info;
}

std::uint64_t unknown_communicator_uses() {
    return g_unknown_uses.load(std::memory_order_relaxed);
}

}  // namespace strata::mpi
