// SPDX-License-Identifier: BSD-3-Clause
// Synthetic experiments for strata-analyze (see analyze_fixtures.hpp).
#include "analyze_fixtures.hpp"

#include <filesystem>

namespace strata::analysis::test {

ProfileBuilder::ProfileBuilder() {
    profile_.strings = {""};
}

std::uint32_t ProfileBuilder::string(const std::string& text) {
    for (std::size_t i = 0; i < profile_.strings.size(); ++i)
        if (profile_.strings[i] == text) return static_cast<std::uint32_t>(i);
    profile_.strings.push_back(text);
    return static_cast<std::uint32_t>(profile_.strings.size() - 1);
}

std::uint32_t ProfileBuilder::region(const std::string& name, std::uint8_t paradigm, std::uint8_t role) {
    profile_.regions.push_back({string(name), string("app.c"), 10, paradigm, role, 0});
    return static_cast<std::uint32_t>(profile_.regions.size() - 1);
}

std::size_t ProfileBuilder::location(std::uint32_t rank, std::uint32_t thread, std::uint8_t type) {
    const std::string name =
        "rank " + std::to_string(rank) + (type == 0 ? " thread " : " stream ") + std::to_string(thread);
    profile_.locations.push_back({(std::uint64_t{rank} << 32) | thread, rank, thread, type, string(name)});
    for (auto& row : visits_) row.push_back(0);
    for (auto& row : exclusive_) row.push_back(0.0);
    for (Counts& c : counts_)
        for (auto& row : c.values) row.push_back(0);
    return profile_.locations.size() - 1;
}

std::size_t ProfileBuilder::callpath(std::int64_t parent, std::uint32_t region) {
    profile_.callpaths.push_back({parent, region, -1, 0, -1});
    visits_.emplace_back(profile_.locations.size(), 0);
    exclusive_.emplace_back(profile_.locations.size(), 0.0);
    for (Counts& c : counts_) c.values.emplace_back(profile_.locations.size(), 0);
    return profile_.callpaths.size() - 1;
}

std::size_t ProfileBuilder::parameter_callpath(std::size_t parent, const std::string& name,
                                               std::int64_t value) {
    const std::uint32_t parameter_name = string(name);
    std::int64_t parameter = -1;
    for (std::size_t i = 0; i < profile_.parameters.size(); ++i)
        if (profile_.parameters[i].name == parameter_name) parameter = static_cast<std::int64_t>(i);
    if (parameter < 0) {
        profile_.parameters.push_back({parameter_name, 0});
        parameter = static_cast<std::int64_t>(profile_.parameters.size() - 1);
    }
    const std::size_t cp = callpath(static_cast<std::int64_t>(parent), profile_.callpaths[parent].region);
    profile_.callpaths[cp].parameter = parameter;
    profile_.callpaths[cp].int_value = value;
    return cp;
}

ProfileBuilder::Counts& ProfileBuilder::counts(const std::string& name, const std::string& unit,
                                               bool counter) {
    for (Counts& c : counts_)
        if (c.name == name) return c;
    counts_.push_back(
        {name, unit, counter,
         std::vector<std::vector<std::uint64_t>>(profile_.callpaths.size(),
                                                 std::vector<std::uint64_t>(profile_.locations.size(), 0))});
    return counts_.back();
}

void ProfileBuilder::set_count(const std::string& metric, const std::string& unit, std::size_t callpath,
                               std::size_t location, std::uint64_t value) {
    counts(metric, unit, false).values[callpath][location] = value;
}

void ProfileBuilder::set_counter(const std::string& counter, std::size_t callpath, std::size_t location,
                                 std::uint64_t exclusive) {
    counts(counter, "count", true).values[callpath][location] = exclusive;
}

void ProfileBuilder::set(std::size_t callpath, std::size_t location, std::uint64_t visits, double exclusive) {
    visits_[callpath][location] = visits;
    exclusive_[callpath][location] = exclusive;
}

FixtureProfile ProfileBuilder::build() const {
    FixtureProfile p = profile_;
    const std::size_t rows = p.callpaths.size(), columns = p.locations.size();
    p.number_of_locations = columns;
    // Inclusive = exclusive + the children's inclusive, bottom-up (children
    // are added after their parents, so a reverse sweep sees them first).
    std::vector<std::vector<double>> inclusive = exclusive_;
    for (std::size_t cp = rows; cp-- > 0;)
        if (p.callpaths[cp].parent >= 0)
            for (std::size_t l = 0; l < columns; ++l)
                inclusive[static_cast<std::size_t>(p.callpaths[cp].parent)][l] += inclusive[cp][l];
    FixtureProfile::Matrix visits{
        "visits", "count", "number of times the call path was entered", true, rows, columns, {}, {}};
    FixtureProfile::Matrix incl{
        "time_inclusive", "s", "time in the call path including its callees", false, rows, columns, {}, {}};
    FixtureProfile::Matrix excl{
        "time_exclusive", "s", "time in the call path without its callees", false, rows, columns, {}, {}};
    for (std::size_t cp = 0; cp < rows; ++cp)
        for (std::size_t l = 0; l < columns; ++l) {
            visits.counts.push_back(visits_[cp][l]);
            incl.values.push_back(inclusive[cp][l]);
            excl.values.push_back(exclusive_[cp][l]);
        }
    p.metrics = {visits, incl, excl};
    for (const Counts& c : counts_) {
        std::vector<std::vector<std::uint64_t>> inclusive_counts = c.values;
        if (c.counter)
            for (std::size_t cp = rows; cp-- > 0;)
                if (p.callpaths[cp].parent >= 0)
                    for (std::size_t l = 0; l < columns; ++l)
                        inclusive_counts[static_cast<std::size_t>(p.callpaths[cp].parent)][l] +=
                            inclusive_counts[cp][l];
        const auto matrix = [&](const std::string& name, const std::string& description,
                                const std::vector<std::vector<std::uint64_t>>& values) {
            FixtureProfile::Matrix m{name, c.unit, description, true, rows, columns, {}, {}};
            for (std::size_t cp = 0; cp < rows; ++cp)
                for (std::size_t l = 0; l < columns; ++l) m.counts.push_back(values[cp][l]);
            p.metrics.push_back(std::move(m));
        };
        if (c.counter) {
            matrix(c.name + "_exclusive", "the inclusive value minus that of the callees: " + c.name,
                   c.values);
            matrix(c.name + "_inclusive", "including the callees: " + c.name, inclusive_counts);
        } else {
            matrix(c.name, c.name + " by the call path itself", c.values);
        }
    }
    return p;
}

FixtureProfile imbalanced_profile() {
    ProfileBuilder b;
    const auto init = b.region("MPI_Init", paradigm::mpi, role::function);
    const auto main = b.region("main", paradigm::user, role::function);
    const auto compute = b.region("compute", paradigm::user, role::code);
    const auto allreduce = b.region("MPI_Allreduce", paradigm::mpi, role::coll_all2all);
    const auto finalize = b.region("MPI_Finalize", paradigm::mpi, role::function);
    for (std::uint32_t r = 0; r < 4; ++r) b.location(r, 0);
    const auto cp_init = b.callpath(-1, init);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_compute = b.callpath(static_cast<std::int64_t>(cp_main), compute);
    const auto cp_allreduce = b.callpath(static_cast<std::int64_t>(cp_main), allreduce);
    const auto cp_finalize = b.callpath(-1, finalize);
    const double init_time[4] = {0.5, 0.25, 0.25, 0.25};
    const double compute_time[4] = {2, 2, 2, 4};
    const double allreduce_time[4] = {2.5, 2.5, 2.5, 0.5};
    for (std::size_t r = 0; r < 4; ++r) {
        b.set(cp_init, r, 1, init_time[r]);
        b.set(cp_main, r, 1, 0.5);
        b.set(cp_compute, r, 10, compute_time[r]);
        b.set(cp_allreduce, r, 10, allreduce_time[r]);
        b.set(cp_finalize, r, 1, 0.0);
    }
    return b.build();
}

FixtureProfile deep_recursion_profile(std::size_t depth, double exclusive, const std::string& bottom) {
    ProfileBuilder b;
    const std::uint32_t f = b.region("f", paradigm::compiler, role::function);
    const std::size_t t0 = b.location(0, 0);
    std::int64_t parent = -1;
    for (std::size_t d = 0; d < depth; ++d) {
        const std::size_t cp = b.callpath(parent, f);
        b.set(cp, t0, 1, exclusive);
        parent = static_cast<std::int64_t>(cp);
    }
    if (!bottom.empty()) {
        const std::size_t last = b.callpath(parent, b.region(bottom, paradigm::mpi, role::point_to_point));
        b.set(last, t0, 1, 0.5);
    }
    return b.build();
}

FixtureProfile hybrid_profile() {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    // An OpenMP region where threads wait: its exclusive time is OpenMP synchronisation.
    const auto parallel = b.region("parallel", paradigm::openmp, role::implicit_barrier);
    const auto work = b.region("work", paradigm::user, role::code);
    const auto allreduce = b.region("MPI_Allreduce", paradigm::mpi, role::coll_all2all);
    const std::size_t r0t0 = b.location(0, 0), r0t1 = b.location(0, 1), r1t0 = b.location(1, 0),
                      r1t1 = b.location(1, 1);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_parallel = b.callpath(static_cast<std::int64_t>(cp_main), parallel);
    const auto cp_work = b.callpath(static_cast<std::int64_t>(cp_parallel), work);
    const auto cp_allreduce = b.callpath(static_cast<std::int64_t>(cp_main), allreduce);
    const auto cp_worker = b.callpath(-1, parallel);
    const auto cp_worker_work = b.callpath(static_cast<std::int64_t>(cp_worker), work);
    for (std::size_t master : {r0t0, r1t0}) {
        b.set(cp_main, master, 1, 1.5);
        b.set(cp_parallel, master, 1, 0.5);
    }
    b.set(cp_work, r0t0, 1, 4);
    b.set(cp_work, r1t0, 1, 6);
    b.set(cp_allreduce, r0t0, 1, 2);
    b.set(cp_allreduce, r1t0, 1, 0);
    for (std::size_t worker : {r0t1, r1t1}) {
        b.set(cp_worker, worker, 1, 0.5);
        b.set(cp_worker_work, worker, 1, 4);
    }
    return b.build();
}

FixtureProfile calltree_profile() {
    ProfileBuilder b;
    const auto main = b.region("main", paradigm::user, role::function);
    const auto solve = b.region("solve", paradigm::user, role::function);
    const auto odd = b.region(odd_region_name, paradigm::user, role::code);
    const auto send = b.region("MPI_Send", paradigm::mpi, role::point_to_point);
    const auto worker = b.region("worker", paradigm::user, role::function);
    const auto kernel = b.region("kernel", paradigm::cuda, role::function);
    const std::size_t l0 = b.location(0, 0), l1 = b.location(0, 1), l2 = b.location(1, 0),
                      l3 = b.location(1, 1, 1);
    const auto cp_main = b.callpath(-1, main);
    const auto cp_solve = b.callpath(static_cast<std::int64_t>(cp_main), solve);
    const auto cp_odd = b.callpath(static_cast<std::int64_t>(cp_solve), odd);
    const auto cp_n4 = b.parameter_callpath(cp_solve, "n", 4);
    const auto cp_send = b.callpath(static_cast<std::int64_t>(cp_main), send);
    const auto cp_worker = b.callpath(-1, worker);
    const auto cp_kernel = b.callpath(-1, kernel);
    b.set(cp_main, l0, 1, 1.0);
    b.set(cp_main, l2, 1, 0.5);
    b.set(cp_solve, l0, 2, 2.0);
    b.set(cp_solve, l2, 2, 3.0);
    b.set(cp_odd, l0, 4, 0.5);
    b.set(cp_odd, l2, 4, 1.5);
    b.set(cp_n4, l0, 1, 0.125);
    b.set(cp_send, l0, 3, 0.25);
    b.set(cp_send, l2, 3, 0.75);
    b.set(cp_worker, l1, 1, 2.0);
    b.set(cp_kernel, l3, 5, 0.5);
    b.set_count("bytes_sent", "bytes", cp_send, l0, 4096);
    b.set_count("bytes_sent", "bytes", cp_send, l2, 1024);
    const std::string ins = "papi:PAPI_TOT_INS";
    b.set_counter(ins, cp_main, l0, 100);
    b.set_counter(ins, cp_main, l2, 50);
    b.set_counter(ins, cp_solve, l0, 1000);
    b.set_counter(ins, cp_solve, l2, 3000);
    b.set_counter(ins, cp_odd, l0, 10);
    b.set_counter(ins, cp_odd, l2, 30);
    b.set_counter(ins, cp_n4, l0, 7);
    b.set_counter(ins, cp_worker, l1, 2000);
    return b.build();
}

void write_experiment(const FixtureProfile& profile, const std::string& directory) {
    std::filesystem::create_directories(directory);
    write_fixture(profile, (std::filesystem::path(directory) / "profile.h5").string());
}

}  // namespace strata::analysis::test
