// SPDX-License-Identifier: BSD-3-Clause
// MindSpore's step trace for the whole job (see step_trace.hpp).
#include "trace/step_trace.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analyze/report_format.hpp"
#include "trace/gpu_analysis.hpp"

namespace strata::analysis::trace {

namespace {

using Interval = std::pair<Ticks, Ticks>;

/// |union of `intervals` ∩ [lo, hi)|.
Ticks union_length(std::vector<Interval> intervals, Ticks lo = INT64_MIN, Ticks hi = INT64_MAX) {
    std::sort(intervals.begin(), intervals.end());
    Ticks total = 0, from = 0, to = 0;
    bool open = false;
    for (const Interval& i : intervals) {
        const Ticks s = std::max(i.first, lo), e = std::min(i.second, hi);
        if (e <= s) continue;
        if (open && s <= to) {
            to = std::max(to, e);
            continue;
        }
        if (open) total += to - from;
        from = s;
        to = e;
        open = true;
    }
    return open ? total + to - from : total;
}

enum OpClass : std::uint8_t { compute_kernel, nccl_kernel, host_copy, other_copy };

struct StepOp {
    Ticks start = 0, end = 0;
    OpClass kind = compute_kernel;
};

/// One rank's operations and MPI time, per iteration.
struct RankSteps {
    std::vector<std::vector<StepOp>> ops;
    std::vector<std::vector<Interval>> mpi;
};

StepTimes step_times(const std::vector<StepOp>& ops, const std::vector<Interval>& mpi, Ticks previous_end,
                     Ticks short_kernel) {
    StepTimes t;
    std::vector<Interval> all, compute, nccl, copies, host, comm = mpi;
    Ticks first_kernel = no_time, last_end = no_time;
    for (const StepOp& op : ops) {
        const Interval i{op.start, op.end};
        all.push_back(i);
        last_end = last_end == no_time ? op.end : std::max(last_end, op.end);
        if (op.kind == compute_kernel || op.kind == nccl_kernel) {
            ++t.kernels;
            first_kernel = first_kernel == no_time ? op.start : std::min(first_kernel, op.start);
            if (op.end - op.start < short_kernel) {
                ++t.short_kernels;
                t.short_kernel_time += op.end - op.start;
            }
            (op.kind == nccl_kernel ? nccl : compute).push_back(i);
            if (op.kind == nccl_kernel) comm.push_back(i);
        } else {
            ++t.copies;
            copies.push_back(i);
            if (op.kind == host_copy) host.push_back(i);
        }
    }
    t.busy = union_length(all);
    t.compute = union_length(compute);
    t.nccl = union_length(nccl);
    t.mpi = union_length(mpi);
    t.comm = union_length(comm);
    t.copy = union_length(copies);
    t.host_copy = union_length(host);
    if (first_kernel != no_time) {
        // Copies before the first kernel are part of the gap (data loading), not of the span.
        t.span = last_end - first_kernel;
        t.idle = t.span - union_length(all, first_kernel, last_end);
        t.gap = std::max<Ticks>(0, first_kernel - previous_end);
    }
    return t;
}

std::string seconds(const StepTraceReport& r, Ticks t) {
    return format_number(r.seconds(t));
}

std::string share(Ticks part, Ticks whole, const char* none) {
    return whole > 0 ? format_number(static_cast<double>(part) / static_cast<double>(whole)) : none;
}

double ratio(Ticks part, Ticks whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

/// Sums over the used iterations: per rank, over the slowest ranks' rows, over all ranks.
struct UsedSums {
    std::map<std::uint32_t, StepTimes> ranks;
    StepTimes slowest, all;
    std::size_t iterations = 0;
};

UsedSums used_sums(const StepTraceReport& r) {
    UsedSums s;
    for (const StepRow& row : r.rows) {
        if (!row.used) continue;
        if (row.slowest) {
            s.slowest.add(row.times);
            ++s.iterations;
        } else {
            s.ranks[row.rank].add(row.times);
            s.all.add(row.times);
        }
    }
    return s;
}

/// The rank with the largest share `part / iteration` (lowest rank on ties) and the ranks above `threshold`,
/// largest share first.
template <typename Part>
std::pair<std::uint32_t, std::vector<std::uint32_t>> worst_ranks(const UsedSums& s, Part part,
                                                                 double threshold) {
    std::vector<std::pair<double, std::uint32_t>> above;
    std::uint32_t worst = 0;
    double most = -1;
    for (const auto& [rank, t] : s.ranks) {
        const double v = ratio(part(t), t.iteration);
        if (v > most) {
            most = v;
            worst = rank;
        }
        if (v > threshold) above.emplace_back(-v, rank);
    }
    std::sort(above.begin(), above.end());
    std::vector<std::uint32_t> ranks;
    for (const auto& a : above) ranks.push_back(a.second);
    return {worst, ranks};
}

constexpr const char* columns =
    "iteration,scope,rank,iteration_s,gap_s,gpu_span_s,busy_s,compute_s,nccl_s,mpi_s,comm_s,copy_s,"
    "host_copy_s,idle_s,kernels,short_kernels,short_kernel_s,copies,gap_share,compute_share,comm_share,"
    "idle_share,used\n";

std::string definitions_json(const StepTraceReport& r) {
    return "{\"iteration\": \"rank r's own iteration, as iterations.csv cuts it: from its (i-1)-th to its "
           "i-th key-region end\", \"operations\": \"the kernels, copies and memsets of the rank's GPU "
           "streams "
           "whose launch (the host region carrying their CUDA_CORRELATION_ID) was entered in the iteration, "
           "else that start in it; whole intervals\", \"gap_s\": \"MindSpore's iteration gap: the first "
           "kernel's start - the end of the last operation of iteration i-1 (for the first iteration, or one "
           "after an iteration without operations: the iteration's start); 0 without a kernel or when the "
           "first kernel starts earlier: host and data-loading time\", \"gpu_span_s\": \"the first kernel's "
           "start to the last operation's end\", \"busy_s\": \"|union of the operations|\", \"compute_s\": "
           "\"|union of the kernels that are not NCCL's| (GPU computation)\", \"nccl_s\": \"|union of the "
           "NCCL "
           "kernels| (name starting with nccl)\", \"mpi_s\": \"|union of the rank's outermost MPI calls, all "
           "its "
           "threads, cut to the iteration| (host side)\", \"comm_s\": \"|union of the NCCL kernels and those "
           "MPI calls|: a collective seen on the GPU and the host counts once, so comm_s <= nccl_s + "
           "mpi_s\", "
           "\"copy_s\": \"|union of the copies and memsets|\", \"host_copy_s\": \"|union of the HtoD and "
           "DtoH "
           "copies|\", \"idle_s\": \"gpu_span_s - |union of the operations within the span| (GPU idle inside "
           "the step)\", \"short_kernels\": \"kernels shorter than " +
           format_number(r.short_kernel_s) +
           " s (--short-kernel-threshold)\", \"shares\": \"of iteration_s\", \"slowest\": \"the iteration's "
           "slowest rank (largest rank time, iterations.csv), a copy of its rank row\", \"devices\": "
           "\"unions "
           "over all GPUs of the rank\", \"used\": \"the iterations the means and findings are over: "
           "--iter-start/--iter-stop when given, else the stable range, else all\", \"times\": \"seconds on "
           "rank 0's clock\"}";
}

std::string times_json(const StepTraceReport& r, const StepTimes& t) {
    return "\"iteration_s\": " + seconds(r, t.iteration) + ", \"gap_s\": " + seconds(r, t.gap) +
           ", \"gpu_span_s\": " + seconds(r, t.span) + ", \"busy_s\": " + seconds(r, t.busy) +
           ", \"compute_s\": " + seconds(r, t.compute) + ", \"nccl_s\": " + seconds(r, t.nccl) +
           ", \"mpi_s\": " + seconds(r, t.mpi) + ", \"comm_s\": " + seconds(r, t.comm) +
           ", \"copy_s\": " + seconds(r, t.copy) + ", \"host_copy_s\": " + seconds(r, t.host_copy) +
           ", \"idle_s\": " + seconds(r, t.idle) + ", \"kernels\": " + std::to_string(t.kernels) +
           ", \"short_kernels\": " + std::to_string(t.short_kernels) +
           ", \"short_kernel_s\": " + seconds(r, t.short_kernel_time) +
           ", \"copies\": " + std::to_string(t.copies) +
           ", \"gap_share\": " + share(t.gap, t.iteration, "null") +
           ", \"compute_share\": " + share(t.compute, t.iteration, "null") +
           ", \"comm_share\": " + share(t.comm, t.iteration, "null") +
           ", \"idle_share\": " + share(t.idle, t.iteration, "null");
}

std::string step_csv(const StepTraceReport& r) {
    std::string t = columns;
    for (const StepRow& row : r.rows) {
        const StepTimes& s = row.times;
        t += std::to_string(row.iteration) + "," + (row.slowest ? "slowest," : "rank,") +
             std::to_string(row.rank) + "," + seconds(r, s.iteration) + "," + seconds(r, s.gap) + "," +
             seconds(r, s.span) + "," + seconds(r, s.busy) + "," + seconds(r, s.compute) + "," +
             seconds(r, s.nccl) + "," + seconds(r, s.mpi) + "," + seconds(r, s.comm) + "," +
             seconds(r, s.copy) + "," + seconds(r, s.host_copy) + "," + seconds(r, s.idle) + "," +
             std::to_string(s.kernels) + "," + std::to_string(s.short_kernels) + "," +
             seconds(r, s.short_kernel_time) + "," + std::to_string(s.copies) + "," +
             share(s.gap, s.iteration, "") + "," + share(s.compute, s.iteration, "") + "," +
             share(s.comm, s.iteration, "") + "," + share(s.idle, s.iteration, "") + "," +
             (row.used ? "1" : "0") + "\n";
    }
    return t;
}

std::string step_json(const StepTraceReport& r) {
    const UsedSums s = used_sums(r);
    std::string t = "{\n  \"report\": \"step_trace\",\n  \"definitions\": " + definitions_json(r) + ",\n";
    t += "  \"short_kernel_threshold_s\": " + format_number(r.short_kernel_s) + ",\n";
    t += "  \"used\": {\"iterations\": " + json_string(r.used) + ", \"start\": " +
         (r.used_last < r.used_first
              ? std::string("null, \"stop\": null")
              : std::to_string(r.used_first) + ", \"stop\": " + std::to_string(r.used_last)) +
         "},\n";
    t += "  \"slowest\": {" + times_json(r, s.slowest) + "},\n";
    t += "  \"ranks\": [";
    bool first = true;
    for (const auto& [rank, times] : s.ranks) {
        t += std::string(first ? "" : ",") + "\n    {\"rank\": " + std::to_string(rank) + ", " +
             times_json(r, times) + "}";
        first = false;
    }
    t += s.ranks.empty() ? "],\n" : "\n  ],\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const StepRow& row = r.rows[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"iteration\": " + std::to_string(row.iteration) +
             ", \"scope\": " + (row.slowest ? "\"slowest\"" : "\"rank\"") +
             ", \"rank\": " + std::to_string(row.rank) + ", " + times_json(r, row.times) +
             ", \"used\": " + (row.used ? "true" : "false") + "}";
    }
    t += r.rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

}  // namespace

void StepTimes::add(const StepTimes& o) {
    iteration += o.iteration;
    gap += o.gap;
    span += o.span;
    busy += o.busy;
    idle += o.idle;
    compute += o.compute;
    nccl += o.nccl;
    mpi += o.mpi;
    comm += o.comm;
    copy += o.copy;
    host_copy += o.host_copy;
    short_kernel_time += o.short_kernel_time;
    kernels += o.kernels;
    short_kernels += o.short_kernels;
    copies += o.copies;
}

void put_step_partial(ByteWriter& out, const ShareRecords& records, const TraceDefinitions& definitions,
                      const IterationPlan& plan, Ticks short_kernel) {
    const bool streams =
        std::any_of(definitions.locations.begin(), definitions.locations.end(),
                    [](const TraceLocation& l) { return l.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM; });
    const std::size_t iterations = plan.iterations();
    if (!streams || iterations == 0) {
        out.put<std::uint64_t>(0);
        return;
    }
    // This share's ranks with their iteration starts (the rank's own key-region ends).
    std::map<std::uint32_t, std::vector<Ticks>> starts;  // world rank -> starts of iterations 1 .. N
    for (std::size_t p = 0; p < plan.ranks.size(); ++p) {
        if (records.iterations.count(plan.ranks[p]) == 0) continue;
        const std::vector<Ticks>& ends = plan.ends[p];
        starts[plan.ranks[p]].assign(ends.begin(),
                                     ends.begin() + static_cast<std::ptrdiff_t>(plan.instances));
    }
    const auto iteration_of = [&](const std::vector<Ticks>& s, Ticks t) {
        return static_cast<std::size_t>(std::upper_bound(s.begin(), s.end(), t) - s.begin());
    };
    std::map<std::uint32_t, RankSteps> ranks;
    for (const auto& [rank, s] : starts) {
        RankSteps& steps = ranks[rank];
        steps.ops.resize(iterations);
        steps.mpi.resize(iterations);
    }
    // Operations to the iteration of their launch, looked up as put_gpu_partial() does.
    std::vector<LaunchRecord> launches = records.launches;
    const auto launch_order = [](const LaunchRecord& a, const LaunchRecord& b) {
        return std::tie(a.rank, a.correlation) < std::tie(b.rank, b.correlation);
    };
    std::sort(launches.begin(), launches.end(), launch_order);
    std::vector<std::int8_t> kinds(definitions.regions.size(), -1);
    for (const GpuOp& op : records.gpu_ops) {
        const auto rank = static_cast<std::uint32_t>(definitions.locations[op.location].rank);
        const auto it = ranks.find(rank);
        if (it == ranks.end()) continue;  // no CPU thread of its rank: no iterations
        Ticks anchor = op.start;
        if (op.correlation != 0) {
            const LaunchRecord wanted{rank, 0, op.correlation};
            const auto l = std::lower_bound(launches.begin(), launches.end(), wanted, launch_order);
            if (l != launches.end() && l->rank == rank && l->correlation == op.correlation) anchor = l->time;
        }
        if (kinds[op.region] < 0) {
            const TraceRegion& region = definitions.regions[op.region];
            OpClass kind = other_copy;
            if (region.role != OTF2_REGION_ROLE_DATA_TRANSFER) {
                kind = is_communication_kernel(region.name) ? nccl_kernel : compute_kernel;
            } else if (copy_kind_of(region.name) == CopyKind::htod ||
                       copy_kind_of(region.name) == CopyKind::dtoh) {
                kind = host_copy;
            }
            kinds[op.region] = static_cast<std::int8_t>(kind);
        }
        it->second.ops[iteration_of(starts[rank], anchor)].push_back(
            {op.start, op.end, static_cast<OpClass>(kinds[op.region])});
    }
    // MPI calls cut to each iteration they overlap (the last one includes T1).
    for (std::size_t m = 0; m < records.mpi_intervals.size() && m < records.mpi_interval_ranks.size(); ++m) {
        const auto it = ranks.find(records.mpi_interval_ranks[m]);
        if (it == ranks.end()) continue;
        const std::vector<Ticks>& s = starts[it->first];
        const auto [enter, exit] = records.mpi_intervals[m];
        for (std::size_t i = iteration_of(s, enter); i < iterations; ++i) {
            const Ticks from = i == 0 ? plan.begin : s[i - 1];
            const Ticks to = i + 1 == iterations ? plan.bounds.back() + 1 : s[i];
            if (from >= exit) break;
            const Ticks a = std::max(enter, from), b = std::min(exit, to);
            if (b > a) it->second.mpi[i].emplace_back(a, b);
        }
    }
    out.put<std::uint64_t>(ranks.size() * iterations);
    for (const auto& [rank, steps] : ranks) {
        const std::vector<Ticks>& s = starts[rank];
        Ticks previous_end = no_time;
        for (std::size_t i = 0; i < iterations; ++i) {
            const Ticks from = i == 0 ? plan.begin : s[i - 1];
            const Ticks to = i + 1 == iterations ? plan.bounds.back() : s[i];
            StepTimes t = step_times(steps.ops[i], steps.mpi[i],
                                     previous_end == no_time ? from : previous_end, short_kernel);
            t.iteration = to - from;
            previous_end = no_time;
            for (const StepOp& op : steps.ops[i])
                previous_end = previous_end == no_time ? op.end : std::max(previous_end, op.end);
            out.put(rank);
            out.put<std::uint64_t>(i);
            out.put(t);
        }
    }
}

void add_step_partial(StepTraceReport& report, ByteReader& in) {
    const auto n = in.get<std::uint64_t>();
    for (std::uint64_t k = 0; k < n; ++k) {
        StepRow row;
        row.rank = in.get<std::uint32_t>();
        row.iteration = static_cast<std::size_t>(in.get<std::uint64_t>());
        row.times = in.get<StepTimes>();
        report.rows.push_back(row);
    }
}

void finish_step_trace(StepTraceReport& report, const IterationReport& iterations) {
    std::sort(report.rows.begin(), report.rows.end(), [](const StepRow& a, const StepRow& b) {
        return std::tie(a.iteration, a.rank) < std::tie(b.iteration, b.rank);
    });
    const IterationPlan& plan = iterations.plan;
    // Warm-up and the tail after the last step distort means: the stable range unless a range was asked for.
    std::int64_t first = 0, last = static_cast<std::int64_t>(iterations.rows.size()) - 1;
    report.used = "all";
    if (plan.restricted) {
        first = plan.first;
        last = plan.last;
        report.used = "--iter-start/--iter-stop";
    } else if (iterations.stable_first >= 0) {
        first = iterations.stable_first;
        last = iterations.stable_last;
        report.used = "the stable range";
    }
    report.used_first = first;
    report.used_last = last;
    std::vector<StepRow> rows;
    for (std::size_t b = 0, e = 0; b < report.rows.size(); b = e) {
        const std::size_t i = report.rows[b].iteration;
        const bool used = static_cast<std::int64_t>(i) >= first && static_cast<std::int64_t>(i) <= last;
        const std::uint32_t slowest = i < iterations.rows.size() && !plan.ranks.empty()
                                          ? plan.ranks[iterations.rows[i].slowest]
                                          : UINT32_MAX;
        const StepRow* slow = nullptr;
        for (e = b; e < report.rows.size() && report.rows[e].iteration == i; ++e) {
            report.rows[e].used = used;
            rows.push_back(report.rows[e]);
            if (report.rows[e].rank == slowest) slow = &report.rows[e];
        }
        if (slow == nullptr) continue;
        rows.push_back(*slow);
        rows.back().slowest = true;
    }
    report.rows = std::move(rows);
}

std::vector<std::pair<std::string, std::string>> step_trace_files(const StepTraceReport& report) {
    if (!report.present) return {};
    return {{"step_trace.csv", step_csv(report)}, {"step_trace.json", step_json(report)}};
}

std::string step_trace_text(const StepTraceReport& r) {
    if (!r.present) return "";
    const UsedSums s = used_sums(r);
    std::string t = "Step trace (MindSpore's breakdown of each iteration; over iterations " +
                    std::to_string(r.used_first) + " to " + std::to_string(r.used_last) + ", " + r.used +
                    "; shares of the iteration time):\n";
    if (s.iterations == 0) return t + "  No iteration with figures.\n";
    const auto line = [&](const StepTimes& x) {
        return "gap " + text_percent(ratio(x.gap, x.iteration)) + ", GPU computation " +
               text_percent(ratio(x.compute, x.iteration)) + ", communication " +
               text_percent(ratio(x.comm, x.iteration)) + " (NCCL kernels " +
               text_percent(ratio(x.nccl, x.iteration)) + ", MPI " + text_percent(ratio(x.mpi, x.iteration)) +
               "), GPU idle inside the step " + text_percent(ratio(x.idle, x.iteration)) + ", copies " +
               text_percent(ratio(x.copy, x.iteration));
    };
    t += "  Slowest rank of each iteration (mean iteration " +
         text_seconds(r.seconds(s.slowest.iteration) / static_cast<double>(s.iterations)) +
         "): " + line(s.slowest) + "\n";
    const auto gap = worst_ranks(
                         s, [](const StepTimes& x) { return x.gap; }, 2.0)
                         .first;
    const auto comm = worst_ranks(
                          s, [](const StepTimes& x) { return x.comm; }, 2.0)
                          .first;
    t += "  Largest gap: rank " + std::to_string(gap) + ": " + line(s.ranks.at(gap)) + "\n";
    if (comm != gap)
        t += "  Most communication: rank " + std::to_string(comm) + ": " + line(s.ranks.at(comm)) + "\n";
    t += "  Kernels " + std::to_string(s.all.kernels) + ", " + std::to_string(s.all.short_kernels) +
         " shorter than " + text_seconds(r.short_kernel_s) + "; host<->device copies " +
         text_percent(ratio(s.all.host_copy, s.all.busy)) + " of the GPU busy time (all ranks)\n";
    return t;
}

std::string step_trace_summary_csv(const StepTraceReport& r) {
    if (!r.present) return "";
    const UsedSums s = used_sums(r);
    const StepTimes& x = s.slowest;
    return "step_trace,gap_share," + share(x.gap, x.iteration, "") +
           ",fraction,iteration gap / iteration time of the slowest rank over the iterations used\n"
           "step_trace,compute_share," +
           share(x.compute, x.iteration, "") +
           ",fraction,GPU computation (non-NCCL kernels' union) / iteration time\n"
           "step_trace,comm_share," +
           share(x.comm, x.iteration, "") +
           ",fraction,union of NCCL kernels and MPI calls / iteration time\n" + "step_trace,idle_share," +
           share(x.idle, x.iteration, "") + ",fraction,GPU idle inside the step / iteration time\n";
}

std::vector<Finding> step_trace_findings(const StepTraceReport& r, const StepTraceThresholds& th) {
    std::vector<Finding> findings;
    if (!r.present) return findings;
    const UsedSums s = used_sums(r);
    if (s.ranks.empty() || s.all.iteration <= 0) return findings;
    const std::string over = " in iterations " + std::to_string(r.used_first) + " to " +
                             std::to_string(r.used_last) + ", " + r.used;
    const auto rank_list = [](const std::vector<std::uint32_t>& ranks) {
        std::vector<std::int64_t> out;
        for (std::size_t i = 0; i < ranks.size() && i < 3; ++i) out.push_back(ranks[i]);
        return out;
    };
    const auto [gap_rank, gap_ranks] = worst_ranks(
        s, [](const StepTimes& x) { return x.gap; }, th.gap_share);
    if (!gap_ranks.empty()) {
        const StepTimes& w = s.ranks.at(gap_rank);
        Finding f;
        f.kind = "step_gap";
        f.ranks = rank_list(gap_ranks);
        f.metric = "gap_share";
        f.value = ratio(w.gap, w.iteration);
        f.stake = f.value;  // of that rank's time, which the others wait for at the next collective
        f.threshold = th.gap_share;
        f.time_s = r.seconds(w.gap);
        f.message =
            "GPU idle while the host runs: on rank " + std::to_string(gap_rank) +
            " the iteration gap (the end of one step's GPU work to the next step's first kernel) is " +
            text_percent(f.value) + " of the iteration time (" + text_seconds(*f.time_s) + " of " +
            text_seconds(r.seconds(w.iteration)) + over + "), " + std::to_string(gap_ranks.size()) +
            (gap_ranks.size() == 1 ? " rank" : " ranks") + " above " + text_percent(th.gap_share) +
            ". The host is loading data or host-bound between steps: load and pre-process "
            "asynchronously (more data-loader workers, prefetching, pinned memory), move "
            "pre-processing to the GPU, and launch the next step's work before waiting for results "
            "[MindSpore's iteration gap]";
        findings.push_back(std::move(f));
    }
    if (s.all.kernels > 0 && ratio(static_cast<Ticks>(s.all.short_kernels),
                                   static_cast<Ticks>(s.all.kernels)) > th.short_kernel_share) {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> most;
        for (const auto& [rank, t] : s.ranks)
            if (t.short_kernels > 0) most.emplace_back(UINT64_MAX - t.short_kernels, rank);
        std::sort(most.begin(), most.end());
        Finding f;
        f.kind = "short_kernels";
        for (std::size_t i = 0; i < most.size() && i < 3; ++i) f.ranks.push_back(most[i].second);
        f.metric = "short_kernel_share";
        f.value = static_cast<double>(s.all.short_kernels) / static_cast<double>(s.all.kernels);
        f.threshold = th.short_kernel_share;
        f.time_s = static_cast<double>(s.all.short_kernels) * launch_overhead_estimate_s;
        f.stake = *f.time_s / r.seconds(s.all.iteration);  // of all ranks' iteration time
        f.message = std::to_string(s.all.short_kernels) + " of " + std::to_string(s.all.kernels) +
                    " kernels (" + text_percent(f.value) + ") ran shorter than " +
                    text_seconds(r.short_kernel_s) + " (" + text_seconds(r.seconds(s.all.short_kernel_time)) +
                    " of kernel time" + over + "): launching them costs about " + text_seconds(*f.time_s) +
                    " of host time (" + text_seconds(launch_overhead_estimate_s) +
                    " per launch), and the GPU waits for launches between them. Capture the step in a CUDA "
                    "graph (one launch for all its kernels) or fuse the small kernels (torch.compile, XLA, "
                    "custom fused kernels)";
        findings.push_back(std::move(f));
    }
    if (s.all.busy > 0 && ratio(s.all.host_copy, s.all.busy) > th.copy_share) {
        std::vector<std::pair<Ticks, std::uint32_t>> most;
        for (const auto& [rank, t] : s.ranks)
            if (t.host_copy > 0) most.emplace_back(-t.host_copy, rank);
        std::sort(most.begin(), most.end());
        Finding f;
        f.kind = "host_copies";
        for (std::size_t i = 0; i < most.size() && i < 3; ++i) f.ranks.push_back(most[i].second);
        f.metric = "host_copy_share_of_busy";
        f.value = ratio(s.all.host_copy, s.all.busy);
        f.threshold = th.copy_share;
        f.time_s = r.seconds(s.all.host_copy);
        f.stake = *f.time_s / r.seconds(s.all.iteration);
        f.message =
            "Host<->device copies (HtoD and DtoH) take " + text_percent(f.value) + " of the GPU busy time (" +
            text_seconds(*f.time_s) + " of " + text_seconds(r.seconds(s.all.busy)) + ", all ranks" + over +
            (most.empty() ? std::string()
                          : "; most on rank " + std::to_string(most.front().second) + ", " +
                                text_seconds(r.seconds(-most.front().first))) +
            "). Copy from pinned (page-locked) host memory, with cudaMemcpyAsync on a stream of its own "
            "so that copies overlap computation, keep data on the GPU between steps, and copy fewer, "
            "larger blocks";
        findings.push_back(std::move(f));
    }
    const auto [comm_rank, comm_ranks] = worst_ranks(
        s, [](const StepTimes& x) { return x.comm; }, th.comm_share);
    if (!comm_ranks.empty()) {
        const StepTimes& w = s.ranks.at(comm_rank);
        Finding f;
        f.kind = "step_communication";
        f.ranks = rank_list(comm_ranks);
        f.metric = "comm_share";
        f.value = ratio(w.comm, w.iteration);
        f.stake = f.value;
        f.threshold = th.comm_share;
        f.time_s = r.seconds(w.comm);
        f.message =
            "Communication dominates the step: on rank " + std::to_string(comm_rank) +
            " NCCL kernels and MPI "
            "calls take " +
            text_percent(f.value) + " of the iteration time (" + text_seconds(*f.time_s) + " of " +
            text_seconds(r.seconds(w.iteration)) + over + "; NCCL kernels " +
            text_seconds(r.seconds(w.nccl)) + ", MPI " + text_seconds(r.seconds(w.mpi)) +
            ", counted once where they overlap). Overlap communication with computation (gradient "
            "buckets reduced during the backward pass, DDP's overlap), communicate less often or in "
            "larger messages, and look at the wait states: time in a collective is often waiting for a "
            "slower rank";
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace strata::analysis::trace
