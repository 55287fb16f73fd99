// SPDX-License-Identifier: BSD-3-Clause
// strata-score: time and visits per region or call path of a Strata profile.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <cerrno>
#include <cstring>
#include <vector>

#include "profile/profile_guard.hpp"
#include "profile/profile_reader.hpp"
#include "filter/filter_rules.hpp"
#include "score/filter_suggestion.hpp"
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

/// Writes `text` to `path` through a temporary file, so that a full disk
/// never leaves half a filter file; false (and a message) on failure.
bool write_file(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (out) {
            out.close();
            if (out && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
        }
    }
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    std::cerr << "strata-score: cannot write the filter file " << path << " (" << std::strerror(errno) << ")\n";
    return false;
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
    // The filter is read first: a mistake in it is a bad argument (status 2).
    std::unique_ptr<strata::filter::FilterFile> filter;
    if (!options.filter_file.empty()) {
        filter = std::make_unique<strata::filter::FilterFile>();
        if (const strata::Error problem = strata::filter::read_filter_file(options.filter_file, filter.get())) {
            std::cerr << "strata-score: " << *problem << '\n';
            return 2;
        }
    }
    try {
        // A file that crashes HDF5 itself is tried in a child process first.
        if (const strata::Error crash = check_profile_in_child(profile_path_of(options.input))) {
            std::cerr << "strata-score: " << *crash << '\n';
            return 1;
        }
        const Profile profile = read_profile(profile_path_of(options.input));
        const std::string experiment = experiment_of(options.input);
        write_score_report(std::cout, std::cerr, profile, options, experiment, filter.get());
        if (!options.suggest_filter.empty()) {
            const FilterSuggestion suggestion = suggest_filter(profile, options.criteria);
            if (!suggestion.regions.empty() &&
                !write_file(options.suggest_filter, filter_file_text(suggestion, options.criteria, experiment)))
                return 1;
            // With --csv, stdout holds the CSV only.
            (options.csv ? std::cerr : std::cout)
                << (options.csv ? "" : "\n") << suggestion_summary(suggestion, options.criteria, options.suggest_filter);
        }
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
