// SPDX-License-Identifier: BSD-3-Clause
// Kernel software events through perf_event_open(): names, the check at
// start-up, one group per thread.
#include "metrics/kernel_software_events.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>

namespace strata::metrics::kernel_events {

namespace {

struct SoftwareEvent {
    const char* name;   ///< libpfm4's name of the event in its "perf" PMU
    const char* alias;  ///< libpfm4's short name, or nullptr
    const char* kernel_name;
    int config;
    const char* unit;
    const char* description;
};

// The names libpfm4 (and so PAPI) gives the kernel's software events.
const SoftwareEvent kEvents[] = {
    {"CPU-CLOCK", nullptr, "PERF_COUNT_SW_CPU_CLOCK", 0, "ns",
     "CPU clock while the thread runs (kernel software event)"},
    {"TASK-CLOCK", nullptr, "PERF_COUNT_SW_TASK_CLOCK", 1, "ns",
     "time the thread was on a CPU (kernel software event)"},
    {"PAGE-FAULTS", "FAULTS", "PERF_COUNT_SW_PAGE_FAULTS", 2, "count", "page faults (kernel software event)"},
    {"CONTEXT-SWITCHES", "CS", "PERF_COUNT_SW_CONTEXT_SWITCHES", 3, "count",
     "context switches (kernel software event)"},
    {"CPU-MIGRATIONS", "MIGRATIONS", "PERF_COUNT_SW_CPU_MIGRATIONS", 4, "count",
     "moves of the thread to another CPU (kernel software event)"},
    {"MINOR-FAULTS", nullptr, "PERF_COUNT_SW_PAGE_FAULTS_MIN", 5, "count",
     "page faults served without I/O (kernel software event)"},
    {"MAJOR-FAULTS", nullptr, "PERF_COUNT_SW_PAGE_FAULTS_MAJ", 6, "count",
     "page faults that needed I/O (kernel software event)"},
    {"ALIGNMENT-FAULTS", nullptr, "PERF_COUNT_SW_ALIGNMENT_FAULTS", 7, "count",
     "unaligned accesses fixed up by the kernel (kernel software event)"},
    {"EMULATION-FAULTS", nullptr, "PERF_COUNT_SW_EMULATION_FAULTS", 8, "count",
     "instructions emulated by the kernel (kernel software event)"},
    {"DUMMY", nullptr, "PERF_COUNT_SW_DUMMY", 9, "count", "counts nothing (kernel software event)"},
    {"BPF-OUTPUT", nullptr, "PERF_COUNT_SW_BPF_OUTPUT", 10, "count", "BPF output (kernel software event)"},
    {"CGROUP-SWITCHES", nullptr, "PERF_COUNT_SW_CGROUP_SWITCHES", 11, "count",
     "context switches to a task of another cgroup (kernel software event)"},
};

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

const SoftwareEvent* find(const std::string& name) {
    std::string n = upper(name);
    if (n.compare(0, 6, "PERF::") == 0) n.erase(0, 6);
    for (const SoftwareEvent& e : kEvents) {
        if (n == e.name || n == e.kernel_name || (e.alias != nullptr && n == e.alias)) return &e;
    }
    return nullptr;
}

std::mutex g_mutex;
/// The configs every thread counts, in the configured order.  A function-local
/// static: the runtime starts (and fills it) before this file's initialisers run.
std::vector<int>& event_configs() {
    static auto* configs = new std::vector<int>();
    return *configs;
}
/// Their names as configured, for the messages of threads whose group the kernel refuses.
std::vector<std::string>& event_names() {
    static auto* names = new std::vector<std::string>();
    return *names;
}

/// Opens one software event of the calling thread; the first of a group leads
/// it and starts disabled: an event joining a group already counting is not
/// counted until the kernel schedules the thread again.
int open_event(int config, int group_fd) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = static_cast<unsigned>(config);
    attr.read_format = PERF_FORMAT_GROUP;
    attr.disabled = group_fd < 0 ? 1 : 0;
    // User mode only, as PAPI's default domain: allowed at perf_event_paranoid 2.
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

std::string paranoid_level() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::string level;
    return in >> level ? level : "unknown";
}

/// Why the kernel refused to open an event, from errno.
std::string refusal(int err, const std::string& name) {
    switch (err) {
        case EACCES:
        case EPERM:
            return "the kernel does not allow this process to count '" + name +
                   "' (/proc/sys/kernel/perf_event_paranoid is " + paranoid_level() +
                   "; at most 2 allows counting one's own threads, or a container may forbid "
                   "perf_event_open)";
        case ENOENT:
        case EOPNOTSUPP:
        case EINVAL:
            return "this kernel has no software event '" + name + "'";
        case ENOSYS:
            return "this kernel has no perf_event_open(), so it cannot count '" + name + "'";
        case EMFILE:
        case ENFILE:
            return "no file descriptor is left to count '" + name + "'";
        default:
            return "the kernel cannot count '" + name + "': " + std::strerror(err);
    }
}

void close_all(const int* fds, int count) {
    for (int i = 0; i < count; ++i) close(fds[i]);
}

/// Opens the group of `configs` on the calling thread; returns how many are
/// open (all, or 0 with `failed` the index of the refused one and `err` its errno).
int open_group(const std::vector<int>& configs, int* fds, std::size_t* failed, int* err) {
    for (std::size_t i = 0; i < configs.size(); ++i) {
        fds[i] = open_event(configs[i], i == 0 ? -1 : fds[0]);
        if (fds[i] < 0) {
            *failed = i;
            *err = errno;
            close_all(fds, static_cast<int>(i));
            return 0;
        }
    }
    if (!configs.empty() && ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        *failed = 0;
        *err = errno;
        close_all(fds, static_cast<int>(configs.size()));
        return 0;
    }
    return static_cast<int>(configs.size());
}

}  // namespace

int software_event(const std::string& name) {
    const SoftwareEvent* e = find(name);
    return e != nullptr ? e->config : -1;
}

Error check_events(const std::vector<std::string>& names, const std::string& why_not_papi,
                   std::vector<MetricSpec>* specs) {
    const std::string hint = "; `strata-info metrics` lists the events that can be counted on this machine";
    std::vector<int> configs;
    std::vector<MetricSpec> found;
    for (const std::string& name : names) {
        const SoftwareEvent* e = find(name);
        if (e == nullptr) {
            return "STRATA_METRIC_PAPI: '" + name +
                   "' cannot be counted here: PAPI counts nothing on this machine (" + why_not_papi +
                   "), and it is not one of the kernel's software events, which Strata counts " +
                   "itself then" + hint;
        }
        for (std::size_t i = 0; i < configs.size(); ++i) {
            if (configs[i] == e->config) {
                return "STRATA_METRIC_PAPI: '" + name + "' is the same event as '" + names[i] +
                       "'; list each event once";
            }
        }
        configs.push_back(e->config);
        MetricSpec spec;
        spec.source = MetricSource::papi;  // the same counter under the same name as through PAPI
        spec.name = name;
        spec.unit = e->unit;
        spec.description =
            std::string(e->description) + ", counted through perf_event_open (" + why_not_papi + ")";
        found.push_back(spec);
    }
    int fds[substrate::kMaxMetrics];
    std::size_t failed = 0;
    int err = 0;
    const int open = open_group(configs, fds, &failed, &err);
    if (open == 0 && !configs.empty()) return "STRATA_METRIC_PAPI: " + refusal(err, names[failed]) + hint;
    close_all(fds, open);
    std::lock_guard<std::mutex> lock(g_mutex);
    event_configs() = configs;
    event_names() = names;
    *specs = found;
    return {};
}

std::vector<UsableEvent> usable_events() {
    std::vector<UsableEvent> usable;
    for (const SoftwareEvent& e : kEvents) {
        const int fd = open_event(e.config, -1);
        if (fd < 0) continue;
        close(fd);
        usable.push_back({std::string("perf::") + e.name, e.description});
    }
    return usable;
}

Error Group::start() {
    std::vector<int> configs;
    std::vector<std::string> names;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        configs = event_configs();
        names = event_names();
    }
    std::size_t failed = 0;
    int err = 0;
    count_ = open_group(configs, fds_, &failed, &err);
    if (count_ == 0 && !configs.empty()) return refusal(err, names[failed]);
    return {};
}

void Group::read(std::uint64_t* values) const {
    if (count_ == 0) return;
    // PERF_FORMAT_GROUP: the number of events, then their values in the order opened.
    std::uint64_t buffer[1 + substrate::kMaxMetrics];
    const ssize_t want = static_cast<ssize_t>(sizeof(std::uint64_t) * (1 + count_));
    if (::read(fds_[0], buffer, static_cast<std::size_t>(want)) != want) return;
    for (int i = 0; i < count_; ++i) values[i] = buffer[1 + i];
}

void Group::stop() {
    close_all(fds_, count_);
    count_ = 0;
}

}  // namespace strata::metrics::kernel_events
