// SPDX-License-Identifier: BSD-3-Clause
// Completed CUPTI buffers onto stream locations (see activity_pipeline.hpp).
#include "activity_pipeline.hpp"

#include "strata/measurement/events.hpp"

namespace strata::cuda {

ActivityPipeline::ActivityPipeline(const CuptiLibrary& cupti, std::uint64_t (*clock)())
    : cupti_(cupti), clock_(clock) {}

void ActivityPipeline::add_clock_point_locked() {
    const Ticks before = events::now();
    const std::uint64_t ns = clock_();
    const Ticks after = events::now();
    if (ns != 0) map_.add_point(ns, before + (after - before) / 2);
}

void ActivityPipeline::add_clock_point() {
    std::lock_guard<std::mutex> lock(mutex_);
    add_clock_point_locked();
}

void ActivityPipeline::completed(std::uint8_t* buffer, std::size_t valid, std::size_t dropped) {
    std::lock_guard<std::mutex> lock(mutex_);
    dropped_ += dropped;
    if (buffer == nullptr || valid == 0) return;
    add_clock_point_locked();
    decode_buffer(cupti_, buffer, valid, &decoded_, [this](const GpuActivity& a) {
        switch (a.kind) {
            case GpuActivity::synchronization:
                ++sync_records_;
                break;
            case GpuActivity::overhead:
                ++overhead_records_;
                if (a.end > a.start) overhead_ns_ += a.end - a.start;
                break;
            default:
                streams_.add(a);
                break;
        }
    });
    streams_.deliver(map_);
}

void ActivityPipeline::buffer_refused() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++refused_;
}

std::vector<ActivityPipeline::Loss> ActivityPipeline::losses(const std::string& buffer_setting) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Loss> out;
    if (dropped_ > 0)
        out.push_back({"GPU activity records dropped by CUPTI (its buffers were full)", dropped_,
                       "raise " + buffer_setting});
    if (refused_ > 0)
        out.push_back({"requests of CUPTI for a buffer refused (all were in use)", refused_,
                       "raise " + buffer_setting});
    if (decoded_.zero_timestamps > 0) {
        out.push_back(
            {"GPU activity records without a start or end time, not recorded", decoded_.zero_timestamps, ""});
    }
    for (const auto& [kind, n] : decoded_.unknown_kinds) {
        out.push_back({"CUPTI activity records of kind " + std::to_string(kind) +
                           ", which this adapter does not know, skipped",
                       n, "a newer Strata may read them"});
    }
    if (decoded_.malformed > 0) {
        out.push_back({"CUPTI activity buffers not readable to their end (their remaining records lost)",
                       decoded_.malformed, ""});
    }
    const StreamCounts& c = streams_.counts();
    if (c.no_location > 0)
        out.push_back({"GPU activities without a stream location, not recorded", c.no_location, ""});
    return out;
}

std::string ActivityPipeline::summary() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const StreamCounts& c = streams_.counts();
    return std::to_string(c.kernels) + " kernels, " + std::to_string(c.copies) + " copies (" +
           std::to_string(c.copied_bytes) + " bytes), " + std::to_string(c.memsets) + " memsets on " +
           std::to_string(streams_.stream_count()) + " streams (" + std::to_string(c.overlapping) +
           " overlapping the stream's previous work); " + std::to_string(sync_records_) +
           " synchronisation and " + std::to_string(overhead_records_) + " overhead records (" +
           std::to_string(overhead_ns_ / 1000) + " us)";
}

}  // namespace strata::cuda
