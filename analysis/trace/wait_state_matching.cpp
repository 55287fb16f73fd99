// SPDX-License-Identifier: BSD-3-Clause
// The message and collective phases of the trace analysis (see
// wait_state_analysis.hpp): post times travel to the partner's analysis rank,
// collective calls to their instance's owner, and each side hands what it
// matched to the wait-state patterns as derived events (derived_events.hpp,
// wait_state_patterns.cpp: Scalasca's definitions).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "trace/byte_codec.hpp"
#include "trace/wait_state_analysis.hpp"
#include "trace/wait_state_patterns.hpp"

namespace strata::analysis::trace {

namespace {

/// The post times of one channel's sends or receives travel to the partner's
/// analysis rank as this header and then `count` times, by sequence number
/// (a message costs 8 bytes in the exchange, and the partner finds it by index).
struct ChannelNote {
    MessageChannel channel;
    std::uint64_t count = 0;
    std::uint32_t side = 0;  ///< 0: sends (for the receiver), 1: receives (for the sender)
    std::uint32_t unused = 0;
};

}  // namespace

CollectiveKind collective_kind(std::uint32_t op) {
    switch (op) {
        case OTF2_COLLECTIVE_OP_BARRIER:
            return CollectiveKind::barrier;
        case OTF2_COLLECTIVE_OP_ALLREDUCE:
        case OTF2_COLLECTIVE_OP_ALLGATHER:
        case OTF2_COLLECTIVE_OP_ALLGATHERV:
        case OTF2_COLLECTIVE_OP_ALLTOALL:
        case OTF2_COLLECTIVE_OP_ALLTOALLV:
        case OTF2_COLLECTIVE_OP_ALLTOALLW:
        case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
        case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
            return CollectiveKind::nxn;
        case OTF2_COLLECTIVE_OP_BCAST:
        case OTF2_COLLECTIVE_OP_SCATTER:
        case OTF2_COLLECTIVE_OP_SCATTERV:
            return CollectiveKind::one_to_all;
        case OTF2_COLLECTIVE_OP_REDUCE:
        case OTF2_COLLECTIVE_OP_GATHER:
        case OTF2_COLLECTIVE_OP_GATHERV:
            return CollectiveKind::all_to_one;
        case finalize_operation:
            return CollectiveKind::finalize;
        default:
            return CollectiveKind::none;
    }
}

std::size_t collective_owner(std::uint32_t comm, std::uint64_t seq, std::size_t k) {
    // A fixed mix (not std::hash), so the split is the same on every platform.
    const std::uint64_t mixed =
        (static_cast<std::uint64_t>(comm) * 0x9E3779B97F4A7C15ull) ^ (seq * 0xC2B2AE3D27D4EB4Full);
    return static_cast<std::size_t>((mixed >> 17) % k);
}

std::vector<std::string> TraceShareAnalysis::message_outbox() const {
    std::vector<ByteWriter> out(k_);
    const std::pair<const RecordList<MessageSide>*, const MessageChannels*> sides[] = {
        {&records_.sends, &records_.send_channels}, {&records_.receives, &records_.receive_channels}};
    const auto owner = [&](const MessageChannel& channel, std::uint32_t side) -> std::int64_t {
        const std::uint32_t partner = side == 0 ? channel.destination : channel.source;
        return partner < owner_of_rank_.size() ? owner_of_rank_[partner] : -1;
    };
    // Each box at its final size first: growing it copied and faulted its pages in twice.
    std::vector<std::size_t> bytes(k_, 0);
    for (std::uint32_t side = 0; side < 2; ++side) {
        const MessageChannels& channels = *sides[side].second;
        for (std::uint32_t c = 0; c < channels.size(); ++c) {
            const std::int64_t to = owner(channels[c], side);
            if (channels.given(c) != 0 && to >= 0)
                bytes[static_cast<std::size_t>(to)] +=
                    sizeof(ChannelNote) + channels.given(c) * sizeof(Ticks);
        }
    }
    for (std::size_t a = 0; a < k_; ++a) out[a].bytes().reserve(bytes[a]);
    for (std::uint32_t side = 0; side < 2; ++side) {
        const RecordList<MessageSide>& records = *sides[side].first;
        const MessageChannels& channels = *sides[side].second;
        // Every channel's post times by sequence number (non-cancelled sides have 0 .. given - 1).
        std::vector<std::size_t> first(channels.size() + 1, 0);
        for (std::uint32_t c = 0; c < channels.size(); ++c) first[c + 1] = first[c] + channels.given(c);
        std::vector<Ticks> posts(first.back(), no_time);
        for (std::size_t i = 0; i < records.size(); ++i) {
            const MessageSide& m = records[i];
            if (!m.cancelled) posts[first[m.channel] + m.seq] = m.post;
        }
        for (std::uint32_t c = 0; c < channels.size(); ++c) {
            const MessageChannel& channel = channels[c];
            const std::size_t count = first[c + 1] - first[c];
            const std::int64_t a = owner(channel, side);
            if (count == 0 || a < 0) continue;
            ByteWriter& to = out[static_cast<std::size_t>(a)];
            to.put(ChannelNote{channel, count, side, 0});
            to.put_array(posts.data() + first[c], count);
        }
    }
    return boxes_of(out);
}

namespace {

/// The other side's post times of each of this share's channels, as
/// received: a channel's times by sequence number, left in the inbox buffers.
class ChannelPosts {
public:
    /// Finds the channels of `mine` among the notes of `side` in `inbox` (which must outlive this).
    ChannelPosts(const std::vector<std::string>& inbox, std::uint32_t side, const MessageChannels& mine) {
        std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::string_view>
            sent;
        for (const std::string& box : inbox) {
            ByteReader in(box);
            while (!in.done()) {
                const auto note = in.get<ChannelNote>();
                const std::string_view times = in.get_block(note.count * sizeof(Ticks));
                if (note.side != side) continue;
                const MessageChannel& c = note.channel;
                sent[{c.comm, c.source, c.destination, c.tag}] = times;
            }
        }
        of_channel_.resize(mine.size());
        for (std::uint32_t c = 0; c < mine.size(); ++c) {
            const auto it = sent.find({mine[c].comm, mine[c].source, mine[c].destination, mine[c].tag});
            if (it != sent.end()) of_channel_[c] = it->second;
        }
    }
    /// The post time of message `seq` of channel `channel`; false when the other side has none.
    bool find(std::uint32_t channel, std::uint32_t seq, Ticks* post) const {
        const std::string_view times = of_channel_[channel];
        if (seq >= times.size() / sizeof(Ticks)) return false;
        std::memcpy(post, times.data() + seq * sizeof(Ticks), sizeof(Ticks));
        return true;
    }

private:
    std::vector<std::string_view> of_channel_;
};

/// (blocking call, index of a record), sorted by call and stable, so that the
/// records of one call are visited in record order.
std::vector<std::pair<std::uint64_t, std::size_t>> by_call(
    std::vector<std::pair<std::uint64_t, std::size_t>> v) {
    // Blocking calls are numbered as they are replayed: mostly in order already.
    const auto call_less = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (std::is_sorted(v.begin(), v.end(), call_less)) return v;
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return v;
}

/// Calls `notify(call, records)` once per blocking call of `calls` (by_call's
/// order), with what `make(index)` makes of each of the call's records.
template <class Matched, class Make, class Notify>
void per_call(const std::vector<std::pair<std::uint64_t, std::size_t>>& calls, Make make, Notify notify) {
    std::vector<Matched> records;
    for (std::size_t g = 0; g < calls.size();) {
        records.clear();
        const std::uint64_t call = calls[g].first;
        for (; g < calls.size() && calls[g].first == call; ++g) records.push_back(make(calls[g].second));
        notify(call, records);
    }
}

}  // namespace

void TraceShareAnalysis::message_inbox(const std::vector<std::string>& inbox) {
    const ChannelPosts send_posts(inbox, 0, records_.receive_channels),
        receive_posts(inbox, 1, records_.send_channels);
    const DerivedCallbacks& callbacks = wait_state_callbacks();
    DerivedContext context = derived_context();
    // Every matched receive's send post time, and the receives by blocking call;
    // a call's MatchedReceive list is made only when it is notified (memory: 8 + 16 bytes a
    // receive, freed before the sends').
    {
        std::vector<Ticks> sent(records_.receives.size(), no_time);
        std::vector<std::pair<std::uint64_t, std::size_t>> matched;
        matched.reserve(records_.receives.size());  // growing it copied and faulted its pages in twice
        for (std::size_t i = 0; i < records_.receives.size(); ++i) {
            const MessageSide& r = records_.receives[i];
            if (!send_posts.find(r.channel, r.seq, &sent[i])) {
                ++counts_.receives_unmatched;
                continue;
            }
            ++counts_.messages_matched;
            matched.emplace_back(r.block, i);
        }
        per_call<MatchedReceive>(
            by_call(std::move(matched)),
            [&](std::size_t i) {
                const MessageSide& r = records_.receives[i];
                return MatchedReceive{&r, records_.receive_channels[r.channel].source, sent[i]};
            },
            [&](std::uint64_t call, const std::vector<MatchedReceive>& receives) {
                callbacks.notify(ReceiveCallMatched{call, receives.data(), receives.size()}, context);
            });
    }
    // The calls that complete a receive they posted themselves (MPI_Recv, MPI_Sendrecv).
    std::vector<std::uint64_t> receiving_calls;
    for (std::size_t i = 0; i < records_.receives.size(); ++i)
        if (records_.receives[i].posted_in_call) receiving_calls.push_back(records_.receives[i].block);
    std::sort(receiving_calls.begin(), receiving_calls.end());
    // The same for every matched send of a completed call, with its receive's post time.
    std::vector<Ticks> posted(records_.sends.size(), no_time);
    std::vector<std::pair<std::uint64_t, std::size_t>> waiting;
    waiting.reserve(records_.sends.size());
    for (std::size_t i = 0; i < records_.sends.size(); ++i) {
        const MessageSide& s = records_.sends[i];
        if (s.cancelled) continue;
        if (!receive_posts.find(s.channel, s.seq, &posted[i])) {
            ++counts_.sends_unmatched;
            continue;
        }
        if (s.block_enter == no_time || s.block_exit == no_time) continue;  // an Isend never completed
        waiting.emplace_back(s.block, i);
    }
    per_call<MatchedSend>(
        by_call(std::move(waiting)),
        [&](std::size_t i) {
            return MatchedSend{&records_.sends[i], posted[i]};
        },
        [&](std::uint64_t call, const std::vector<MatchedSend>& sends) {
            const bool receives_too =
                std::binary_search(receiving_calls.begin(), receiving_calls.end(), call);
            callbacks.notify(SendCallMatched{call, sends.data(), sends.size(), receives_too}, context);
        });
}

std::vector<std::string> TraceShareAnalysis::collective_outbox() const {
    std::vector<ByteWriter> out(k_);
    for (const auto* calls : {&records_.collectives, &records_.finalize_calls}) {
        for (const CollectiveCall& c : *calls) {
            if (collective_kind(c.op) == CollectiveKind::none) continue;
            out[collective_owner(c.comm, c.seq, k_)].put(
                CallNote{c.comm, c.seq, c.rank, c.op, c.root, c.enter});
        }
    }
    return boxes_of(out);
}

std::vector<std::string> TraceShareAnalysis::collective_answers(const std::vector<std::string>& inbox) {
    // Every member of every instance this rank owns, by instance (communicator,
    // sequence number), members in the order they came: one sort instead of a
    // map of lists and a set of ranks per instance (a node per member).
    std::vector<CallNote> notes;
    std::size_t bytes = 0;
    for (const std::string& box : inbox) bytes += box.size();
    notes.reserve(bytes / sizeof(CallNote));
    for (const std::string& box : inbox) {
        ByteReader in(box);
        while (!in.done()) notes.push_back(in.get<CallNote>());
    }
    std::stable_sort(notes.begin(), notes.end(), [](const CallNote& a, const CallNote& b) {
        return std::tie(a.comm, a.seq) < std::tie(b.comm, b.seq);
    });
    std::vector<ByteWriter> out(k_);
    std::vector<std::uint32_t> ranks;
    for (std::size_t first = 0, end = 0; first < notes.size(); first = end) {
        const CallNote& front = notes[first];
        for (end = first; end < notes.size() && notes[end].comm == front.comm && notes[end].seq == front.seq;
             ++end) {
        }
        const TraceCommunicator* comm = front.comm < definitions_.communicators.size()
                                            ? &definitions_.communicators[front.comm]
                                            : nullptr;
        ranks.clear();
        bool same = true;
        CallAnswer answer;
        answer.comm = front.comm;
        answer.seq = front.seq;
        for (std::size_t i = first; i < end; ++i) {
            const CallNote& m = notes[i];
            ranks.push_back(m.rank);
            same = same && m.op == front.op && m.root == front.root;
            if (answer.last_rank < 0 || m.enter > answer.latest ||
                (m.enter == answer.latest && static_cast<std::int64_t>(m.rank) < answer.last_rank)) {
                answer.latest = m.enter;
                answer.last_rank = m.rank;
            }
            if (m.root >= 0 && static_cast<std::int64_t>(m.rank) == m.root) answer.root_enter = m.enter;
        }
        std::sort(ranks.begin(), ranks.end());
        const bool distinct = std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end();
        // MPI_Finalize's members are all measured ranks; it is not counted among the collectives.
        const bool finalize = front.comm == finalize_communicator;
        const std::size_t members = finalize          ? definitions_.world_size
                                    : comm != nullptr ? comm->world_ranks.size()
                                                      : 0;
        const bool complete = (finalize || comm != nullptr) && same && distinct && ranks.size() == members;
        answer.complete = complete ? 1 : 0;
        if (!finalize) ++(complete ? counts_.collectives_matched : counts_.collectives_incomplete);
        for (std::size_t i = first; i < end; ++i) {
            const CallNote& m = notes[i];
            if (m.rank >= owner_of_rank_.size() || owner_of_rank_[m.rank] < 0) continue;
            answer.rank = m.rank;
            out[static_cast<std::size_t>(owner_of_rank_[m.rank])].put(answer);
        }
    }
    return boxes_of(out);
}

void TraceShareAnalysis::collective_inbox(const std::vector<std::string>& inbox) {
    // The answers by member (rank, communicator, sequence number), found by
    // binary search; of answers to one member the last one sent counts.
    std::vector<CallAnswer> answers;
    std::size_t bytes = 0;
    for (const std::string& box : inbox) bytes += box.size();
    answers.reserve(bytes / sizeof(CallAnswer));
    for (const std::string& box : inbox) {
        ByteReader in(box);
        while (!in.done()) answers.push_back(in.get<CallAnswer>());
    }
    const auto key_less = [](const CallAnswer& a, const CallAnswer& b) {
        return std::tie(a.rank, a.comm, a.seq) < std::tie(b.rank, b.comm, b.seq);
    };
    std::stable_sort(answers.begin(), answers.end(), key_less);
    const DerivedCallbacks& callbacks = wait_state_callbacks();
    DerivedContext context = derived_context();
    for (const auto* calls : {&records_.collectives, &records_.finalize_calls}) {
        for (const CollectiveCall& c : *calls) {
            CallAnswer key;
            key.rank = c.rank;
            key.comm = c.comm;
            key.seq = c.seq;
            const auto after = std::upper_bound(answers.begin(), answers.end(), key, key_less);
            if (after == answers.begin() || key_less(*(after - 1), key) || c.exit == no_time) continue;
            const CallAnswer& a = *(after - 1);
            if (!a.complete) continue;
            callbacks.notify(
                CollectiveMemberMatched{&c, collective_kind(c.op), a.latest, a.last_rank, a.root_enter},
                context);
        }
    }
}

}  // namespace strata::analysis::trace
