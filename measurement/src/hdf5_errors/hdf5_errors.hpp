// SPDX-License-Identifier: BSD-3-Clause
// HDF5's errors in our words, for the profile.h5 writer (measurement) and
// its readers (analysis): a guard that silences HDF5's own printing, and the
// cause of the last failure as one short text.  Header-only: the analysis
// shares it without linking the runtime.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace strata::hdf5 {

/// Switches off HDF5's automatic error printing for its lifetime (a measured
/// program's stderr is not ours to fill; a reader reports problems in its own
/// words) and restores the previous handler.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

namespace detail {
/// The outermost and innermost entries of HDF5's error stack.
struct ErrorEnds {
    std::string outer;
    std::string inner;
};

inline herr_t collect_error_ends(unsigned n, const H5E_error2_t* entry, void* client) {
    auto* ends = static_cast<ErrorEnds*>(client);
    std::string text = entry->desc != nullptr ? entry->desc : "";
    if (n == 0) ends->outer = text;
    ends->inner = std::move(text);  // walking downward: the last one is the root cause
    return 0;
}
}  // namespace detail

/// The current HDF5 error stack as one short cause, "<what the API call
/// reports>: <root cause>" (e.g. "unable to create dataset: name already
/// exists"), and clears the stack.  "unknown HDF5 error" when it is empty.
inline std::string error_cause() {
    detail::ErrorEnds ends;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, detail::collect_error_ends, &ends);
    H5Eclear2(H5E_DEFAULT);
    if (ends.inner.empty()) return "unknown HDF5 error";
    if (ends.outer.empty() || ends.outer == ends.inner) return ends.inner;
    return ends.outer + ": " + ends.inner;
}

}  // namespace strata::hdf5
