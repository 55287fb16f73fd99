// SPDX-License-Identifier: BSD-3-Clause
// strata-analyze on traces, as a subprocess: the synthetic wait-state
// experiment under mpirun -np 1, 2, 3 (exact CSV, byte-identical reports),
// with and without profile.h5; missing and damaged trace files; and a fuzz
// corpus of truncated and bit-flipped archives that must end with exit
// status 0 or 1 and a message, never a signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_fixtures.hpp"
#include "otf2_fixture.hpp"
#include "test_support.hpp"

namespace strata::analysis::test {
namespace {

namespace fs = std::filesystem;


/// strata-analyze with `args` (see run_analyze).
constexpr auto analyze = &run_analyze;

class TraceToolTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    std::string experiment() const { return dir_.file("experiment"); }
    /// Analyses with K ranks into <dir>/out<K>; returns the output directory.
    std::string analyze_into(int k, int expected_status = 0) {
        const std::string output = dir_.file("out" + std::to_string(k));
        const RunResult r = analyze(k, {"--force", "--output", output, experiment()});
        EXPECT_EQ(r.status, expected_status) << "K = " << k << "\n" << r.out << r.err;
        return output;
    }
    TempDir dir_;
};

TEST_F(TraceToolTest, TraceOnlyExperimentExactAndIdenticalForK1235) {
    wait_states_trace().write(experiment());
    const std::string one = analyze_into(1);
    EXPECT_EQ(slurp(fs::path(one) / "waitstates.csv"), wait_states_trace_csv());
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("the profile reports (load balance, POP efficiencies) were not made"),
              std::string::npos);
    EXPECT_NE(summary.find("Late senders are the largest wait state: 0.013 s of 0.06384 s MPI time (20.4%)"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("the late senders: rank 0 (0.005 s)"), std::string::npos) << summary;
    EXPECT_NE(summary.find("ranks wait because these arrive last: rank 0 (0.013 s)"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("Scalasca late sender: min(E_send, X_recv) - E_recv"), std::string::npos);
    const std::string json = slurp(fs::path(one) / "waitstates.json");
    EXPECT_NE(json.find("\"late_sender\": {\"time_s\": 0.013, \"instances\": 3"), std::string::npos) << json;
    EXPECT_NE(json.find("\"early_reduce\": {\"time_s\": 0.005, \"instances\": 1"), std::string::npos) << json;
    EXPECT_NE(json.find("\"mpi_time_s\": 0.06384"), std::string::npos) << json;
    for (int k : {2, 3, 5}) {  // 5: more analysis ranks than measured ranks
        const std::string other = analyze_into(k);
        for (const char* name : {"summary.txt", "waitstates.csv", "waitstates.json", "iterations.csv",
                                 "iterations.json", "advice.csv", "advice.json", "trace.json"}) {
            EXPECT_EQ(slurp(fs::path(other) / name), slurp(fs::path(one) / name)) << name << ", K = " << k;
        }
        std::size_t files = 0;
        for (const auto& entry : fs::directory_iterator(other)) {
            ++files;
            EXPECT_EQ(entry.path().string().find(".part"), std::string::npos)
                << "left behind: " << entry.path();
        }
        EXPECT_EQ(files, 10u);  // no GPU streams: no gpu reports; with report.html and timeline.json
    }
    EXPECT_NE(slurp(fs::path(one) / "trace.json").find("\"ph\": \"X\", \"name\": \"MPI_Recv\""),
              std::string::npos);
    EXPECT_NE(summary.find("The timeline is in report.html (what each lane spends the run on, and a window in "
                           "detail: timeline.json) and in trace.json"),
              std::string::npos)
        << summary;
}

TEST_F(TraceToolTest, ClockViolationsAreCorrectedAlikeForAnyKOrKeptWhenAsked) {
    // The wait-state experiment without its ClockOffset records: the clocks are
    // milliseconds apart, and receives and collectives violate the clock condition.
    TraceBuilder b = wait_states_trace();
    b.write_clock_offsets(false);
    b.write(experiment());
    const std::string one = analyze_into(1);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("Controlled logical clock: "), std::string::npos) << summary;
    EXPECT_NE(summary.find("violations left: 0 in messages, 0 in collectives"), std::string::npos) << summary;
    const std::string json = slurp(fs::path(one) / "waitstates.json");
    EXPECT_NE(json.find("\"collective_clock_violations\": 6,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"clock_violations_left\": 0, \"collective_clock_violations_left\": 0}"),
              std::string::npos)
        << json;
    const std::string html = slurp(fs::path(one) / "report.html");
    EXPECT_NE(html.find("Corrected by the controlled logical clock"), std::string::npos);
    for (int k : {2, 3}) {  // the rounds over MPI, and the second read
        const std::string other = analyze_into(k);
        for (const char* name : {"summary.txt", "waitstates.csv", "waitstates.json", "iterations.csv", "trace.json"})
            EXPECT_EQ(slurp(fs::path(other) / name), slurp(fs::path(one) / name)) << name << ", K = " << k;
    }
    const std::string output = dir_.file("as-written");
    const RunResult kept = analyze(2, {"--no-logical-clock", "--output", output, experiment()});
    ASSERT_EQ(kept.status, 0) << kept.err;
    const std::string as_written = slurp(fs::path(output) / "summary.txt");
    EXPECT_EQ(as_written.find("Controlled logical clock"), std::string::npos) << as_written;
    EXPECT_NE(as_written.find("The times were not corrected (--no-logical-clock)"), std::string::npos)
        << as_written;
    EXPECT_NE(slurp(fs::path(output) / "waitstates.csv"), slurp(fs::path(one) / "waitstates.csv"));
    EXPECT_NE(slurp(fs::path(output) / "report.html").find("Not corrected (--no-logical-clock)"), std::string::npos);
}

TEST_F(TraceToolTest, TimelineCanBeSwitchedOff) {
    wait_states_trace().write(experiment());
    const std::string output = dir_.file("out");
    const RunResult r = analyze(2, {"--timeline-events", "0", "--output", output, experiment()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(fs::exists(fs::path(output) / "trace.json"));
    EXPECT_TRUE(fs::exists(fs::path(output) / "waitstates.csv"));
    EXPECT_EQ(slurp(fs::path(output) / "summary.txt").find("trace.json"), std::string::npos);
}

TEST_F(TraceToolTest, ProfileAndTraceTogether) {
    write_experiment(imbalanced_profile(), experiment());
    wait_states_trace().write(experiment());
    const std::string one = analyze_into(1), two = analyze_into(2);
    EXPECT_EQ(slurp(fs::path(one) / "waitstates.csv"), wait_states_trace_csv());
    const std::string json = slurp(fs::path(one) / "summary.json");
    EXPECT_NE(json.find("\"trace\": {\"present\": true, \"analysed\": true"), std::string::npos) << json;
    EXPECT_NE(slurp(fs::path(one) / "summary.csv").find("wait_states,late_sender,0.013,s,"),
              std::string::npos);
    // The trace's 13 ms of late senders against the profile's 4 ranks x R = 5 s:
    // 0.065 % of the run time at stake, below the 1 % of --min-finding-share.
    EXPECT_EQ(slurp(fs::path(one) / "advice.csv").find(",late_sender,"), std::string::npos)
        << slurp(fs::path(one) / "advice.csv");
    const std::string all = dir_.file("all");
    ASSERT_EQ(analyze(1, {"--force", "--min-finding-share", "0", "--output", all, experiment()}).status, 0);
    EXPECT_NE(slurp(fs::path(all) / "advice.csv").find(",late_sender,MPI_Recv,main/MPI_Recv,0 2 3,share_of_mpi_time,"
                                                        "0.203634085,0.1,0.013,0.00065,"),
              std::string::npos)
        << slurp(fs::path(all) / "advice.csv");
    for (const char* name : {"summary.txt", "summary.json", "summary.csv", "waitstates.csv",
                             "waitstates.json", "advice.csv", "loadbalance.csv"}) {
        EXPECT_EQ(slurp(fs::path(two) / name), slurp(fs::path(one) / name)) << name;
    }
}

TEST_F(TraceToolTest, BothEventReadersGiveTheSameReports) {
    // EventFile (the default) and OTF2's own reader (--event-reader otf2): on
    // a trace with clock offsets, messages and collectives, and on one with GPU
    // streams whose kernels and launches carry CUDA correlation attributes.
    for (const bool gpu : {false, true}) {
        fs::remove_all(experiment());
        (gpu ? gpu_trace() : wait_states_trace()).write(experiment());
        const std::string direct = analyze_into(2);
        const std::string otf2 = dir_.file("otf2");
        const RunResult r = analyze(2, {"--force", "--event-reader", "otf2", "--output", otf2, experiment()});
        ASSERT_EQ(r.status, 0) << r.err;
        std::size_t compared = 0;
        for (const auto& entry : fs::directory_iterator(direct)) {
            const std::string name = entry.path().filename().string();
            EXPECT_EQ(slurp(fs::path(otf2) / name), slurp(entry.path())) << name << (gpu ? " (GPU)" : "");
            ++compared;
        }
        EXPECT_EQ(compared, gpu ? 20u : 10u);  // with GPU streams also gpu*, ops*, op_kernels*, step_trace*
    }
}

TEST_F(TraceToolTest, MissingRankIsSkippedAndNamed) {
    wait_states_trace().write(experiment());
    for (const char* ext : {".evt", ".def"})
        fs::remove(fs::path(experiment()) / "traces" / (std::to_string(2ull << 32) + ext));
    const std::string one = analyze_into(1), two = analyze_into(2);
    const std::string summary = slurp(fs::path(one) / "summary.txt");
    EXPECT_NE(summary.find("Locations read 3 of 4"), std::string::npos) << summary;
    EXPECT_NE(
        summary.find("Skipped: rank 2, thread 0 (location 8589934592): its local definitions (.def file) "
                     "cannot be opened"),
        std::string::npos)
        << summary;
    const std::string csv = slurp(fs::path(one) / "waitstates.csv");
    // Rank 2's own waits are gone and instances with rank 2 are incomplete;
    // the late sender on rank 1 (from rank 0) is still exact.
    EXPECT_NE(csv.find("late_sender,main/MPI_Recv,1,0,0.005,1\n"), std::string::npos) << csv;
    EXPECT_EQ(csv.find("wait_at_barrier"), std::string::npos) << csv;
    EXPECT_NE(slurp(fs::path(one) / "waitstates.json").find("\"collectives_incomplete\": 4"),
              std::string::npos);
    EXPECT_EQ(slurp(fs::path(two) / "waitstates.json"), slurp(fs::path(one) / "waitstates.json"));
}

TEST_F(TraceToolTest, UnreadableTraceWithoutProfileIsAnError) {
    wait_states_trace().write(experiment());
    std::ofstream(fs::path(experiment()) / "traces.def", std::ios::trunc) << "garbage";
    const RunResult r = analyze(2, {"--output", dir_.file("out"), experiment()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile.h5: no such file, and the trace cannot be read"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("traces.otf2: cannot open the global definitions (traces.def missing or damaged)"),
              std::string::npos)
        << r.err;
}

/// A small deterministic generator for the fuzz corpus.
struct Lcg {
    std::uint64_t state;
    std::uint64_t next() { return state = state * 6364136223846793005ull + 1442695040888963407ull; }
};

TEST_F(TraceToolTest, FuzzCorpusNeverCrashes) {
    const std::string pristine = dir_.file("pristine");
    wait_states_trace().write(pristine);
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(pristine)) {
        if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), pristine));
    }
    std::sort(files.begin(), files.end());
    ASSERT_EQ(files.size(), 10u);  // anchor, global defs, 4 x (.evt, .def)
    Lcg random{20261122};
    int variants = 0;
    for (const fs::path& file : files) {
        for (int variant = 0; variant < 4; ++variant) {
            fs::remove_all(experiment());
            fs::copy(pristine, experiment(), fs::copy_options::recursive);
            const fs::path target = fs::path(experiment()) / file;
            std::string bytes = slurp(target);
            std::string what;
            if (variant == 0) {
                bytes.resize(bytes.size() / 2);
                what = "truncated to half";
            } else if (variant == 1) {
                bytes.resize(bytes.size() > 7 ? 7 : 0);
                what = "truncated to 7 bytes";
            } else {
                for (int flip = 0; flip < 3 * variant; ++flip) {
                    bytes[random.next() % bytes.size()] ^= static_cast<char>(1 + random.next() % 255);
                }
                what = "bytes flipped";
            }
            std::ofstream(target, std::ios::binary | std::ios::trunc) << bytes;
            const RunResult r =
                analyze(variant == 3 ? 2 : 0, {"--force", "--output", dir_.file("out"), experiment()});
            ++variants;
            EXPECT_TRUE(r.status == 0 || r.status == 1)
                << file << " " << what << ": status " << r.status << "\n"
                << r.err;
            if (r.status == 1) {
                EXPECT_NE(r.err.find("strata-analyze: "), std::string::npos) << file << " " << what;
            }
            if (r.status == 0) {
                EXPECT_TRUE(fs::exists(fs::path(dir_.file("out")) / "waitstates.csv")) << file << " " << what;
            }
        }
    }
    EXPECT_EQ(variants, 40);
}

}  // namespace
}  // namespace strata::analysis::test
