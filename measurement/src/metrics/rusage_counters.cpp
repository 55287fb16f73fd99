// SPDX-License-Identifier: BSD-3-Clause
// getrusage() members: their table and the read of the selected ones.
#include "metrics/rusage_counters.hpp"

#include <sys/resource.h>

#include <cstddef>

namespace strata::metrics::rusage {

namespace {

// RUSAGE_THREAD is Linux's; elsewhere the process's usage is the best there is.
#ifdef RUSAGE_THREAD
constexpr int kWho = RUSAGE_THREAD;
#else
constexpr int kWho = RUSAGE_SELF;
#endif

std::uint64_t microseconds(const timeval& t) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1000000u + static_cast<std::uint64_t>(t.tv_usec);
}

std::uint64_t non_negative(long v) { return v > 0 ? static_cast<std::uint64_t>(v) : 0; }

/// Member i of `members()`, taken from one struct rusage.
std::uint64_t member(const struct rusage& u, int i) {
    switch (i) {
        case 0: return microseconds(u.ru_utime);
        case 1: return microseconds(u.ru_stime);
        case 2: return non_negative(u.ru_maxrss);
        case 3: return non_negative(u.ru_minflt);
        case 4: return non_negative(u.ru_majflt);
        case 5: return non_negative(u.ru_inblock);
        case 6: return non_negative(u.ru_oublock);
        case 7: return non_negative(u.ru_nvcsw);
        case 8: return non_negative(u.ru_nivcsw);
        default: return 0;
    }
}

}  // namespace

const std::vector<MetricSpec>& members() {
    // The other members of struct rusage (ru_ixrss, ru_nswap, ru_msgsnd, ...) are
    // always 0 on Linux, so they are not offered.
    using S = MetricSource;
    using M = MetricMode;
    static const std::vector<MetricSpec> table = {
        {S::rusage, "ru_utime", "us", "CPU time in user mode", M::accumulated_start},
        {S::rusage, "ru_stime", "us", "CPU time in system mode", M::accumulated_start},
        {S::rusage, "ru_maxrss", "KiB", "peak resident set size of the process so far", M::absolute_point},
        {S::rusage, "ru_minflt", "count", "page faults served without I/O (minor)", M::accumulated_start},
        {S::rusage, "ru_majflt", "count", "page faults that needed I/O (major)", M::accumulated_start},
        {S::rusage, "ru_inblock", "count", "block input operations", M::accumulated_start},
        {S::rusage, "ru_oublock", "count", "block output operations", M::accumulated_start},
        {S::rusage, "ru_nvcsw", "count", "voluntary context switches", M::accumulated_start},
        {S::rusage, "ru_nivcsw", "count", "involuntary context switches", M::accumulated_start},
    };
    return table;
}

std::vector<std::string> accepted_names() {
    std::vector<std::string> names = {"all"};
    for (const MetricSpec& m : members()) names.push_back(m.name);
    return names;
}

std::vector<int> select(const std::string& list) {
    std::vector<int> selected;
    const auto add = [&](int i) {
        for (int s : selected)
            if (s == i) return;
        selected.push_back(i);
    };
    std::size_t begin = 0;
    while (begin <= list.size() && !list.empty()) {
        const std::size_t comma = list.find(',', begin);
        const std::string item = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
        for (int i = 0; i < static_cast<int>(members().size()); ++i) {
            if (item == "all" || item == members()[i].name) add(i);
        }
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    return selected;
}

bool per_thread() { return kWho != RUSAGE_SELF; }

void read(const int* selected, int count, std::uint64_t* values) {
    struct rusage usage {};
    getrusage(kWho, &usage);
    for (int i = 0; i < count; ++i) values[i] = member(usage, selected[i]);
}

}  // namespace strata::metrics::rusage
