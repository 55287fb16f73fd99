// SPDX-License-Identifier: BSD-3-Clause
// The MPI job's part of the lifecycle (events.hpp, process_group.hpp): the
// directory agreed on at MPI_Init, the clock offsets, the substrates' collective
// set-up, the collective end at MPI_Finalize, a rank that ends alone; and a
// stop before main that leaves no empty experiment behind.
#include "strata/measurement/events.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/runtime.hpp"
#include "core/runtime_internal.hpp"
#include "core/timer.hpp"
#include "core/unification.hpp"
#include "strata/measurement/process_group.hpp"

namespace strata::events {

namespace {

/// Removes the directory made at the start when it holds only what the start
/// wrote (the marker and strata.cfg): nothing was measured into it.
void remove_if_only_start_up(const std::string& made) {
    if (made.empty()) return;
    std::error_code ec;
    bool only_start_up = true;
    for (const auto& entry : std::filesystem::directory_iterator(made, ec)) {
        const std::string name = entry.path().filename().string();
        only_start_up = only_start_up && (name == ".strata-experiment" || name == "strata.cfg");
    }
    if (!ec && only_start_up) std::filesystem::remove_all(made, ec);
}

}  // namespace

void stop_before_main(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    remove_if_only_start_up(runtime::internal::state().made_directory);
    _exit(1);
}

}  // namespace strata::events

namespace strata::events {

void begin_multi_process(ProcessGroup* group) {
    using namespace runtime;
    using namespace runtime::internal;
    if (group == nullptr || state().group != nullptr || g_finalized.load()) return;
    const bool claimed_at_start = !state().directory_deferred;
    if (claimed_at_start && state().experiment_directory.empty()) return;  // nothing is written
    // Rank 0 creates the directory, or has the one it claimed at the start (no
    // launcher said this process was one of several); everyone learns its name,
    // or that it failed.
    Error problem;
    std::string path;
    if (group->rank() == 0) {
        if (claimed_at_start) {
            path = state().experiment_directory;
        } else {
            problem = create_experiment_directory(static_cast<long>(getpid()), &path);  // absolute
        }
    }
    std::string message = problem ? "no" + *problem : "ok" + path;
    unification::broadcast_bytes(*group, message, 0);
    if (message.compare(0, 2, "ok") != 0) {
        // The program goes on; only the measurement stops (on every rank).
        if (group->rank() == 0) {
            std::fprintf(stderr, "%s; the measurement stops\n", message.c_str() + 2);
        }
        stop_without_writing();
        return;
    }
    if (claimed_at_start && state().experiment_directory != message.substr(2)) {
        // Rank 0's is the job's: the one this rank claimed holds nothing yet.
        remove_if_only_start_up(state().made_directory);
    }
    state().experiment_directory = message.substr(2);
    state().group = group;
    state().clock_points.push_back(clock_sync::measure(*group, timer::now, timer::clock_domain()));
    for (const substrate::Callbacks* s : state().substrates) {
        if (!s->management.begin_multi_process) continue;
        if (const Error error = s->management.begin_multi_process(group)) std::fprintf(stderr, "%s\n", error->c_str());
    }
    // Nobody leaves MPI_Init before every rank has entered it (the clock condition).
    group->barrier();
}

void end_multi_process() {
    if (runtime::internal::state().group == nullptr) return;
    runtime::internal::g_collective_finalize = true;
    runtime::finalize();
    runtime::internal::g_collective_finalize = false;
    runtime::internal::state().group = nullptr;
}

void abort_multi_process(const char* reason) {
    if (reason != nullptr) std::snprintf(runtime::internal::g_alone_reason, sizeof runtime::internal::g_alone_reason, "%s", reason);
    runtime::finalize();
}

}  // namespace strata::events
