// SPDX-License-Identifier: BSD-3-Clause
// Small HDF5 helpers for the readers (see hdf5_handle.hpp).
#include "profile/hdf5_handle.hpp"

namespace strata::analysis {

QuietHdf5Errors::QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5Errors::~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

namespace {

struct ErrorEnds {
    std::string outer;
    std::string inner;
};

herr_t collect_error_ends(unsigned n, const H5E_error2_t* entry, void* client) {
    auto* ends = static_cast<ErrorEnds*>(client);
    std::string text = entry->desc != nullptr ? entry->desc : "";
    if (n == 0) ends->outer = text;
    ends->inner = std::move(text);  // walking downward: the last entry is the root cause
    return 0;
}

}  // namespace

std::string hdf5_cause() {
    ErrorEnds ends;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error_ends, &ends);
    H5Eclear2(H5E_DEFAULT);
    if (ends.inner.empty()) return "unknown HDF5 error";
    if (ends.outer.empty() || ends.outer == ends.inner) return ends.inner;
    return ends.outer + ": " + ends.inner;
}

}  // namespace strata::analysis
