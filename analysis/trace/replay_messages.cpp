// SPDX-License-Identifier: BSD-3-Clause
// The message and collective events of a location's replay (see
// replay_state.hpp): each send, receive and collective call becomes a record
// of the share, with the blocking MPI call it happened in, for the matching
// and the wait states (wait_state_analysis.hpp).
#include <tuple>

#include "trace/replay_state.hpp"

namespace strata::analysis::trace::replay {

namespace {

void add_send(Replay& s, OTF2_TimeStamp time, uint64_t position, uint32_t receiver, OTF2_CommRef comm,
              uint32_t tag, bool blocking, uint64_t request) {
    comm = mapped(s.comm_map, comm);
    MessageSide side;
    std::uint32_t destination = 0;
    if (!resolve_peer(s, comm, receiver, &destination)) return;
    const Ticks t = s.last = s.clock.correct(time);
    side.channel = s.out->send_channels.id(comm, s.rank, destination, tag);
    side.post = enter_or(s, t);
    side.event = t;
    side.location = s.location;
    side.position = position;
    const std::size_t index = s.out->sends.size();
    if (blocking) {
        side.posted_in_call = 1;
        // Also when its receive was from MPI_PROC_NULL (an edge of a halo exchange): no receive event.
        side.send_receive = !s.stack.empty() && (s.region_flags[s.stack.back().region] & send_receive) != 0;
        set_block(s, side, t, Pending::send, index);
    } else {
        s.isends[request] = index;
        side.callpath = s.stack.empty() ? 0 : s.stack.back().callpath;
    }
    s.out->sends.push_back(side);
}

void add_receive(Replay& s, OTF2_TimeStamp time, uint64_t position, uint32_t sender, OTF2_CommRef comm,
                 uint32_t tag, bool blocking, uint64_t request) {
    comm = mapped(s.comm_map, comm);
    MessageSide side;
    const Ticks t = s.last = s.clock.correct(time);
    side.post = enter_or(s, t);
    side.event = t;
    side.position = position;
    side.posted_in_call = blocking ? 1 : 0;
    if (!blocking) {
        const auto it = s.irecv_posts.find(request);
        if (it != s.irecv_posts.end()) {
            std::tie(side.post, side.position) = it->second;
            s.irecv_posts.erase(it);
        }
    }
    std::uint32_t source = 0;
    if (!resolve_peer(s, comm, sender, &source)) return;
    side.channel = s.out->receive_channels.id(comm, source, s.rank, tag);
    side.location = s.location;
    const std::size_t index = s.out->receives.size();
    set_block(s, side, t, Pending::receive, index);
    s.out->receives.push_back(side);
}

}  // namespace

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t) {
    ++state(user).events;
    add_send(state(user), time, position, receiver, comm, tag, true, 0);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t,
                           uint64_t request) {
    ++state(user).events;
    add_send(state(user), time, position, receiver, comm, tag, false, request);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                                    OTF2_AttributeList*, uint64_t request) {
    Replay& s = state(user);
    ++s.events;
    const auto it = s.isends.find(request);
    if (it == s.isends.end()) return OTF2_CALLBACK_SUCCESS;
    set_block(s, s.out->sends[it->second], s.last = s.clock.correct(time), Pending::send, it->second);
    s.isends.erase(it);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                                   OTF2_AttributeList*, uint64_t request) {
    Replay& s = state(user);
    ++s.events;
    s.irecv_posts[request] = {enter_or(s, s.last = s.clock.correct(time)), position};
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t) {
    ++state(user).events;
    add_receive(state(user), time, position, sender, comm, tag, true, 0);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t,
                           uint64_t request) {
    ++state(user).events;
    add_receive(state(user), time, position, sender, comm, tag, false, request);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_cancelled(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user, OTF2_AttributeList*,
                               uint64_t request) {
    Replay& s = state(user);
    ++s.events;
    const auto it = s.isends.find(request);
    if (it != s.isends.end()) {
        s.out->sends[it->second].cancelled = true;
        s.isends.erase(it);
    }
    s.irecv_posts.erase(request);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                                    OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t, uint64_t) {
    Replay& s = state(user);
    ++s.events;
    comm = mapped(s.comm_map, comm);
    const Ticks t = s.last = s.clock.correct(time);
    CollectiveCall c;
    c.comm = comm;
    c.rank = s.rank;
    c.op = op;
    if (comm >= s.defs->communicators.size() || !s.defs->communicators[comm].defined) {
        ++s.out->counts.unresolved;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (root != OTF2_UNDEFINED_UINT32) {
        c.root = s.defs->world_rank(comm, root);
        if (c.root < 0) {
            ++s.out->counts.unresolved;
            return OTF2_CALLBACK_SUCCESS;
        }
    }
    c.location = s.location;
    c.position = position;
    const std::size_t index = s.out->collectives.size();
    if (Frame* f = blocking_frame(s)) {
        c.enter = f->enter;
        c.callpath = f->callpath;
        s.pending.push_back({Pending::collective, index});
    } else {
        c.enter = c.exit = t;
        c.callpath = s.out->callpaths.child(CallPaths::none_id, UINT32_MAX - 1, outside_any_region);
    }
    s.out->collectives.push_back(c);
    return OTF2_CALLBACK_SUCCESS;
}

}  // namespace strata::analysis::trace::replay
