// SPDX-License-Identifier: BSD-3-Clause
// The event API's thread events: forks and joins, team begins and ends (a
// team's threads continue the forking thread's call path), explicit tasks.
#include "strata/measurement/events.hpp"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "core/definitions.hpp"
#include "core/event_path.hpp"
#include "core/timer.hpp"
#include "strata/measurement/thread_sanitizer.hpp"

namespace strata::events {

using namespace event_path;

struct ForkSlab;

struct ForkContext {
    // Read by the team's threads.  The forking thread reuses a context for a
    // later fork and then writes only what differs, so that in a loop of the
    // same parallel region these lines stay shared in every cache.
    ForkSlab* slab = nullptr;         ///< where the context lives (set once)
    std::uint32_t slot = 0;           ///< its index there (set once)
    Paradigm model = Paradigm::openmp;
    std::uint32_t master = 0;         ///< location index of the forking thread
    std::uint32_t level = 1;          ///< nesting level of the team (1: outermost)
    std::vector<RegionHandle> path;   ///< call path open there at the fork
    const void* user[2] = {};         ///< the adapter's (thread_fork_user_data)
    /// (team size << 32) | team handle of the last team_begin: the threads of
    /// one fork look the team up once instead of taking the definitions lock.
    std::atomic<std::uint64_t> team{0};
    /// When the team joined: written by the forking thread at the join, read
    /// once by each other thread of the team.  Not cleared when the context is
    /// reused (that write would move the line to the forking thread once more
    /// per fork): a time before a thread's team begin is the previous team's,
    /// so the team has not joined yet (joined_after()).
    alignas(64) std::atomic<Ticks> join_time{0};
};

/// A forking thread's fork contexts, kSize at a time.  A context is reused
/// once every other thread of its last team has released it.  The releases
/// are counted on one line that only those threads write, and the forking
/// thread looks at it only when it has no context known to be free (each look
/// finds most of them free): a parallel region costs no cache-line transfer
/// for the reuse, only the join time's.
struct ForkSlab {
    static constexpr std::uint32_t kSize = 16;  // at most 32 (bit masks)
    static constexpr std::uint32_t kAll = (1u << kSize) - 1;
    ForkContext forks[kSize];
    /// Per context, the references released in all, by the team's other threads.
    alignas(64) std::atomic<std::uint32_t> released[kSize] = {};
    // The forking thread's own.
    alignas(64) Location* owner = nullptr;
    std::uint32_t handed_out[kSize] = {};  ///< references handed out in all (added at each join)
    std::int32_t workers[kSize] = {};      ///< the current team's other threads; -1: unknown
    std::uint32_t in_use = 0;              ///< bit i: forks[i] forked and not joined
    std::uint32_t dead = 0;                ///< bit i: never reused (its team size was unknown)
    std::uint32_t known_free = 0;          ///< bit i: forks[i] was free at the last look
    ForkSlab* next = nullptr;

    /// The contexts free now (one look at `released`).
    std::uint32_t free_now() const {
        std::uint32_t mask = 0;
        for (std::uint32_t i = 0; i < kSize; ++i) {
            if (((in_use | dead) >> i) & 1u) continue;
            if (released[i].load(std::memory_order_acquire) == handed_out[i]) mask |= 1u << i;
        }
        return mask;
    }
};

namespace {
/// A thread other than the forking one is done with `fork`.
void release(ForkContext* fork) {
    if (fork != nullptr) fork->slab->released[fork->slot].fetch_add(1, std::memory_order_release);
}

/// A context for a new fork of `loc` (nullptr: out of memory).
ForkContext* reuse_or_make(Location* loc) {
    ForkSlab** link = &loc->fork_slabs;
    for (ForkSlab* slab = *link; slab != nullptr; link = &slab->next, slab = slab->next) {
        if (slab->known_free == 0) slab->known_free = slab->free_now();
        if (slab->known_free == 0) continue;
        const auto i = static_cast<std::uint32_t>(__builtin_ctz(slab->known_free));
        slab->known_free &= ~(1u << i);
        slab->in_use |= 1u << i;
        slab->workers[i] = -1;
        return &slab->forks[i];
    }
    auto* slab = new (std::nothrow) ForkSlab;
    if (slab == nullptr) return nullptr;
    slab->owner = loc;
    for (std::uint32_t i = 0; i < ForkSlab::kSize; ++i) {
        slab->forks[i].slab = slab;
        slab->forks[i].slot = i;
    }
    *link = slab;
    slab->known_free = ForkSlab::kAll & ~1u;
    slab->in_use = 1u;
    slab->workers[0] = -1;
    return &slab->forks[0];
}

/// The forking thread has joined `fork`: its team's other threads hold the
/// references it hands out now (unknown team size: never reused).
void note_join(ForkContext* fork) {
    ForkSlab& slab = *fork->slab;
    const std::uint32_t i = fork->slot;
    slab.in_use &= ~(1u << i);
    if (slab.workers[i] < 0) {
        slab.dead |= 1u << i;
    } else {
        slab.handed_out[i] += static_cast<std::uint32_t>(slab.workers[i]);
    }
}

/// The join time of the team `membership` began in `fork`; 0: not joined yet.
inline Ticks joined_after(const ForkContext& fork, const Location::TeamMembership& membership) {
    const Ticks joined = fork.join_time.load(std::memory_order_acquire);
    return joined >= membership.begun ? joined : 0;
}

/// Writes `value` to `field` only when it differs (see ForkContext).
template <typename T>
inline void set_if_changed(T& field, const T& value) {
    if (field != value) field = value;
}
}  // namespace

namespace detail {
void free_fork_contexts(Location& loc) {
    while (loc.fork_slabs != nullptr) delete std::exchange(loc.fork_slabs, loc.fork_slabs->next);
}
}  // namespace detail

namespace {
inline void thread_dispatch(const EventTable* table, Location& loc, Ticks time, const substrate::ThreadEvent& e) {
    if (STRATA_UNLIKELY(time < loc.measured_until)) time = loc.measured_until;  // see dispatch()
    for (auto* f = table->thread_event; *f; ++f) (*f)(loc, time, e);
}

/// The team of `fork` with `size` threads: from the fork (the threads of one
/// fork look it up once), else from the thread's own cache (the same team is
/// forked again and again), else from the definitions (a lock).
std::uint32_t team_of(Location& loc, ForkContext& fork, std::uint32_t size) {
    const std::uint64_t cached = fork.team.load(std::memory_order_relaxed);
    if ((cached >> 32) == size && (cached & 0xffffffffu) != 0) return static_cast<std::uint32_t>(cached);
    const std::uint64_t key = (static_cast<std::uint64_t>(fork.master) << 32) | (static_cast<std::uint64_t>(size) << 16) |
                              (fork.level & 0xffffu);
    std::uint32_t team = 0;
    if (loc.team_cache_key == key && loc.team_cache_handle != 0) {
        team = loc.team_cache_handle;
    } else {
        team = define_or_degrade("thread team",
                                 [&] { return definitions().define_thread_team(fork.master, size, fork.level); });
        loc.team_cache_key = key;
        loc.team_cache_handle = team;
    }
    fork.team.store((static_cast<std::uint64_t>(size) << 32) | team, std::memory_order_relaxed);
    return team;
}

/// Closes regions a thread left open inside its team (the runtime ended the
/// team under them), so that every substrate stays well nested.
void close_regions_above(const EventTable* table, Location* loc, Ticks time, std::uint32_t depth, bool warn) {
    if (loc->depth <= depth) return;
    if (warn) runtime::warn_once("team-end-open-regions",
                       "strata: warning: a thread ended its work in a thread team with regions still open "
                       "(innermost: '" + definitions().region_name(loc->stack[loc->depth - 1] & ~kUndelivered) +
                           "'); they are closed there (reported once)");
    while (loc->depth > depth) {
        const RegionHandle top = loc->stack[--loc->depth];
        if ((top & kUndelivered) == 0 && table != nullptr) deliver_exit(table, loc, time, top);
    }
}

/// Ends the innermost team of `loc` at `time`: what is still open in it first
/// (`warn`: say so; at finalisation that is expected).
void end_team(const EventTable* table, Location* loc, Ticks time, bool warn) {
    const Location::TeamMembership membership = loc->teams.back();
    loc->teams.pop_back();
    close_regions_above(table, loc, time, membership.depth, warn);
    const auto inherited = static_cast<std::uint32_t>(loc->inherited.size()) - membership.inherited_size;
    loc->inherited.resize(membership.inherited_size);
    release(membership.fork);  // unless the join time was seen (thread_team_joined)
    if (membership.team == 0 || table == nullptr || (table->thread_events_inherited_only && inherited == 0)) return;
    substrate::ThreadEvent e;
    e.kind = substrate::ThreadEvent::team_end;
    e.team = membership.team;
    e.inherited_depth = inherited;
    thread_dispatch(table, *loc, time, e);
}
}  // namespace

ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads) {
    return thread_fork(model, requested_threads, nullptr, nullptr);
}

const void* const* thread_fork_user_data(const ForkContext* fork) { return fork->user; }

ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads, const void* user0, const void* user1) {
    return thread_fork_at(timer::now(), model, requested_threads, user0, user1);
}

ForkContext* thread_fork_at(Ticks time, Paradigm model, std::uint32_t requested_threads, const void* user0,
                            const void* user1) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table != &runtime::detail::on_table) return nullptr;  // inactive, or recording off
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) return nullptr;
    loc->busy = true;  // the context may allocate
    ForkContext* fork = reuse_or_make(loc);
    if (fork != nullptr) {
        const auto level = static_cast<std::uint32_t>(loc->teams.size()) + 1;
        set_if_changed(fork->model, model);
        set_if_changed(fork->user[0], user0);
        set_if_changed(fork->user[1], user1);
        set_if_changed(fork->master, loc->index);
        if (fork->level != level) {
            fork->level = level;
            fork->team.store(0, std::memory_order_relaxed);  // another team
        }
        // The call path, compared before it is written (usually the same as last time).
        std::vector<RegionHandle>& path = fork->path;
        std::size_t n = 0;
        bool same = true;
        auto add = [&](RegionHandle r) {
            if (same && n < path.size() && path[n] == r) {
                ++n;
                return;
            }
            if (same) {
                path.resize(n);
                same = false;
            }
            path.push_back(r);
            ++n;
        };
        for (const RegionHandle r : loc->inherited) add(r);
        for (std::uint32_t i = 0; i < loc->depth; ++i) {
            if ((loc->stack[i] & kUndelivered) == 0) add(loc->stack[i]);
        }
        if (same && n != path.size()) path.resize(n);
    }
    loc->busy = false;
    runtime::busy_ended();
    if (fork == nullptr) return nullptr;
    if (!table->thread_events_inherited_only) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::fork;
        e.model = model;
        e.requested_threads = requested_threads;
        thread_dispatch(table, *loc, time, e);
    }
    strata_tsan_release(fork);  // the runtime hands it to the team's threads
    return fork;
}

void thread_join(ForkContext* fork) {
    if (fork != nullptr) thread_join_at(timer::now(), fork);
}

void thread_join_at(Ticks time, ForkContext* fork) {
    const EventScope scope;
    if (fork == nullptr) return;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = location::detail::current;
    fork->join_time.store(time, std::memory_order_release);
    if (table != nullptr && !table->thread_events_inherited_only && loc != nullptr && !loc->busy) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::join;
        e.model = fork->model;
        thread_dispatch(table, *loc, time, e);
    }
    note_join(fork);
}

void thread_team_begin(ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size) {
    thread_team_begin_at(timer::now(), fork, thread_number, team_size);
}

void thread_team_begin_at(Ticks time, ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size) {
    thread_team_begin_enter_at(time, fork, thread_number, team_size, 0);
}

void thread_team_begin_enter_at(Ticks time, ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size,
                                RegionHandle region) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    Location* loc = table != nullptr ? location::current() : nullptr;
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy)) {
        // Not a member: this thread will not hold the context.
        if (fork != nullptr && thread_number != 0) release(fork);
        return;
    }
    if (fork != nullptr) strata_tsan_acquire(fork);
    const std::uint32_t team = fork != nullptr ? team_of(*loc, *fork, team_size) : 0;
    loc->busy = true;  // the membership lists and the definitions may allocate
    if (team != 0 && loc->last_noted_team != team) {
        definitions().note_team_member(team, loc->index, thread_number);
        loc->last_noted_team = team;
    }
    const auto inherited_before = static_cast<std::uint32_t>(loc->inherited.size());
    // The other threads hold the context until their part ends (see release()); the
    // forking thread says at the join how many they are.
    ForkContext* reference = nullptr;
    if (fork != nullptr) {
        if (thread_number != 0) {
            reference = fork;
        } else if (fork->slab->owner == loc) {
            fork->slab->workers[fork->slot] = team_size > 0 ? static_cast<std::int32_t>(team_size) - 1 : 0;
        }
    }
    loc->teams.push_back(
        Location::TeamMembership{team, inherited_before, loc->depth, reference, 0, time, thread_number});
    // Thread 0 is the forking thread: its own call path is already open.
    const bool inherits = team != 0 && thread_number != 0 && !fork->path.empty();
    // Element by element: a path is a few regions, and the range insert's
    // general case (memmove) costs more than the copy.
    if (inherits) {
        for (const RegionHandle r : fork->path) loc->inherited.push_back(r);
    }
    loc->busy = false;
    runtime::busy_ended();
    if (team != 0 && !(table->thread_events_inherited_only && !inherits)) {
        substrate::ThreadEvent e;
        e.kind = substrate::ThreadEvent::team_begin;
        e.model = fork->model;
        e.team = team;
        e.thread_number = thread_number;
        if (inherits) {
            e.inherited = fork->path.data();
            e.inherited_depth = static_cast<std::uint32_t>(fork->path.size());
        }
        thread_dispatch(table, *loc, time, e);
    }
    if (region != 0 && !loc->busy) enter_on(table, loc, time, region);
}

void thread_team_end() { thread_team_end_at(timer::now()); }

void thread_team_end_at(Ticks time) { thread_team_end_closing_at(time, 0); }

void thread_team_end_closing_at(Ticks time, std::uint32_t open_regions) {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->busy || loc->teams.empty()) return;
    // More open than the caller knows of: regions the program left open in the team.
    const bool unexpected = loc->depth > loc->teams.back().depth + open_regions;
    end_team(active_table.load(std::memory_order_acquire), loc, time, unexpected);
}

Ticks thread_team_joined() {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->teams.empty()) return 0;
    Location::TeamMembership& membership = loc->teams.back();
    if (membership.joined != 0 || membership.fork == nullptr) return membership.joined;
    const Ticks joined = joined_after(*membership.fork, membership);
    if (joined != 0) {
        // Nothing else of the context is needed: release it now for its next fork.
        membership.joined = joined;
        release(std::exchange(membership.fork, nullptr));
    }
    return joined;
}

namespace {
/// A task event in the calling thread's innermost team (none: not recorded).
bool task_event(substrate::ThreadEvent::Kind kind, TaskId task) {
    const EventScope scope;
    const EventTable* table = active_table.load(std::memory_order_acquire);
    if (table != &runtime::detail::on_table || table->thread_events_inherited_only || task.generation == 0) return false;
    Location* loc = location::current();
    if (STRATA_UNLIKELY(loc == nullptr || loc->busy) || loc->teams.empty() || loc->teams.back().team == 0) return false;
    substrate::ThreadEvent e;
    e.kind = kind;
    e.team = loc->teams.back().team;
    e.task_creator = task.creator;
    e.task_generation = task.generation;
    thread_dispatch(table, *loc, timer::now(), e);
    return true;
}
}  // namespace

TaskId task_create() {
    const EventScope scope;
    Location* loc = location::detail::current;
    if (loc == nullptr || loc->teams.empty()) return TaskId{};
    const TaskId task{loc->teams.back().thread_number, loc->tasks_created + 1};
    if (!task_event(substrate::ThreadEvent::task_create, task)) return TaskId{};
    ++loc->tasks_created;
    return task;
}

void task_switch(TaskId task) { task_event(substrate::ThreadEvent::task_switch, task); }

void task_complete(TaskId task) { task_event(substrate::ThreadEvent::task_complete, task); }

namespace detail {
void close_open_teams(const EventTable* table, Location& loc, Ticks end) {
    while (!loc.teams.empty()) {
        // A team that joined ended for this thread at the join at the latest.
        const Location::TeamMembership& membership = loc.teams.back();
        const Ticks joined = membership.fork != nullptr ? joined_after(*membership.fork, membership) : membership.joined;
        end_team(table, &loc, joined != 0 && joined < end ? joined : end, false);
    }
}
}  // namespace detail

}  // namespace strata::events
