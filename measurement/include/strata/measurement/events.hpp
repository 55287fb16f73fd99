// SPDX-License-Identifier: BSD-3-Clause
// The event API: the only way adapters talk to the measurement core.
//
//   adapter (user macro, compiler hook, MPI wrapper, OMPT callback, CUPTI buffer)
//      -> strata::events::enter / exit / parameter_* / ...   (this header)
//      -> per-location state (thread-local, no lock after the first event)
//      -> substrates (profiling, tracing), through per-event callback tables
//
// Definitions (regions, parameters) are created once, outside the hot path,
// and events carry their small handles.  All functions are safe to call from
// any thread, before initialisation (they do nothing) and after finalisation
// (they do nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "strata/measurement/types.hpp"

namespace strata::events {

/// What a region is; the name is copied.
struct RegionSpec {
    std::string_view name;
    std::string_view file;    ///< "" when unknown
    std::uint32_t line = 0;   ///< 0 when unknown
    Paradigm paradigm = Paradigm::user;
    RegionRole role = RegionRole::function;
    std::uint32_t flags = region_flag_none;
};

/// Defines a region, or returns the existing handle of a region with the same
/// paradigm, name, file, line, role and flags.  Thread-safe; takes a lock.
STRATA_API RegionHandle define_region(const RegionSpec& spec);

/// Finds a region of `paradigm` and `flags` by name only; returns 0 when none.
/// (The user API resolves END macros by name.)
STRATA_API RegionHandle find_region(Paradigm paradigm, std::string_view name, std::uint32_t flags);

enum class ParameterType : std::uint8_t { integer = 0, string = 1 };
STRATA_API ParameterHandle define_parameter(std::string_view name, ParameterType type);
STRATA_API StringHandle define_string(std::string_view text);

/// Enters a region on the calling thread's location, at the current time.
STRATA_API void enter(RegionHandle region);
/// Leaves a region.  A region that is not the innermost open one is reported
/// once per region; if it is open further out, the inner regions are closed
/// first so that every substrate stays properly nested.
STRATA_API void exit(RegionHandle region);

/// The same with an explicit timestamp, for sources that time events
/// themselves; timestamps must not decrease on a location.
STRATA_API void enter_at(Ticks time, RegionHandle region);
STRATA_API void exit_at(Ticks time, RegionHandle region);

/// A parameter of the innermost open region (splits the profile's call path,
/// as Score-P does: "name=value" below that region until it is left).
STRATA_API void parameter_int(ParameterHandle parameter, std::int64_t value);
STRATA_API void parameter_string(ParameterHandle parameter, std::string_view value);

/// Process-wide recording switch (user API STRATA_RECORDING_OFF/ON).  While
/// off, nothing is recorded; the gap appears in the trace and profile as the
/// region "STRATA_RECORDING_OFF".  Must be switched back on at the same call
/// depth; otherwise it is reported once and ignored.
STRATA_API void set_recording(bool on);
STRATA_API bool is_recording();

// --- MPI (adapters/mpi) -------------------------------------------------------

using CommunicatorHandle = std::uint32_t;

/// A communicator, identified in the whole job by (id_root, id_sequence): the
/// MPI_COMM_WORLD rank of its rank 0 and a number that rank gives each
/// communicator it creates (MPI_COMM_WORLD is (0, 0), MPI_COMM_SELF of rank r
/// is (r, 1)).  `world_ranks[i]` is the MPI_COMM_WORLD rank of its rank i.
struct CommunicatorSpec {
    std::string_view name;
    std::uint32_t id_root = 0;
    std::uint32_t id_sequence = 0;
    const std::int32_t* world_ranks = nullptr;
    std::size_t size = 0;
};
STRATA_API CommunicatorHandle define_communicator(const CommunicatorSpec& spec);

/// The collective operations, as OTF2 numbers them (OTF2_CollectiveOp).
enum class CollectiveOp : std::uint8_t {
    barrier = 0, bcast = 1, gather = 2, gatherv = 3, scatter = 4, scatterv = 5, allgather = 6,
    allgatherv = 7, alltoall = 8, alltoallv = 9, alltoallw = 10, allreduce = 11, reduce = 12,
    reduce_scatter = 13, scan = 14, exscan = 15, reduce_scatter_block = 16, create_handle = 17,
    destroy_handle = 18, allocate = 19, deallocate = 20, create_handle_and_allocate = 21,
    destroy_handle_and_deallocate = 22,
};

/// The MPI events, one function each: mpi_send, mpi_recv, mpi_isend,
/// mpi_isend_complete, mpi_irecv_request, mpi_irecv, mpi_request_test,
/// mpi_request_cancelled, mpi_collective_begin, mpi_collective_end,
/// mpi_nonblocking_collective_request, mpi_nonblocking_collective_complete.
/// Their parameters and meaning are rows of mpi_events.def.
#define STRATA_MPI_EVENT(function, kind, bytes, parameters, fields) STRATA_API void function parameters;
#include "strata/measurement/mpi_events.def"
#undef STRATA_MPI_EVENT

/// An MPI call's region together with its first or last message event, for the
/// MPI wrappers: enter(region) then mpi_send(...) or mpi_collective_begin(), and
/// mpi_recv(...) or mpi_collective_end(...) then exit(region).  The two events
/// get one timestamp and cost one look-up of the thread's location.
STRATA_API void enter_mpi_send(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                               std::uint64_t bytes);
STRATA_API void enter_mpi_collective_begin(RegionHandle region);
STRATA_API void mpi_recv_exit(RegionHandle region, CommunicatorHandle comm, std::int32_t peer, std::int32_t tag,
                              std::uint64_t bytes);
STRATA_API void mpi_collective_end_exit(RegionHandle region, CollectiveOp op, CommunicatorHandle comm,
                                        std::int32_t root, std::uint64_t bytes_sent, std::uint64_t bytes_received);

// --- threads (adapters/openmp) ------------------------------------------------

/// What the threads of a team take over from the thread that forked it: the
/// call path open there (their work appears under it in the profile) and the
/// team's identity.  Created by thread_fork(), released by thread_join().
struct ForkContext;

/// The calling thread forks a team of (up to) `requested_threads` threads and
/// becomes its thread 0.  Returns nullptr when nothing is recorded; pass the
/// result to thread_team_begin() of every thread and to thread_join().
STRATA_API ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads);
/// The same, keeping two words of the adapter's own about this fork (e.g. the
/// region its threads enter) in the context for the team's threads, on the
/// cache line they read anyway: thread_fork_user_data(fork)[0] and [1].
STRATA_API ForkContext* thread_fork(Paradigm model, std::uint32_t requested_threads, const void* user0,
                                    const void* user1);
/// The same at an explicit time (not before this thread's last event), e.g. one
/// clock reading shared with the forking thread's own team begin.
STRATA_API ForkContext* thread_fork_at(Ticks time, Paradigm model, std::uint32_t requested_threads,
                                       const void* user0, const void* user1);
STRATA_API const void* const* thread_fork_user_data(const ForkContext* fork);
/// The team of `fork` has joined on the forking thread; `fork` is released
/// (threads may still end their team afterwards).
STRATA_API void thread_join(ForkContext* fork);
/// The same at an explicit time (not before this thread's last event), e.g. one
/// clock reading shared with the ends the runtime reports right before the join.
STRATA_API void thread_join_at(Ticks time, ForkContext* fork);
/// The calling thread starts working as thread `thread_number` of the team of
/// `team_size` threads forked by `fork` (must happen before thread_join).
STRATA_API void thread_team_begin(ForkContext* fork, std::uint32_t thread_number, std::uint32_t team_size);
/// The same at an explicit time (not before this thread's last event), e.g.
/// one clock reading shared with the enter of the region the thread begins with.
STRATA_API void thread_team_begin_at(Ticks time, ForkContext* fork, std::uint32_t thread_number,
                                     std::uint32_t team_size);
/// thread_team_begin_at, then `region` (0: none) entered at the same time: the
/// region the thread begins its work with, in one call.
STRATA_API void thread_team_begin_enter_at(Ticks time, ForkContext* fork, std::uint32_t thread_number,
                                           std::uint32_t team_size, RegionHandle region);
/// The calling thread ends its work in the team it began last.
STRATA_API void thread_team_end();
/// The same at an explicit time, for runtimes that report the end late (not
/// before this thread's last event).
STRATA_API void thread_team_end_at(Ticks time);
/// thread_team_end_at, closing first, at the same time, the `open_regions`
/// innermost regions the thread still has open in the team (the caller's own,
/// whose ends the runtime does not report separately); regions open beyond
/// those are closed too, with a warning.
STRATA_API void thread_team_end_closing_at(Ticks time, std::uint32_t open_regions);
/// When the team the calling thread works in (its innermost one) joined on the
/// forking thread; 0 when it has not joined yet, or for the forking thread itself.
STRATA_API Ticks thread_team_joined();

/// An explicit task (OpenMP `task`) of the team the calling thread works in
/// (its innermost one), as OTF2's ThreadTask events name it: the number in the
/// team of the thread that created it and that thread's count of the tasks it
/// created.  generation 0: not recorded (no team, recording off).
struct TaskId {
    std::uint32_t creator = 0;
    std::uint32_t generation = 0;
};
/// The calling thread creates a task (ThreadTaskCreate).
STRATA_API TaskId task_create();
/// The calling thread starts or resumes running `task` (ThreadTaskSwitch).
STRATA_API void task_switch(TaskId task);
/// `task` has finished on the calling thread (ThreadTaskComplete).
STRATA_API void task_complete(TaskId task);

// --- locations of their own (adapters/cuda) ------------------------------------

/// A location that is not a thread of the program: a GPU stream, whose events
/// an adapter learns about later (CUPTI activity buffers) and records with
/// their own times.  0 is "none".
using LocationHandle = std::uint32_t;

struct LocationSpec {
    std::string_view name;  ///< e.g. "CUDA[0:7]", "GPU[0] metrics"
    LocationType type = LocationType::gpu_stream;  ///< or metric: GPU metric samples (location_metric)
    std::uint32_t device = 0;  ///< the CUDA device ordinal of a GPU stream or of sampled metrics
};

/// Creates the location (thread-safe; takes a lock).  Its number in the trace
/// is 0x10000 + n for the process's n-th GPU stream (experiment-format.md).
/// Returns 0 when nothing is measured or no more can be made.
STRATA_API LocationHandle define_location(const LocationSpec& spec);

/// Events on such a location, at explicit times.  The caller serialises the
/// events of one location (one adapter thread, or a lock) and gives times that
/// do not decrease; an earlier time is moved to the location's last one.
/// `correlation` (0: none) joins a GPU activity to the host call that launched
/// it: the trace's attribute CUDA_CORRELATION_ID.
/// `attributes` (`count` of them, 0: none) describe the activity: a kernel's
/// grid and registers, the bytes of a copy, ...
struct GpuAttributeValue {
    GpuAttribute attribute;
    std::uint64_t value;
};
STRATA_API void location_enter(LocationHandle location, Ticks time, RegionHandle region,
                               std::uint64_t correlation, const GpuAttributeValue* attributes = nullptr,
                               std::uint32_t count = 0);
STRATA_API void location_exit(LocationHandle location, Ticks time, RegionHandle region);

/// A sample of a device metric on a location of type metric (NVML's
/// utilisation, memory, power, clock), at an explicit time; recorded in the
/// trace only.  The same serialisation and time rules as location_enter.
STRATA_API void location_metric(LocationHandle location, Ticks time, DeviceMetric metric,
                                std::uint64_t value);

/// Names the location of the OS thread `os_thread` (its Linux thread id; 0: the
/// calling thread), as nvtxNameOsThread does: the trace and the profile call
/// it "<name> (thread <n>)".  A thread not seen yet gets the name when it
/// records its first event.  Thread-safe.
STRATA_API void name_thread(std::uint32_t os_thread, std::string_view name);

/// enter() on the calling thread, carrying `correlation` (a CUDA API call that
/// launches GPU work).
STRATA_API void enter_correlated(RegionHandle region, std::uint64_t correlation);

/// Something the measurement could not record: `count` of `what` ("GPU
/// activity records dropped by CUPTI"), and what avoids it (`remedy`, e.g.
/// "raise STRATA_CUDA_BUFFER_SIZE (now 4M)").  Written into the experiment,
/// losses/rank-<r>.tsv, for strata-analyze's advice; the caller prints its own
/// message.  Counts of the same `what` add up.  Thread-safe.
STRATA_API void report_loss(std::string_view what, std::uint64_t count, std::string_view remedy);

/// Prints "strata: <message>" when STRATA_VERBOSE is on (an adapter's summary).
STRATA_API void verbose(std::string_view message);

/// The current time on the process timer.
STRATA_API Ticks now();

/// True once the runtime is initialised and until it is finalised.
STRATA_API bool is_active();

/// True when the measurement writes a trace (STRATA_ENABLE_TRACING): what
/// only the trace holds (GPU metric samples) is worth taking.
STRATA_API bool is_tracing();

/// An adapter found its configuration wrong before main (a bad filter file, a bad
/// STRATA_* value of its own): prints `message`, removes the experiment directory
/// this process made if nothing was written into it yet (so that the corrected
/// run is not refused), and ends the process with status 1.
[[noreturn]] STRATA_API void stop_before_main(const std::string& message);

}  // namespace strata::events
