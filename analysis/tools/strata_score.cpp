// SPDX-License-Identifier: BSD-3-Clause
// strata-score: time and visits per region or call path of a Strata profile.
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "profile/profile_guard.hpp"
#include "profile/profile_reader.hpp"
#include "score/score_options.hpp"
#include "score/score_report.hpp"

namespace {

/// What the header calls the experiment: the directory given, or the one
/// holding the profile file given.
std::string experiment_of(const std::string& input) {
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) return input;
    const std::string parent = std::filesystem::path(input).parent_path().string();
    return parent.empty() ? "." : parent;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace strata::analysis;
    ScoreOptions options;
    try {
        options = parse_score_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const UsageError& problem) {
        std::cerr << "strata-score: " << problem.what() << "\n\n" << score_usage();
        return 2;
    }
    if (options.help) {
        std::cout << score_usage();
        return 0;
    }
    try {
        // A file that crashes HDF5 itself is tried in a child process first.
        if (const std::string crash = check_profile_in_child(profile_path_of(options.input)); !crash.empty()) {
            std::cerr << "strata-score: " << crash << '\n';
            return 1;
        }
        const Profile profile = read_profile(profile_path_of(options.input));
        write_score_report(std::cout, std::cerr, profile, options, experiment_of(options.input));
    } catch (const ProfileError& problem) {
        std::cerr << "strata-score: " << problem.what() << '\n';
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "strata-score: out of memory\n";
        return 1;
    }
    std::cout.flush();
    if (!std::cout) {
        std::cerr << "strata-score: cannot write the report to standard output\n";
        return 1;
    }
    return 0;
}
