// SPDX-License-Identifier: BSD-3-Clause
// The core rows of the configuration registry and the checks between them.
//
// These long help texts are the user documentation: `strata-info config-vars --full`
// prints them and the reference page share/doc/configuration.md is generated from
// them.  Short help: a phrase without a final period.  Long help: paragraphs
// separated by blank lines; lines indented by two spaces are kept as they are.
#include <cstdint>
#include <string>

#include "config/config.hpp"

namespace strata::config {

namespace {

std::uint64_t to_bytes(const std::string& normalized) { return std::stoull(normalized); }

/// STRATA_PAGE_SIZE must leave room for at least four pages in STRATA_TOTAL_MEMORY.
Error check_page_size() {
    constexpr std::uint64_t min_page = 4096;
    const Settings& s = settings();
    const std::uint64_t max_page = s.total_memory / 4;
    if (s.page_size < min_page) {
        return "STRATA_PAGE_SIZE=" + format_size(s.page_size) +
               " is too small: a page must be at least 4K (and at most a quarter of STRATA_TOTAL_MEMORY=" +
               format_size(s.total_memory) + ")";
    }
    if (s.page_size > max_page) {
        return "STRATA_PAGE_SIZE=" + format_size(s.page_size) + " does not fit STRATA_TOTAL_MEMORY=" +
               format_size(s.total_memory) + ": a page may be at most a quarter of STRATA_TOTAL_MEMORY (" +
               format_size(max_page) + "); raise STRATA_TOTAL_MEMORY to at least " +
               (s.page_size <= UINT64_MAX / 4 ? format_size(s.page_size * 4) : std::string("4 pages")) +
               " or lower STRATA_PAGE_SIZE";
    }
    return Error();
}

}  // namespace

/// Adds the core rows; called once, by the Registry constructor, so that they exist
/// before any adapter's rows whatever the order of static initialisation.
void register_core_variables(Registry& registry) {
    registry.add({"", "ENABLE_PROFILING", Type::boolean, "true", {},
        "Record a call-path profile",
        "When true, Strata builds a call-path profile of every location (CPU thread and "
        "GPU stream) while the program runs: for each call path, the number of visits, the "
        "inclusive and exclusive time and the values of the recorded metrics.  At the end "
        "of the run it is written to profile.h5 in the experiment directory, one HDF5 file "
        "for all ranks, and strata-analyze builds its summary reports from it.\n\n"
        "The size of a profile grows with the number of distinct call paths, not with the "
        "run time, so profiling is cheap enough to leave on.  Set it to false to record "
        "only a trace (STRATA_ENABLE_TRACING).",
        [](const std::string& v) { settings().enable_profiling = v == "true"; }});

    registry.add({"", "ENABLE_TRACING", Type::boolean, "false", {},
        "Record an event trace (OTF2)",
        "When true, Strata records every event with its timestamp: region enter and exit, "
        "MPI messages and collective operations, thread fork and join, GPU kernels and "
        "memory copies, metric values.  The trace is an OTF2 archive in the experiment "
        "directory (traces.otf2, traces.def and the traces/ folder), readable by any OTF2 "
        "tool (otf2-print, Vampir, the OTF2 Python bindings).  strata-analyze needs it for "
        "the wait-state analysis (late sender, late receiver, ...) and for timelines.\n\n"
        "A trace grows with the run time.  Leave out short, frequently called functions "
        "with STRATA_FILTERING_FILE, and size the buffers with STRATA_TOTAL_MEMORY.  "
        "Profiling and tracing can be enabled together.",
        [](const std::string& v) { settings().enable_tracing = v == "true"; }});

    registry.add({"", "EXPERIMENT_DIRECTORY", Type::path, "", {},
        "Directory the experiment is written to",
        "The directory that receives everything the run records: strata.cfg (this "
        "configuration as it was in effect), profile.h5 and the OTF2 trace; strata-analyze "
        "later adds its analysis/ folder to it.  A relative path is taken relative to the "
        "working directory of the program.  All ranks must see the directory, so for runs "
        "on several nodes it has to be on a shared file system.\n\n"
        "When empty (the default), Strata creates strata-YYYYMMDD_HHMMSS_<id> in the "
        "working directory, named after the date and time at which the run started and "
        "a number that makes the name unique.\n\n"
        "Processes that mpirun (or srun) starts together but that do not measure together "
        "(the program does not use MPI, or never calls MPI_Init) each write their own "
        "experiment: with this variable set, to <directory>-rank<r>.\n\n"
        "An existing directory is never overwritten silently: see "
        "STRATA_OVERWRITE_EXPERIMENT_DIRECTORY.",
        [](const std::string& v) { settings().experiment_directory = v; }});

    registry.add({"", "OVERWRITE_EXPERIMENT_DIRECTORY", Type::boolean, "false", {},
        "Replace an existing experiment directory",
        "What happens when the experiment directory (STRATA_EXPERIMENT_DIRECTORY) already "
        "exists.  When false (the default), nothing is replaced: the run stops at start-up "
        "with a message naming the directory, so no earlier result is lost.\n\n"
        "When true, an existing directory is replaced, but only if Strata made it (its "
        ".strata-experiment marker) and it holds nothing but what Strata and strata-analyze "
        "wrote.  Any other existing directory is left untouched, and the run stops with a "
        "message instead.  "
        "This is meant for scripts that run the same experiment again with a fixed "
        "directory name.",
        [](const std::string& v) { settings().overwrite_experiment_directory = v == "true"; }});

    registry.add({"", "TOTAL_MEMORY", Type::size, "64M", {},
        "Memory budget per process for measurement data",
        "The memory Strata may use in each process (each MPI rank) for the data it "
        "records: the trace buffers of all its locations, the call-path profile and the "
        "definitions (strings, regions, call paths, communicators).  It is shared by all "
        "threads and GPU streams of the process and handed out in pages of "
        "STRATA_PAGE_SIZE bytes.\n\n"
        "When the trace buffers are full, they are flushed to disk and the program goes "
        "on.  Each flush is recorded as a region in the trace, so its cost is visible and "
        "the analysis can tell it from the program's own time; nothing is dropped "
        "silently.  A larger budget means fewer flushes, which disturb the program less.  "
        "If the profile or the definitions need more memory than the budget, the run says "
        "so and names the value to set.\n\n"
        "The smallest accepted value is four pages (256K with the default page size), "
        "but a sensible value leaves several pages for every thread and GPU stream of a "
        "process in addition to the profile and definitions; the default suits most runs.  "
        "Every thread and GPU stream gets its first trace page and its first profile page "
        "even when the budget is spent, so that none is starved by the others: a process "
        "may use up to two pages per location beyond the budget.\n\n"
        "Outside the budget, while a trace is written: a thread that converts its buffer "
        "into its event file holds about 1M of encoded events while it does, and nothing "
        "between conversions; the libraries themselves (MPI, HDF5, OTF2) add about 25M of "
        "resident memory to any process.",
        [](const std::string& v) { settings().total_memory = to_bytes(v); }});

    registry.add({"", "TRACE_MAX_SIZE", Type::size, "0", {},
        "Bound on the trace's size on disk per process (0: none)",
        "The most a process (an MPI rank) writes of event files: when its event files "
        "have reached this size, each of its threads stops tracing at its next buffer "
        "flush (or at the end of the run), so a run that makes far more events than "
        "expected (an MPI_Test polling loop, a tiny function called a billion times) "
        "cannot fill the disk.  Where a thread's trace stops, the trace has an OTF2 "
        "MeasurementOnOff event (measurement off) and the regions open there end; the "
        "events after it are counted, not written.  The profile goes on to the end of "
        "the run, and strata-analyze says where each trace ends.\n\n"
        "A trace may exceed the bound by what one buffer flush of each thread writes "
        "(up to STRATA_TOTAL_MEMORY in all) and OTF2's last chunk of each event file "
        "(1M).  0, the default, sets no bound.",
        [](const std::string& v) { settings().trace_max_size = to_bytes(v); }});

    registry.add({"", "PAGE_SIZE", Type::size, "64K", {},
        "Size of the pages the memory budget is divided into",
        "STRATA_TOTAL_MEMORY is divided into pages of this size, which are handed out to "
        "the locations (threads and GPU streams) for their trace buffers, profile and "
        "definitions (not the OTF2 library's own buffers, see STRATA_TOTAL_MEMORY).  Smaller pages "
        "share the budget more evenly among many threads; larger pages need fewer "
        "requests for new pages.\n\n"
        "The value must be at least 4K and at most a quarter of STRATA_TOTAL_MEMORY.  "
        "This is checked after all variables are read, and a pair that does not fit "
        "stops the run with a message naming both.",
        [](const std::string& v) { settings().page_size = to_bytes(v); }});

    registry.add({"", "TIMER", Type::enumeration, "tsc", {"tsc", "clock_gettime", "steps"},
        "Clock used for timestamps",
        "tsc: the processor's time-stamp counter, the cheapest clock to read.  Its rate is "
        "calibrated against CLOCK_MONOTONIC over the whole run (readings of both clocks "
        "at the start and at the end, at least 20 ms apart).  Where the "
        "time-stamp counter is not invariant (its rate follows the processor frequency, "
        "or it is not synchronised between cores), Strata falls back to clock_gettime "
        "and prints a warning.\n\n"
        "clock_gettime: clock_gettime(CLOCK_MONOTONIC), slower to read but available "
        "everywhere.\n\n"
        "steps: no clock at all, for reproducible tests: every reading on a thread is "
        "1 microsecond after that thread's previous one, so that a program which does "
        "the same work writes the same trace and profile, byte for byte.  The times say "
        "nothing about the program's speed.\n\n"
        "One timer is used for the whole process.  The offsets between the clocks of "
        "different nodes are measured at the start and the end of the run and stored in "
        "the trace, so the analysis can line up the ranks.",
        [](const std::string& v) {
            settings().timer = v == "tsc" ? TimerKind::tsc : v == "steps" ? TimerKind::steps : TimerKind::clock_gettime;
        }});

    registry.add({"", "VERBOSE", Type::boolean, "false", {},
        "Report what the measurement does",
        "When true, Strata reports on standard error what it sets up and does: the "
        "timer, the experiment directory and every trace buffer flush.  Messages start with "
        "\"strata:\".  Warnings and errors are printed whatever this setting.",
        [](const std::string& v) { settings().verbose = v == "true"; }});

    registry.add({"", "FILTERING_FILE", Type::path, "", {},
        "Filter file that excludes regions from the measurement",
        "Path of a filter file, in the syntax of Score-P filter files (existing Score-P "
        "filter files can be used as they are).  Empty (the default): nothing is "
        "filtered.  The filter is applied to the functions recorded by compiler "
        "instrumentation (programs built with the strata compiler wrapper) and, as in "
        "Score-P, to user regions (STRATA_REGION_BEGIN, STRATA_PHASE_BEGIN: by their name, "
        "and by their source file); what it excludes is not recorded.  Example:\n\n"
        "  SCOREP_REGION_NAMES_BEGIN\n"
        "    EXCLUDE *\n"
        "    INCLUDE main solve_*\n"
        "  SCOREP_REGION_NAMES_END\n\n"
        "Rules are read in order and the last one that matches a name decides.  Names "
        "may contain the shell wildcards *, ? and [...].  A block between "
        "SCOREP_FILE_NAMES_BEGIN and SCOREP_FILE_NAMES_END filters by source file name in "
        "the same way.\n\n"
        "MPI functions are filtered by the region rules whose pattern begins with MPI_ "
        "(EXCLUDE MPI_Test* MPI_Iprobe takes a polling loop's calls out); other rules, "
        "such as an EXCLUDE * written for the program's functions, leave MPI alone, as "
        "Score-P's filters do.  An excluded MPI function is no region, but its messages, "
        "request completions and collective operations are still recorded, so the "
        "analysis still matches them.",
        [](const std::string& v) { settings().filtering_file = v; }});

    registry.add({"", "WRAPPER_DISABLE", Type::boolean, "false", {},
        "Make the strata compiler wrapper run the compiler unchanged",
        "Read by the strata compiler wrapper, not by the measurement: when true, "
        "`strata gcc ...` runs `gcc ...` exactly as given, without instrumentation flags "
        "or Strata libraries.  Useful for the configure checks of autotools or CMake "
        "projects built with CC=\"strata gcc\".",
        [](const std::string&) {}});

    registry.add_check(check_page_size);
}

}  // namespace strata::config
