// SPDX-License-Identifier: BSD-3-Clause
// The summary report in its three forms (see summary_report.hpp).
#include "analyze/summary_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analyze/report_format.hpp"

namespace strata::analysis {
namespace {

constexpr std::size_t class_index(TimeClass c) {
    return static_cast<std::size_t>(c);
}

// ---- the definitions, one text for every form ----------------------------

const char* const def_wall =
    "max over measured ranks of the root call paths' inclusive time on the rank's busiest CPU thread, "
    "MPI_Init/MPI_Finalize included";
const char* const def_run_apart =
    "R: the wall time without MPI_Init and MPI_Finalize (MPI start-up and shut-down are not the program's "
    "work; "
    "--include-mpi-init keeps them)";
const char* const def_run_included =
    "R: the wall time, MPI_Init and MPI_Finalize included (--include-mpi-init)";
const char* const def_useful =
    "U_p: useful computation time of rank p = exclusive time in call paths of class computation (region "
    "paradigm not mpi, cuda or measurement, and no OpenMP synchronisation), summed over the rank's CPU "
    "threads and divided by their number";
const char* const def_lb = "load balance LB = mean_p U_p / max_p U_p (POP, multiplicative)";
const char* const def_comm = "communication efficiency CommE = max_p U_p / R (POP)";
const char* const def_pe = "parallel efficiency PE = LB x CommE = mean_p U_p / R (POP)";
const char* const def_class[time_class_count] = {
    "exclusive time summed over all CPU threads in call paths whose region's paradigm is not mpi, cuda or "
    "measurement, OpenMP synchronisation excepted",
    "exclusive time summed over all CPU threads in call paths of paradigm mpi, file I/O apart",
    "exclusive time summed over all CPU threads in file input/output: regions of role file_io and MPI-IO "
    "(MPI_File_*)",
    "exclusive time summed over all CPU threads in OpenMP synchronisation (barriers, taskwait, critical, "
    "ordered, atomic, locks, task creation)",
    "exclusive time summed over all CPU threads in CUDA API calls that wait for the GPU (*Synchronize*, "
    "blocking cudaMemcpy*/cuMemcpy*)",
    "exclusive time summed over all CPU threads in the other CUDA API calls (launches, allocation, "
    "asynchronous copies)",
    "exclusive time summed over all CPU threads in call paths of paradigm measurement (Strata's own work)",
    "exclusive time summed over all CPU threads in MPI_Init, MPI_Init_thread, MPI_Finalize and below them "
    "(set apart; 0 with --include-mpi-init)"};
const char* const def_program =
    "computation + mpi + io + openmp + gpu_wait + cuda_api + measurement: every class but mpi_init_finalize";

std::string means_over(const SummaryResult& s) {
    return "means over all " + std::to_string(s.ranks) + " measured ranks (every rank with a CPU thread)";
}

std::string run_definition(const SummaryResult& s) {
    return s.include_mpi_init ? def_run_included : def_run_apart;
}

/// The regions with the most exclusive time, summed over all CPU threads.
std::vector<const RowResult*> top_regions(const AnalysisResult& result, std::size_t top) {
    std::vector<const RowResult*> rows;
    for (const RowResult& row : result.regions) rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const RowResult* a, const RowResult* b) {
        if (a->total_s != b->total_s) return a->total_s > b->total_s;
        if (a->name != b->name) return a->name < b->name;
        return a->index < b->index;
    });
    if (rows.size() > top) rows.resize(top);
    return rows;
}

/// All exclusive time summed over CPU threads, MPI_Init/Finalize included (for region shares).
double all_time(const SummaryResult& s) {
    return s.program_s + s.class_s[class_index(TimeClass::mpi_init_finalize)];
}

std::string ratio_text(const std::optional<double>& value) {
    if (!value) return "n/a (a denominator is 0)";
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", *value);
    return text;
}

/// `first` followed by the words of `text`, wrapped at `width`; continuation
/// lines start with `indent`.
std::string wrap(const std::string& first, const std::string& text, std::size_t width,
                 const std::string& indent) {
    std::string out, line = first;
    bool empty_line = true;  // no word on the line yet
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        start = end + 1;
        if (word.empty()) continue;
        if (!empty_line && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line = indent;
            empty_line = true;
        }
        if (!empty_line) line += ' ';
        line += word;
        empty_line = false;
    }
    return out + line;
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}

std::string pad_left(std::string text, std::size_t width) {
    if (text.size() < width) text.insert(0, width - text.size(), ' ');
    return text;
}

}  // namespace

std::string trace_note(bool trace_present) {
    if (trace_present)
        return "This experiment has a trace (traces.otf2), but it was not analysed. Everything above comes from "
               "profile.h5.";
    return "This experiment has no trace: the wait states (late sender, late receiver, waiting at barriers and "
           "collectives) need one; measure with STRATA_ENABLE_TRACING=true. Everything above comes from "
           "profile.h5.";
}

std::string summary_text(const AnalysisResult& result, const std::vector<Finding>& findings,
                         const ReportSettings& settings) {
    const SummaryResult& s = result.summary;
    std::string t;
    const std::string title = "Strata analysis of " + s.experiment;
    t += title + "\n" + std::string(title.size(), '=') + "\n";
    t += "Profile      written by Strata " + s.strata_version + " at " + s.creation_time + ", timer " +
         s.timer + "\n";
    t += "Ranks        " + std::to_string(s.ranks) + " measured ranks, " + std::to_string(s.cpu_threads) +
         " CPU threads, " + std::to_string(s.gpu_streams) + " GPU streams" +
         (s.gpu_streams > 0 ? " (not analysed by this version)" : "") + "\n";
    t += "Wall time    " + text_seconds(s.wall_s) +
         (s.wall_rank >= 0 ? " (rank " + std::to_string(s.wall_rank) + ")" : "") + "\n" +
         wrap("             ", def_wall, 100, "             ") + "\n";
    t += "Run time R   " + text_seconds(s.run_s) +
         (s.run_rank >= 0 ? " (rank " + std::to_string(s.run_rank) + ")" : "") + "\n" +
         wrap("             ", run_definition(s), 100, "             ") + "\n";
    if (s.dropped_callpaths > 0)
        t += "Incomplete   " + std::to_string(s.dropped_callpaths) +
             " call paths were dropped by the profile (see the advice)\n";
    if (!s.incomplete.empty()) t += wrap("Incomplete   ", s.incomplete + " (INCOMPLETE)", 100, "             ") + "\n";

    t += "\nWhere the time goes (exclusive time summed over all " + std::to_string(s.cpu_threads) +
         " CPU threads; shares of the program time)\n";
    const struct {
        TimeClass c;
        const char* label;
        const char* what;
    } lines[] = {{TimeClass::computation, "computation", "the program's own work (POP's useful time)"},
                 {TimeClass::mpi, "MPI", "paradigm mpi (communication and synchronisation)"},
                 {TimeClass::io, "file I/O", "MPI-IO (MPI_File_*) and other file I/O regions"},
                 {TimeClass::openmp, "OpenMP sync", "OpenMP barriers, taskwait, critical, locks, ..."},
                 {TimeClass::gpu_wait, "GPU waiting", "CUDA calls that wait for the GPU (synchronise, copy)"},
                 {TimeClass::cuda_api, "CUDA API", "other CUDA calls (launches, allocation, async copies)"},
                 {TimeClass::measurement, "measurement", "paradigm measurement (Strata's own work)"}};
    for (const auto& line : lines) {
        const double seconds = s.class_s[class_index(line.c)];
        // Without CUDA there is no API time to show; GPU waiting is always said.  File I/O only where measured.
        if ((line.c == TimeClass::cuda_api && s.gpu_streams == 0) || line.c == TimeClass::io) {
            if (seconds == 0) continue;
        }
        const std::optional<double> share = s.share(line.c);
        t += "  " + pad(line.label, 19) + pad_left(text_seconds(seconds), 14) + "  " +
             pad_left(share ? text_percent(*share) : "-", 8) + "   " + line.what + "\n";
    }
    t += "  " + pad("program", 19) + pad_left(text_seconds(s.program_s), 14) + "  " +
         pad_left(s.program_s > 0 ? text_percent(1.0) : "-", 8) + "   all of the above\n";
    if (!s.include_mpi_init)
        t += "  " + pad("MPI_Init/Finalize", 19) +
             pad_left(text_seconds(s.class_s[class_index(TimeClass::mpi_init_finalize)]), 14) +
             "            set apart: MPI start-up and shut-down\n";

    t += "\nPOP efficiencies (POP Centre of Excellence; multiplicative load balance; 0.8 and above is "
         "usually\n"
         "called acceptable; " +
         means_over(s) + ")\n";
    t += wrap("  ", def_useful, 100, "        ") + "\n";
    if (s.ranks > 0) {
        t += "  mean U_p = " + text_seconds(s.pop.mean_useful_s) +
             ", max U_p = " + text_seconds(s.pop.max_useful_s) + " (rank " +
             std::to_string(s.pop.rank_at_max) + "), min U_p = " + text_seconds(s.pop.min_useful_s) +
             " (rank " + std::to_string(s.pop.rank_at_min) + ")\n";
    }
    t += "  Load balance              LB    = mean_p U_p / max_p U_p       = " +
         ratio_text(s.pop.load_balance) + "\n";
    t += "  Communication efficiency  CommE = max_p U_p / R                = " +
         ratio_text(s.pop.communication_efficiency) + "\n";
    t += "  Parallel efficiency       PE    = LB x CommE = mean_p U_p / R  = " +
         ratio_text(s.pop.parallel_efficiency) + "\n";

    t += "\nTop regions by exclusive time (summed over all CPU threads; shares of all of it)\n";
    t += "            time     share  paradigm      region\n";
    const double all = all_time(s);
    for (const RowResult* row : top_regions(result, settings.top)) {
        t += "  " + pad_left(text_seconds(row->total_s), 14) + "  " +
             pad_left(all > 0 ? text_percent(row->total_s / all) : "-", 8) + "  " + pad(row->paradigm, 12) +
             "  " + display_name(row->name) + "\n";
    }

    std::string ranks;
    const std::size_t shown = std::min(result.ranks.size(), settings.top);
    for (std::size_t i = 0; i < shown; ++i)
        ranks += std::string(i > 0 ? ", " : "") + std::to_string(result.ranks[i].rank) + " (" +
                 text_seconds(result.ranks[i].useful_s()) + ")";
    if (shown < result.ranks.size())
        ranks += ", ... (" + std::to_string(result.ranks.size() - shown) + " more in loadbalance_ranks.csv)";
    t += "\n" +
         wrap(result.threaded() ? "Ranks by useful time U_p (per CPU thread: each rank's mean over its threads), "
                                  "largest first: "
                                : "Ranks by useful time U_p, largest first: ",
              ranks, 100, "  ") +
         "\n";

    t += "\n" +
         wrap("Advice ",
              "(most of the run time at stake first, notes on the measurement last; findings with less than " +
                  text_percent(settings.advice.min_stake) + " at stake left out" +
                  (settings.findings_left_out > 0
                       ? " (" + std::to_string(settings.findings_left_out) + " here, --min-finding-share)"
                       : std::string(" (--min-finding-share)")) +
                  "; imbalance threshold " + text_percent(settings.advice.imbalance_threshold) +
                  " of the maximum, counted when the saving is at least " +
                  text_percent(imbalance_significance) +
                  " of max U_p (computation) or of R (MPI, OpenMP); MPI threshold " +
                  text_percent(settings.advice.mpi_threshold) + ", file I/O " +
                  text_percent(settings.advice.io_threshold) + ", OpenMP synchronisation " +
                  text_percent(settings.advice.openmp_threshold) +
                  (s.trace.analysed ? "; wait-state threshold " + text_percent(settings.advice.wait_threshold) +
                                          " of the trace's MPI time"
                                    : std::string()) +
                  ")",
              100, "  ") +
         "\n";
    if (findings.empty()) {
        t += "  No findings: no call path above the imbalance threshold, MPI below its threshold, no trace "
             "buffer\n"
             "  flushes, no dropped call paths";
        t += s.trace.analysed ? ", no wait state above its threshold.\n" : ".\n";
    }
    std::size_t number = 0, left_out = 0;
    std::map<std::string, std::size_t> of_kind;
    for (const Finding& f : findings) {
        if (++of_kind[f.kind] > settings.top) {
            ++left_out;
            continue;
        }
        const std::string label = "  " + std::to_string(++number) + ". ";
        const std::string stake = f.stake ? "[" + text_percent(*f.stake) + " at stake] " : "[note] ";
        t += wrap(label, stake + f.message, 100, std::string(label.size(), ' ')) + "\n";
    }
    if (left_out > 0)
        t += "  (" + std::to_string(left_out) + " more findings in advice.csv: at most " +
             std::to_string(settings.top) + " per kind are shown here)\n";

    const std::string note = s.trace.note.empty() ? trace_note(s.trace_present) : s.trace.note;
    t += "\n" + wrap("Trace: ", note, 100, "       ") + "\n";
    if (!s.trace.text.empty()) t += "\n" + s.trace.text;
    return t;
}

std::string summary_csv(const AnalysisResult& result, const ReportSettings& settings) {
    const SummaryResult& s = result.summary;
    std::string t = "section,name,value,unit,definition\n";
    const auto row = [&t](const std::string& section, const std::string& name, const std::string& value,
                          const std::string& unit, const std::string& definition) {
        t += csv_field(section) + "," + csv_field(name) + "," + csv_field(value) + "," + unit + "," +
             csv_field(definition) + "\n";
    };
    const auto opt = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string(); };
    row("run", "experiment", s.experiment, "", "the experiment directory analysed");
    row("run", "strata_version", s.strata_version, "", "the Strata that wrote profile.h5");
    row("run", "ranks", std::to_string(s.ranks), "count",
        "measured ranks: ranks with a CPU thread in the profile");
    row("run", "cpu_threads", std::to_string(s.cpu_threads), "count", "CPU-thread locations");
    row("run", "gpu_streams", std::to_string(s.gpu_streams), "count",
        "GPU-stream locations (not analysed by this version)");
    row("run", "wall_time", format_number(s.wall_s), "s", def_wall);
    row("run", "wall_time_rank", std::to_string(s.wall_rank), "rank",
        "the rank with the longest wall time (lowest on ties)");
    row("run", "run_time", format_number(s.run_s), "s", run_definition(s));
    row("run", "run_time_rank", std::to_string(s.run_rank), "rank",
        "the rank with the longest run time (lowest on ties)");
    row("run", "dropped_callpaths", std::to_string(s.dropped_callpaths), "count",
        "call paths the profile did not record for lack of memory (0: complete)");
    if (!s.incomplete.empty()) {
        row("run", "incomplete", s.incomplete, "",
            "the experiment's INCOMPLETE note: the run did not end normally (a signal, or one rank's own "
            "experiment, written when it stopped before the others)");
    }
    for (std::size_t c = 0; c < time_class_count; ++c)
        row("time", std::string(time_class_name(static_cast<TimeClass>(c))), format_number(s.class_s[c]), "s",
            def_class[c]);
    row("time", "program", format_number(s.program_s), "s", def_program);
    for (std::size_t c = 0; c < time_class_count; ++c) {
        if (c == class_index(TimeClass::mpi_init_finalize)) continue;
        const std::string name(time_class_name(static_cast<TimeClass>(c)));
        row("share", name, opt(s.share(static_cast<TimeClass>(c))), "ratio", name + " time / program time");
    }
    row("pop", "useful_time_mean", format_number(s.pop.mean_useful_s), "s",
        "mean_p U_p, " + means_over(s) + "; " + def_useful);
    row("pop", "useful_time_max", format_number(s.pop.max_useful_s), "s", "max_p U_p");
    row("pop", "useful_time_max_rank", std::to_string(s.pop.rank_at_max), "rank",
        "the rank with max_p U_p (lowest on ties)");
    row("pop", "useful_time_min", format_number(s.pop.min_useful_s), "s", "min_p U_p");
    row("pop", "useful_time_min_rank", std::to_string(s.pop.rank_at_min), "rank",
        "the rank with min_p U_p (lowest on ties)");
    row("pop", "load_balance", opt(s.pop.load_balance), "ratio", def_lb);
    row("pop", "communication_efficiency", opt(s.pop.communication_efficiency), "ratio", def_comm);
    row("pop", "parallel_efficiency", opt(s.pop.parallel_efficiency), "ratio", def_pe);
    for (const RowResult* r : top_regions(result, settings.top))
        row("top_regions", r->name, format_number(r->total_s), "s",
            "exclusive time summed over all CPU threads (paradigm " + r->paradigm + ")");
    t += s.trace.csv;
    return t;
}

std::string summary_json(const AnalysisResult& result, const std::vector<Finding>& findings,
                         const ReportSettings& settings) {
    const SummaryResult& s = result.summary;
    std::string t = "{\n";
    t += "  \"report\": \"summary\",\n";
    t += "  \"experiment\": " + json_string(s.experiment) + ",\n";
    t += "  \"profile\": {\"strata_version\": " + json_string(s.strata_version) +
         ", \"creation_time\": " + json_string(s.creation_time) + ", \"timer\": " + json_string(s.timer) +
         ", \"dropped_callpaths\": " + std::to_string(s.dropped_callpaths) + "},\n";
    t += "  \"incomplete\": " + (s.incomplete.empty() ? std::string("null") : json_string(s.incomplete)) + ",\n";
    t += "  \"trace\": {\"present\": " + std::string(s.trace_present ? "true" : "false") +
         ", \"analysed\": " + std::string(s.trace.analysed ? "true" : "false") + ", \"note\": " +
         json_string(s.trace.note.empty() ? trace_note(s.trace_present) : s.trace.note) +
         ", \"wait_states\": " + (s.trace.json.empty() ? std::string("null") : s.trace.json) + "},\n";
    t += "  \"ranks\": " + std::to_string(s.ranks) + ",\n";
    t += "  \"cpu_threads\": " + std::to_string(s.cpu_threads) + ",\n";
    t += "  \"gpu_streams\": " + std::to_string(s.gpu_streams) + ",\n";
    t += "  \"wall_time_s\": " + format_number(s.wall_s) + ",\n";
    t += "  \"wall_time_rank\": " + std::to_string(s.wall_rank) + ",\n";
    t += "  \"run_time_s\": " + format_number(s.run_s) + ",\n";
    t += "  \"run_time_rank\": " + std::to_string(s.run_rank) + ",\n";
    t += "  \"mpi_init_finalize_included\": " + std::string(s.include_mpi_init ? "true" : "false") + ",\n";
    t += "  \"time_s\": {";
    for (std::size_t c = 0; c < time_class_count; ++c)
        t += json_string(time_class_name(static_cast<TimeClass>(c))) + ": " + format_number(s.class_s[c]) +
             ", ";
    t += "\"program\": " + format_number(s.program_s) + "},\n";
    t += "  \"share\": {";
    for (std::size_t c = 0; c < class_index(TimeClass::mpi_init_finalize); ++c)
        t += std::string(c > 0 ? ", " : "") + json_string(time_class_name(static_cast<TimeClass>(c))) + ": " +
             json_number(s.share(static_cast<TimeClass>(c)));
    t += "},\n";
    t += "  \"pop\": {\n";
    t += "    \"useful_time_mean_s\": " + format_number(s.pop.mean_useful_s) + ",\n";
    t += "    \"useful_time_max_s\": " + format_number(s.pop.max_useful_s) + ",\n";
    t += "    \"useful_time_max_rank\": " + std::to_string(s.pop.rank_at_max) + ",\n";
    t += "    \"useful_time_min_s\": " + format_number(s.pop.min_useful_s) + ",\n";
    t += "    \"useful_time_min_rank\": " + std::to_string(s.pop.rank_at_min) + ",\n";
    t += "    \"load_balance\": " + json_number(s.pop.load_balance) + ",\n";
    t += "    \"communication_efficiency\": " + json_number(s.pop.communication_efficiency) + ",\n";
    t += "    \"parallel_efficiency\": " + json_number(s.pop.parallel_efficiency) + ",\n";
    t += "    \"definitions\": {\"U_p\": " + json_string(def_useful) +
         ", \"R\": " + json_string(run_definition(s)) + ", \"means\": " + json_string(means_over(s)) +
         ", \"load_balance\": " + json_string(def_lb) +
         ", \"communication_efficiency\": " + json_string(def_comm) +
         ", \"parallel_efficiency\": " + json_string(def_pe) + "}\n";
    t += "  },\n";
    t += "  \"top_regions\": [";
    const double all = all_time(s);
    bool first = true;
    for (const RowResult* r : top_regions(result, settings.top)) {
        t += std::string(first ? "\n" : ",\n") + "    {\"region\": " + json_string(r->name) +
             ", \"paradigm\": " + json_string(r->paradigm) + ", \"time_s\": " + format_number(r->total_s) +
             ", \"share\": " + json_number(all > 0 ? std::optional<double>(r->total_s / all) : std::nullopt) +
             "}";
        first = false;
    }
    t += std::string(first ? "" : "\n  ") + "],\n";
    t += "  \"findings\": " + std::to_string(findings.size()) + "\n";
    t += "}\n";
    return t;
}

}  // namespace strata::analysis
