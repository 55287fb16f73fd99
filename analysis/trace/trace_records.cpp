// SPDX-License-Identifier: BSD-3-Clause
// The records a replay keeps (see trace_records.hpp): message keys, call-path
// interning, and the sequence numbers of a rank's records once all its
// locations are read.
#include "trace/trace_records.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace strata::analysis::trace {

bool operator<(const MessageKey& a, const MessageKey& b) {
    return std::tie(a.comm, a.source, a.destination, a.tag, a.seq) <
           std::tie(b.comm, b.source, b.destination, b.tag, b.seq);
}
bool operator==(const MessageKey& a, const MessageKey& b) {
    return std::tie(a.comm, a.source, a.destination, a.tag, a.seq) ==
           std::tie(b.comm, b.source, b.destination, b.tag, b.seq);
}

std::uint32_t CallPaths::lookup(std::uint64_t key, std::uint32_t parent, const std::string& region_name,
                                std::pair<std::uint64_t, std::uint32_t>& slot) {
    const auto found = ids_.find(key);  // find first: emplace would allocate a node on every call
    if (found != ids_.end()) {
        slot = {key + 1, found->second};
        return found->second;
    }
    const auto id = static_cast<std::uint32_t>(names_.size());
    ids_.emplace(key, id);
    slot = {key + 1, id};
    names_.add(parent == none_id ? -1 : static_cast<std::int64_t>(parent), region_name);
    return id;
}

RecordMarks record_marks(const ShareRecords& records) {
    return {records.sends.size(), records.receives.size(), records.collectives.size(),
            records.launches.size(), records.gpu_ops.size()};
}

namespace {

/// Calls `visit` with the indices [from, size) in the order of `before`
/// (stable).  A location's records mostly come in that order already, so the
/// sort is skipped when they do.
template <typename Less, typename Visit>
void in_order(std::size_t from, std::size_t size, Less before, Visit visit) {
    bool sorted = true;
    for (std::size_t i = from + 1; i < size && sorted; ++i) sorted = !before(i, i - 1);
    if (sorted) {
        for (std::size_t i = from; i < size; ++i) visit(i);
        return;
    }
    std::vector<std::size_t> ids;
    ids.reserve(size - from);
    for (std::size_t i = from; i < size; ++i) ids.push_back(i);
    std::stable_sort(ids.begin(), ids.end(), before);
    for (std::size_t i : ids) visit(i);
}

}  // namespace

void number_records(ShareRecords& records, const RecordMarks& from) {
    const std::tuple<RecordList<MessageSide>*, MessageChannels*, std::size_t> lists[] = {
        {&records.sends, &records.send_channels, from.sends},
        {&records.receives, &records.receive_channels, from.receives}};
    for (const auto& [sides, channels, start] : lists) {
        auto& m = *sides;
        auto& numbers = *channels;
        in_order(
            start, m.size(),
            [&](std::size_t a, std::size_t b) {
                return std::tie(m[a].post, m[a].location, m[a].position) <
                       std::tie(m[b].post, m[b].location, m[b].position);
            },
            [&](std::size_t i) {
                if (m[i].cancelled) return;
                std::uint64_t& next = numbers.next_seq(m[i].channel);
                if (next > UINT32_MAX)
                    throw std::length_error("more than 2^32 messages between two ranks with one tag");
                m[i].seq = static_cast<std::uint32_t>(next++);
            });
    }
    auto& calls = records.collectives;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> next;
    in_order(
        from.collectives, calls.size(),
        [&](std::size_t a, std::size_t b) {
            return std::tie(calls[a].enter, calls[a].location, calls[a].position) <
                   std::tie(calls[b].enter, calls[b].location, calls[b].position);
        },
        [&](std::size_t i) {
            calls[i].seq = next[{calls[i].rank, calls[i].comm}]++;
        });
}

}  // namespace strata::analysis::trace
