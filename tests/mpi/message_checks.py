# SPDX-License-Identifier: BSD-3-Clause
"""Checks of the MPI message events of an experiment, with two readers that share
no code with Strata: the OTF2 Python bindings and otf2-print.

    events = read_messages(archive)        # python3 otf2
    check_matching(events)                 # every send has exactly one receive
    check_requests(events)                 # request ids: one completion each
    check_collective_sequences(events)     # the same collectives on every member
    check_against_otf2_print(archive, events)

Ranks are MPI_COMM_WORLD ranks (the location group "rank N"); a communicator is
(name, members as world ranks) from the unified definitions, so the peers of
message events (ranks in their communicator) become world ranks here.
"""
import collections
import re
import subprocess

# OTF2 event classes -> the names otf2-print gives them.
KINDS = {'MpiSend': 'MPI_SEND', 'MpiRecv': 'MPI_RECV', 'MpiIsend': 'MPI_ISEND',
         'MpiIsendComplete': 'MPI_ISEND_COMPLETE', 'MpiIrecvRequest': 'MPI_IRECV_REQUEST',
         'MpiIrecv': 'MPI_IRECV', 'MpiRequestTest': 'MPI_REQUEST_TEST',
         'MpiRequestCancelled': 'MPI_REQUEST_CANCELLED', 'MpiCollectiveBegin': 'MPI_COLLECTIVE_BEGIN',
         'MpiCollectiveEnd': 'MPI_COLLECTIVE_END',
         'NonBlockingCollectiveRequest': 'NON_BLOCKING_COLLECTIVE_REQUEST',
         'NonBlockingCollectiveComplete': 'NON_BLOCKING_COLLECTIVE_COMPLETE'}
UNKNOWN = 'unknown communicator'


def world_rank(location):
    return int(location.group.name.split()[-1])


class Comm:
    """A communicator as the unified definitions describe it."""

    def __init__(self, definition):
        self.ref = definition._ref
        self.name = definition.name
        self.members = tuple(world_rank(m) for m in definition.group.members)

    def world(self, rank_in_comm):
        return self.members[rank_in_comm]

    def __repr__(self):
        return '%s%s' % (self.name, list(self.members))


class Events:
    """The MPI events of an archive: per location key ('rank R/thread T'), in order,
    (kind, time, fields) with kind 'E'/'L' (region enter/leave) or an OTF2 event class name."""

    def __init__(self):
        self.by_location = collections.defaultdict(list)
        self.comms = {}  # definition reference -> Comm


def read_messages(archive):
    import otf2
    events = Events()
    with otf2.reader.open(archive) as trace:
        for definition in trace.definitions.comms:
            events.comms[definition._ref] = Comm(definition)
        for location, event in trace.events:
            key = 'rank %d/%s' % (world_rank(location), location.name)
            kind = type(event).__name__
            if isinstance(event, otf2.events.Enter):
                events.by_location[key].append(('E', event.time, {'region': event.region.name}))
            elif isinstance(event, otf2.events.Leave):
                events.by_location[key].append(('L', event.time, {'region': event.region.name}))
            elif kind in KINDS:
                fields = {}
                for name in ('receiver', 'sender', 'msg_tag', 'msg_length', 'request_id', 'root', 'size_sent',
                             'size_received'):
                    if hasattr(event, name):
                        fields[name] = getattr(event, name)
                if hasattr(event, 'communicator'):
                    fields['comm'] = events.comms[event.communicator._ref]
                if hasattr(event, 'collective_op'):
                    fields['op'] = str(event.collective_op).split('.')[-1].lower()
                events.by_location[key].append((kind, event.time, fields))
    return events


def count_kinds(events, location):
    return collections.Counter(k for k, _, _ in events.by_location[location] if k in KINDS)


def check_matching(events):
    """Every send (MpiSend, MpiIsend) has exactly one receive (MpiRecv, MpiIrecv) with the
    same communicator, sender, receiver and tag, and the same byte count, in order: the order
    in which they were posted, as MPI matches them (its non-overtaking rule).  A nonblocking
    receive was posted at its MpiIrecvRequest, which may come before the MpiIrecv of a receive
    posted earlier (MPI_Waitany, MPI_Testany, or the requests of MPI_Waitall completed in
    another order).  Returns the number of matched messages and the number on "unknown
    communicator"."""
    sends, receives = collections.defaultdict(list), collections.defaultdict(list)
    unknown = 0
    for location, stream in events.by_location.items():
        me = int(location.split('/')[0].split()[1])
        posted = {}  # request id -> position of its MpiIrecvRequest
        for position, (kind, _, f) in enumerate(stream):
            if kind == 'MpiIrecvRequest':
                posted[f['request_id']] = position
            if kind in ('MpiSend', 'MpiIsend', 'MpiRecv', 'MpiIrecv') and f['comm'].name == UNKNOWN:
                assert not f['comm'].members, 'the unknown communicator has members: %r' % f['comm']
                unknown += 1
                continue
            if kind in ('MpiSend', 'MpiIsend'):
                comm = f['comm']
                assert me in comm.members, '%s: sends on %r, of which it is not a member' % (location, comm)
                key = (comm.ref, me, comm.world(f['receiver']), f['msg_tag'])
                sends[key].append((location, position, f['msg_length']))
            elif kind in ('MpiRecv', 'MpiIrecv'):
                comm = f['comm']
                assert me in comm.members, '%s: receives on %r, of which it is not a member' % (location, comm)
                key = (comm.ref, comm.world(f['sender']), me, f['msg_tag'])
                post = posted.pop(f['request_id'], position) if kind == 'MpiIrecv' else position
                receives[key].append((location, post, f['msg_length']))
    sends = {key: [length for _, _, length in sorted(sides)] for key, sides in sends.items()}
    receives = {key: [length for _, _, length in sorted(sides)] for key, sides in receives.items()}
    for key in set(sends) | set(receives):
        comm = events.comms[key[0]]
        what = 'messages on %r from rank %d to rank %d with tag %d' % (comm, key[1], key[2], key[3])
        assert sends.get(key) == receives.get(key), '%s: sent %s, received %s' % (what, sends.get(key),
                                                                                 receives.get(key))
    return sum(len(v) for v in sends.values()), unknown


def check_requests(events):
    """On each location: every MpiIsend request id has exactly one MpiIsendComplete or
    MpiRequestCancelled after it, every MpiIrecvRequest exactly one MpiIrecv or
    MpiRequestCancelled; MpiRequestTest names open requests only; ids are not reused while open."""
    for location, stream in events.by_location.items():
        open_requests = {}
        for kind, _, f in stream:
            rid = f.get('request_id')
            if kind in ('MpiIsend', 'MpiIrecvRequest'):
                assert rid not in open_requests, '%s: request id %d opened twice' % (location, rid)
                open_requests[rid] = kind
            elif kind == 'MpiIsendComplete':
                assert open_requests.pop(rid, None) == 'MpiIsend', '%s: MpiIsendComplete of %d' % (location, rid)
            elif kind == 'MpiIrecv':
                assert open_requests.pop(rid, None) == 'MpiIrecvRequest', '%s: MpiIrecv of %d' % (location, rid)
            elif kind == 'MpiRequestCancelled':
                assert open_requests.pop(rid, None) is not None, '%s: cancelled %d is not open' % (location, rid)
            elif kind == 'MpiRequestTest':
                assert rid in open_requests, '%s: MpiRequestTest of %d, which is not open' % (location, rid)
            elif kind == 'NonBlockingCollectiveRequest':
                assert rid not in open_requests, '%s: request id %d opened twice' % (location, rid)
                open_requests[rid] = kind
            elif kind == 'NonBlockingCollectiveComplete':
                assert open_requests.pop(rid, None) == 'NonBlockingCollectiveRequest', \
                    '%s: NonBlockingCollectiveComplete of %d' % (location, rid)
        assert not open_requests, '%s: requests never completed: %s' % (location, open_requests)


def collective_records(events, location):
    """[(op, comm, root, sent, received)] of a location, checking that each
    MpiCollectiveBegin directly follows the enter of an MPI region and each
    MpiCollectiveEnd directly precedes its leave, with the operation named by the region."""
    stream = events.by_location[location]
    records = []
    for i, (kind, _, f) in enumerate(stream):
        if kind == 'MpiCollectiveBegin':
            assert i > 0 and stream[i - 1][0] == 'E' and stream[i - 1][2]['region'].startswith('MPI_'), \
                '%s: MpiCollectiveBegin not right after entering an MPI region' % location
        elif kind == 'MpiCollectiveEnd':
            assert i + 1 < len(stream) and stream[i + 1][0] == 'L', \
                '%s: MpiCollectiveEnd not right before a leave' % location
            region = stream[i + 1][2]['region']
            assert region[len('MPI_'):].lower() == f['op'], '%s: %s ends in %s' % (location, f['op'], region)
            root = None if f['root'] == 0xFFFFFFFF else f['root']
            records.append((f['op'], f['comm'], root, f['size_sent'], f['size_received']))
    begins = sum(1 for k, _, _ in stream if k == 'MpiCollectiveBegin')
    assert begins == len(records), '%s: %d begins, %d ends' % (location, begins, len(records))
    return records


def check_collective_sequences(events):
    """Every member of a communicator records the same collectives in the same order with
    the same root, and for each one the bytes sent by all members equal the bytes received."""
    per_comm = collections.defaultdict(dict)  # comm ref -> {rank: [records]}
    for location in events.by_location:
        me = int(location.split('/')[0].split()[1])
        for record in collective_records(events, location):
            comm = record[1]
            if comm.name == UNKNOWN:
                continue
            assert me in comm.members, '%s: a collective on %r' % (location, comm)
            per_comm[comm.ref].setdefault(me, []).append(record)
    for ref, ranks in per_comm.items():
        comm = events.comms[ref]
        assert sorted(ranks) == sorted(comm.members), '%r: collectives on ranks %s only' % (comm, sorted(ranks))
        sequences = list(ranks.values())
        for i in range(len(sequences[0])):
            instance = [s[i] for s in sequences]
            assert len({(r[0], r[2]) for r in instance}) == 1, '%r: collective %d differs: %s' % (comm, i, instance)
            sent, received = sum(r[3] for r in instance), sum(r[4] for r in instance)
            assert sent == received, '%r: %s sends %d bytes in all but receives %d' % (comm, instance[0][0], sent,
                                                                                      received)
        assert len({len(s) for s in sequences}) == 1, '%r: different numbers of collectives' % comm
    return per_comm


# ---------------------------------------------------------------- otf2-print

_PRINTED = re.compile(r'^((?:MPI|NON_BLOCKING_COLLECTIVE)_[A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$')


def otf2_print_messages(archive):
    """{location id: Counter(otf2-print event name)} and [(location id, name, communicator name, tag, length)]."""
    out = subprocess.run(['otf2-print', archive], check=True, capture_output=True, text=True).stdout
    counts = collections.defaultdict(collections.Counter)
    messages = []
    for line in out.splitlines():
        m = _PRINTED.match(line)
        if not m or m.group(1) not in KINDS.values():
            continue
        location = int(m.group(2))
        counts[location][m.group(1)] += 1
        comm = re.search(r'Communicator: "([^"]*)"', m.group(4))
        tag = re.search(r'Tag: (\d+)', m.group(4))
        length = re.search(r'Length: (\d+)', m.group(4))
        if tag:
            messages.append((location, m.group(1), comm.group(1), int(tag.group(1)), int(length.group(1))))
    return counts, messages


def otf2_print_comms(archive):
    """Sorted [(name, members as world ranks)] of the COMM definitions, from otf2-print -G."""
    out = subprocess.run(['otf2-print', '-G', archive], check=True, capture_output=True, text=True).stdout
    groups, comms = {}, []
    for line in out.splitlines():
        g = re.match(r'^GROUP\s+(\d+)\s+Name: "([^"]*)".*Type: COMM_GROUP.*Members?: (.*)$', line)
        if g:
            groups[int(g.group(1))] = [int(r) for r in re.findall(r'(\d+) \("', g.group(3))]
        elif re.match(r'^GROUP\s+(\d+)\s+Name: "([^"]*)".*Type: COMM_GROUP.*0 Members', line):
            groups[int(line.split()[1])] = []
        c = re.match(r'^COMM\s+\d+\s+Name: "([^"]*)".*Group: "[^"]*" <(\d+)>', line)
        if c:
            comms.append((c.group(1), tuple(groups.get(int(c.group(2)), []))))
    return sorted(comms)


def check_against_otf2_print(archive, events):
    """otf2-print sees the same MPI events per location (kinds, communicators, tags, lengths)
    and the same communicator definitions as the Python bindings."""
    counts, messages = otf2_print_messages(archive)
    for location in events.by_location:
        rank, thread = location.split('/')
        location_id = (int(rank.split()[1]) << 32) + int(thread.split()[1])
        python = collections.Counter(KINDS[k] for k in count_kinds(events, location).elements())
        assert counts.get(location_id, collections.Counter()) == python, \
            '%s: otf2-print %s, python3 otf2 %s' % (location, dict(counts.get(location_id, {})), dict(python))
        printed = [(n, c, t, l) for loc, n, c, t, l in messages if loc == location_id]
        ours = [(KINDS[k], f['comm'].name, f['msg_tag'], f['msg_length'])
                for k, _, f in events.by_location[location] if 'msg_tag' in f]
        assert printed == ours, '%s: otf2-print messages differ from python3 otf2' % location
    python_comms = sorted((c.name, c.members) for c in events.comms.values())
    assert otf2_print_comms(archive) == python_comms, \
        'communicators: otf2-print %s, python3 otf2 %s' % (otf2_print_comms(archive), python_comms)
