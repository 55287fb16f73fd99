// SPDX-License-Identifier: BSD-3-Clause
// getrusage() members as counters (STRATA_METRIC_RUSAGE), per thread where the
// OS offers RUSAGE_THREAD (Linux), else per process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metric_spec.hpp"

namespace strata::metrics::rusage {

/// The members Linux maintains, in the order `all` selects them.
const std::vector<MetricSpec>& members();

/// Names accepted by STRATA_METRIC_RUSAGE: "all" and every member name.
std::vector<std::string> accepted_names();

/// The member indexes selected by a normalised list ("all" selects every member).
std::vector<int> select(const std::string& list);

/// True when getrusage() counts per thread here (RUSAGE_THREAD).
bool per_thread();

/// Reads the calling thread's usage with one getrusage() call and stores the
/// members `selected[0..count)` in `values`.
void read(const int* selected, int count, std::uint64_t* values);

}  // namespace strata::metrics::rusage
