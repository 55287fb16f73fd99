// SPDX-License-Identifier: BSD-3-Clause
// An in-process ProcessGroup: N "ranks" are N threads exchanging messages
// through mailboxes, so that collective algorithms can be unit-tested.
#pragma once

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "strata/measurement/process_group.hpp"

namespace strata::testing {

class ThreadWorld {
public:
    explicit ThreadWorld(int size) : size_(size) {}
    int size() const { return size_; }

    void post(int from, int to, std::string message) {
        std::lock_guard<std::mutex> lock(mutex_);
        boxes_[{from, to}].push_back(std::move(message));
        ready_.notify_all();
    }
    std::string take(int from, int to) {
        std::unique_lock<std::mutex> lock(mutex_);
        auto& box = boxes_[{from, to}];
        ready_.wait(lock, [&] { return !box.empty(); });
        std::string m = std::move(box.front());
        box.pop_front();
        return m;
    }

    /// Runs fn(group) on `size` threads, one per rank.
    void run(const std::function<void(events::ProcessGroup&)>& fn);

private:
    int size_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::map<std::pair<int, int>, std::deque<std::string>> boxes_;
};

class ThreadGroup : public events::ProcessGroup {
public:
    ThreadGroup(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return world_.size(); }
    void send(const void* data, std::size_t bytes, int peer) override {
        world_.post(rank_, peer, std::string(static_cast<const char*>(data), bytes));
    }
    void receive(void* data, std::size_t bytes, int peer) override {
        const std::string m = world_.take(peer, rank_);
        std::memcpy(data, m.data(), std::min(bytes, m.size()));
    }
    void barrier() override {
        char token = 0;
        gather(&token, 1, nullptr, 0);
        broadcast(&token, 1, 0);
    }
    void broadcast(void* data, std::size_t bytes, int root) override {
        if (rank_ == root) {
            for (int r = 0; r < size(); ++r) if (r != root) send(data, bytes, r);
        } else {
            receive(data, bytes, root);
        }
    }
    void gather(const void* in, std::size_t bytes, void* out, int root) override {
        std::vector<std::size_t> counts(size(), bytes);
        gatherv(in, bytes, out, counts.data(), root);
    }
    void gatherv(const void* in, std::size_t bytes, void* out, const std::size_t* counts, int root) override {
        if (rank_ != root) return send(in, bytes, root);
        std::size_t offset = 0;
        for (int r = 0; r < size(); ++r) {
            char* target = out ? static_cast<char*>(out) + offset : nullptr;
            if (r == root) {
                if (target) std::memcpy(target, in, bytes);
            } else {
                const std::string m = world_.take(r, rank_);
                if (target) std::memcpy(target, m.data(), m.size());
            }
            offset += counts[r];
        }
    }
    void scatter(const void* in, std::size_t bytes, void* out, int root) override {
        std::vector<std::size_t> counts(size(), bytes);
        scatterv(in, counts.data(), out, bytes, root);
    }
    void scatterv(const void* in, const std::size_t* counts, void* out, std::size_t bytes, int root) override {
        if (rank_ != root) return receive(out, bytes, root);
        std::size_t offset = 0;
        for (int r = 0; r < size(); ++r) {
            const char* source = static_cast<const char*>(in) + offset;
            if (r == root) {
                std::memcpy(out, source, bytes);
            } else {
                send(source, counts[r], r);
            }
            offset += counts[r];
        }
    }

private:
    ThreadWorld& world_;
    int rank_;
};

inline void ThreadWorld::run(const std::function<void(events::ProcessGroup&)>& fn) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r) {
        threads.emplace_back([this, r, &fn] {
            ThreadGroup group(*this, r);
            fn(group);
        });
    }
    for (auto& t : threads) t.join();
}

}  // namespace strata::testing
