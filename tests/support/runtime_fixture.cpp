// SPDX-License-Identifier: BSD-3-Clause
// Test support implementation.
#include "runtime_fixture.hpp"

#include "core/location.hpp"

namespace strata::testing {

namespace {
std::vector<SeenEvent> g_seen;
void on_enter(Location&, Ticks t, RegionHandle r) { g_seen.push_back({'E', t, r, 0}); }
void on_exit(Location&, Ticks t, RegionHandle r) { g_seen.push_back({'L', t, r, 0}); }
void on_pint(Location&, Ticks t, ParameterHandle p, std::int64_t v) { g_seen.push_back({'P', t, p, v}); }
void on_pstr(Location&, Ticks t, ParameterHandle p, StringHandle v) {
    g_seen.push_back({'S', t, p, static_cast<std::int64_t>(v)});
}
// Thread events: 'F' fork (value: requested threads), 'J' join, 'B' team begin
// (region field: team, value: depth of the inherited call path), 'X' team end,
// tasks 'C' create, 'W' switch, 'D' complete (region field: creator, value: generation).
std::vector<substrate::ThreadEvent> g_seen_thread_events;
void on_thread(Location&, Ticks t, const substrate::ThreadEvent& e) {
    using K = substrate::ThreadEvent;
    g_seen_thread_events.push_back(e);
    switch (e.kind) {
        case K::fork: g_seen.push_back({'F', t, 0, e.requested_threads}); break;
        case K::join: g_seen.push_back({'J', t, 0, 0}); break;
        case K::team_begin: g_seen.push_back({'B', t, e.team, e.inherited_depth}); break;
        case K::team_end: g_seen.push_back({'X', t, e.team, 0}); break;
        case K::task_create: g_seen.push_back({'C', t, e.task_creator, e.task_generation}); break;
        case K::task_switch: g_seen.push_back({'W', t, e.task_creator, e.task_generation}); break;
        case K::task_complete: g_seen.push_back({'D', t, e.task_creator, e.task_generation}); break;
        case K::kind_count: break;
    }
}
// MPI events: 'M' (region field: the kind, value: bytes sent).
void on_mpi(Location&, Ticks t, const substrate::MpiEvent& e) {
    g_seen.push_back({'M', t, e.kind, static_cast<std::int64_t>(e.bytes)});
}
void on_reset() {
    g_seen.clear();
    g_seen_thread_events.clear();
}
const substrate::CoreServices* g_core = nullptr;
void on_init(const substrate::CoreServices& core) { g_core = &core; }
constexpr substrate::Callbacks recording(bool inherited_only) {
    substrate::Callbacks c;
    c.management.name = "recording";
    c.management.init = on_init;
    c.management.reset = on_reset;
    c.events.enter = on_enter;
    c.events.exit = on_exit;
    c.events.parameter_int = on_pint;
    c.events.parameter_string = on_pstr;
    c.events.mpi_event = on_mpi;
    c.events.thread_event = on_thread;
    c.events.thread_events_inherited_only = inherited_only;
    return c;
}
constexpr substrate::Callbacks kRecording = recording(false);
constexpr substrate::Callbacks kRecordingInheritedOnly = recording(true);
}  // namespace

const substrate::Callbacks& recording_substrate() { return kRecording; }
const substrate::Callbacks& recording_substrate_inherited_only() { return kRecordingInheritedOnly; }
std::vector<SeenEvent>& seen_events() { return g_seen; }
const substrate::CoreServices* core_services() { return g_core; }
std::vector<substrate::ThreadEvent>& seen_thread_events() { return g_seen_thread_events; }

void RuntimeTest::start(std::vector<const substrate::Callbacks*> substrates, std::uint64_t total_memory,
                        std::uint64_t page_size, const std::string& directory) {
    runtime::Options options;
    options.settings.timer = config::TimerKind::clock_gettime;
    options.settings.total_memory = total_memory;
    options.settings.page_size = page_size;
    options.substrates = std::move(substrates);
    options.experiment_directory = directory;
    const Error error = runtime::initialize(options);
    ASSERT_FALSE(error) << *error;
    g_seen.clear();
    g_seen_thread_events.clear();
}

void RuntimeTest::TearDown() {
    runtime::reset_for_tests();
    g_seen.clear();
    g_seen_thread_events.clear();
}

}  // namespace strata::testing
