// SPDX-License-Identifier: BSD-3-Clause
// The in-memory model of a profile.h5: lookups by name.
#include "profile/profile.hpp"

#include <cmath>
#include <limits>

namespace strata::analysis {

std::string EnumNames::name(std::uint8_t value) const {
    const auto found = by_value.find(value);
    return found != by_value.end() ? found->second : std::to_string(value);
}

std::uint64_t Metric::count_at(std::size_t callpath, std::size_t location) const {
    const std::size_t i = callpath * columns + location;
    if (integral) return counts[i];
    const double value = values[i];
    if (!(value > 0.0)) return 0;
    if (value >= 18446744073709551616.0) return std::numeric_limits<std::uint64_t>::max();  // 2^64
    return static_cast<std::uint64_t>(std::round(value));
}

const Metric* Profile::find_metric(std::string_view name) const {
    for (const Metric& m : metrics)
        if (m.name == name) return &m;
    return nullptr;
}

const Metric& Profile::metric(std::string_view name) const {
    if (const Metric* found = find_metric(name)) return *found;
    throw ProfileError(path + ": missing metric /metrics/" + std::string(name));
}

}  // namespace strata::analysis
