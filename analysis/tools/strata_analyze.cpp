// SPDX-License-Identifier: BSD-3-Clause
// strata-analyze: the parallel analysis of a Strata experiment.
//
//   mpirun -np K strata-analyze [options] <experiment-dir>
//
//   every rank      parse options (rank 0 prints usage problems)
//   rank 0          the experiment directory exists, the reports may be written
//   every rank      read the definitions and its column slice of profile.h5,
//                   accumulate its measured ranks (share_analysis.hpp)
//   every rank      agree on failures: the lowest failing rank prints its message
//   every rank      reduce onto rank 0 (mpi_reduction.hpp)
//   every rank      with a trace: read the definitions, replay its share of the
//                   locations (CPU threads and GPU streams), agree on the
//                   iterations, exchange messages and collectives, gather the
//                   wait states and GPU sums on rank 0 (trace/wait_state_analysis.hpp)
//   rank 0          figures, advice, reports; the whole profile for calltree.json and
//                   profile.cubex; report.html; summary on stdout
//
// Without profile.h5 but with a trace, the trace reports alone are written.
//
// Exit status, the same on every rank: 0 reports written, 1 the experiment
// cannot be read or the reports cannot be written, 2 bad arguments (also a
// --key-region or iteration range the trace does not have, known after reading).
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "analyze/advice.hpp"
#include "analyze/measurement_losses.hpp"
#include "analyze/analysis_result.hpp"
#include "analyze/analyze_options.hpp"
#include "analyze/calltree_report.hpp"
#include "analyze/mpi_reduction.hpp"
#include "analyze/report_files.hpp"
#include "analyze/share_analysis.hpp"
#include "analyze/table_reports.hpp"
#include "cube/cube_export.hpp"
#include "profile/profile.hpp"
#include "profile/profile_guard.hpp"
#include "profile/profile_reader.hpp"
#include "report/html_report.hpp"
#include "trace/message_exchange_mpi.hpp"
#include "trace/trace_definitions.hpp"
#include "trace/trace_summary.hpp"
#include "trace/wait_state_analysis.hpp"
#include "trace/wait_state_report.hpp"

namespace {

using namespace strata::analysis;

constexpr const char* program = "strata-analyze: ";

/// Rank 0's verdict, shared with every rank.
int broadcast_status(int status) {
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

/// A job whose ranks stopped separately (MPI_Abort, a signal, an exit without
/// MPI_Finalize) leaves one experiment per rank in rank-<r>/ and none at the
/// top: says so and how to analyse them; "" otherwise.
std::string separate_rank_experiments(const std::string& path) {
    std::error_code ignored;
    const std::filesystem::path dir(path);
    if (std::filesystem::exists(dir / "profile.h5", ignored) || std::filesystem::exists(dir / "traces.otf2", ignored)) {
        return "";
    }
    std::vector<std::pair<long, std::string>> ranks;
    std::vector<long> killed_writing;  // markers left in writing-<host>/ (ranks_writing_alone.hpp)
    for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("writing-", 0) == 0 && entry.is_directory(ignored)) {
            for (const auto& marker : std::filesystem::directory_iterator(entry.path(), ignored)) {
                const std::string rank = marker.path().filename().string();
                if (!rank.empty() && rank.size() < 10 && rank.find_first_not_of("0123456789") == std::string::npos)
                    killed_writing.push_back(std::stol(rank));
            }
            continue;
        }
        if (name.rfind("rank-", 0) != 0 || name.size() == 5 || !entry.is_directory(ignored)) continue;
        if (name.size() > 14 || name.find_first_not_of("0123456789", 5) != std::string::npos) continue;
        ranks.emplace_back(std::stol(name.substr(5)), name);
    }
    if (ranks.empty()) return "";
    std::sort(ranks.begin(), ranks.end());
    // Each rank that stopped alone wrote "rank r of n" in its INCOMPLETE note: the
    // ranks of the job that left nothing (SIGKILL) are named too.
    long job_size = 0;
    for (const auto& [rank, name] : ranks) {
        std::ifstream note(dir / name / "INCOMPLETE");
        std::string word, of;
        long r = -1, n = 0;
        if (note >> word >> r >> of >> n && word == "rank" && of == "of" && n > 0 && n <= (1L << 24))
            job_size = std::max(job_size, n);
    }
    std::string missing;
    std::size_t missing_count = 0;
    for (long r = 0, at = 0; r < job_size; ++r) {
        while (at < static_cast<long>(ranks.size()) && ranks[static_cast<std::size_t>(at)].first < r) ++at;
        if (at < static_cast<long>(ranks.size()) && ranks[static_cast<std::size_t>(at)].first == r) continue;
        if (++missing_count <= 8) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    if (missing_count > 8) missing += ", ... (" + std::to_string(missing_count) + " in all)";
    std::string list;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i == 4 && ranks.size() > 5) {
            list += ", ... (" + std::to_string(ranks.size()) + " in all)";
            break;
        }
        list += (i > 0 ? ", " : "") + ranks[i].second;
    }
    std::string lost;
    if (missing_count > 0) {
        lost = ".  No experiment from rank" + std::string(missing_count > 1 ? "s " : " ") + missing + " of the " +
               std::to_string(job_size) + ": " + (missing_count > 1 ? "they" : "it") +
               " ended without writing one (killed by SIGKILL, e.g. by mpirun after another rank failed, "
               "or by the out-of-memory killer)";
    }
    if (!killed_writing.empty()) {
        std::sort(killed_writing.begin(), killed_writing.end());
        std::string named;
        for (std::size_t i = 0; i < killed_writing.size() && i < 8; ++i)
            named += (i > 0 ? ", " : "") + std::to_string(killed_writing[i]);
        if (killed_writing.size() > 8) named += ", ... (" + std::to_string(killed_writing.size()) + " in all)";
        lost += ".  Rank" + std::string(killed_writing.size() > 1 ? "s " : " ") + named +
                (killed_writing.size() > 1 ? " were" : " was") +
                " killed while writing (what is missing from rank-<r>/ was not written); to give the ranks "
                "time, run mpirun --mca odls_base_sigkill_timeout 10";
    }
    return path + ": the ranks of this job stopped separately (MPI_Abort, a signal, or an exit without "
                  "MPI_Finalize), so each wrote its own experiment here: " + list +
           " (their INCOMPLETE files say why)" + lost + ".  Analyse them one at a time, e.g. strata-analyze " +
           (dir / ranks.front().second).string();
}

/// An experiment without profile.h5 and traces.otf2 (nor ranks' own
/// experiments): the run ended before Strata could write; "" otherwise.
std::string nothing_written(const std::string& path) {
    std::error_code ignored;
    const std::filesystem::path dir(path);
    if (std::filesystem::exists(dir / "profile.h5", ignored) || std::filesystem::exists(dir / "traces.otf2", ignored))
        return "";
    if (!std::filesystem::exists(dir / ".strata-experiment", ignored) &&
        !std::filesystem::exists(dir / "strata.cfg", ignored))
        return path + ": not a Strata experiment (no profile.h5, traces.otf2 or strata.cfg in it)";
    std::size_t event_files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "traces", ignored)) {
        if (entry.path().extension() == ".evt") ++event_files;
    }
    std::string message = path + ": no profile.h5 and no traces.otf2: the run ended before Strata could write "
                                 "them (a SIGKILL, the out-of-memory killer, a batch system's time limit; Strata "
                                 "writes at the program's end and when a signal it can catch stops it)";
    if (event_files > 0) {
        message += ".  traces/ holds " + std::to_string(event_files) + " event file" +
                   (event_files > 1 ? "s" : "") +
                   " flushed during the run, which cannot be read without the definitions written at the end";
    }
    return message;
}

/// The experiment directory must exist and be a directory.
strata::Error check_experiment(const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) return path + ": cannot open: " + std::strerror(errno);
    if (!S_ISDIR(status.st_mode)) return path + ": not an experiment directory";
    const std::string separate = separate_rank_experiments(path);
    return separate.empty() ? nothing_written(path) : separate;
}

/// `text` of rank `root`, on every rank.
std::string broadcast_text(std::string text, int root) {
    std::uint64_t n = text.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
    text.resize(n);
    if (n > 0) MPI_Bcast(&text[0], static_cast<int>(n), MPI_CHAR, root, MPI_COMM_WORLD);
    return text;
}

/// Event files without the archive's anchor (traces.otf2, written last): the
/// measurement began the trace but could not finish it.
bool trace_begun(const std::string& experiment) {
    std::error_code ignored;
    const std::filesystem::path dir(experiment);
    return std::filesystem::is_directory(dir / "traces", ignored) || std::filesystem::exists(dir / "traces.def", ignored);
}

/// The trace, when the experiment has one: definitions on every rank, then
/// the phases of wait_state_analysis.hpp.  `problem` is set (the same on
/// every rank) when the trace cannot be read at all.
struct TraceRun {
    bool present = false;
    std::string problem;
    trace::TraceReport report;  ///< on rank 0
};

TraceRun run_trace(const std::string& experiment, int size, const trace::TimelineOptions& timeline,
                   const trace::TraceAnalysisOptions& analysis) {
    TraceRun run;
    const std::string anchor = (std::filesystem::path(experiment) / "traces.otf2").string();
    std::error_code ignored;
    run.present = std::filesystem::exists(anchor, ignored);
    if (!run.present) return run;
    trace::TraceDefinitions definitions;
    std::string problem;
    try {
        definitions = trace::read_trace_definitions(anchor);
    } catch (const trace::TraceError& error) {
        problem = error.what();
    } catch (const std::bad_alloc&) {
        problem = anchor + ": out of memory while reading the trace definitions";
    }
    const int failing = first_failing_rank(!problem.empty(), MPI_COMM_WORLD);
    if (failing < size) {
        run.problem = broadcast_text(problem, failing);
        return run;
    }
    trace::MpiExchange exchange(MPI_COMM_WORLD);
    try {
        run.report = trace::run_trace_analysis(definitions, exchange, timeline, analysis);
    } catch (const std::length_error& error) {  // thrown on every rank together (message_exchange_mpi.hpp)
        run.problem = error.what();
    }
    return run;
}

/// What a failed analysis leaves behind on rank 0: the timeline's temporary file, and
/// the output directory when this run made it and wrote nothing into it.
class OutputCleanup {
public:
    explicit OutputCleanup(std::string output)
        : output_(std::move(output)), existed_(std::filesystem::exists(output_, ignored_)) {}
    OutputCleanup(const OutputCleanup&) = delete;
    OutputCleanup& operator=(const OutputCleanup&) = delete;
    ~OutputCleanup() {
        if (done_) return;
        std::remove((std::filesystem::path(output_) / "trace.json.tmp").c_str());
        if (!existed_) std::filesystem::remove(output_, ignored_);  // only when empty
    }
    void done() { done_ = true; }

private:
    std::error_code ignored_;
    std::string output_;
    bool existed_;
    bool done_ = false;
};

/// The reports made from the whole profile, which rank 0 reads now (every
/// column): calltree.json and, unless --no-cube, profile.cubex with the wait
/// states.  A report that cannot be made is left out with a note; the others
/// still go out.
std::vector<ReportFile> whole_profile_reports(const std::string& profile_path,
                                              const trace::TraceReport* waits, bool with_cube) {
    std::vector<ReportFile> files;
    const std::string names =
        std::string(calltree_file_name) + (with_cube ? std::string(" and ") + cube::cube_file_name : "");
    Profile profile;
    try {
        profile = read_profile(profile_path);
    } catch (const ProfileError& error) {
        std::cerr << program << names << " not written: " << error.what() << '\n';
        return files;
    } catch (const std::bad_alloc&) {
        std::cerr << program << names << " not written: out of memory while reading the whole profile\n";
        return files;
    }
    try {
        files.emplace_back(calltree_file_name, calltree_json(profile));
    } catch (const std::bad_alloc&) {
        std::cerr << program << calltree_file_name << " not written: out of memory\n";
    } catch (const std::exception& error) {  // ProfileError (a time metric missing) or a check of the writer
        std::cerr << program << calltree_file_name << " not written: " << error.what() << '\n';
    }
    if (!with_cube) return files;
    try {
        cube::CubeReport report = cube::cube_report(profile, waits);
        if (waits && waits->iterations.plan.restricted) {
            const trace::IterationPlan& plan = waits->iterations.plan;
            report.attributes.emplace_back("Strata wait states", "iterations " + std::to_string(plan.first) +
                                                                     " to " + std::to_string(plan.last) +
                                                                     " only (--iter-start/--iter-stop)");
        }
        files.emplace_back(cube::cube_file_name, cube::cubex_file(report));
    } catch (const ProfileError& error) {
        std::cerr << program << cube::cube_file_name << " not written: " << error.what() << '\n';
    } catch (const std::bad_alloc&) {
        std::cerr << program << cube::cube_file_name
                  << " not written: out of memory (--no-cube leaves it out)\n";
    } catch (const std::exception& error) {  // a check of the Cube writer: the other reports still go out
        std::cerr << program << cube::cube_file_name << " not written: internal error: " << error.what() << '\n';
    }
    return files;
}

int run(const AnalyzeOptions& options, int rank, int size) {
    const std::string output = options.output_directory();
    std::optional<OutputCleanup> cleanup;
    if (rank == 0) cleanup.emplace(output);
    // Rank 0 checks what it can before anyone reads: the input exists, the
    // reports may be written.
    int status = 0;
    if (rank == 0) {
        strata::Error problem = check_experiment(options.experiment);
        if (!problem) {
            try {
                check_output_directory(output, options.force);
            } catch (const ReportError& error) {
                problem = error.what();
            }
        }
        if (problem) {
            std::cerr << program << *problem << '\n';
            status = 1;
        }
    }
    if (broadcast_status(status) != 0) return 1;

    // Every rank reads its share; a failure anywhere stops every rank, unless
    // the profile is missing and there is a trace to analyse instead.
    const std::string profile_path = (std::filesystem::path(options.experiment) / "profile.h5").string();
    std::error_code ignored;
    bool profile_present = std::filesystem::exists(profile_path, ignored);
    std::string profile_missing = profile_path + ": no such file";  // why the profile is not analysed
    const bool trace_present =
        std::filesystem::exists(std::filesystem::path(options.experiment) / "traces.otf2", ignored);
    ShareAnalysis share;
    std::string problem;
    // A file that crashes HDF5 itself would kill every rank: rank 0 tries it in a child first.
    std::uint8_t crashes = 0;
    std::string crash;
    if (rank == 0 && profile_present) {
        crash = check_profile_in_child(profile_path).message();
        crashes = crash.empty() ? 0 : 1;
    }
    MPI_Bcast(&crashes, 1, MPI_UINT8_T, 0, MPI_COMM_WORLD);
    if (crashes) {  // analyse the trace alone, if there is one
        if (rank == 0) std::cerr << program << crash << '\n';
        if (!trace_present) return 1;
        profile_present = false;
        profile_missing = rank == 0 ? crash : profile_path + ": damaged";
    }
    if (profile_present || (!trace_present && !crashes)) {
        try {
            share = analyze_share(profile_path, static_cast<std::size_t>(rank),
                                  static_cast<std::size_t>(size), options.include_mpi_init);
        } catch (const ProfileError& error) {
            problem = error.what();
        } catch (const std::bad_alloc&) {
            problem = profile_path + ": out of memory while reading the profile";
        }
    }
    const int failing = first_failing_rank(!problem.empty(), MPI_COMM_WORLD);
    if (failing < size) {
        if (failing == rank) std::cerr << program << problem << '\n';
        return 1;
    }
    if (profile_present) reduce_partial(share.partial, MPI_COMM_WORLD);

    // The timeline's parts go to the output directory, which rank 0 creates now.
    trace::TimelineOptions timeline;
    if (trace_present && options.timeline_events > 0) {
        timeline.part = (std::filesystem::path(output) / "trace.json.part").string();
        timeline.events = options.timeline_events;
        if (rank == 0) {
            std::filesystem::create_directories(output, ignored);
            if (ignored) {
                std::cerr << program << output << ": cannot create the directory: " << ignored.message()
                          << '\n';
                status = 1;
            }
        }
        if (broadcast_status(status) != 0) return 1;
    }
    if (rank == 0 && !trace_present &&
        (!options.key_region.empty() || options.iter_start >= 0 || options.iter_stop >= 0)) {
        std::cerr << program
                  << "note: --key-region, --iter-start and --iter-stop need a trace (traces.otf2); "
                     "the reports from profile.h5 cover the whole run\n";
    }
    trace::TraceAnalysisOptions analysis;
    analysis.iterations.key_region = options.key_region;
    analysis.iterations.start = options.iter_start;
    analysis.iterations.stop = options.iter_stop;
    analysis.iterations.candidates = options.top;
    if (!options.tensor_core_patterns.empty()) analysis.tensor_core_patterns = options.tensor_core_patterns;
    if (!options.tc_eligible_patterns.empty()) analysis.tc_eligible_patterns = options.tc_eligible_patterns;
    analysis.gpu_gap_threshold_s = options.gpu_gap_threshold;
    analysis.short_kernel_threshold_s = options.short_kernel_threshold;
    analysis.decode_directly = options.decode_directly;
    analysis.logical_clock = options.logical_clock;
    analysis.timeline_view.ranks = options.timeline_ranks;
    analysis.timeline_view.window_begin_s = options.timeline_window_begin;
    analysis.timeline_view.window_end_s = options.timeline_window_end;
    const TraceRun traced = run_trace(options.experiment, size, timeline, analysis);
    if (!timeline.part.empty() && !traced.problem.empty()) {
        trace::remove_timeline_part(timeline, static_cast<std::size_t>(rank));
    }
    const std::string timeline_file = (std::filesystem::path(output) / "trace.json").string();
    bool timeline_written = false;
    if (rank == 0 && !timeline.part.empty() && traced.problem.empty()) {
        timeline_written =
            trace::join_timeline(timeline, static_cast<std::size_t>(size), timeline_file + ".tmp");
        if (!timeline_written) {
            std::cerr << program << timeline_file << ".tmp: cannot write the timeline\n";
            std::remove((timeline_file + ".tmp").c_str());
        }
    }
    if (!profile_present && !traced.problem.empty()) {
        if (rank == 0) {
            std::cerr << program << profile_missing << ", and the trace cannot be read: " << traced.problem
                      << '\n';
        }
        return 1;
    }

    // An unknown key region or an iteration range beyond the trace is a bad
    // argument, known only now: nothing is written.
    if (rank == 0 && traced.present && traced.problem.empty() &&
        !traced.report.iterations.plan.problem.empty()) {
        std::cerr << program << trace::unknown_key_message(traced.report.iterations) << '\n';
        status = 2;
    }
    if (rank == 0 && status == 0) {
        try {
            std::vector<Finding> findings;
            std::vector<ReportFile> files;
            const bool trace_read = traced.present && traced.problem.empty();
            trace::TraceAdvice trace_advice;
            trace_advice.wait_threshold = options.wait_threshold;
            trace_advice.gpu_idle_threshold = options.gpu_idle_threshold;
            trace_advice.rank_seconds = trace_read ? trace::trace_rank_seconds(traced.report) : 0.0;
            trace_advice.steps = {options.step_gap_threshold, options.short_kernel_threshold,
                                  options.short_kernel_share, options.copy_share_threshold,
                                  options.step_comm_threshold};
            ReportSettings settings;
            settings.top = options.top;
            settings.advice.imbalance_threshold = options.imbalance_threshold;
            settings.advice.mpi_threshold = options.mpi_threshold;
            settings.advice.io_threshold = options.io_threshold;
            settings.advice.openmp_threshold = options.openmp_threshold;
            settings.advice.wait_threshold = options.wait_threshold;
            settings.advice.min_stake = options.min_finding_share;
            if (profile_present) {
                AnalysisContext context;
                context.experiment = options.experiment;
                context.include_mpi_init = options.include_mpi_init;
                context.trace_present = traced.present;
                AnalysisResult result =
                    finish_analysis(share.profile, share.layout, share.classes, share.partial, context);
                if (traced.present) {
                    result.summary.trace = traced.problem.empty()
                                               ? trace::summarize(traced.report, timeline_written)
                                               : trace::unreadable(traced.problem);
                } else if (trace_begun(options.experiment)) {
                    result.summary.trace = trace::unfinished();
                }
                findings = advise(result, settings.advice);
                // Wait states are a share of the ranks' run time, as the profile's figures.
                if (result.summary.run_s > 0)
                    trace_advice.rank_seconds = result.summary.run_s * static_cast<double>(result.summary.ranks);
                if (trace_read) {
                    for (Finding& f : trace::trace_findings(traced.report, trace_advice))
                        findings.push_back(std::move(f));
                }
                for (Finding& f : loss_findings(options.experiment)) findings.push_back(std::move(f));
                settings.findings_left_out = rank_findings(findings, settings.advice.min_stake);
                files = render_reports(result, findings, settings);
            } else {
                if (trace_read) findings = trace::trace_findings(traced.report, trace_advice);
                for (Finding& f : loss_findings(options.experiment)) findings.push_back(std::move(f));
                settings.findings_left_out = rank_findings(findings, settings.advice.min_stake);
                files = {{"summary.txt",
                          trace::trace_only_summary(options.experiment, profile_missing,
                                                    traced.report, findings, timeline_written)},
                         {"advice.csv", advice_csv(findings)},
                         {"advice.json", advice_json(findings, settings.advice)}};
            }
            if (traced.present && traced.problem.empty()) {
                for (auto& file : trace::waitstate_files(traced.report)) files.push_back(std::move(file));
            }
            if (profile_present) {
                for (ReportFile& file :
                     whole_profile_reports(profile_path, trace_read ? &traced.report : nullptr, options.cube))
                    files.push_back(std::move(file));
            }
            // Last: the page shows every report above.
            files.emplace_back(report::html_report_name, report::html_report(files));
            check_output_directory(output, options.force);  // again: another run may have written meanwhile
            write_report_files(output, files);
            if (timeline_written &&
                std::rename((timeline_file + ".tmp").c_str(), timeline_file.c_str()) == 0) {
                files.emplace_back("trace.json", "");
            } else if (timeline_written) {
                std::cerr << program << timeline_file << ": cannot write: " << std::strerror(errno) << '\n';
                std::remove((timeline_file + ".tmp").c_str());
                status = 1;
            }
            cleanup->done();
            std::cout << files.front().second << "\nReports written to " << output << "/: ";
            for (std::size_t i = 0; i < files.size(); ++i) std::cout << (i > 0 ? ", " : "") << files[i].first;
            std::cout << '\n';
            std::cout.flush();
            if (!std::cout) std::cerr << program << "cannot write the summary to standard output\n";
        } catch (const ReportError& error) {
            std::cerr << program << error.what() << '\n';
            status = 1;
        } catch (const std::bad_alloc&) {
            std::cerr << program << "out of memory while writing the reports\n";
            status = 1;
        } catch (const std::exception& error) {
            std::cerr << program << "internal error: " << error.what() << '\n';
            status = 1;
        }
    }
    return broadcast_status(status);
}

/// On one node (a singleton, or every rank on the same host as Open MPI's
/// launcher reports it), Open MPI's ob1 point-to-point layer with shared memory
/// is all the analysis needs: choosing it spares MPI_Init the probing of UCX
/// and libfabric networks, about 0.2 s of every run (0.33 -> 0.12 s on the
/// development machines).  A choice of the user's (OMPI_MCA_pml, also as
/// `mpirun --mca pml ...`) is kept; other MPI libraries ignore the variable.
void prefer_shared_memory_transport_on_one_node() {
    if (std::getenv("OMPI_MCA_pml") != nullptr) return;
    const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const bool singleton = world == nullptr && local == nullptr;
    if (singleton || (world != nullptr && local != nullptr && std::strcmp(world, local) == 0)) {
        setenv("OMPI_MCA_pml", "ob1", 0);
    }
}

/// Open MPI's PMIx client sends its last messages to the local launcher at
/// MPI_Finalize as several small writes on a loopback TCP connection: Nagle's
/// algorithm holds each one back until the previous one is acknowledged, and
/// the launcher acknowledges late (delayed ACK), 40 ms of every run spent
/// idle.  Those connections are this process's own; sending small writes at
/// once (TCP_NODELAY, as Open MPI's TCP transport does for its own sockets)
/// changes nothing but when the bytes leave.
void send_small_writes_at_once() {
    rlimit files{};
    const int limit = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 4096
                          ? static_cast<int>(files.rlim_cur)
                          : 4096;
    for (int fd = 0; fd < limit; ++fd) {
        int type = 0;
        socklen_t length = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) continue;
        sockaddr_storage address{};
        length = sizeof address;
        if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) continue;
        if (address.ss_family != AF_INET && address.ss_family != AF_INET6) continue;
        const int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
}

}  // namespace

/// Whether this process is the launcher's first (or alone): before MPI_Init,
/// the one that speaks for all (rank variables of Open MPI, MPICH, PMIx, Slurm).
bool first_process() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
        const char* rank = std::getenv(name);
        if (rank != nullptr) return std::strcmp(rank, "0") == 0;
    }
    return true;
}

/// The status of a quick exit before MPI, which the first process explains:
/// the others wait a moment first, since mpirun stops the whole job when one
/// of them ends with an error, and the first could be stopped before its message is out.
int quick_exit_status(int status) {
    if (status != 0 && !first_process()) std::this_thread::sleep_for(std::chrono::seconds(1));
    return status;
}

int main(int argc, char** argv) {
    // The command line first, and an experiment that is not there: every rank
    // sees the same, so each answers without MPI (a quick exit never starts and
    // finalises MPI: Open MPI's singleton crashed in MPI_Finalize now and then).
    AnalyzeOptions options;
    try {
        options = parse_analyze_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const AnalyzeUsageError& problem) {
        if (first_process()) std::cerr << program << problem.what() << "\n\n" << analyze_usage();
        return quick_exit_status(2);
    }
    if (options.help) {
        if (first_process()) std::cout << analyze_usage();
        return 0;
    }
    struct stat experiment {};
    if (::stat(options.experiment.c_str(), &experiment) != 0) {
        if (first_process()) std::cerr << program << options.experiment << ": cannot open: " << std::strerror(errno) << '\n';
        return quick_exit_status(1);
    }

    prefer_shared_memory_transport_on_one_node();
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int status = run(options, rank, size);
    send_small_writes_at_once();
    MPI_Finalize();
    return status;
}
