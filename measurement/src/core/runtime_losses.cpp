// SPDX-License-Identifier: BSD-3-Clause
// What the measurement could not record (events::report_loss), kept until the
// end and written into the experiment, losses/rank-<r>.tsv.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "core/experiment_directory.hpp"
#include "core/runtime.hpp"
#include "core/runtime_internal.hpp"

namespace strata::runtime {

namespace {

struct Loss {
    std::string what;
    std::uint64_t count = 0;
    std::string remedy;
};
std::mutex g_losses_mutex;
std::vector<Loss>& losses() {
    static auto* list = new std::vector<Loss>();  // never destroyed: reported from exit handlers
    return *list;
}

}  // namespace

/// losses/rank-<r>.tsv: one line per loss, "what<TAB>count<TAB>remedy" (experiment-format.md).
void internal::write_losses(const std::string& directory, int rank) {
    std::lock_guard<std::mutex> lock(g_losses_mutex);
    if (losses().empty() || directory.empty()) return;
    std::string text;
    const auto clean = [](std::string s) {
        for (char& c : s) {
            if (c == '\t' || c == '\n' || c == '\r') c = ' ';
        }
        return s;
    };
    for (const Loss& l : losses()) {
        text += clean(l.what) + "\t" + std::to_string(l.count) + "\t" + clean(l.remedy) + "\n";
    }
    std::error_code ec;
    std::filesystem::create_directory(directory + "/losses", ec);  // every rank: it may exist
    const Error problem =
        ec ? Error("cannot create " + directory + "/losses: " + ec.message())
           : experiment::write_file(directory + "/losses/rank-" + std::to_string(rank) + ".tsv", text);
    if (problem) std::fprintf(stderr, "strata: warning: %s\n", problem->c_str());
}

void report_loss(const std::string& what, std::uint64_t count, const std::string& remedy) {
    if (count == 0) return;
    std::lock_guard<std::mutex> lock(g_losses_mutex);
    for (Loss& l : losses()) {
        if (l.what == what) {
            l.count += count;
            l.remedy = remedy;
            return;
        }
    }
    losses().push_back({what, count, remedy});
}

}  // namespace strata::runtime
