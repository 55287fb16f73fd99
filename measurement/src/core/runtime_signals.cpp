// SPDX-License-Identifier: BSD-3-Clause
// The runtime's exit and signal handlers: the experiment is written at exit()
// and when a fatal signal or a request to terminate arrives; a forked child
// stops measuring.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/location.hpp"
#include "core/runtime.hpp"
#include "core/runtime_internal.hpp"

namespace strata::runtime {

using namespace internal;

// SIGPIPE too: a program whose output pipe closed (its reader, or mpirun
// tearing a failed job down) ends as if asked to.
bool internal::termination_request(int sig) {
    return sig == SIGTERM || sig == SIGINT || sig == SIGQUIT || sig == SIGPIPE;
}

namespace {

void exit_handler() { finalize(); }

// A forked child (without exec) shares the parent's experiment directory and
// buffers: it must neither record into them nor write them at its exit, or
// it would overwrite the parent's results.  Measurement stops in the child.
void stop_in_forked_child() { stop_without_writing(); }

struct SignalSlot {
    int signal;
    struct sigaction previous;
    bool installed;
};
SignalSlot g_signals[] = {{SIGSEGV, {}, false}, {SIGBUS, {}, false}, {SIGFPE, {}, false},
                          {SIGILL, {}, false},  {SIGABRT, {}, false}, {SIGTERM, {}, false},
                          {SIGINT, {}, false},  {SIGQUIT, {}, false}, {SIGPIPE, {}, false}};

void fatal_signal_handler(int sig) {
    // A request to terminate that interrupted Strata's own work on this thread
    // (a trace flush, an allocation) waits until that work is done: writing the
    // experiment now would convert a buffer OTF2 is still writing.  Faults cannot wait.
    const bool request = termination_request(sig);
    const Location* loc = location::detail::current;
    if (request && loc != nullptr && loc->busy) {
        int none = 0;
        // SA_RESETHAND has restored the default action: a second signal ends the program at once.
        if (detail::deferred_signal.compare_exchange_strong(none, sig)) return;
    }
    // Best effort: writing the experiment is not async-signal-safe, but the
    // process is about to die and the data would be lost otherwise.
    static std::atomic<int> entered{0};
    if (entered.fetch_add(1) == 0) {
        // The process ends now: a closed stdout or stderr (mpirun ending a failed
        // job) must not end it by SIGPIPE at the first message, before it has written.
        if (sig != SIGPIPE) std::signal(SIGPIPE, SIG_IGN);
        const char* text = strsignal(sig);
        std::snprintf(g_alone_reason, sizeof g_alone_reason, "it received signal %d (%s)", sig, text ? text : "?");
        g_ending_signal = sig;
        std::fprintf(stderr, "strata: the program received signal %d (%s); writing what was recorded\n",
                     sig, text ? text : "?");
        finalize();
    }
    for (SignalSlot& slot : g_signals) {
        if (slot.signal == sig && slot.installed) sigaction(sig, &slot.previous, nullptr);
    }
    std::signal(sig, SIG_DFL);
    raise(sig);
}

}  // namespace

std::atomic<int> detail::deferred_signal{0};

void detail::handle_deferred_signal() {
    const int sig = deferred_signal.exchange(0);
    if (sig != 0) fatal_signal_handler(sig);
}

void internal::install_handlers() {
    std::atexit(exit_handler);
    pthread_atfork(nullptr, nullptr, stop_in_forked_child);
    // An alternate stack, so that a stack overflow can still be reported.
    static const size_t kAltStack = 1 << 20;
    stack_t ss{};
    ss.ss_sp = std::malloc(kAltStack);
    ss.ss_size = kAltStack;
    if (ss.ss_sp != nullptr) sigaltstack(&ss, nullptr);
    for (SignalSlot& slot : g_signals) {
        struct sigaction current{};
        if (sigaction(slot.signal, nullptr, &current) != 0) continue;
        // Keep what the program (or its parent) chose: ignored or handled signals stay so.
        if (current.sa_handler != SIG_DFL) continue;
        struct sigaction sa{};
        sa.sa_handler = fatal_signal_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
        if (sigaction(slot.signal, &sa, &slot.previous) == 0) slot.installed = true;
    }
}

}  // namespace strata::runtime
