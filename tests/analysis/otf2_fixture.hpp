// SPDX-License-Identifier: BSD-3-Clause
// A generator of synthetic OTF2 experiments with known ground truth, written
// with the OTF2 writer API directly (as Strata's measurement lays them out:
// location id rank << 32, one location group per rank, group "MPI ranks",
// a COMM_GROUP of world ranks per communicator, ClockOffset points in each
// location's .def file).
//
// Events are given in *true* time (rank 0's clock); each rank's clock runs
// `offset` behind (local = true - offset), and its .def holds the constant
// offset at two points, so an analysis that ignores the offsets gets other
// numbers.  Timer resolution 10^9 (ns).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace strata::analysis::test {

/// One synthetic trace.
class TraceBuilder {
public:
    explicit TraceBuilder(std::uint32_t ranks);

    /// A region; role, paradigm and flags as OTF2 numbers them.
    std::uint32_t region(const std::string& name, std::uint32_t role, std::uint32_t paradigm,
                         std::uint32_t flags = 0);
    /// A kernel region (paradigm CUDA, role FUNCTION), as the CUDA adapter defines one.
    std::uint32_t kernel_region(const std::string& name);
    /// A copy or memset region (paradigm CUDA, role DATA_TRANSFER) named by its direction, e.g. "cudaMemcpy HtoD".
    std::uint32_t copy_region(const std::string& name);

    // GPU streams as experiment-format.md lays them out: an accelerator-stream
    // location in the rank's location group (id rank << 32 | 0x10000 + n) with
    // the location property CUDA_DEVICE; kernels and copies as regions on it
    // whose Enter carries the attribute CUDA_CORRELATION_ID, like the host
    // region that launched them.
    /// A new stream of `rank` on `device`; returns its number among the rank's streams.
    std::uint32_t stream(std::uint32_t rank, std::uint32_t device);
    /// A kernel or copy on stream `stream` of `rank` from `start` to `end` (true time, ns).
    void gpu_op(std::uint32_t rank, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                std::uint32_t region, std::uint64_t correlation = 0);
    /// Enter of a host region carrying `correlation` (the launch), on the rank's thread 0.
    void enter_launch(std::uint32_t rank, std::uint64_t t, std::uint32_t region, std::uint64_t correlation);
    // GPU metrics as experiment-format.md lays them out ("GPU metrics over time"):
    // a location of type METRIC in the rank's location group, numbered with the
    // streams, named "GPU[<device>] metrics", with the property CUDA_DEVICE;
    // the five members (gpu_utilization, gpu_memory_utilization, gpu_memory_used,
    // gpu_power in mW, gpu_sm_clock), each in a metric class of its own, defined
    // when any rank has such a location.  Their references are not the table's
    // order (a counter member and class come first, the GPU members are defined
    // last to first), so only a reader that finds them by name gets them right.
    /// A GPU metric location of `rank` for `device`; returns its number among the rank's streams.
    std::uint32_t gpu_metrics(std::uint32_t rank, std::uint32_t device);
    /// A sample of location `metrics` of `rank` at true time `t` (ns): a Metric event per value
    /// in the table's order, none for a value below 0 (absent).
    void gpu_sample(std::uint32_t rank, std::uint32_t metrics, std::uint64_t t,
                    const std::array<std::int64_t, 5>& values);
    /// The region of an MPI function (paradigm MPI, role from the name).
    std::uint32_t mpi_region(const std::string& name);
    /// A communicator of `world_ranks`; communicator 0 (MPI_COMM_WORLD) exists from the start.
    std::uint32_t communicator(const std::string& name, const std::vector<std::uint32_t>& world_ranks);
    /// An OpenMP thread team of `threads` threads of `rank` (a communicator of paradigm OpenMP over
    /// its own COMM_LOCATIONS group, as OTF2 defines thread teams).
    std::uint32_t thread_team(std::uint32_t rank, std::uint32_t threads);
    /// Rank `rank`'s clock runs `offset_ns` behind rank 0's.
    void clock_offset(std::uint32_t rank, std::int64_t offset_ns);

    // Events of `rank` at true time `t` (ns); written in time order, ties in the order given.
    void enter(std::uint32_t rank, std::uint64_t t, std::uint32_t region);
    void leave(std::uint32_t rank, std::uint64_t t, std::uint32_t region);
    void send(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
              std::uint32_t comm = 0);
    void recv(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
              std::uint32_t comm = 0);
    void isend(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
               std::uint64_t request);
    void isend_complete(std::uint32_t rank, std::uint64_t t, std::uint64_t request);
    void request_cancelled(std::uint32_t rank, std::uint64_t t, std::uint64_t request);
    void irecv_request(std::uint32_t rank, std::uint64_t t, std::uint64_t request);
    void irecv(std::uint32_t rank, std::uint64_t t, std::uint32_t peer, std::uint32_t tag,
               std::uint64_t request);
    void parameter(std::uint32_t rank, std::uint64_t t,
                   std::int64_t value);  ///< an event the analysis does not use

    // OpenMP as the OpenMP adapter writes it: ThreadFork/Join on the master
    // thread, ThreadTeamBegin/End and regions on every thread of the team;
    // thread t > 0 of a rank is location rank << 32 | t.
    void fork(std::uint32_t rank, std::uint64_t t, std::uint32_t threads);
    void join(std::uint32_t rank, std::uint64_t t);
    void team_begin(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t team);
    void team_end(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t team);
    void thread_enter(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t region);
    void thread_leave(std::uint32_t rank, std::uint32_t thread, std::uint64_t t, std::uint32_t region);
    /// A whole collective call: enter at `e`, MpiCollectiveBegin/End, leave at `x`.
    void collective(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                    std::uint32_t op, std::int64_t root = -1, std::uint32_t comm = 0);
    /// A whole blocking call holding one event written by `send`/`recv`.
    void blocking_send(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                       std::uint32_t peer, std::uint32_t tag, std::uint32_t comm = 0);
    void blocking_recv(std::uint32_t rank, std::uint32_t region, std::uint64_t e, std::uint64_t x,
                       std::uint32_t peer, std::uint32_t tag, std::uint32_t comm = 0);

    /// Leaves the ClockOffset records out (the local timestamps stay as they are).
    void write_clock_offsets(bool write) { write_offsets_ = write; }

    /// How the ranks after rank 0 name regions and communicators in their events.
    enum class LocalIds {
        global,         ///< the global ids, no mapping tables
        reversed,       ///< local ids in reverse order, with REGION and COMM mapping tables
        with_attribute  ///< reversed, plus an (identity) ATTRIBUTE mapping table
    };
    void local_ids(LocalIds ids) { local_ids_ = ids; }

    /// Writes traces.otf2, traces.def and traces/ into `directory` (created).
    void write(const std::string& directory) const;

private:
    struct Event {
        int kind;
        std::uint64_t t;
        std::uint64_t a, b, c, d;
    };
    void add(std::uint32_t rank, int kind, std::uint64_t t, std::uint64_t a = 0, std::uint64_t b = 0,
             std::uint64_t c = 0, std::uint64_t d = 0, std::uint32_t thread = 0);

    std::uint32_t ranks_;
    bool write_offsets_ = true;
    LocalIds local_ids_ = LocalIds::global;
    std::vector<std::int64_t> offsets_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Event>> events_;  ///< (rank, thread)
    struct Region {
        std::string name;
        std::uint32_t role, paradigm, flags;
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> devices_;  ///< (rank, thread) of a stream ->
    std::vector<std::uint32_t> stream_count_;                                    ///< per rank
    std::set<std::pair<std::uint32_t, std::uint32_t>> metric_locations_;  ///< (rank, thread); in devices_ too
    std::vector<Region> regions_;
    struct Comm {
        std::string name;
        std::vector<std::uint32_t> members;  ///< world ranks; threads of `team_rank` for a team
        std::int64_t team_rank = -1;         ///< >= 0: an OpenMP thread team of this rank
    };
    std::vector<Comm> comms_;
};

/// 4 ranks with one of each wait state (times in ms, true time):
///
///   late sender     r0 MPI_Send at 16, r1 MPI_Recv 11..16.2            r1 waits 5 on r0
///   late receiver   r2 MPI_Ssend 20..23.5 on comm "pair" {2,3},
///                   r3 MPI_Recv posted at 23                            r2 waits 3 on r3
///   Irecv + Wait    r0 MPI_Irecv at 25, MPI_Wait 26..30.5; r3 Isend at 30  r0 waits 4 on r3
///   Waitall         r1 two Irecv, MPI_Waitall 33..38; r0 sends at 35,
///                   r2 at 37                                            r1 waits 4 on r2 (latest)
///   barrier         enter r0 50, r1 44, r2 46, r3 47                    6 + 4 + 3 on r0
///   Allreduce       enter r0 55, r1 56, r2 58, r3 54                    3 + 2 + 4 on r2
///   Bcast root 1    enter r0 62, r1 65, r2 63, r3 61                    3 + 2 + 4 on r1
///   Reduce root 2   enter r0 71, r1 72, r2 70, r3 75                    r2 waits 5 on r3
///
/// Clocks: rank 1 runs 7 ms behind, rank 2 2 ms behind, rank 3 4 ms ahead.
TraceBuilder wait_states_trace();

/// The waitstates.csv of wait_states_trace(): the waits listed above, in ms.
std::string wait_states_trace_csv();

/// GPUs with known utilisation (times in ms, true time; rank 1's clock 3 ms ahead):
///
///   rank 0, GPU 0, stream 0: HtoD copy 5..10; kernels volta_h884gemm_64x64_ldg8_nn 10..30, 40..60
///                  stream 1: kernel reduce_kernel 20..50 (overlaps both); DtoH copy 60..65
///                  union 10..60 = 50 of span 5..65 = 60 (0.833333333), accumulated 70
///   rank 0, GPU 1, stream 2: kernels saxpy 10..20, 30..40; memset 45..50
///                  busy 20 of span 10..50 = 40: utilisation exactly 0.5
///   rank 1, GPU 0, stream 0: kernel volta_sgemm_128x64_nn 10..60; DtoD copy 60..62; busy 50 of 52
///
/// Launches: the gemm kernels and reduce_kernel from main/forward/cudaLaunchKernel,
/// saxpy from main/cudaLaunchKernel on rank 0; the sgemm from main/forward/cudaLaunchKernel on rank 1.
TraceBuilder gpu_trace();

/// Launch latency and NCCL kernels (times in us, true time; rank 1's clock 2 ms ahead):
///
///   rank 0, GPU 0, stream 0: h1688gemm_kernel 105..205 (launched at 100: latency 5);
///                            layer_norm 320..340, 360..380 (graph launch at 300: 20, 60);
///                            volta_sgemm_128x64_nn 450..550 (launched at 420: 30)
///                  stream 1: softmax 330..350 (the same graph launch: 30);
///                            ncclDevKernel_AllReduce_Sum_bf16_RING_LL 410..510 (launched at 400: 10);
///                            cudaMemcpyAsync DtoH 562..600 (launched at 560: 2)
///                  busy 105..205, 320..350, 360..380, 410..550 = 290 of span 105..600 = 495;
///                  compute busy (all but NCCL) 250, comm 100; 7 latencies, sum 157, max 60
///   rank 1, GPU 0, stream 0: step_kernel 990..1090 (its launch entered at 1000: starts before it),
///                            step_kernel 1200..1300 (launched at 1100: 100),
///                            orphan_kernel 1400..1410 (its launch not recorded: no latency)
///
/// Launches from main/cudaLaunchKernel, the graph from main/cudaGraphLaunch, the copy from
/// main/cudaMemcpyAsync.
TraceBuilder gpu_launch_trace();

/// GPU metric samples on two ranks (times in ms, true time; rank 1's clock 3 ms ahead);
/// main runs 5..50 on both ranks, so T0 = 5 and time_s = (t - 5) / 1000:
///
///   rank 0, stream on GPU 0: kernel gemm 10..30
///   rank 0, GPU[0] metrics   t   util  mem util  memory used   power     SM clock
///                            10  20    5         1 GiB         100 W     1410
///                            20  80    30        2 GiB         250 W     1980
///                            30  100   40        3 GiB         (absent)  1980
///                            40  0     0         2 GiB         50 W      1410
///       means: util 50, mem util 18.75, power 133.333 W over its 3 samples;
///       energy (100 + 250) / 2 x 0.01 + (250 + 50) / 2 x 0.02 = 4.75 J
///   rank 1, GPU[1] metrics   15  60    10        512 MiB       300 W     1700
///                            25  40    20        512 MiB       200 W     1700
///       means: util 50, mem util 15, power 250 W; energy 2.5 J
TraceBuilder gpu_metrics_trace();

/// Two ranks, 6 steps of the key region "step" (times in ms): step 0 is 0..30
/// (a 3x warm-up), step i >= 1 is 30 + 10 (i - 1) .. 30 + 10 i; main ends at 85.
/// Iterations: [0, 30), [30, 40), ..., [70, 80), [80, 85]: 7, durations 30, 10 x 5, 5.
/// Each step ends in MPI_Barrier: rank 0 enters it at step end - 1, rank 1 at
/// step end - 3 (step 0: - 7), so rank 1 waits 6 ms in step 0 and 2 ms in each other.
/// Rank 0 launches a kernel of 4 ms in each step (on GPU 0): 1..5 ms after the step began.
/// Both ranks call "halo" twice per step (0.1..0.2 and 0.3..0.4 ms into it): another candidate.
/// `phase`: "step" is defined with OTF2_REGION_FLAG_PHASE.
TraceBuilder iterations_trace(bool phase);

}  // namespace strata::analysis::test
