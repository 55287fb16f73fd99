#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Scalasca's wait states of an OTF2 trace, computed without any Strata code:
the OTF2 Python bindings read the trace (their reader applies the clock
offsets), and the definitions of METRICS.md are applied here from scratch.
Used to check strata-analyze's waitstates.csv on real traces.

    independent_wait_states.py TRACE_ANCHOR [WAITSTATES_CSV]

Prints the total of each wait state (seconds, summed over all ranks) and its
instances; with WAITSTATES_CSV also strata-analyze's totals beside them, and
exits 1 when they differ by more than the clock correction's rounding: OTF2's
reader rounds an interpolated offset its own way, strata-analyze takes the
floor of the exact value (METRICS.md), so a corrected time may differ by one
tick.  Each instance's wait may then differ by a tick, a wait of at most one
tick may be counted on one side only, and so may a late receiver whose send
ended within two ticks of the receive's post (with all of its wait).

The definitions (E = enter, X = exit of the MPI call that blocks):
  late sender     per blocking call with matched receives, the latest
                  sender's post: min(E_send, X_recv) - E_recv when positive
  late receiver   per blocking call with matched sends, the largest
                  E_recv_posted - E_send when the send ended after the receive
                  was posted; as Scalasca, none in a combined call (an
                  MPI_Sendrecv(_replace), also one whose receive is from
                  MPI_PROC_NULL, or a call that sends and receives what it
                  posted itself) nor in a call charged a late sender (an MPI_Waitall
                  completing sends and receives): a call waits at one site
  wait at barrier, N x N, late broadcast, early reduce: the collective's
                  instance on each member (its n-th collective on that
                  communicator), min(max_q E_q, X_p) - E_p; for broadcasts
                  E_root instead of max_q E_q on every non-root member; for
                  reductions on the root only.
  wait at finalize: the same as a barrier's, over every rank's MPI_Finalize
                  (when every rank's is in the trace).
Messages match per (communicator, sender, receiver, tag) in the order the
sends and the receives were posted (MPI's non-overtaking rule).

It also counts the clock-condition violations: a matched receive whose call
ended before its send's call began, a member of a barrier or N x N
collective that left it before the last member entered, a broadcast's
non-root that left before the root entered, a reduction's root that left
before the last member entered (with WAITSTATES_CSV
compared with the counts in waitstates.json beside it); and a rank that left
MPI_Init(_thread) or MPI_Finalize before another rank entered it (printed
only: strata-analyze does not take them as clock conditions).
"""
import collections
import csv
import json
import os
import sys

import otf2

NXN = {'ALLREDUCE', 'ALLGATHER', 'ALLGATHERV', 'ALLTOALL', 'ALLTOALLV', 'ALLTOALLW', 'REDUCE_SCATTER',
       'REDUCE_SCATTER_BLOCK'}
BROADCAST = {'BCAST', 'SCATTER', 'SCATTERV'}
REDUCTION = {'REDUCE', 'GATHER', 'GATHERV'}
# Calls that send and receive: never a late receiver (Scalasca), even when the receive is from MPI_PROC_NULL.
COMBINED_CALLS = ('MPI_Sendrecv', 'MPI_Sendrecv_replace')
METRICS = ('late_sender', 'late_receiver', 'wait_at_barrier', 'wait_at_nxn', 'late_broadcast', 'early_reduce',
           'wait_at_finalize')


class Call:
    """One MPI call on one location: its enter and exit times."""

    def __init__(self, name, enter):
        self.name, self.enter, self.exit = name, enter, None
        self.mpi = False  # a region of paradigm MPI


def op_name(op):
    return str(op).split('.')[-1]  # CollectiveOp.BCAST: the bindings' enumerations have no .name


def rank_of(location):
    return int(location.group.name.split()[-1]) if location.group.name.startswith('rank ') else None


def world_rank(comm, local):
    """The rank in MPI_COMM_WORLD of rank `local` of `comm`; None when the
    trace cannot say (a communicator Strata did not know: no members)."""
    members = list(comm.group.members)
    return rank_of(members[local]) if local < len(members) else None


def read(anchor):
    sends = collections.defaultdict(list)  # channel -> [[post, the call that blocked on it or None]]
    receives = collections.defaultdict(list)  # channel -> [(post, the call that completed it)]
    receiving = set()  # id() of the calls that posted a receive and completed it (MPI_Recv, MPI_Sendrecv)
    collectives = collections.defaultdict(lambda: collections.defaultdict(list))  # comm -> rank -> [(op, root, call)]
    setup = collections.defaultdict(list)  # 'MPI_Init' or 'MPI_Finalize' -> [call] of every rank's thread 0
    with otf2.reader.open(anchor) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        ranks = len({rank_of(l) for l in trace.definitions.locations} - {None})
        stacks = collections.defaultdict(list)  # location -> open Calls
        pending = {}  # (location, request id) -> an Isend's entry of `sends`, or (None, post) of an Irecv
        for location, event in trace.events:
            if location.type != otf2.LocationType.CPU_THREAD:
                continue
            stack = stacks[location]
            kind = type(event).__name__
            if kind == 'Enter':
                stack.append(Call(event.region.name, event.time))
                stack[-1].mpi = event.region.paradigm == otf2.Paradigm.MPI
                name = event.region.name.replace('MPI_Init_thread', 'MPI_Init')
                if name in ('MPI_Init', 'MPI_Finalize') and location.type == otf2.LocationType.CPU_THREAD:
                    setup[name].append(stack[-1])
                continue
            if kind == 'Leave':
                if stack:
                    stack.pop().exit = event.time
                continue
            call = stack[-1] if stack and stack[-1].mpi else None  # the MPI call the event happens in
            if call is None:
                # Not in a recorded MPI call (a filter file excluded it): the event stands alone.
                call = Call(kind, event.time)
                call.exit = event.time
            me = rank_of(location)
            if kind == 'MpiSend':
                channel = (event.communicator, me, world_rank(event.communicator, event.receiver), event.msg_tag)
                if channel[2] is not None:
                    sends[channel].append([call.enter, call, True])
            elif kind == 'MpiIsend':
                # Matched from its post on; the call that completes it (if any) is the one that blocks.
                channel = (event.communicator, me, world_rank(event.communicator, event.receiver), event.msg_tag)
                send = [call.enter, None, False]
                if channel[2] is not None:
                    sends[channel].append(send)
                pending[(location, event.request_id)] = send
            elif kind == 'MpiIsendComplete':
                send = pending.pop((location, event.request_id), None)
                if send is not None:
                    send[1] = call
            elif kind == 'MpiIrecvRequest':
                pending[(location, event.request_id)] = (None, call.enter)
            elif kind in ('MpiRecv', 'MpiIrecv'):
                channel = (event.communicator, world_rank(event.communicator, event.sender), me, event.msg_tag)
                post = call.enter
                if kind == 'MpiIrecv':
                    post = pending.pop((location, event.request_id), (None, call.enter))[1]
                else:
                    receiving.add(id(call))
                if channel[1] is not None:
                    receives[channel].append((post, call))
            elif kind == 'MpiRequestCancelled':
                pending.pop((location, event.request_id), None)
            elif kind == 'MpiCollectiveEnd':
                if not list(event.communicator.group.members):
                    continue  # on a communicator Strata did not know: its members are unknown
                root = None
                if op_name(event.collective_op) in BROADCAST | REDUCTION:
                    root = world_rank(event.communicator, event.root)
                collectives[event.communicator][me].append((op_name(event.collective_op), root, call))
    return resolution, sends, receives, receiving, collectives, setup, ranks


def analyse(resolution, sends, receives, receiving, collectives, setup, ranks):
    # metric -> [ticks, instances, instances that rounding may add or drop, ticks they may add or drop]
    totals = {m: [0, 0, 0, 0] for m in METRICS}

    def charge(metric, wait, undecided=0):
        """`undecided`: a wait that a comparison within a tick or two decides to count or not."""
        if wait > 0:
            totals[metric][0] += wait
            totals[metric][1] += 1
        if -1 <= wait <= 1 or undecided > 0:
            totals[metric][2] += 1
            totals[metric][3] += undecided

    latest_sender = {}  # receiving call -> latest send post
    largest_wait = {}  # sending call -> largest wait
    # receives ending before their send began, those within a tick of it; the same for collective
    # members leaving before the last one entered; ranks leaving MPI_Init/MPI_Finalize before another entered
    violations = [0, 0, 0, 0, 0]
    for channel, posted in receives.items():
        sent = sorted(sends.get(channel, []), key=lambda s: s[0])
        for (post, call), (send_post, send_call, in_call) in zip(sorted(posted, key=lambda r: r[0]), sent):
            if call.exit is not None:
                violations[0] += call.exit < send_post
                violations[1] += abs(call.exit - send_post) <= 1
            if id(call) not in latest_sender or send_post > latest_sender[id(call)][0]:
                latest_sender[id(call)] = (send_post, call)
            if send_call is None or send_call.exit is None:
                continue  # an Isend never completed: no call blocked on it
            if in_call and (id(send_call) in receiving or send_call.name in COMBINED_CALLS):
                continue  # a combined send-receive call (also one receiving from MPI_PROC_NULL): its wait is its late sender
            wait = post - send_call.enter if post > send_call.enter and send_call.exit > post else 0
            # The send ended within two ticks of the receive's post: which came first is
            # the clock correction's rounding (see the top), and so is whether it waited.
            undecided = post - send_call.enter if abs(send_call.exit - post) <= 2 else 0
            if id(send_call) not in largest_wait:  # by id(): keys of late_sender
                largest_wait[id(send_call)] = [wait, undecided]
            else:
                largest_wait[id(send_call)][0] = max(largest_wait[id(send_call)][0], wait)
                largest_wait[id(send_call)][1] = max(largest_wait[id(send_call)][1], undecided)
    late_sender = {}  # receiving call -> its wait
    for send_post, call in latest_sender.values():
        if call.exit is not None:
            late_sender[id(call)] = min(send_post, call.exit) - call.enter
            charge('late_sender', late_sender[id(call)])
    for call, (wait, undecided) in largest_wait.items():
        waited = late_sender.get(call)
        if waited is not None and waited > 1:
            continue  # the call waited for a late sender: that is its one wait
        undecided = undecided if undecided > wait else 0
        if waited is not None and waited >= -1:
            undecided = max(undecided, wait)  # whether it waited for the sender is the rounding's call
        charge('late_receiver', wait, undecided)

    for by_rank in collectives.values():
        members = sorted(by_rank)
        for n in range(min(len(calls) for calls in by_rank.values())):
            instance = {r: by_rank[r][n] for r in members}
            op, root = instance[members[0]][0], instance[members[0]][1]
            latest = max(call.enter for _, _, call in instance.values())
            for rank, (_, _, call) in instance.items():
                if call.exit is None:
                    continue
                # Who must not leave before whom: every member before the last one entered
                # a barrier or N x N call, a broadcast's non-root before the root, a
                # reduction's root before the last member (no enter for a call not recorded).
                bound = None
                if op == 'BARRIER' or op in NXN or (op in REDUCTION and rank == root):
                    bound = latest
                elif op in BROADCAST and rank != root and root in instance:
                    bound = instance[root][2].enter
                if bound is not None and call.mpi:
                    violations[2] += call.exit < bound
                    violations[3] += abs(call.exit - bound) <= 1
                if op == 'BARRIER':
                    charge('wait_at_barrier', min(latest, call.exit) - call.enter)
                elif op in NXN:
                    charge('wait_at_nxn', min(latest, call.exit) - call.enter)
                elif op in BROADCAST and rank != root and root in instance:
                    charge('late_broadcast', min(instance[root][2].enter, call.exit) - call.enter)
                elif op in REDUCTION and rank == root:
                    charge('early_reduce', min(latest, call.exit) - call.enter)
    for name, calls in setup.items():
        last_enter = max(call.enter for call in calls)
        violations[4] += sum(1 for call in calls if call.exit is not None and call.exit < last_enter)
        if name == 'MPI_Finalize' and len(calls) == ranks:
            # Every rank waits in MPI_Finalize for the last to enter it (the barrier formula).
            for call in calls:
                if call.exit is not None:
                    charge('wait_at_finalize', min(last_enter, call.exit) - call.enter)
    return resolution, {m: (ticks / resolution, count, near_zero, undecided / resolution)
                        for m, (ticks, count, near_zero, undecided) in totals.items()}, violations


def strata_totals(path):
    totals = {m: [0.0, 0] for m in METRICS}
    with open(path, newline='') as f:
        for row in csv.DictReader(f):
            totals[row['metric']][0] += float(row['time_s'])
            totals[row['metric']][1] += int(row['instances'])
    return totals


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    resolution, independent, violations = analyse(*read(sys.argv[1]))
    strata = strata_totals(sys.argv[2]) if len(sys.argv) == 3 else None
    differ = False
    for metric in METRICS:
        seconds, count, near_zero, undecided = independent[metric]
        line = '%-16s %14.9f s %7d instances' % (metric, seconds, count)
        if strata is not None:
            s_seconds, s_count = strata[metric]
            ticks = max(count, s_count) + near_zero  # the rounding allowed (see above)
            # (and the CSV's printed precision: 9 significant digits)
            same = (abs(s_count - count) <= near_zero and
                    abs(s_seconds - seconds) <= ticks / resolution + undecided + 1e-8 * seconds)
            differ |= not same
            line += '   strata-analyze %14.9f s %7d instances%s' % (s_seconds, s_count, '' if same else '   DIFFERENT')
        print(line)
    if strata is not None:
        with open(os.path.join(os.path.dirname(sys.argv[2]), 'waitstates.json')) as f:
            counts = json.load(f)['summary']['counts']
    for name, found, near in (('clock_violations', violations[0], violations[1]),
                              ('collective_clock_violations', violations[2], violations[3])):
        line = '%s %d' % (name, found)
        if strata is not None:
            same = abs(counts[name] - found) <= near
            differ |= not same
            line += '   strata-analyze %d%s' % (counts[name], '' if same else '   DIFFERENT')
        print(line)
    print('init_finalize_violations %d' % violations[4])
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
