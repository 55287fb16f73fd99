// SPDX-License-Identifier: BSD-3-Clause
// Reading losses/rank-<r>.tsv (see measurement_losses.hpp).
#include "analyze/measurement_losses.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace strata::analysis {

namespace {

struct Loss {
    std::uint64_t count = 0;
    std::set<std::int64_t> ranks;
    std::string remedy;
};

/// The rank of "rank-<r>.tsv", -1 for another name.
std::int64_t rank_of(const std::string& name) {
    const std::string prefix = "rank-", suffix = ".tsv";
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return -1;
    }
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoll(digits);
}

std::string rank_list(const std::set<std::int64_t>& ranks) {
    std::string text;
    std::size_t shown = 0;
    for (std::int64_t r : ranks) {
        if (shown++ == 8) {
            text += ", ... (" + std::to_string(ranks.size()) + " ranks)";
            break;
        }
        text += (text.empty() ? "" : ", ") + std::to_string(r);
    }
    return (ranks.size() == 1 ? "rank " : "ranks ") + text;
}

}  // namespace

std::vector<Finding> loss_findings(const std::string& experiment) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = fs::path(experiment) / "losses";
    if (experiment.empty() || !fs::is_directory(dir, ec)) return {};
    std::map<std::string, Loss> losses;  // by what: the same order on every run
    std::uint64_t unreadable = 0;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::int64_t rank = rank_of(entry.path().filename().string());
        if (rank < 0 || !entry.is_regular_file(ec)) continue;
        std::ifstream in(entry.path());
        std::string line;
        // A few kinds per rank: a file far longer than that is not ours.
        for (int n = 0; n < 1000 && std::getline(in, line); ++n) {
            const std::size_t a = line.find('\t');
            const std::size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
            if (b == std::string::npos || a == 0 || line.size() > 4096) {
                ++unreadable;
                continue;
            }
            const std::string count = line.substr(a + 1, b - a - 1);
            if (count.empty() || count.size() > 19 || count.find_first_not_of("0123456789") != std::string::npos) {
                ++unreadable;
                continue;
            }
            Loss& loss = losses[line.substr(0, a)];
            loss.count += std::stoull(count);
            loss.ranks.insert(rank);
            if (loss.remedy.empty()) loss.remedy = line.substr(b + 1);
        }
    }
    std::vector<Finding> findings;
    for (const auto& [what, loss] : losses) {
        Finding f;
        f.kind = "measurement_loss";
        f.metric = "lost";
        f.value = static_cast<double>(loss.count);
        f.ranks.assign(loss.ranks.begin(), loss.ranks.end());
        f.message = "Not measured: " + std::to_string(loss.count) + " " + what + " (" + rank_list(loss.ranks) +
                    "); the reports lack them." + (loss.remedy.empty() ? "" : " To avoid it: " + loss.remedy + ".");
        findings.push_back(std::move(f));
    }
    if (unreadable > 0) {
        Finding f;
        f.kind = "measurement_loss";
        f.metric = "unreadable_lines";
        f.value = static_cast<double>(unreadable);
        f.message = std::to_string(unreadable) + " lines of " + dir.string() +
                    " could not be read (expected: what<TAB>count<TAB>remedy); losses they name are not shown.";
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace strata::analysis
