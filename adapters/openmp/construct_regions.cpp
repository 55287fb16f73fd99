// SPDX-License-Identifier: BSD-3-Clause
#include "construct_regions.hpp"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "source_location.hpp"
#include "strata/measurement/events.hpp"

namespace strata::openmp {

namespace {

struct ConstructName {
    const char* name;
    RegionRole role;
};

// Names as Score-P and the OpenMP specification spell the constructs.
constexpr ConstructName kNames[] = {
    {"!$omp parallel", RegionRole::parallel},
    {"!$omp for", RegionRole::loop},
    {"!$omp sections", RegionRole::sections},
    {"!$omp single", RegionRole::single},
    {"!$omp workshare", RegionRole::workshare},
    {"!$omp distribute", RegionRole::loop},
    {"!$omp taskloop", RegionRole::loop},
    {"!$omp scope", RegionRole::code},
    {"!$omp masked", RegionRole::master},
    {"!$omp barrier", RegionRole::barrier},
    {"!$omp implicit barrier", RegionRole::implicit_barrier},
    {"!$omp runtime barrier", RegionRole::implicit_barrier},
    {"!$omp taskwait", RegionRole::task_wait},
    {"!$omp taskgroup", RegionRole::task_wait},
    {"!$omp reduction", RegionRole::code},
    {"!$omp critical", RegionRole::critical},
    {"!$omp critical sblock", RegionRole::critical_sblock},
    {"!$omp ordered", RegionRole::ordered},
    {"!$omp ordered sblock", RegionRole::ordered_sblock},
    {"!$omp atomic", RegionRole::atomic},
    {"omp_set_lock", RegionRole::lock},
    {"omp_set_nest_lock", RegionRole::lock},
    {"!$omp task", RegionRole::task},
    {"!$omp create task", RegionRole::task_create},
};
static_assert(sizeof kNames / sizeof kNames[0] == static_cast<std::size_t>(Construct::count_),
              "one name per construct");

std::mutex g_mutex;
std::map<std::pair<const void*, std::uint32_t>, RegionHandle>& table() {
    static auto* regions = new std::map<std::pair<const void*, std::uint32_t>, RegionHandle>();
    return *regions;
}

RegionHandle define(Construct construct, const void* return_address) {
    const auto key = std::make_pair(return_address, static_cast<std::uint32_t>(construct));
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = table().find(key);
    if (it != table().end()) return it->second;
    const ConstructName& what = kNames[static_cast<std::size_t>(construct)];
    const CodeLocation where = describe_code_address(return_address);
    events::RegionSpec spec;
    const std::string name = where.text.empty() ? std::string(what.name) : std::string(what.name) + " @" + where.text;
    spec.name = name;
    spec.file = where.file;
    spec.line = where.line;
    spec.paradigm = Paradigm::openmp;
    spec.role = what.role;
    const RegionHandle region = events::define_region(spec);
    if (region != 0) table().emplace(key, region);  // 0 (out of memory) is tried again next time
    return region;
}

}  // namespace

namespace detail {
__thread CacheEntry t_cache[kCacheSize] __attribute__((tls_model("initial-exec")));

RegionHandle define_and_cache(Construct construct, const void* return_address, CacheEntry& entry) {
    const RegionHandle region = define(construct, return_address);
    entry = CacheEntry{return_address, static_cast<std::uint32_t>(construct), region};
    return region;
}
}  // namespace detail

}  // namespace strata::openmp
