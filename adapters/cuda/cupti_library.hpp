// SPDX-License-Identifier: BSD-3-Clause
// The CUPTI functions the adapter uses, loaded at run time.
//
// A process that already has a libcupti (PyTorch loads its own) keeps that
// one: two CUPTI libraries in one process would both attach to the driver.
// The table of function pointers is also the seam the tests use to drive the
// adapter's refusal paths without a GPU.
#pragma once

#include <cupti.h>

#include <string>

#include "strata/measurement/error.hpp"

namespace strata::cuda {

struct CuptiLibrary {
    CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
    CUptiResult (*get_version)(uint32_t*) = nullptr;
    CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
    CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                   CUpti_CallbackId) = nullptr;
    CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
    CUptiResult (*activity_register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                               CUpti_BuffersCallbackCompleteFunc) = nullptr;
    CUptiResult (*activity_register_timestamp_callback)(CUpti_TimestampCallbackFunc) = nullptr;
    CUptiResult (*activity_get_next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
    CUptiResult (*activity_get_num_dropped_records)(CUcontext, uint32_t, size_t*) = nullptr;
    CUptiResult (*activity_flush_all)(uint32_t) = nullptr;
    CUptiResult (*get_timestamp)(uint64_t*) = nullptr;
    CUptiResult (*get_device_id)(CUcontext, uint32_t*) = nullptr;  ///< may be missing

    /// Where the functions came from (a path), for messages.
    std::string origin;

    /// CUPTI's name for `result` ("CUPTI_ERROR_..."), or its number.
    std::string describe(CUptiResult result) const;
};

/// Loads libcupti: the one the process has loaded already, else `preferred`
/// (STRATA_CUDA_CUPTI_LIBRARY) when given, else libcupti.so.13 or libcupti.so
/// from the library path, else the toolkit's found at build time.  The error
/// names every place tried when none works; `note` says when `preferred` was
/// passed over for the process's own.
Error load_cupti(CuptiLibrary* cupti, const std::string& preferred, std::string* note);

}  // namespace strata::cuda
