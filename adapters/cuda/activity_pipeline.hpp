// SPDX-License-Identifier: BSD-3-Clause
// What happens to a completed CUPTI activity buffer: decoded, put on the
// stream locations at converted times, and every loss counted.
//
// The adapter's CUPTI callbacks call completed(); the tests hand it byte-exact
// buffers of CUPTI's record structs, decoded by the real libcupti.  Thread-safe
// (one buffer at a time).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "activity_records.hpp"
#include "cupti_library.hpp"
#include "gpu_streams.hpp"

namespace strata::cuda {

class ActivityPipeline {
public:
    /// `clock` reads the clock CUPTI's times are on, in ns: the one registered
    /// with cuptiActivityRegisterTimestampCallback, or cuptiGetTimestamp's.
    ActivityPipeline(const CuptiLibrary& cupti, std::uint64_t (*clock)());

    /// A pair of readings of CUPTI's clock and Strata's timer (before any
    /// record, and with every buffer): the conversion between the two.
    void add_clock_point();

    /// A buffer CUPTI completed: `valid` bytes of records; `dropped` records
    /// CUPTI could not store in it.
    void completed(std::uint8_t* buffer, std::size_t valid, std::size_t dropped);

    /// CUPTI asked for a buffer and none was left (the pool is full).
    void buffer_refused();

    /// What was not recorded, one entry per kind of loss (events::report_loss).
    struct Loss {
        std::string what;
        std::uint64_t count = 0;
        std::string remedy;  ///< "" when nothing avoids it
        std::string message() const {
            return std::to_string(count) + " " + what + (remedy.empty() ? "" : "; " + remedy);
        }
    };
    /// `buffer_setting` names the setting that avoids drops.
    std::vector<Loss> losses(const std::string& buffer_setting) const;
    /// One line: what was recorded.
    std::string summary() const;

private:
    const CuptiLibrary& cupti_;
    std::uint64_t (*clock_)();
    mutable std::mutex mutex_;
    GpuStreams streams_;
    ClockMap map_;
    DecodeCounts decoded_;
    std::uint64_t dropped_ = 0;
    std::uint64_t refused_ = 0;
    std::uint64_t sync_records_ = 0, overhead_records_ = 0, overhead_ns_ = 0;

    void add_clock_point_locked();
};

}  // namespace strata::cuda
