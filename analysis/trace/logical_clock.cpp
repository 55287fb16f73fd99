// SPDX-License-Identifier: BSD-3-Clause
// The controlled logical clock (see logical_clock.hpp).
#include "trace/logical_clock.hpp"

#include <algorithm>
#include <limits>

#include "trace/byte_codec.hpp"
#include "trace/clock_correction.hpp"
#include "trace/wait_state_analysis.hpp"

namespace strata::analysis::trace {

namespace {

Ticks clamp_ticks(__int128 v) {
    if (v < std::numeric_limits<Ticks>::min()) return std::numeric_limits<Ticks>::min();
    if (v > std::numeric_limits<Ticks>::max()) return std::numeric_limits<Ticks>::max();
    return static_cast<Ticks>(v);
}

/// A send's post moved, to its receiver's analysis rank.
struct MoveNote {
    MessageChannel channel;
    std::uint64_t seq = 0;
    Ticks time = 0;
};

}  // namespace

std::size_t LogicalShift::raises_up_to(Ticks t) const {
    // The replay asks in time order: mostly the same or the next raise as last time.
    std::size_t k = hint_;
    if (k <= jumps_.size() && (k == 0 || jumps_[k - 1].at <= t) && (k == jumps_.size() || t < jumps_[k].at))
        return k;
    if (k < jumps_.size() && jumps_[k].at <= t && (k + 1 == jumps_.size() || t < jumps_[k + 1].at))
        return hint_ = k + 1;
    const auto after = std::upper_bound(jumps_.begin(), jumps_.end(), t,
                                        [](Ticks v, const Jump& j) { return v < j.at; });
    return hint_ = static_cast<std::size_t>(after - jumps_.begin());
}

Ticks LogicalShift::at(Ticks t, Ticks* first, Ticks* last) const {
    constexpr Ticks lowest = std::numeric_limits<Ticks>::min(), highest = std::numeric_limits<Ticks>::max();
    const std::size_t k = raises_up_to(t);
    // The fade of the raises at or before t (in 64 bits where it fits: a replay asks for every event).
    Ticks fade = 0;
    __int128 reach = 0;
    if (k > 0) {
        reach = reach_[k - 1];
        const __int128 ahead = reach - t;
        if (ahead < kFade) {
            fade = 0;
        } else if (ahead <= std::numeric_limits<Ticks>::max()) {
            fade = static_cast<Ticks>(ahead) / kFade;  // > 0: truncation is the floor
        } else {
            fade = clamp_ticks(floor_div(ahead, kFade));
        }
    }
    if (k < jumps_.size() && t >= jumps_[k].from) {  // on the ramp of the next raise: one time only
        const Jump& j = jumps_[k];
        Ticks product = 0;
        const Ticks ramp = __builtin_mul_overflow(j.shift, t - j.from, &product)
                               ? clamp_ticks(floor_div(static_cast<__int128>(j.shift) * (t - j.from), j.at - j.from))
                               : product / (j.at - j.from);  // both >= 0
        *first = *last = t;
        return std::max(fade, ramp);
    }
    const __int128 low = k > 0 ? jumps_[k - 1].at : lowest;
    const __int128 high = k < jumps_.size() ? static_cast<__int128>(jumps_[k].from) - 1 : highest;
    if (k == 0) {
        *first = lowest;
        *last = clamp_ticks(high);
        return 0;
    }
    // floor((reach - t') / kFade) == fade for t' in (reach - kFade (fade + 1), reach - kFade fade];
    // 0 for every t' > reach - kFade.
    const __int128 from = fade == 0 ? reach - kFade + 1 : reach - kFade * (static_cast<__int128>(fade) + 1) + 1;
    const __int128 to = fade == 0 ? high : reach - kFade * static_cast<__int128>(fade);
    *first = clamp_ticks(std::max(low, from));
    *last = clamp_ticks(std::min(high, to));
    return fade;
}

void LogicalShift::raise(Ticks at, Ticks shift, Ticks floor) {
    const auto it = std::lower_bound(jumps_.begin(), jumps_.end(), at,
                                     [](const Jump& j, Ticks v) { return j.at < v; });
    std::size_t k = static_cast<std::size_t>(it - jumps_.begin());
    if (it != jumps_.end() && it->at == at) {
        it->shift = std::max(it->shift, shift);
    } else {
        Jump j;
        j.at = at;
        j.shift = shift;
        j.from = std::min(at, std::max(floor, k > 0 ? jumps_[k - 1].at : floor));
        jumps_.insert(it, j);
        reach_.insert(reach_.begin() + static_cast<std::ptrdiff_t>(k), 0);
        // The next ramp starts at this raise at the earliest.
        if (k + 1 < jumps_.size()) jumps_[k + 1].from = std::max(jumps_[k + 1].from, at);
    }
    update_reach(k);
}

void LogicalShift::append(const Jump& jump) {
    jumps_.push_back(jump);
    reach_.push_back(0);
    update_reach(jumps_.size() - 1);
}

void LogicalShift::update_reach(std::size_t from) {
    for (std::size_t k = from; k < jumps_.size(); ++k) {
        const __int128 own = static_cast<__int128>(jumps_[k].shift) * kFade + jumps_[k].at;
        reach_[k] = k == 0 ? own : std::max(reach_[k - 1], own);
    }
}

LogicalClock::LogicalClock(const ShareRecords& records, const TraceDefinitions& definitions,
                           const std::vector<std::int64_t>& owner_of_rank, std::size_t analysis_ranks)
    : records_(records), definitions_(definitions), owner_of_rank_(owner_of_rank), k_(analysis_ranks) {
    sent_.assign(records.sends.size(), no_time);
    entered_.assign(records.collectives.size(), no_time);
    partner_post_.assign(records.receives.size(), no_time);
    answer_.assign(records.collectives.size(), Answer{});
    // The sources: times the partners see, which a ramp must not move.
    for (std::size_t i = 0; i < records.sends.size(); ++i) {
        const MessageSide& s = records.sends[i];
        if (!s.cancelled && s.post != no_time)
            sources_[records.send_channels[s.channel].source].push_back(s.post);
    }
    for (const CollectiveCall& c : records.collectives)
        if (c.enter != no_time) sources_[c.rank].push_back(c.enter);
    for (auto& [rank, times] : sources_) std::sort(times.begin(), times.end());
    // The receives by channel and sequence number, to find them when their send's post comes.
    receive_by_seq_.resize(records.receive_channels.size());
    for (std::uint32_t c = 0; c < records.receive_channels.size(); ++c) {
        const MessageChannel& ch = records.receive_channels[c];
        channel_of_[{ch.comm, ch.source, ch.destination, ch.tag}] = c;
        receive_by_seq_[c].assign(records.receive_channels.given(c), SIZE_MAX);
    }
    for (std::size_t i = 0; i < records.receives.size(); ++i) {
        const MessageSide& r = records.receives[i];
        if (r.cancelled || r.seq >= receive_by_seq_[r.channel].size()) continue;
        receive_by_seq_[r.channel][r.seq] = i;
        if (r.block_exit != no_time)
            conditions_.push_back({records.receive_channels[r.channel].destination, r.block_exit, true, i});
    }
    for (std::size_t i = 0; i < records.collectives.size(); ++i) {
        const CollectiveCall& c = records.collectives[i];
        call_of_.emplace(std::make_tuple(c.rank, c.comm, c.seq), i);
        if (c.exit == no_time || records.callpaths.name(c.callpath) == outside_any_region) continue;
        const CollectiveKind kind = collective_kind(c.op);
        const bool bound = kind == CollectiveKind::barrier || kind == CollectiveKind::nxn ||
                           (kind == CollectiveKind::one_to_all && c.root >= 0 && c.rank != c.root) ||
                           (kind == CollectiveKind::all_to_one && c.rank == c.root);
        if (bound) conditions_.push_back({c.rank, c.exit, false, i});
    }
    std::stable_sort(conditions_.begin(), conditions_.end(), [](const Condition& a, const Condition& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.time < b.time;
    });
}

Ticks LogicalClock::moved(std::uint32_t rank, Ticks t) const {
    const auto it = shifts_.find(rank);
    return it == shifts_.end() ? t : t + it->second.at(t);
}

Ticks LogicalClock::last_source(std::uint32_t rank, Ticks t) const {
    const auto it = sources_.find(rank);
    if (it == sources_.end()) return no_time;
    const auto after = std::upper_bound(it->second.begin(), it->second.end(), t);
    return after == it->second.begin() ? no_time : *(after - 1);
}

std::vector<std::string> LogicalClock::outbox() {
    std::vector<ByteWriter> messages(k_), calls(k_);
    for (std::size_t i = 0; i < records_.sends.size(); ++i) {
        const MessageSide& s = records_.sends[i];
        if (s.cancelled || s.post == no_time) continue;
        const MessageChannel& ch = records_.send_channels[s.channel];
        const std::int64_t to = ch.destination < owner_of_rank_.size() ? owner_of_rank_[ch.destination] : -1;
        const Ticks post = moved(ch.source, s.post);
        if (to < 0 || post == sent_[i]) continue;
        sent_[i] = post;
        messages[static_cast<std::size_t>(to)].put(MoveNote{ch, s.seq, post});
    }
    for (std::size_t i = 0; i < records_.collectives.size(); ++i) {
        const CollectiveCall& c = records_.collectives[i];
        if (collective_kind(c.op) == CollectiveKind::none || c.enter == no_time) continue;
        const Ticks enter = moved(c.rank, c.enter);
        if (enter == entered_[i]) continue;
        entered_[i] = enter;
        CallNote note;  // its enter moved
        note.comm = c.comm;
        note.rank = c.rank;
        note.seq = c.seq;
        note.op = c.op;
        note.root = c.root;
        note.enter = enter;
        calls[collective_owner(c.comm, c.seq, k_)].put(note);
    }
    std::vector<std::string> boxes;
    for (std::size_t a = 0; a < k_; ++a) {
        ByteWriter box;
        box.put<std::uint64_t>(messages[a].bytes().size() / sizeof(MoveNote));
        box.bytes() += messages[a].bytes();
        box.bytes() += calls[a].bytes();
        boxes.push_back(std::move(box.bytes()));
    }
    return boxes;
}

std::vector<std::string> LogicalClock::answers(const std::vector<std::string>& inbox) {
    const bool first = rounds_ == 0;
    for (const std::string& box : inbox) {
        ByteReader in(box);
        const auto moves = in.get<std::uint64_t>();
        for (std::uint64_t m = 0; m < moves; ++m) {
            const auto note = in.get<MoveNote>();
            const MessageChannel& ch = note.channel;
            const auto c = channel_of_.find({ch.comm, ch.source, ch.destination, ch.tag});
            if (c == channel_of_.end() || note.seq >= receive_by_seq_[c->second].size()) continue;
            const std::size_t i = receive_by_seq_[c->second][note.seq];
            if (i != SIZE_MAX) partner_post_[i] = note.time;
        }
        while (!in.done()) {
            const auto note = in.get<CallNote>();
            Instance& instance = instances_[{note.comm, note.seq}];
            instance.changed = true;
            if (first) {
                instance.members.push_back({note.rank, note.op, note.root, note.enter});
                continue;
            }
            const auto m = std::lower_bound(instance.members.begin(), instance.members.end(), note.rank,
                                            [](const Member& a, std::uint32_t r) { return a.rank < r; });
            if (m != instance.members.end() && m->rank == note.rank) m->enter = note.enter;
        }
    }
    std::vector<ByteWriter> out(k_);
    for (auto& [key, instance] : instances_) {
        if (first)
            std::stable_sort(instance.members.begin(), instance.members.end(),
                             [](const Member& a, const Member& b) { return a.rank < b.rank; });
        if (!instance.changed) continue;
        instance.changed = false;
        const auto& [comm, seq] = key;
        // Complete as the wait-state phase counts it: every member once, one operation and root.
        const Member& front = instance.members.front();
        bool complete = comm < definitions_.communicators.size() &&
                        instance.members.size() == definitions_.communicators[comm].world_ranks.size();
        CallAnswer answer;  // what the member's exit must not precede
        answer.comm = comm;
        answer.seq = seq;
        answer.latest = no_time;
        for (std::size_t i = 0; i < instance.members.size(); ++i) {
            const Member& m = instance.members[i];
            complete = complete && m.op == front.op && m.root == front.root &&
                       (i == 0 || instance.members[i - 1].rank != m.rank);
            answer.latest = std::max(answer.latest, m.enter);
            if (m.root >= 0 && static_cast<std::int64_t>(m.rank) == m.root) answer.root_enter = m.enter;
        }
        answer.complete = complete ? 1 : 0;
        for (const Member& m : instance.members) {
            if (m.rank >= owner_of_rank_.size() || owner_of_rank_[m.rank] < 0) continue;
            answer.rank = m.rank;
            out[static_cast<std::size_t>(owner_of_rank_[m.rank])].put(answer);
        }
    }
    return boxes_of(out);
}

Ticks LogicalClock::required(const Condition& c) const {
    if (c.receive) return partner_post_[c.index];
    const Answer& a = answer_[c.index];
    if (!a.complete) return no_time;
    return collective_kind(records_.collectives[c.index].op) == CollectiveKind::one_to_all ? a.root_enter
                                                                                          : a.latest;
}

bool LogicalClock::enforce(const std::vector<std::string>& inbox) {
    for (const std::string& box : inbox) {
        ByteReader in(box);
        while (!in.done()) {
            const auto note = in.get<CallAnswer>();
            const auto it = call_of_.find({note.rank, note.comm, note.seq});
            if (it == call_of_.end()) continue;
            answer_[it->second] = Answer{note.complete != 0, note.latest, note.root_enter};
        }
    }
    bool raised = false;
    for (const Condition& c : conditions_) {
        const Ticks need = required(c);
        if (need == no_time) continue;
        if (rounds_ == 0 && c.time < need) ++violated_first_;  // as the trace has it
        if (moved(c.rank, c.time) >= need) continue;
        // The ramp: from the last time a partner saw, else from the rank's first time.
        Ticks floor = last_source(c.rank, c.time);
        if (floor == no_time) {
            const auto it = records_.iterations.find(c.rank);
            floor = it != records_.iterations.end() && it->second.first != no_time ? it->second.first : c.time;
        }
        shifts_[c.rank].raise(c.time, need - c.time, std::min(floor, c.time));
        raised = true;
    }
    ++rounds_;
    return raised;
}

std::string LogicalClock::shifts() const {
    ByteWriter w;
    for (const auto& [rank, shift] : shifts_) {
        if (shift.empty()) continue;
        w.put<std::uint32_t>(rank);
        w.put<std::uint64_t>(shift.jumps().size());
        w.put_array(shift.jumps().data(), shift.jumps().size());
    }
    return std::move(w.bytes());
}

LogicalClockSummary LogicalClock::summary() const {
    LogicalClockSummary s;
    s.rounds = rounds_;
    s.conditions_violated = violated_first_;
    for (const auto& [rank, shift] : shifts_) s.ranks_moved += shift.empty() ? 0 : 1;
    const auto count = [&](std::uint32_t rank, Ticks t) {
        if (t == no_time) return;
        ++s.times_checked;
        const auto it = shifts_.find(rank);
        const Ticks move = it == shifts_.end() ? 0 : it->second.at(t);
        if (move <= 0) return;
        ++s.times_moved;
        s.move_sum += move;
        s.largest_move = std::max(s.largest_move, move);
    };
    for (std::size_t i = 0; i < records_.sends.size(); ++i)
        if (!records_.sends[i].cancelled)
            count(records_.send_channels[records_.sends[i].channel].source, records_.sends[i].post);
    for (std::size_t i = 0; i < records_.receives.size(); ++i)
        count(records_.receive_channels[records_.receives[i].channel].destination, records_.receives[i].block_exit);
    for (const CollectiveCall& c : records_.collectives) {
        count(c.rank, c.enter);
        count(c.rank, c.exit);
    }
    return s;
}

std::map<std::uint32_t, LogicalShift> read_shifts(const std::vector<std::string>& inbox) {
    std::map<std::uint32_t, LogicalShift> shifts;
    for (const std::string& box : inbox) {
        ByteReader in(box);
        while (!in.done()) {
            const auto rank = in.get<std::uint32_t>();
            const auto n = in.get<std::uint64_t>();
            LogicalShift& shift = shifts[rank];
            for (std::uint64_t j = 0; j < n; ++j) shift.append(in.get<LogicalShift::Jump>());
        }
    }
    return shifts;
}

}  // namespace strata::analysis::trace
