// SPDX-License-Identifier: BSD-3-Clause
#include "gpu_metrics_sampler.hpp"

#include <algorithm>
#include <cstdio>

namespace strata::cuda {

GpuMetricsSampler::GpuMetricsSampler(std::unique_ptr<DeviceMetricsSource> source,
                                     std::chrono::nanoseconds interval, BusIdFn bus_id_of,
                                     void (*say)(const std::string&))
    : source_(std::move(source)), interval_(interval), bus_id_of_(bus_id_of), say_(say) {}

GpuMetricsSampler::~GpuMetricsSampler() { stop(); }

void GpuMetricsSampler::add_device(std::uint32_t ordinal) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    const auto same = [&](const Device& d) { return d.ordinal == ordinal; };
    if (std::any_of(pending_.begin(), pending_.end(), same)) return;
    pending_.push_back({ordinal});
    if (!thread_.joinable()) {
        running_ = true;
        thread_ = std::thread([this] {
            run();
            std::lock_guard<std::mutex> ended(mutex_);
            running_ = false;
            ended_.notify_all();
        });
    }
    wake_.notify_one();  // the first sample of a new device now, not an interval later
}

void GpuMetricsSampler::stop(std::chrono::milliseconds patience) {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
    if (!thread_.joinable()) return;
    if (ended_.wait_for(lock, patience, [&] { return !running_; })) {
        lock.unlock();
        thread_.join();
        return;
    }
    // The source hangs (a driver that does not answer): the program ends without it.
    thread_.detach();
    lock.unlock();
    say_("CUDA: warning: the GPU metrics sampler did not end within " + std::to_string(patience.count()) +
         " ms (NVML does not answer); its last samples are missing");
}

std::string GpuMetricsSampler::summary() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto ms = std::chrono::duration<double, std::milli>(interval_).count();
    char every[32];
    std::snprintf(every, sizeof every, "%g", ms);
    return std::to_string(samples_) + " samples of " + std::to_string(sampled_devices_) + " GPU" +
           (sampled_devices_ == 1 ? "" : "s") + " every " + every + " ms";
}

void GpuMetricsSampler::run() {
    // NVML's initialisation takes tens of milliseconds: here, not before main.
    const Error problem = source_->open();
    const bool source_open = !problem;
    if (source_open) events::verbose("CUDA: GPU metrics: " + source_->origin() + " opened");
    if (!source_open) say_("CUDA: GPU metrics not sampled (STRATA_CUDA_SAMPLING_INTERVAL): " + *problem);
    std::unique_lock<std::mutex> lock(mutex_);
    // `pending_` keeps every device added; the thread takes those beyond devices_.size().
    for (;;) {
        const bool stopping = stopping_;
        if (source_open && pending_.size() > devices_.size()) {
            lock.unlock();
            take_new_devices();
            lock.lock();
        }
        if (source_open && !devices_.empty()) {
            lock.unlock();
            sample_all();
            lock.lock();
        }
        if (stopping) return;  // the last sample is taken
        const std::size_t known = pending_.size();
        wake_.wait_for(lock, interval_, [&] { return stopping_ || pending_.size() > known; });
    }
}

void GpuMetricsSampler::take_new_devices() {
    std::vector<Device> added;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        added.assign(pending_.begin() + static_cast<std::ptrdiff_t>(devices_.size()), pending_.end());
    }
    for (Device& d : added) {
        std::string bus_id;
        Error problem = bus_id_of_(d.ordinal, &bus_id);
        if (!problem) problem = source_->find(bus_id, &d.source_device);
        if (problem) {
            say_("CUDA: GPU " + std::to_string(d.ordinal) + (bus_id.empty() ? "" : " (" + bus_id + ")") +
                 " not sampled: " + *problem);
        } else {
            events::verbose("CUDA: GPU " + std::to_string(d.ordinal) + " (" + bus_id + ") sampled from " +
                            source_->origin());
            events::LocationSpec spec;
            const std::string name = "GPU[" + std::to_string(d.ordinal) + "] metrics";
            spec.name = name;
            spec.type = LocationType::metric;
            spec.device = d.ordinal;
            d.location = events::define_location(spec);
        }
        devices_.push_back(d);
    }
}

void GpuMetricsSampler::sample_all() {
    std::uint64_t taken = 0;
    std::size_t usable = 0;
    for (const Device& d : devices_) {
        if (d.location == 0) continue;
        ++usable;
        const DeviceReading reading = source_->read(d.source_device);
        // After the reading: the values describe the period up to now.
        const Ticks time = events::now();
        for (std::uint32_t m = 0; m < kDeviceMetrics; ++m) {
            if (reading.present & (1u << m)) {
                events::location_metric(d.location, time, static_cast<DeviceMetric>(m), reading.value[m]);
            }
        }
        if (reading.present != 0) ++taken;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    samples_ += taken;
    sampled_devices_ = usable;
}

}  // namespace strata::cuda
