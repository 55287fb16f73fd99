// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: Score-P filter files (filter_rules.hpp), parsed and then
// matched against names of every kind (C, C++, Fortran, MPI, files).  A text
// is either accepted or refused with a FilterError naming what is wrong.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "filter/filter_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    strata::filter::FilterFile filter;
    try {
        filter = strata::filter::parse_filter_text(text, "fuzz.filter");
    } catch (const strata::filter::FilterError& error) {
        if (std::string(error.what()).empty()) std::abort();
        return 0;
    }
    static const char* const names[][3] = {
        {"main", "main", "/src/main.c"},
        {"compute(int, double*)", "_Z7computeiPd", "/src/compute.cpp"},
        {"ns::Solver<double>::step()", "_ZN2ns6SolverIdE4stepEv", "/src/solver.hpp"},
        {"MPI_Send", "MPI_Send", ""},
        {"heat_mod::exchange", "__heat_mod_MOD_exchange", "/src/heat.f90"},
        {"", "", ""}};
    for (const auto& n : names) {
        (void)filter.excluded(n[0], n[1], n[2]);
        (void)filter.region_excluded(n[0], n[1]);
    }
    (void)filter.mpi_rules();
    return 0;
}
