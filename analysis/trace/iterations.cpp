// SPDX-License-Identifier: BSD-3-Clause
// Iterations cut by a key region (see iterations.hpp).
#include "trace/iterations.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analyze/report_format.hpp"
#include "trace/byte_codec.hpp"
#include "trace/gpu_analysis.hpp"

namespace strata::analysis::trace {

KeyChoice choose_key_region(const TraceDefinitions& definitions, const IterationOptions& options) {
    KeyChoice key;
    key.is_key.assign(definitions.regions.size(), 0);
    if (!options.key_region.empty()) {
        // Every region of that name: the same name may be defined in several files.
        for (std::size_t r = 0; r < definitions.regions.size(); ++r) {
            if (definitions.regions[r].name == options.key_region) key.is_key[r] = 1;
        }
        key.name = options.key_region;
        key.how = "--key-region";
        key.unknown = std::find(key.is_key.begin(), key.is_key.end(), 1) == key.is_key.end();
        return key;
    }
    for (std::size_t r = 0; r < definitions.regions.size(); ++r) {
        const TraceRegion& region = definitions.regions[r];
        if ((region.flags & OTF2_REGION_FLAG_PHASE) == 0) continue;
        if (key.name.empty()) {
            key.name = region.name;
            key.how = "phase flag";
        }
        if (region.name == key.name) {
            key.is_key[r] = 1;
        } else if (std::find(key.other_phases.begin(), key.other_phases.end(), region.name) ==
                   key.other_phases.end()) {
            key.other_phases.push_back(region.name);
        }
    }
    return key;
}

std::string iteration_box(const ShareRecords& records, bool with_visits) {
    ByteWriter w;
    w.put<std::uint8_t>(with_visits ? 1 : 0);
    w.put<std::uint64_t>(records.iterations.size());
    for (const auto& [rank, it] : records.iterations) {
        w.put(rank);
        w.put(it.first);
        w.put(it.last);
        // The rank's first CPU location that calls the key region (normally its
        // master thread): threads of an OpenMP team would count each step again.
        std::vector<Ticks> ends = it.key_ends.empty() ? std::vector<Ticks>{} : it.key_ends.begin()->second;
        std::sort(ends.begin(), ends.end());
        w.put<std::uint64_t>(ends.size());
        for (Ticks t : ends) w.put(t);
        if (!with_visits) continue;
        w.put<std::uint64_t>(it.visits.size());
        for (const auto& [region, v] : it.visits) {
            w.put(region);
            w.put(v.calls);
            w.put(v.first);
            w.put(v.last);
            w.put(v.gaps);
            w.put(v.gap_sum);
            w.put(v.gap_squares);
        }
    }
    return std::move(w.bytes());
}

namespace {

struct RankBox {
    Ticks first = no_time, last = no_time;
    std::vector<Ticks> ends;
};

std::string range_text(std::size_t iterations) {
    return "the trace has " + std::to_string(iterations) + (iterations == 1 ? " iteration" : " iterations") +
           ", numbered 0 to " + std::to_string(iterations == 0 ? 0 : iterations - 1);
}

std::vector<Candidate> candidates_of(const std::map<std::uint32_t, std::map<std::uint32_t, RegionVisits>>& visits,
                                     const TraceDefinitions& definitions, std::size_t ranks, Ticks begin, Ticks end,
                                     std::size_t top) {
    std::map<std::string, Candidate> by_name;
    for (const auto& [rank, regions] : visits) {
        std::map<std::string, RegionVisits> mine;  // names may repeat across references
        for (const auto& [region, v] : regions) {
            if (region >= definitions.regions.size()) continue;
            const TraceRegion& r = definitions.regions[region];
            // MPI, CUDA API calls and Strata's own regions do not mark steps.
            if (r.paradigm == OTF2_PARADIGM_MPI || r.paradigm == OTF2_PARADIGM_CUDA ||
                r.paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM)
                continue;
            RegionVisits& m = mine[r.name];
            m.first = m.calls == 0 ? v.first : std::min(m.first, v.first);
            m.last = m.calls == 0 ? v.last : std::max(m.last, v.last);
            m.calls += v.calls;
            m.gaps += v.gaps;
            m.gap_sum += v.gap_sum;
            m.gap_squares += v.gap_squares;
        }
        for (const auto& [name, v] : mine) {
            Candidate& c = by_name[name];
            c.name = name;
            c.gaps += v.gaps;
            c.gap_sum += v.gap_sum;
            c.gap_squares += v.gap_squares;
            c.first = c.ranks == 0 ? v.first : std::min(c.first, v.first);
            c.last = c.ranks == 0 ? v.last : std::max(c.last, v.last);
            c.min_calls = c.ranks == 0 ? v.calls : std::min(c.min_calls, v.calls);
            c.max_calls = std::max(c.max_calls, v.calls);
            ++c.ranks;
        }
    }
    std::vector<Candidate> list;
    for (auto& [name, c] : by_name) {
        if (c.max_calls < 2) continue;
        // A step's region recurs over the run: set-up and tear-down regions
        // called a few times at one end of it do not.
        c.spans_run = end > begin && 2 * (c.last - c.first) >= end - begin;
        // How much the time between two calls varies: its standard deviation over its mean.
        if (c.gaps > 0 && c.gap_sum > 0) {
            const double mean = c.gap_sum / static_cast<double>(c.gaps);
            const double variance = std::max(0.0, c.gap_squares / static_cast<double>(c.gaps) - mean * mean);
            c.variation = std::sqrt(variance) / mean;
        }
        list.push_back(c);
    }
    // DLProf's advice: called once per step on every rank, early in the step.
    // A step recurs regularly: the most regular first (in steps of 5 % of
    // variation); of those alike, the one called most often (a region called
    // every 50 steps is as regular as the step, and fewer calls are no
    // reason to prefer it), then the earliest.
    const auto bucket = [](const Candidate& c) {
        return c.variation < 0 ? INT64_MAX : static_cast<std::int64_t>(c.variation / 0.05);
    };
    std::stable_sort(list.begin(), list.end(), [&](const Candidate& a, const Candidate& b) {
        if (a.spans_run != b.spans_run) return a.spans_run;
        const bool ea = a.ranks == ranks && a.min_calls == a.max_calls,
                   eb = b.ranks == ranks && b.min_calls == b.max_calls;
        if (ea != eb) return ea;
        if (bucket(a) != bucket(b)) return bucket(a) < bucket(b);
        if (a.max_calls != b.max_calls) return a.max_calls > b.max_calls;
        if (a.first != b.first) return a.first < b.first;
        return a.name < b.name;
    });
    if (list.size() > top) list.resize(top);
    return list;
}

}  // namespace

IterationPlan make_plan(const KeyChoice& key, const std::vector<std::string>& boxes,
                        const TraceDefinitions& definitions, const IterationOptions& options) {
    IterationPlan plan;
    plan.key = key;
    std::map<std::uint32_t, RankBox> ranks;
    std::map<std::uint32_t, std::map<std::uint32_t, RegionVisits>> visits;
    for (const std::string& box : boxes) {
        ByteReader in(box);
        if (in.done()) continue;
        const bool with_visits = in.get<std::uint8_t>() != 0;
        const auto n = in.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto rank = in.get<std::uint32_t>();
            RankBox& r = ranks[rank];
            r.first = in.get<Ticks>();
            r.last = in.get<Ticks>();
            const auto ends = in.get<std::uint64_t>();
            for (std::uint64_t e = 0; e < ends; ++e) r.ends.push_back(in.get<Ticks>());
            if (!with_visits) continue;
            const auto v = in.get<std::uint64_t>();
            for (std::uint64_t e = 0; e < v; ++e) {
                const auto region = in.get<std::uint32_t>();
                RegionVisits& visit = visits[rank][region];
                visit.calls = in.get<std::uint64_t>();
                visit.first = in.get<Ticks>();
                visit.last = in.get<Ticks>();
                visit.gaps = in.get<std::uint64_t>();
                visit.gap_sum = in.get<double>();
                visit.gap_squares = in.get<double>();
            }
        }
    }
    bool any = false;
    for (const auto& [rank, r] : ranks) {
        if (r.first == no_time) continue;
        plan.begin = any ? std::min(plan.begin, r.first) : r.first;
        plan.end = any ? std::max(plan.end, r.last) : r.last;
        any = true;
        plan.ranks.push_back(rank);
        plan.ends.push_back(r.ends);
    }
    if (!visits.empty()) {
        plan.candidates =
            candidates_of(visits, definitions, plan.ranks.size(), plan.begin, plan.end, options.candidates);
    }
    plan.instrumented = std::any_of(definitions.regions.begin(), definitions.regions.end(),
                                    [](const TraceRegion& r) { return r.paradigm == OTF2_PARADIGM_COMPILER; });

    // The Nth instance on each rank; the latest of them splits iterations N-1 and N.
    if (!key.name.empty() && !key.unknown && !plan.ranks.empty()) {
        plan.min_count = plan.ends.front().size();
        for (const auto& e : plan.ends) {
            plan.min_count = std::min<std::uint64_t>(plan.min_count, e.size());
            plan.max_count = std::max<std::uint64_t>(plan.max_count, e.size());
        }
        plan.counts_differ = plan.min_count != plan.max_count;
        plan.instances = plan.min_count;
    }
    plan.bounds.push_back(plan.begin);
    for (std::size_t n = 0; n < plan.instances; ++n) {
        Ticks b = plan.ends.front()[n];
        for (const auto& e : plan.ends) b = std::max(b, e[n]);
        plan.bounds.push_back(b);
    }
    plan.bounds.push_back(std::max(plan.end, plan.bounds.back()));

    const auto count = static_cast<std::int64_t>(plan.iterations());
    if (key.unknown) {
        plan.problem = "--key-region '" + key.name + "': no region of that name in the trace";
    } else if (options.start >= count) {
        plan.problem = "--iter-start " + std::to_string(options.start) +
                       " is beyond the last iteration: " + range_text(plan.iterations());
    } else if (options.stop >= count) {
        plan.problem = "--iter-stop " + std::to_string(options.stop) +
                       " is beyond the last iteration: " + range_text(plan.iterations());
    }
    plan.first = options.start >= 0 ? options.start : 0;
    plan.last = options.stop >= 0 ? options.stop : count - 1;
    plan.restricted = (options.start >= 0 || options.stop >= 0) && plan.problem.empty();
    if (plan.restricted) {
        plan.window_begin = plan.bounds[static_cast<std::size_t>(plan.first)];
        // The last interval includes the trace's last timestamp.
        plan.window_end = plan.last + 1 == count ? plan.bounds.back() + 1
                                                 : plan.bounds[static_cast<std::size_t>(plan.last) + 1];
    }
    return plan;
}

IterationReport iteration_report(const IterationPlan& plan, std::uint64_t timer_resolution) {
    IterationReport report;
    report.plan = plan;
    report.timer_resolution = timer_resolution == 0 ? 1 : timer_resolution;
    const std::size_t n = plan.iterations();
    std::vector<Ticks> durations;
    for (std::size_t i = 0; i < n; ++i) {
        IterationRow row;
        row.index = i;
        row.begin = plan.bounds[i];
        row.end = plan.bounds[i + 1];
        Ticks low = 0, high = 0;
        for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
            const Ticks from = i == 0 ? plan.begin : plan.ends[r][i - 1];
            const Ticks to = i == plan.instances ? plan.bounds.back() : plan.ends[r][i];
            const Ticks t = to - from;
            row.rank_times.push_back(t);
            if (r == 0 || t > high) {
                high = t;
                row.slowest = r;
            }
            low = r == 0 ? t : std::min(low, t);
        }
        row.spread = high - low;
        row.aggregated =
            static_cast<std::int64_t>(i) >= plan.first && static_cast<std::int64_t>(i) <= plan.last;
        durations.push_back(row.end - row.begin);
        report.rows.push_back(std::move(row));
    }
    if (n == 0) return report;
    std::vector<Ticks> sorted = durations;
    std::sort(sorted.begin(), sorted.end());
    const double median =
        n % 2 == 1 ? static_cast<double>(sorted[n / 2])
                   : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
    report.median_s = median / static_cast<double>(report.timer_resolution);
    // Outliers need a reference: with fewer than 3 iterations nothing is flagged.
    bool seen_regular = false;
    for (std::size_t i = 0; i < n; ++i) {
        IterationRow& row = report.rows[i];
        row.outlier =
            n >= 3 && std::fabs(static_cast<double>(durations[i]) - median) > outlier_tolerance * median;
        row.warmup = row.outlier && !seen_regular;
        seen_regular = seen_regular || !row.outlier;
    }
    std::int64_t run_start = -1, best_start = -1, best_length = 0;
    for (std::size_t i = 0; i <= n; ++i) {
        if (i < n && !report.rows[i].outlier) {
            if (run_start < 0) run_start = static_cast<std::int64_t>(i);
            continue;
        }
        if (run_start >= 0 && static_cast<std::int64_t>(i) - run_start > best_length) {
            best_start = run_start;
            best_length = static_cast<std::int64_t>(i) - run_start;
        }
        run_start = -1;
    }
    if (best_start >= 0) {
        report.stable_first = best_start;
        report.stable_last = best_start + best_length - 1;
        for (std::int64_t i = report.stable_first; i <= report.stable_last; ++i)
            report.rows[static_cast<std::size_t>(i)].stable = true;
    }
    // Mean and (population) standard deviation over the aggregated iterations.
    double sum = 0, squares = 0;
    std::size_t used = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!report.rows[i].aggregated) continue;
        const double d = report.seconds(durations[i]);
        sum += d;
        ++used;
    }
    if (used > 0) {
        report.mean_s = sum / static_cast<double>(used);
        for (std::size_t i = 0; i < n; ++i) {
            if (!report.rows[i].aggregated) continue;
            const double d = report.seconds(durations[i]) - report.mean_s;
            squares += d * d;
        }
        report.stddev_s = std::sqrt(squares / static_cast<double>(used));
    }
    return report;
}

void add_gpu_iterations(IterationReport& report, const std::vector<DeviceIterations>& devices) {
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        IterationRow& row = report.rows[i];
        Ticks least = 0;
        for (const DeviceIterations& d : devices) {
            if (i >= d.busy.size()) continue;
            const Ticks b = d.busy[i];
            if (row.gpus == 0 || b < least) {
                least = b;
                row.least_busy_gpu = "GPU " + std::to_string(d.device) + " of rank " + std::to_string(d.rank);
            }
            row.gpu_busy_max = row.gpus == 0 ? b : std::max(row.gpu_busy_max, b);
            row.gpu_busy += b;
            ++row.gpus;
        }
    }
}

namespace {

/// Mean busy time of the GPUs, the largest, mean / max (METRICS.md's GPU imbalance); "" without GPUs.
std::vector<std::string> gpu_fields(const IterationReport& r, const IterationRow& row) {
    if (row.gpus == 0) return {"", "", "", ""};
    const double mean = r.seconds(row.gpu_busy) / static_cast<double>(row.gpus),
                 max = r.seconds(row.gpu_busy_max);
    return {format_number(mean), format_number(max), max > 0 ? format_number(mean / max) : "",
            row.least_busy_gpu};
}

std::string flag_of(const IterationRow& row) {
    if (row.warmup) return "warm-up";
    if (row.outlier) return "outlier";
    return "";
}

std::string key_source(const IterationPlan& plan) {
    if (plan.key.name.empty()) return "none";
    return plan.key.how;
}

}  // namespace

std::string iterations_csv(const IterationReport& r) {
    const IterationPlan& p = r.plan;
    std::string t =
        "iteration,begin_s,end_s,duration_s,slowest_rank,min_rank_s,max_rank_s,spread_s,flag,"
        "aggregated,stable,gpu_busy_mean_s,gpu_busy_max_s,gpu_imbalance,least_busy_gpu";
    for (std::uint32_t rank : p.ranks) t += ",rank_" + std::to_string(rank) + "_s";
    t += "\n";
    for (const IterationRow& row : r.rows) {
        Ticks low = 0, high = 0;
        if (!row.rank_times.empty()) {
            low = *std::min_element(row.rank_times.begin(), row.rank_times.end());
            high = *std::max_element(row.rank_times.begin(), row.rank_times.end());
        }
        t += std::to_string(row.index) + "," + format_number(r.seconds(row.begin - p.begin)) + "," +
             format_number(r.seconds(row.end - p.begin)) + "," +
             format_number(r.seconds(row.end - row.begin)) + "," +
             (p.ranks.empty() ? std::string() : std::to_string(p.ranks[row.slowest])) + "," +
             format_number(r.seconds(low)) + "," + format_number(r.seconds(high)) + "," +
             format_number(r.seconds(row.spread)) + "," + flag_of(row) + "," + (row.aggregated ? "1" : "0") +
             "," + (row.stable ? "1" : "0");
        const std::vector<std::string> gpu = gpu_fields(r, row);
        t += "," + gpu[0] + "," + gpu[1] + "," + gpu[2] + "," + csv_field(gpu[3]);
        for (Ticks v : row.rank_times) t += "," + format_number(r.seconds(v));
        t += "\n";
    }
    return t;
}

std::string iterations_json(const IterationReport& r) {
    const IterationPlan& p = r.plan;
    std::string t = "{\n  \"report\": \"iterations\",\n";
    t += "  \"definitions\": {\"intervals\": \"DLProf: with N key-region instances ending at k1 < ... < kN, "
         "the "
         "iterations are [T0, k1), [k1, k2), ..., [kN, T1], N + 1 of them; T0/T1 the first/last timestamp of "
         "the "
         "trace\", \"ranks\": \"DLProf's multi-GPU rule: the n-th instance on each rank, the latest n-th end "
         "splits iterations n-1 and n; different counts are aligned by index up to the smallest\", "
         "\"rank_time\": \"on each rank, from its own (n-1)-th to its n-th key-region end\", \"duration\": "
         "\"the iteration's interval, i.e. set by the slowest rank\", \"spread\": \"max - min of the rank "
         "times\", \"outlier\": \"|duration - median| > " +
         format_number(outlier_tolerance) +
         " x median; outliers before the first regular iteration are warm-up\", \"stable_range\": \"the "
         "longest run of consecutive regular iterations\", \"mean_stddev\": \"over the aggregated iterations "
         "(population standard deviation)\", \"times\": \"seconds from T0, on rank 0's clock\", \"gpu\": "
         "\"per GPU, the union of its kernel intervals "
         "cut to the iteration (not to --iter-start/--iter-stop); mean and max over the GPUs, imbalance = "
         "mean / "
         "max (METRICS.md)\"},\n";
    t += "  \"key_region\": " + (p.key.name.empty() ? std::string("null") : json_string(p.key.name)) +
         ",\n  \"key_source\": " + json_string(key_source(p)) + ",\n";
    t += "  \"instances\": " + std::to_string(p.instances) +
         ",\n  \"iterations\": " + std::to_string(p.iterations()) +
         ",\n  \"counts_differ\": " + (p.counts_differ ? "true" : "false") +
         ",\n  \"min_count\": " + std::to_string(p.min_count) +
         ",\n  \"max_count\": " + std::to_string(p.max_count) + ",\n";
    t += "  \"aggregated\": {\"start\": " + std::to_string(p.first) +
         ", \"stop\": " + std::to_string(p.last) + ", \"restricted\": " + (p.restricted ? "true" : "false") +
         "},\n";
    t += "  \"mean_s\": " + format_number(r.mean_s) + ",\n  \"stddev_s\": " + format_number(r.stddev_s) +
         ",\n  \"median_s\": " + format_number(r.median_s) + ",\n";
    t += "  \"stable_range\": " +
         (r.stable_first < 0 ? std::string("null")
                             : "{\"start\": " + std::to_string(r.stable_first) +
                                   ", \"stop\": " + std::to_string(r.stable_last) + "}") +
         ",\n";
    t += "  \"ranks\": [";
    for (std::size_t i = 0; i < p.ranks.size(); ++i) t += (i > 0 ? ", " : "") + std::to_string(p.ranks[i]);
    t += "],\n  \"candidates\": [";
    for (std::size_t i = 0; i < p.candidates.size(); ++i) {
        const Candidate& c = p.candidates[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"region\": " + json_string(c.name) +
             ", \"min_calls_per_rank\": " + std::to_string(c.min_calls) +
             ", \"max_calls_per_rank\": " + std::to_string(c.max_calls) +
             ", \"ranks\": " + std::to_string(c.ranks) +
             ", \"first_enter_s\": " + format_number(r.seconds(c.first - p.begin)) +
             ", \"last_enter_s\": " + format_number(r.seconds(c.last - p.begin)) +
             ", \"spans_run\": " + (c.spans_run ? "true" : "false") +
             ", \"variation\": " + (c.variation < 0 ? std::string("null") : format_number(c.variation)) + "}";
    }
    t += p.candidates.empty() ? "],\n" : "\n  ],\n";
    t += "  \"rows\": [";
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const IterationRow& row = r.rows[i];
        t += std::string(i > 0 ? "," : "") + "\n    {\"iteration\": " + std::to_string(row.index) +
             ", \"begin_s\": " + format_number(r.seconds(row.begin - p.begin)) +
             ", \"end_s\": " + format_number(r.seconds(row.end - p.begin)) +
             ", \"duration_s\": " + format_number(r.seconds(row.end - row.begin)) + ", \"slowest_rank\": " +
             (p.ranks.empty() ? std::string("null") : std::to_string(p.ranks[row.slowest])) +
             ", \"spread_s\": " + format_number(r.seconds(row.spread)) +
             ", \"flag\": " + (flag_of(row).empty() ? std::string("null") : json_string(flag_of(row))) +
             ", \"aggregated\": " + (row.aggregated ? "true" : "false") +
             ", \"stable\": " + (row.stable ? "true" : "false");
        const std::vector<std::string> gpu = gpu_fields(r, row);
        t += ", \"gpu_busy_mean_s\": " + (gpu[0].empty() ? "null" : gpu[0]) +
             ", \"gpu_busy_max_s\": " + (gpu[1].empty() ? "null" : gpu[1]) +
             ", \"gpu_imbalance\": " + (gpu[2].empty() ? "null" : gpu[2]) +
             ", \"least_busy_gpu\": " + (gpu[3].empty() ? std::string("null") : json_string(gpu[3])) +
             ", \"rank_times_s\": [";
        for (std::size_t k = 0; k < row.rank_times.size(); ++k)
            t += (k > 0 ? ", " : "") + format_number(r.seconds(row.rank_times[k]));
        t += "]}";
    }
    t += r.rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return t;
}

namespace {

std::string candidate_list(const IterationReport& r) {
    std::string t;
    for (std::size_t i = 0; i < r.plan.candidates.size(); ++i) {
        const Candidate& c = r.plan.candidates[i];
        t += (i > 0 ? ", " : "") + c.name + " (" + std::to_string(c.min_calls) +
             (c.min_calls == c.max_calls ? "" : "-" + std::to_string(c.max_calls)) + " calls per rank on " +
             std::to_string(c.ranks) + (c.ranks == 1 ? " rank" : " ranks") +
             (c.variation < 0 ? std::string() : ", spacing varies " + text_percent(c.variation)) + ")";
    }
    if (!t.empty()) return t;
    // MPI calls are left out above; a program measured without function
    // instrumentation may have nothing else.
    if (r.plan.instrumented)
        return "none: no function or region other than MPI calls, CUDA API calls and Strata's own is called twice "
               "or more (a filter file may leave the step's function out). Mark the step with "
               "STRATA_PHASE_BEGIN/STRATA_PHASE_END, or name an MPI call made once per step with --key-region";
    return "none: no region other than MPI calls, CUDA API calls and Strata's own is called twice or more "
           "(a program measured through strata-preload or built with --no-compiler has only those). Mark the "
           "step with STRATA_PHASE_BEGIN/STRATA_PHASE_END, build with the strata compiler wrapper, or name an "
           "MPI call made once per step with --key-region";
}

}  // namespace

std::string iterations_text(const IterationReport& r) {
    const IterationPlan& p = r.plan;
    std::string t =
        "Iterations (DLProf's rule: N key-region instances give N + 1 iterations; the n-th instance "
        "on each rank, the latest ends the iteration):\n";
    if (p.key.name.empty() || p.instances == 0) {
        t +=
            "  0 iterations found: " +
            (p.key.name.empty() ? std::string("no key region given (--key-region) and none marked as a phase")
                                : "the key region " + p.key.name + " has no complete instance on some rank") +
            "; the whole run is one iteration.\n";
        t += "  Candidates, the most regularly recurring first (choose one called once per step, early in it, and pass it with "
             "--key-region NAME): " +
             candidate_list(r) + "\n";
        return t;
    }
    t += "  Key region " + p.key.name + " (" +
         (p.key.how == "phase flag" ? "marked as a phase" : "--key-region") +
         "): " + std::to_string(p.instances) + " instances per rank, " + std::to_string(p.iterations()) +
         " iterations\n";
    if (p.counts_differ)
        t += "  The ranks call it " + std::to_string(p.min_count) + " to " + std::to_string(p.max_count) +
             " times: aligned by index up to " + std::to_string(p.min_count) + "\n";
    if (!p.key.other_phases.empty()) {
        t += "  Other phases, not used:";
        for (const std::string& o : p.key.other_phases) t += " " + o;
        t += "\n";
    }
    t += "  Aggregated iterations " + std::to_string(p.first) + " to " + std::to_string(p.last) +
         (p.restricted ? " (--iter-start/--iter-stop; the wait states and GPU times are restricted to them)"
                       : "") +
         ": mean " + text_seconds(r.mean_s) + ", standard deviation " + text_seconds(r.stddev_s) +
         " (over those iterations); median of all " + text_seconds(r.median_s) + "\n";
    std::string flagged;
    for (const IterationRow& row : r.rows) {
        if (row.outlier)
            flagged += (flagged.empty() ? "" : ", ") + std::to_string(row.index) + " (" + flag_of(row) +
                       ", " + text_seconds(r.seconds(row.end - row.begin)) + ")";
    }
    if (!flagged.empty())
        t += "  Unstable iterations (more than " + text_percent(outlier_tolerance) +
             " from the median): " + flagged + "\n";
    if (r.stable_first >= 0)
        t += "  Stable range suggested: --iter-start " + std::to_string(r.stable_first) + " --iter-stop " +
             std::to_string(r.stable_last) + "\n";
    return t;
}

std::string iterations_summary_csv(const IterationReport& r) {
    const IterationPlan& p = r.plan;
    std::string t = "iterations,found," + std::to_string(p.instances == 0 ? 0 : p.iterations()) +
                    ",count,N key-region instances give N + 1 iterations (DLProf)\n";
    t += "iterations,mean," + format_number(r.mean_s) + ",s,over the aggregated iterations\n";
    t += "iterations,stddev," + format_number(r.stddev_s) + ",s,population standard deviation\n";
    return t;
}

std::string unknown_key_message(const IterationReport& r) {
    if (!r.plan.key.unknown) return r.plan.problem;
    return r.plan.problem + "; candidates, the most regularly recurring first: " + candidate_list(r);
}

}  // namespace strata::analysis::trace
