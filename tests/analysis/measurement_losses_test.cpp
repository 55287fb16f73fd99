// SPDX-License-Identifier: BSD-3-Clause
// losses/rank-<r>.tsv into notes of the advice (analyze/measurement_losses.hpp).
#include "analyze/measurement_losses.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace strata::analysis {
namespace {

namespace fs = std::filesystem;

struct LossDirectory {
    fs::path root = fs::temp_directory_path() / ("strata-losses-" + std::to_string(::getpid()));
    LossDirectory() {
        fs::remove_all(root);
        fs::create_directories(root / "losses");
    }
    ~LossDirectory() { fs::remove_all(root); }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(root / "losses" / name) << text;
    }
};

TEST(MeasurementLosses, NoDirectoryNoFinding) {
    EXPECT_TRUE(loss_findings((fs::temp_directory_path() / "strata-no-such-experiment").string()).empty());
}

TEST(MeasurementLosses, SameLossOfSeveralRanksAddsUpWithItsRemedy) {
    LossDirectory d;
    d.write("rank-0.tsv",
            "GPU activity records dropped by CUPTI\t3\traise STRATA_CUDA_BUFFER_SIZE (now 4096K)\n");
    d.write("rank-2.tsv",
            "GPU activity records dropped by CUPTI\t5\traise STRATA_CUDA_BUFFER_SIZE (now 4096K)\n"
            "trace records lost for lack of memory\t7\tincrease STRATA_TOTAL_MEMORY (now 64M)\n");
    d.write("notes.txt", "not a rank file\t1\tx\n");  // ignored
    const auto findings = loss_findings(d.root.string());
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].kind, "measurement_loss");
    EXPECT_EQ(findings[0].value, 8);
    EXPECT_EQ(findings[0].ranks, (std::vector<std::int64_t>{0, 2}));
    EXPECT_FALSE(findings[0].stake.has_value());  // a note on the measurement
    EXPECT_NE(findings[0].message.find("8 GPU activity records dropped by CUPTI (ranks 0, 2)"),
              std::string::npos);
    EXPECT_NE(findings[0].message.find("raise STRATA_CUDA_BUFFER_SIZE"), std::string::npos);
    EXPECT_EQ(findings[1].value, 7);
    EXPECT_NE(findings[1].message.find("(rank 2)"), std::string::npos);
}

TEST(MeasurementLosses, UnreadableLinesAreCountedNotGuessed) {
    LossDirectory d;
    d.write("rank-1.tsv", "no tabs here\nwhat\tmany\tremedy\n\t4\tno what\nfine\t2\t\n");
    const auto findings = loss_findings(d.root.string());
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].message.substr(0, 20), "Not measured: 2 fine");
    EXPECT_EQ(findings[0].message.find("To avoid it"), std::string::npos);  // no remedy given
    EXPECT_EQ(findings[1].metric, "unreadable_lines");
    EXPECT_EQ(findings[1].value, 3);
}

}  // namespace
}  // namespace strata::analysis
