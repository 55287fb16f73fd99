// SPDX-License-Identifier: BSD-3-Clause
// Small HDF5 helpers for the readers: an owner for ids; the guard that silences
// HDF5's automatic error printing and the cause of the last HDF5 failure are
// the writer's too (hdf5_errors.hpp).
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

#include "hdf5_errors/hdf5_errors.hpp"

namespace strata::analysis {

/// Owns an HDF5 id and closes it with the matching H5?close function.
class H5Handle {
public:
    H5Handle() = default;
    H5Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), close_(closer) {}
    H5Handle(H5Handle&& other) noexcept
        : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
    H5Handle& operator=(H5Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, H5I_INVALID_HID);
            close_ = other.close_;
        }
        return *this;
    }
    H5Handle(const H5Handle&) = delete;
    H5Handle& operator=(const H5Handle&) = delete;
    ~H5Handle() { reset(); }

    /// The raw id for HDF5 calls.
    hid_t get() const { return id_; }
    /// True when the id is valid (the call that made it succeeded).
    bool valid() const { return id_ >= 0; }
    /// Closes the id now (errors on close are of no interest to a reader).
    void reset() {
        if (id_ >= 0 && close_ != nullptr) close_(id_);
        id_ = H5I_INVALID_HID;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
    herr_t (*close_)(hid_t) = nullptr;
};

/// Switches off HDF5's automatic error printing for its lifetime (hdf5_errors.hpp).
using QuietHdf5Errors = hdf5::QuietErrors;

/// The current HDF5 error stack as one short cause, and clears it (hdf5_errors.hpp).
inline std::string hdf5_cause() { return hdf5::error_cause(); }

}  // namespace strata::analysis
