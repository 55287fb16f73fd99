# SPDX-License-Identifier: BSD-3-Clause
"""One MPI adapter scenario: run a program built with `strata mpicc` (or mpif90)
under mpirun, then check every rank's experiment with independent readers
(python3 otf2, otf2-print, h5dump; tests/integration/experiment_reader.py).

    /usr/bin/python3 run_mpi_scenario.py SCENARIO --bin-dir DIR --work-dir DIR [--mpirun MPIRUN]

Until the MPI finalisation work shares one experiment between ranks, each rank
writes its own strata-<date>_<time>_<pid> directory into the working directory;
the programs print "rank R pid P", which tells which directory is whose.
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import experiment_reader as reader  # noqa: E402
import message_checks as messages  # noqa: E402


class AtLeast:
    """An expected count that may be larger (loops until a test succeeds)."""

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, int) and other >= self.n

    def __repr__(self):
        return '>=%d' % self.n

# Calls per rank of programs/mpi_ring.c.
RING_C = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Send': 3, 'MPI_Recv': 3,
          'MPI_Irecv': 6, 'MPI_Isend': 6, 'MPI_Waitall': 3, 'MPI_Allreduce': 4, 'MPI_Bcast': 1,
          'MPI_Barrier': 1, 'MPI_Comm_split': 1, 'MPI_Allgather': 1, 'MPI_Comm_free': 1,
          'MPI_Finalize': 1}
# Calls per rank of programs/mpi_ring.f90 and mpi_ring_f08.f90.
RING_FORTRAN = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Send': 3, 'MPI_Recv': 3,
                'MPI_Irecv': 8, 'MPI_Isend': 8, 'MPI_Waitall': 6, 'MPI_Allreduce': 5, 'MPI_Bcast': 1,
                'MPI_Reduce': 1, 'MPI_Gather': 1, 'MPI_Scatter': 1, 'MPI_Alltoall': 1, 'MPI_Barrier': 1,
                'MPI_Comm_split': 1, 'MPI_Sendrecv': 1, 'MPI_Waitany': 2, 'MPI_Recv_init': 1, 'MPI_Send_init': 1,
                'MPI_Startall': 2, 'MPI_Request_free': 2, 'MPI_Comm_free': 1, 'MPI_Finalize': 1}
# Region roles as OTF2 names them (mpi_functions.spec).
ROLES = {'MPI_Send': 'POINT2POINT', 'MPI_Recv': 'POINT2POINT', 'MPI_Isend': 'POINT2POINT',
         'MPI_Irecv': 'POINT2POINT', 'MPI_Allreduce': 'COLL_ALL2ALL', 'MPI_Allgather': 'COLL_ALL2ALL',
         'MPI_Alltoall': 'COLL_ALL2ALL', 'MPI_Bcast': 'COLL_ONE2ALL', 'MPI_Scatter': 'COLL_ONE2ALL',
         'MPI_Reduce': 'COLL_ALL2ONE', 'MPI_Gather': 'COLL_ALL2ONE', 'MPI_Barrier': 'BARRIER',
         'MPI_Init': 'FUNCTION', 'MPI_Finalize': 'FUNCTION', 'MPI_Waitall': 'FUNCTION',
         'MPI_Comm_split': 'FUNCTION', 'MPI_Comm_rank': 'FUNCTION'}
TRACING = {'STRATA_ENABLE_TRACING': 'true'}

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


def expect_equal(actual, expected, what):
    assert actual == expected, '%s: got %r, expected %r' % (what, actual, expected)


def expect_counts(actual, expected, what):
    """Like expect_equal for {name: count}, where an expected count may be AtLeast(n)."""
    ok = sorted(actual) == sorted(expected) and all(expected[k] == actual[k] for k in expected)
    assert ok, '%s: got %r, expected %r' % (what, dict(sorted(actual.items())), dict(sorted(expected.items())))


def fresh_directory(args, name):
    """The empty directory `name` in the work directory (what an earlier run left is removed)."""
    directory = os.path.join(args.work_dir, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    return directory


def clean_environment(env):
    e = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
    e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'})
    e.update(env or {})
    return e


class MpiRun:
    """Runs `mpirun -np N program` in a fresh working directory: one experiment of all ranks."""

    def __init__(self, args, name, program, ranks, env=None):
        self.dir = os.path.join(args.work_dir, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        command = [args.mpirun, '-np', str(ranks), '--oversubscribe', os.path.join(args.bin_dir, program)]
        p = subprocess.run(command, cwd=self.dir, env=clean_environment(env), capture_output=True,
                           text=True, timeout=240)
        self.stdout, self.stderr = p.stdout, p.stderr
        assert p.returncode == 0, 'mpirun: status %d\nstdout:\n%s\nstderr:\n%s' % (p.returncode, p.stdout,
                                                                                   p.stderr)
        pids = dict((int(r), int(pid)) for r, pid in re.findall(r'^rank (\d+) pid (\d+)$', p.stdout, re.M))
        expect_equal(sorted(pids), list(range(ranks)), 'ranks that reported their pid')
        everything = glob.glob(os.path.join(self.dir, 'strata-*'))
        expect_equal(len(everything), 1, 'one experiment directory for all ranks: %s' % everything)
        self.directory = everything[0]
        self.ranks = ranks
        # Rank 0 chose the name: its pid is in it (unless the user named it).
        assert 'STRATA_EXPERIMENT_DIRECTORY' in (env or {}) or self.directory.endswith('_%d' % pids[0]), \
            (self.directory, pids)
        expect_equal(self.stderr.count('experiment written to'), 1, 'one report, from rank 0')


def mpi_region_counts(counts):
    return {name: n for name, n in counts.items() if name.startswith('MPI_')}


def check_rank(rank, directory, expected, tracing=True):
    """Exact MPI region counts of one rank in the trace (two readers) and the profile."""
    what = 'rank %d (%s)' % (rank, os.path.basename(directory))
    location = 'rank %d/thread 0' % rank
    location_id = rank << 32
    if tracing:
        archive = os.path.join(directory, 'traces.otf2')
        events = reader.read_otf2(archive)
        if location not in events and not expected:
            return  # nothing recorded on this rank: no location at all
        assert location in events, '%s: locations %s' % (what, sorted(events))
        # python3 otf2: every enter has its leave, properly nested, time never goes back.
        pairs = reader.check_nesting(events[location])
        expect_counts(mpi_region_counts(pairs), expected, what + ': MPI regions (python3 otf2)')
        # No MPI region inside another: calls MPI makes to itself are not recorded.
        stack = []
        for kind, _, name in events[location]:
            if kind == 'E':
                assert not (name.startswith('MPI_') and any(s.startswith('MPI_') for s in stack)), \
                    '%s: %s inside %s' % (what, name, stack)
                stack.append(name)
            elif kind == 'L':
                stack.pop()
        # otf2-print: the same counts, enters and leaves.
        printed = collections.Counter()
        for (loc, kind, name), n in reader.otf2_print_counts(archive).items():
            if name.startswith('MPI_') and loc == location_id:
                printed[(kind, name)] += n
        enters = {name: n for (kind, name), n in printed.items() if kind == 'ENTER'}
        expect_counts(enters, expected, what + ': MPI enters (otf2-print)')
        expect_equal({name: n for (kind, name), n in printed.items() if kind == 'LEAVE'}, enters,
                     what + ': MPI leaves (otf2-print)')
        expect_equal(mpi_region_counts(pairs), enters, what + ': python3 otf2 and otf2-print')
        # Definitions: the MPI regions are exactly those called, with paradigm MPI and their role,
        # and the source file "MPI", by which Scalasca's and Cube's readers know an MPI call (as
        # Score-P writes it), its canonical name its name.
        import otf2
        with otf2.reader.open(archive) as trace:
            regions = {r.name: r for r in trace.definitions.regions}
        mpi_paradigm = {name for name, r in regions.items() if r.paradigm == otf2.Paradigm.MPI}
        expect_equal(sorted(mpi_paradigm), sorted(expected), what + ': regions with paradigm MPI')
        for name in expected:
            expect_equal(regions[name].source_file, 'MPI', what + ': source file of ' + name)
            expect_equal(regions[name].canonical_name, name, what + ': canonical name of ' + name)
            if name in ROLES:
                expect_equal(str(regions[name].region_role).split('.')[-1], ROLES[name],
                             what + ': role of ' + name)
    # Profile (h5dump): visits per MPI region, summed over call paths.
    profile = reader.read_profile(os.path.join(directory, 'profile.h5'))
    assert location_id in profile['location_ids'], '%s: profile locations %s' % (what, profile['location_ids'])
    column = profile['location_ids'].index(location_id)
    expect_equal(profile['location_ranks'][column], rank, what + ': rank of the profile column')
    visits = collections.Counter()
    for path, n in reader.visits_by_path(profile, column).items():
        leaf = path.split('/')[-1]
        if leaf.startswith('MPI_'):
            assert not any(p.startswith('MPI_') for p in path.split('/')[:-1]), what + ': path ' + path
            visits[leaf] += n
    expect_counts(dict(visits), expected, what + ': MPI visits in profile.h5')


def check_all_ranks(run, expected, tracing=True):
    for rank in range(run.ranks):
        check_rank(rank, run.directory, expected, tracing)


def check_messages(run):
    """The message events of a traced run, checked by both readers (message_checks.py)."""
    archive = os.path.join(run.directory, 'traces.otf2')
    events = messages.read_messages(archive)
    messages.check_matching(events)
    messages.check_requests(events)
    messages.check_collective_sequences(events)
    messages.check_against_otf2_print(archive, events)
    return events


def check_profile_bytes(run, events):
    """profile.h5's bytes_sent/bytes_received of each rank's thread 0, per MPI region, equal
    the message sizes of the trace's events inside that region (h5dump against python3 otf2)."""
    path = os.path.join(run.directory, 'profile.h5')
    profile = reader.read_profile(path)
    n_loc = profile['locations']
    matrices = {}
    for name in ('bytes_sent', 'bytes_received'):
        flat = reader.h5dump_dataset(path, '/metrics/' + name)
        matrices[name] = [flat[i * n_loc:(i + 1) * n_loc] for i in range(len(profile['paths']))]
    for rank in range(run.ranks):
        location = 'rank %d/thread 0' % rank
        expected = collections.defaultdict(lambda: [0, 0])
        stack = []
        for kind, _, f in events.by_location[location]:
            if kind == 'E':
                stack.append(f['region'])
            elif kind == 'L':
                stack.pop()
            elif kind in ('MpiSend', 'MpiIsend'):
                expected[stack[-1]][0] += f['msg_length']
            elif kind in ('MpiRecv', 'MpiIrecv'):
                expected[stack[-1]][1] += f['msg_length']
            elif kind in ('MpiCollectiveEnd', 'NonBlockingCollectiveComplete'):
                expected[stack[-1]][0] += f['size_sent']
                expected[stack[-1]][1] += f['size_received']
        column = profile['location_ids'].index(rank << 32)
        actual = collections.defaultdict(lambda: [0, 0])
        for i, path_name in enumerate(profile['paths']):
            sent, received = matrices['bytes_sent'][i][column], matrices['bytes_received'][i][column]
            if sent or received:
                leaf = path_name.split('/')[-1]
                assert leaf.startswith('MPI_'), '%s: bytes on %s' % (location, path_name)
                actual[leaf][0] += sent
                actual[leaf][1] += received
        expected = {k: v for k, v in expected.items() if v != [0, 0]}
        expect_equal(dict(actual), expected, location + ': bytes per MPI region, profile.h5 against the trace')
        assert expected, location + ': no message bytes at all'


def comm_key(comm):
    return (comm.name, comm.members)


def check_rank_messages(events, rank, kinds, collectives):
    """Exact message event counts of a rank's thread 0 (MpiRequestTest: any number) and its
    collectives in order: [(operation, (communicator name, members), root or None, sent, received)]."""
    location = 'rank %d/thread 0' % rank
    counts = messages.count_kinds(events, location)
    counts.pop('MpiRequestTest', None)
    expect_equal(dict(counts), kinds, location + ': message events')
    records = [(op, comm_key(comm), root, sent, received)
               for op, comm, root, sent, received in messages.collective_records(events, location)]
    assert len(records) == len(collectives), '%s: %d collectives, expected %d:\n%s' % (
        location, len(records), len(collectives), '\n'.join(map(str, records)))
    for i, (got, expected) in enumerate(zip(records, collectives)):
        expect_equal(got, expected, '%s: collective %d' % (location, i))


def ring_messages(run):
    """programs/mpi_ring.c: every rank's messages and collectives."""
    events = check_messages(run)
    n = run.ranks
    world = ('MPI_COMM_WORLD', tuple(range(n)))
    for rank in range(n):
        half = ('MPI_Comm_split', tuple(range(rank % 2, n, 2)))
        h = len(half[1])
        kinds = {'MpiSend': 3, 'MpiRecv': 3, 'MpiIsend': 6, 'MpiIsendComplete': 6, 'MpiIrecvRequest': 6,
                 'MpiIrecv': 6, 'MpiCollectiveBegin': 7, 'MpiCollectiveEnd': 7}
        collectives = [('allreduce', world, None, 8 * n, 8 * n)] * 3 + [
            ('bcast', world, 0, 4 * n if rank == 0 else 0, 4), ('barrier', world, None, 0, 0),
            ('allgather', half, None, 4 * h, 4 * h), ('allreduce', half, None, 8 * h, 8 * h)]
        check_rank_messages(events, rank, kinds, collectives)
    expected_comms = [world, ('MPI_Comm_split', tuple(range(0, n, 2))), ('MPI_Comm_split', tuple(range(1, n, 2)))]
    expected_comms += [('MPI_COMM_SELF', (r,)) for r in range(n)]
    expect_equal(sorted(comm_key(c) for c in events.comms.values()), sorted(expected_comms), 'communicators')


def messages_regions(rank, size):
    """Calls per rank of programs/mpi_messages.c (AtLeast: loops until a test succeeds)."""
    first = 1 if rank < size // 2 else 0  # a member of the MPI_Comm_create communicator
    return {
        'MPI_Init': 1, 'MPI_Comm_rank': 2, 'MPI_Comm_size': 2, 'MPI_Finalize': 1,
        # point to point
        'MPI_Send': 6, 'MPI_Recv': 7, 'MPI_Irecv': 14, 'MPI_Isend': 17, 'MPI_Sendrecv': 6,
        'MPI_Sendrecv_replace': 1, 'MPI_Probe': 1, 'MPI_Recv_init': 1, 'MPI_Send_init': 1, 'MPI_Mprobe': 1,
        'MPI_Mrecv': 1, 'MPI_Improbe': AtLeast(1), 'MPI_Imrecv': 1,
        # requests
        'MPI_Wait': 13, 'MPI_Waitall': 7, 'MPI_Waitany': 4, 'MPI_Waitsome': AtLeast(1), 'MPI_Testall': AtLeast(1),
        'MPI_Test': AtLeast(1), 'MPI_Testany': AtLeast(2), 'MPI_Startall': 3, 'MPI_Start': 2,
        'MPI_Request_free': 2, 'MPI_Cancel': 1, 'MPI_Test_cancelled': 1,
        # collectives
        'MPI_Barrier': 5, 'MPI_Bcast': 2, 'MPI_Gather': 2, 'MPI_Gatherv': 1, 'MPI_Scatter': 1, 'MPI_Scatterv': 1,
        'MPI_Allgather': 1, 'MPI_Allgatherv': 1, 'MPI_Alltoall': 1, 'MPI_Alltoallv': 1, 'MPI_Alltoallw': 1,
        'MPI_Reduce': 1, 'MPI_Allreduce': 3 + first, 'MPI_Reduce_scatter': 1, 'MPI_Reduce_scatter_block': 1,
        'MPI_Scan': 1, 'MPI_Exscan': 1, 'MPI_Ibarrier': 1,
        # communicators
        'MPI_Comm_split': 1, 'MPI_Comm_dup': 2, 'MPI_Cart_create': 1, 'MPI_Cart_shift': 1, 'MPI_Comm_group': 1,
        'MPI_Group_range_incl': 1, 'MPI_Comm_create': 1, 'MPI_Group_free': 2, 'MPI_Intercomm_create': 1,
        'MPI_Intercomm_merge': 1, 'MPI_Comm_idup': 3, 'MPI_Comm_free': 9 + first,
    }


def messages_collectives(rank, n):
    """The collectives of programs/mpi_messages.c on `rank`, with the bytes of README.md's table."""
    me, tri = rank, n * (n + 1) // 2
    world = ('MPI_COMM_WORLD', tuple(range(n)))
    half = ('MPI_Comm_split', tuple(range(rank % 2, n, 2)))
    h, hrank = len(half[1]), rank // 2
    records = [
        ('barrier', world, None, 0, 0),
        ('bcast', world, 0, 12 * n if me == 0 else 0, 12),
        ('gather', world, 1, 8, 8 * n if me == 1 else 0),
        ('gatherv', world, 0, 4 * (me + 1), 4 * tri if me == 0 else 0),
        ('scatter', world, 0, 8 * n if me == 0 else 0, 8),
        ('scatterv', world, 1, 4 * tri if me == 1 else 0, 4 * (me + 1)),
        ('allgather', world, None, 4 * n, 4 * n),
        ('allgatherv', world, None, 4 * n * (me + 1), 4 * tri),
        ('alltoall', world, None, 4 * n, 4 * n),
        ('alltoallv', world, None, 4 * tri, 4 * n * (me + 1)),
        ('alltoallw', world, None, 4 * n, 4 * n),
        ('reduce', world, 0, 16, 16 * n if me == 0 else 0),
        ('allreduce', world, None, 8 * n, 8 * n),
        ('allreduce', world, None, 8 * (n - 1), 8 * (n - 1)),  # MPI_IN_PLACE
        ('reduce_scatter', world, None, 4 * tri, 4 * n * (me + 1)),
        ('reduce_scatter_block', world, None, 8 * n, 8 * n),
        ('scan', world, None, 4 * (n - me), 4 * (me + 1)),
        ('exscan', world, None, 4 * (n - me - 1), 4 * me),
        ('gather', world, 0, 0 if me == 0 else 4, 4 * (n - 1) if me == 0 else 0),  # MPI_IN_PLACE at the root
        ('allreduce', half, None, 8 * h, 8 * h),
        ('bcast', half, 0, 4 * h if hrank == 0 else 0, 4),
        ('barrier', ('MPI_Comm_dup', world[1]), None, 0, 0),
    ]
    if rank < n // 2:
        records.append(('allreduce', ('MPI_Comm_create', tuple(range(n // 2))), None, 2 * n, 2 * n))
    evens_then_odds = tuple(range(0, n, 2)) + tuple(range(1, n, 2))
    records.append(('barrier', ('MPI_Intercomm_merge', evens_then_odds), None, 0, 0))
    records.append(('barrier', ('MPI_Comm_idup', world[1]), None, 0, 0))
    records.append(('barrier', ('MPI_Comm_idup', half[1]), None, 0, 0))  # the second idup of the half
    return records


def messages_run(args, ranks):
    run = MpiRun(args, 'messages-np%d' % ranks, 'mpi_messages', ranks, TRACING)
    for rank in range(ranks):
        check_rank(rank, run.directory, messages_regions(rank, ranks))
    events = check_messages(run)
    check_profile_bytes(run, events)
    for rank in range(ranks):
        collectives = messages_collectives(rank, ranks)
        kinds = {'MpiSend': 12, 'MpiRecv': 14, 'MpiIsend': 20, 'MpiIsendComplete': 20, 'MpiIrecvRequest': 19,
                 'MpiIrecv': 18, 'MpiRequestCancelled': 1, 'MpiCollectiveBegin': len(collectives),
                 'MpiCollectiveEnd': len(collectives),
                 'NonBlockingCollectiveRequest': 1, 'NonBlockingCollectiveComplete': 1}  # MPI_Ibarrier
        check_rank_messages(events, rank, kinds, collectives)
        # Derived datatypes (tag 42: 24 bytes; tag 43, a type made after the first was freed: 40).
        derived = sorted((k, f['msg_tag'], f['msg_length']) for k, _, f in events.by_location['rank %d/thread 0' % rank]
                         if k in ('MpiSend', 'MpiRecv') and f['msg_tag'] in (42, 43))
        expect_equal(derived, [('MpiRecv', 42, 24), ('MpiRecv', 43, 40), ('MpiSend', 42, 24), ('MpiSend', 43, 40)],
                     'rank %d: messages of derived datatypes' % rank)
        # PMPI_Comm_dup's communicator: a send and a receive.
        assert 'strata: warning: rank %d: 2 MPI events name a communicator Strata does not know' % rank \
            in run.stderr, run.stderr
    n = ranks
    evens, odds = tuple(range(0, n, 2)), tuple(range(1, n, 2))
    everyone = tuple(range(n))
    expected = [('MPI_COMM_WORLD', everyone), ('MPI_Comm_split', evens), ('MPI_Comm_split', odds),
                ('MPI_Comm_dup', everyone), ('MPI_Cart_create', everyone), ('MPI_Comm_create', tuple(range(n // 2))),
                # intercommunicators: the local group
                ('MPI_Intercomm_create', evens), ('MPI_Intercomm_create', odds), ('MPI_Comm_dup', evens),
                ('MPI_Comm_dup', odds), ('MPI_Intercomm_merge', evens + odds), (messages.UNKNOWN, ()),
                ('MPI_Comm_idup', everyone)] + [('MPI_Comm_idup', half) for half in (evens, odds) for _ in range(2)]
    expected += [('MPI_COMM_SELF', (r,)) for r in range(n)]
    expect_equal(sorted(comm_key(c) for c in events.comms.values()), sorted(expected), 'communicators')


@scenario
def messages_np2(args):
    messages_run(args, 2)


@scenario
def messages_np4(args):
    messages_run(args, 4)


@scenario
def messages_np8(args):
    messages_run(args, 8)


def icollectives_run(args, ranks):
    """programs/mpi_icollectives.c: each nonblocking collective has its request event in its own
    region and its completion, with the blocking form's operation, root and bytes, in the call
    that completes it; both readers agree; the profile's bytes match."""
    run = MpiRun(args, 'icollectives-np%d' % ranks, 'mpi_icollectives', ranks, TRACING)
    events = check_messages(run)
    check_profile_bytes(run, events)
    int_size, double_size = 4, 8
    for rank in range(ranks):
        location = 'rank %d/thread 0' % rank
        stack, requests, completions = [], {}, []
        for kind, _, f in events.by_location[location]:
            if kind == 'E':
                stack.append(f['region'])
            elif kind == 'L':
                stack.pop()
            elif kind == 'NonBlockingCollectiveRequest':
                requests[f['request_id']] = stack[-1]
            elif kind == 'NonBlockingCollectiveComplete':
                root = None if f['root'] == 0xFFFFFFFF else f['root']
                completions.append((requests[f['request_id']], stack[-1], f['op'], f['comm'].name, root,
                                    f['size_sent'], f['size_received']))
        # The byte conventions of the blocking forms (adapters/mpi/README.md, N ranks).
        bcast, n = 8 * double_size, ranks
        expected = [
            ('MPI_Iallreduce', 'MPI_Wait', 'allreduce', 'MPI_COMM_WORLD', None, n * 4 * int_size, n * 4 * int_size),
            ('MPI_Ibcast', 'MPI_Waitall', 'bcast', 'MPI_COMM_WORLD', 0, n * bcast if rank == 0 else 0, bcast),
            ('MPI_Ireduce', 'MPI_Waitall', 'reduce', 'MPI_COMM_WORLD', 1, 2 * double_size,
             n * 2 * double_size if rank == 1 else 0),
            ('MPI_Iallgather', 'MPI_Waitall', 'allgather', 'MPI_COMM_WORLD', None, 3 * int_size * n,
             3 * int_size * n),
            ('MPI_Ialltoall', 'MPI_Test', 'alltoall', 'MPI_COMM_WORLD', None, int_size * n, int_size * n),
            ('MPI_Ibarrier', 'MPI_Wait', 'barrier', 'MPI_COMM_WORLD', None, 0, 0)]
        expect_equal(sorted(completions), sorted(expected), location + ': nonblocking collectives')


@scenario
def icollectives_np2(args):
    icollectives_run(args, 2)


@scenario
def icollectives_np4(args):
    icollectives_run(args, 4)


@scenario
def messages_groups_none(args):
    # Nothing recorded, but communicators are still made and agreed on (the program runs through).
    run = MpiRun(args, 'messages-groups-none', 'mpi_messages', 4, dict(TRACING, STRATA_MPI_ENABLE_GROUPS='none'))
    check_all_ranks(run, {})


@scenario
def ring_np2(args):
    run = MpiRun(args, 'ring-np2', 'mpi_ring', 2, TRACING)
    check_all_ranks(run, RING_C)
    ring_messages(run)


@scenario
def ring_np4(args):
    run = MpiRun(args, 'ring-np4', 'mpi_ring', 4, TRACING)
    check_all_ranks(run, RING_C)
    ring_messages(run)


@scenario
def ring_np8(args):
    run = MpiRun(args, 'ring-np8', 'mpi_ring', 8, TRACING)
    check_all_ranks(run, RING_C)
    ring_messages(run)


@scenario
def plain_compiler_np2(args):
    # Built with `strata gcc ... libmpi.so`: linking an MPI library links the MPI adapter too.
    run = MpiRun(args, 'plain-compiler-np2', 'mpi_ring_plain_compiler', 2, TRACING)
    check_all_ranks(run, RING_C)
    ring_messages(run)


@scenario
def no_adapter_np2(args):
    # Built with `strata --no-mpi mpicc`: the ranks measure separately, and the first says why, once.
    directory = fresh_directory(args, 'no-adapter-np2')
    p = subprocess.run([args.mpirun, '-np', '2', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_ring_no_adapter')],
                       cwd=directory, env=clean_environment(TRACING), capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, 'mpirun: status %d\nstderr:\n%s' % (p.returncode, p.stderr)
    experiments = sorted(glob.glob(os.path.join(directory, 'strata-*')))
    expect_equal(len(experiments), 2, 'one experiment per process: %s' % experiments)
    expect_equal(p.stderr.count("this program was built without Strata's MPI adapter"), 1,
                 'the note, once:\n' + p.stderr)
    for experiment in experiments:
        events = reader.read_otf2(os.path.join(experiment, 'traces.otf2'))
        names = {name for location in events.values() for _, _, name in location}
        assert 'main' in names and not any(n.startswith('MPI_') for n in names), (experiment, sorted(names))


@scenario
def directory_named_np4(args):
    # STRATA_EXPERIMENT_DIRECTORY names the one directory of all ranks.
    run = MpiRun(args, 'named-np4', 'mpi_ring', 4, dict(TRACING, STRATA_EXPERIMENT_DIRECTORY='strata-named'))
    expect_equal(os.path.basename(run.directory), 'strata-named', 'directory')
    check_all_ranks(run, RING_C)


@scenario
def directory_chdir_np2(args):
    # A program that changes its working directory before MPI_Init (where the ranks
    # agree on the directory) still writes where it started, as a single process does.
    shutil.rmtree(os.path.join(args.work_dir, 'strata-chdir'), ignore_errors=True)
    run = MpiRun(args, 'chdir-np2', 'mpi_ring', 2,
                 dict(TRACING, STRATA_EXPERIMENT_DIRECTORY='strata-chdir', MPI_RING_CHDIR='..'))
    expect_equal(run.directory, os.path.join(run.dir, 'strata-chdir'), 'directory')
    expect_equal(os.path.exists(os.path.join(args.work_dir, 'strata-chdir')), False,
                 'nothing where the program went')
    check_all_ranks(run, RING_C)


@scenario
def directory_exists_np4(args):
    # An existing STRATA_EXPERIMENT_DIRECTORY stops the job before main, on every rank, with one
    # message and a failing exit status, as a single process stops (the program never runs unmeasured).
    first = MpiRun(args, 'exists-np4', 'mpi_ring', 4, {'STRATA_EXPERIMENT_DIRECTORY': 'strata-exists'})
    before = sorted(os.listdir(first.directory))
    command = [args.mpirun, '-np', '4', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_ring')]
    p = subprocess.run(command, cwd=first.dir, env=clean_environment({'STRATA_EXPERIMENT_DIRECTORY': 'strata-exists'}),
                       capture_output=True, text=True, timeout=240)
    assert p.returncode != 0, 'mpirun: status 0 with an existing directory\n' + p.stderr
    expect_equal(p.stdout, '', 'main() must not run')
    expect_equal(p.stderr.count("strata: the experiment directory '%s' already exists" % first.directory), 1,
                 'one message, from rank 0: ' + p.stderr)
    expect_equal(sorted(os.listdir(first.directory)), before, 'the old experiment, untouched')


@scenario
def directory_concurrent_np2(args):
    # Four jobs started at once with one STRATA_EXPERIMENT_DIRECTORY: one of them writes it; each of
    # the others either stops before main (the directory existed when it started) or says at MPI_Init
    # that another run has it and measures nothing.  The directory is one run's whole experiment.
    work = fresh_directory(args, 'concurrent-np2')
    env = clean_environment(dict(TRACING, STRATA_EXPERIMENT_DIRECTORY='strata-shared'))
    command = [args.mpirun, '-np', '2', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_ring')]
    jobs = [subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(4)]
    outputs = [(job.communicate(timeout=240), job.returncode) for job in jobs]
    writers = [(out, err) for (out, err), status in outputs if 'experiment written to' in err]
    expect_equal(len(writers), 1, 'runs that wrote the experiment: ' + repr([o[0][1] for o in outputs]))
    for (out, err), status in outputs:
        if 'experiment written to' in err:
            expect_equal(status, 0, 'the run that wrote it')
        elif status != 0:
            assert 'already exists' in err and out == '', err
        else:
            assert 'already exists' in err and 'the measurement stops' in err, err
    directory = os.path.join(work, 'strata-shared')
    expect_equal(sorted(os.listdir(directory)),
                 ['.strata-experiment', 'profile.h5', 'strata.cfg', 'traces', 'traces.def', 'traces.otf2'],
                 'one experiment')
    check_all_ranks(type('Run', (), {'directory': directory, 'ranks': 2})(), RING_C)


@scenario
def filter_np2(args):
    # STRATA_FILTERING_FILE reaches MPI functions that its rules name: MPI_Recv and MPI_Allreduce are
    # no regions (trace and profile), but their messages and collective operations are still
    # recorded and match.  The file's `EXCLUDE *` (written for the program's own functions) does
    # not drop the other MPI calls.
    os.makedirs(args.work_dir, exist_ok=True)
    path = os.path.join(args.work_dir, 'filter-np2.filter')  # beside the run's directory, which MpiRun empties
    with open(path, 'w') as f:
        f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main\n  EXCLUDE MPI_Recv MPI_Allreduce\n'
                'SCOREP_REGION_NAMES_END\n')
    run = MpiRun(args, 'filter-np2', 'mpi_ring', 2, dict(TRACING, STRATA_FILTERING_FILE=path))
    expected = {name: n for name, n in RING_C.items() if name not in ('MPI_Recv', 'MPI_Allreduce')}
    check_all_ranks(run, expected)
    # Every send has its receive (the collective events of MPI_Allreduce stand outside any region).
    archive = os.path.join(run.directory, 'traces.otf2')
    events = messages.read_messages(archive)
    messages.check_matching(events)
    messages.check_requests(events)
    messages.check_against_otf2_print(archive, events)
    for rank in range(run.ranks):
        kinds = messages.count_kinds(events, 'rank %d/thread 0' % rank)
        expect_equal(kinds['MpiRecv'], RING_C['MPI_Recv'], 'rank %d: MpiRecv events of the excluded MPI_Recv' % rank)
        assert kinds['MpiCollectiveEnd'] >= RING_C['MPI_Allreduce'], kinds


@scenario
def filter_bad_np2(args):
    # A filter file that cannot be read stops every rank before main, with the file named.
    directory = fresh_directory(args, 'filter-bad-np2')
    command = [args.mpirun, '-np', '2', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_ring')]
    p = subprocess.run(command, cwd=directory, env=clean_environment({'STRATA_FILTERING_FILE': 'missing.filter'}),
                       capture_output=True, text=True, timeout=240)
    assert p.returncode != 0, p.stderr
    expect_equal(p.stdout, '', 'main() must not run')
    assert "STRATA_FILTERING_FILE='missing.filter' is not valid" in p.stderr, p.stderr


@scenario
def profile_only_np2(args):
    run = MpiRun(args, 'profile-only-np2', 'mpi_ring', 2, {'STRATA_VERBOSE': 'true'})
    assert not os.path.exists(os.path.join(run.directory, 'traces.otf2')), run.directory
    check_all_ranks(run, RING_C, tracing=False)
    # One file for the job, each rank writing its own columns (parallel HDF5), no temporary file left.
    assert 'profile.h5: 2 locations of 2 ranks written collectively (MPI-IO)' in run.stderr, run.stderr
    assert 'rank 0 writes the profile alone' not in run.stderr, run.stderr
    expect_equal(sorted(os.listdir(run.directory)), ['.strata-experiment', 'profile.h5', 'strata.cfg'],
                 'files of the experiment')


@scenario
def groups_coll(args):
    # Only the collectives, and the completion of requests (the derived request group).
    run = MpiRun(args, 'groups-coll', 'mpi_ring', 2, dict(TRACING, STRATA_MPI_ENABLE_GROUPS='coll'))
    expected = {name: RING_C[name] for name in ('MPI_Allreduce', 'MPI_Bcast', 'MPI_Barrier', 'MPI_Allgather',
                                                'MPI_Waitall')}
    check_all_ranks(run, expected)
    # MPI_Comm_split is not recorded (group cg is off), but its communicator is defined:
    # the collectives on it name it; no point-to-point events.
    events = check_messages(run)
    world = ('MPI_COMM_WORLD', (0, 1))
    for rank in range(run.ranks):
        half = ('MPI_Comm_split', (rank,))
        collectives = [('allreduce', world, None, 16, 16)] * 3 + [
            ('bcast', world, 0, 8 if rank == 0 else 0, 4), ('barrier', world, None, 0, 0),
            ('allgather', half, None, 4, 4), ('allreduce', half, None, 8, 8)]
        check_rank_messages(events, rank, {'MpiCollectiveBegin': 7, 'MpiCollectiveEnd': 7}, collectives)
    assert 'does not know' not in run.stderr, run.stderr
    # The variable is known (no typo warning) and recorded in every rank's strata.cfg.
    assert 'is not a Strata variable' not in run.stderr, run.stderr
    with open(os.path.join(run.directory, 'strata.cfg')) as cfg:
        assert re.search(r'^STRATA_MPI_ENABLE_GROUPS="?coll"?$', cfg.read(), re.M), run.directory


@scenario
def groups_none(args):
    run = MpiRun(args, 'groups-none', 'mpi_ring', 2, dict(TRACING, STRATA_MPI_ENABLE_GROUPS='none'))
    check_all_ranks(run, {})


@scenario
def groups_bogus(args):
    # Stops before main with the registry's message; run without mpirun (nothing of MPI starts).
    directory = fresh_directory(args, 'groups-bogus')
    p = subprocess.run([os.path.join(args.bin_dir, 'mpi_ring')], cwd=directory, capture_output=True, text=True,
                       env=clean_environment({'STRATA_MPI_ENABLE_GROUPS': 'p2p,bogus'}), timeout=60)
    expect_equal(p.returncode, 1, 'exit status')
    expect_equal(p.stdout, '', 'standard output (main must not run)')
    message = [line for line in p.stderr.splitlines() if 'is not valid' in line]
    assert len(message) == 1, p.stderr
    for text in ("STRATA_MPI_ENABLE_GROUPS='p2p,bogus' is not valid", "unknown item 'bogus'",
                 'default, all, none, env, p2p, coll, cg, topo, rma, io, type, err, ext, spawn, misc, perf'):
        assert text in message[0], 'message %r lacks %r' % (message[0], text)
    # An empty value (an unset shell variable) is refused too, rather than recording no MPI.
    p = subprocess.run([os.path.join(args.bin_dir, 'mpi_ring')], cwd=directory, capture_output=True, text=True,
                       env=clean_environment({'STRATA_MPI_ENABLE_GROUPS': ''}), timeout=60)
    expect_equal(p.returncode, 1, 'exit status (empty value)')
    expect_equal(p.stdout, '', 'standard output (main must not run, empty value)')
    assert "STRATA_MPI_ENABLE_GROUPS='' is not valid: the value is empty" in p.stderr, p.stderr
    assert "('none' selects nothing)" in p.stderr, p.stderr


@scenario
def thread_multiple_np2(args):
    # Three threads per rank call MPI at the same time: each thread's regions on its own location.
    run = MpiRun(args, 'thread-multiple-np2', 'mpi_threads', 2, TRACING)
    main = {'MPI_Init_thread': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Barrier': 1, 'MPI_Finalize': 1}
    worker = {'MPI_Send': 5, 'MPI_Recv': 5, 'MPI_Irecv': 5, 'MPI_Isend': 5, 'MPI_Waitall': 5}
    events = reader.read_otf2(os.path.join(run.directory, 'traces.otf2'))
    profile = reader.read_profile(os.path.join(run.directory, 'profile.h5'))
    for rank in range(run.ranks):
        mine = {name: stream for name, stream in events.items() if name.startswith('rank %d/' % rank)}
        expect_equal(sorted(mine), ['rank %d/thread %d' % (rank, t) for t in range(4)], 'rank %d: locations' % rank)
        for location, stream in sorted(mine.items()):
            expect_equal(mpi_region_counts(reader.check_nesting(stream)),
                         main if location.endswith('thread 0') else worker, location)
        visits = collections.Counter()
        for column, column_rank in enumerate(profile['location_ranks']):
            if column_rank != rank:
                continue
            for path, n in reader.visits_by_path(profile, column).items():
                if path.split('/')[-1].startswith('MPI_'):
                    visits[path.split('/')[-1]] += n
        expect_equal(dict(visits), dict(main, **{name: 3 * n for name, n in worker.items()}),
                     'rank %d: MPI visits in profile.h5' % rank)
    # Messages: each thread's sends matched by the partner's same thread; every request
    # completed on the thread that made it.
    events = check_messages(run)
    world = ('MPI_COMM_WORLD', (0, 1))
    for rank in range(run.ranks):
        check_rank_messages(events, rank, {'MpiCollectiveBegin': 1, 'MpiCollectiveEnd': 1},
                            [('barrier', world, None, 0, 0)])
        for thread in (1, 2, 3):
            location = 'rank %d/thread %d' % (rank, thread)
            expect_equal(dict(messages.count_kinds(events, location)),
                         {'MpiSend': 5, 'MpiRecv': 5, 'MpiIsend': 5, 'MpiIsendComplete': 5, 'MpiIrecvRequest': 5,
                          'MpiIrecv': 5}, location + ': message events')


@scenario
def metrics_np2(args):
    # Counters on every location of every rank, MPI calls included, and the MPI
    # records unchanged by them.
    counters = dict(TRACING, STRATA_METRIC_PAPI='perf::TASK-CLOCK,perf::CONTEXT-SWITCHES',
                    STRATA_METRIC_RUSAGE='ru_utime')
    names = ['perf::TASK-CLOCK', 'perf::CONTEXT-SWITCHES', 'ru_utime']
    qualified = ['papi:perf::TASK-CLOCK', 'papi:perf::CONTEXT-SWITCHES', 'rusage:ru_utime']
    for program, locations in (('mpi_ring', 1), ('mpi_threads', 4)):
        run = MpiRun(args, 'metrics-np2-' + program, program, 2, counters)
        if program == 'mpi_ring':
            check_all_ranks(run, RING_C)
            ring_messages(run)
        archive = os.path.join(run.directory, 'traces.otf2')
        members, events = reader.read_otf2_metrics(archive)
        expect_equal([m['name'] for m in members], names, program + ': metric members')
        expect_equal(sorted(events), sorted('rank %d/thread %d' % (r, t) for r in range(2) for t in range(locations)),
                     program + ': locations')
        for location, stream in events.items():
            reader.check_metric_events(stream, len(names))
            task_clock = reader.region_counter_deltas(stream, 'MPI_Finalize', 0)
            assert len(task_clock) == 1 or not location.endswith('thread 0'), (location, task_clock)
        profile = reader.read_profile(os.path.join(run.directory, 'profile.h5'))
        expect_equal(sorted(set(profile['location_ranks'])), [0, 1], program + ': ranks in the profile')
        inclusive = reader.check_inclusive_exclusive(os.path.join(run.directory, 'profile.h5'), profile, qualified)
        # Every location spent CPU time somewhere.
        for column in range(profile['locations']):
            assert sum(row[column] for row, path in zip(inclusive['papi:perf::TASK-CLOCK'], profile['paths'])
                       if '/' not in path) > 0, (program, column)


def fortran_messages(run):
    """programs/mpi_ring.f90 and mpi_ring_f08.f90: the messages and collectives of every rank."""
    events = check_messages(run)
    n = run.ranks
    world = ('MPI_COMM_WORLD', tuple(range(n)))
    for rank in range(n):
        half = ('MPI_Comm_split', tuple(range(rank % 2, n, 2)))
        root = rank == 0
        collectives = [('allreduce', world, None, 8 * n, 8 * n)] * 3 + [
            ('bcast', world, 0, 4 * n if root else 0, 4), ('reduce', world, 0, 8, 8 * n if root else 0),
            ('gather', world, 0, 4, 4 * n if root else 0), ('scatter', world, 0, 4 * n if root else 0, 4),
            ('alltoall', world, None, 4 * n, 4 * n), ('barrier', world, None, 0, 0),
            ('allreduce', half, None, 8 * len(half[1]), 8 * len(half[1])),
            ('allreduce', world, None, 8 * (n - 1), 8 * (n - 1))]  # MPI_IN_PLACE
        kinds = {'MpiSend': 4, 'MpiRecv': 4, 'MpiIsend': 10, 'MpiIsendComplete': 10, 'MpiIrecvRequest': 10,
                 'MpiIrecv': 10, 'MpiCollectiveBegin': 11, 'MpiCollectiveEnd': 11}
        check_rank_messages(events, rank, kinds, collectives)
    expected = [world, ('MPI_Comm_split', tuple(range(0, n, 2))), ('MPI_Comm_split', tuple(range(1, n, 2)))]
    expected += [('MPI_COMM_SELF', (r,)) for r in range(n)]
    expect_equal(sorted(comm_key(c) for c in events.comms.values()), sorted(expected), 'communicators')


@scenario
def fortran_np2(args):
    run = MpiRun(args, 'fortran-np2', 'mpi_ring_f', 2, TRACING)
    check_all_ranks(run, RING_FORTRAN)
    fortran_messages(run)


@scenario
def fortran_np4(args):
    run = MpiRun(args, 'fortran-np4', 'mpi_ring_f', 4, TRACING)
    check_all_ranks(run, RING_FORTRAN)
    fortran_messages(run)


@scenario
def fortran_f08_np2(args):
    run = MpiRun(args, 'fortran-f08-np2', 'mpi_ring_f08', 2, TRACING)
    check_all_ranks(run, RING_FORTRAN)
    fortran_messages(run)


def failure_run(args, name, how, failing_rank, reason, ticks=0):
    """Rank `failing_rank` fails; each rank writes alone into rank-<r>/ with an INCOMPLETE note.
    With `ticks`, every rank first records that many regions into a small trace buffer, which is
    flushed to the job's shared trace during the run: each rank moves those event files into its
    own experiment, so its trace, like its profile, has every region."""
    directory = fresh_directory(args, name)
    # Give the killed ranks time to write (Open MPI sends SIGTERM, then SIGKILL after this many seconds).
    env = dict(TRACING, OMPI_MCA_odls_base_sigkill_timeout='5')
    if ticks:
        env.update(STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K')
    env = clean_environment(env)
    command = [args.mpirun, '-np', '4', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_failures'), how,
               str(ticks)]
    p = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode != 0, 'the job must fail'
    everything = glob.glob(os.path.join(directory, 'strata-*'))
    expect_equal(len(everything), 1, 'one experiment directory: %s' % everything)
    experiment = everything[0]
    with open(os.path.join(experiment, 'rank-%d' % failing_rank, 'INCOMPLETE')) as note:
        assert reason in note.read(), 'INCOMPLETE of rank %d lacks %r' % (failing_rank, reason)
    for rank in range(4):
        rank_dir = os.path.join(experiment, 'rank-%d' % rank)
        assert os.path.isfile(os.path.join(rank_dir, 'INCOMPLETE')), p.stderr
        events = reader.read_otf2(os.path.join(rank_dir, 'traces.otf2'))
        expect_equal(sorted(events), ['rank %d/thread 0' % rank], 'rank %d: locations' % rank)
        pairs = reader.check_nesting(events['rank %d/thread 0' % rank])
        visits = reader.visits_by_path(reader.read_profile(os.path.join(rank_dir, 'profile.h5')))
        expect_equal(sum(n for path, n in visits.items() if path.endswith('/work') or path == 'work'), 3,
                     'rank %d: work visits in profile.h5' % rank)
        if not ticks:
            expect_equal(pairs['work'], 3, 'rank %d: work regions before the failure' % rank)
            assert pairs['MPI_Barrier'] >= 3, (rank, pairs)
            continue
        expect_equal(sum(n for path, n in visits.items() if path.endswith('/tick')), ticks,
                     'rank %d: tick visits in profile.h5' % rank)
        # What was flushed moved from the shared traces/ into the rank's own: every tick is in its
        # trace, which the independent reader reads to the end (before, the trace started after the
        # last flush and the flushed part stayed behind without definitions).
        expect_equal(pairs['tick'], ticks, 'rank %d: tick regions in its own trace' % rank)
        assert pairs['work'] <= 3 and pairs.get('STRATA_TRACE_BUFFER_FLUSH', 0) >= 1, (rank, pairs)
        assert not os.path.exists(os.path.join(experiment, 'traces', '%d.evt' % (rank << 32))), rank
        # Its event file: 1 MiB chunks, each opening with its header (kind 3, little-endian 0x42).
        with open(os.path.join(rank_dir, 'traces', '%d.evt' % (rank << 32)), 'rb') as f:
            own = f.read()
        chunks = [own[at:at + 18] for at in range(0, len(own), 1 << 20)]
        assert len(chunks) >= 2 and all(c[0] == 3 and c[1] == 0x42 for c in chunks), (rank, len(own))
    if ticks:
        assert 'could not be written' not in p.stderr, p.stderr
        assert 'could not be moved' not in p.stderr, p.stderr
    return p.stderr


@scenario
def failure_abort_np4(args):
    stderr = failure_run(args, 'failure-abort', 'abort', 1, 'it called MPI_Abort')
    assert 'odls_base_sigkill_timeout' not in stderr, 'no advice when the ranks are given time: ' + stderr
    # With Open MPI's default, mpirun kills the other ranks one second after its SIGTERM, and at once
    # when the first of them has exited: the ranks keep each other alive while they write, so small
    # experiments are all written (before, the first rank done got the others killed mid-write, in
    # every run).  A loaded machine may still stretch a write past the second: three tries.  The
    # aborting rank says how to give the ranks more time.
    outcomes = []
    for attempt in range(3):
        directory = fresh_directory(args, 'failure-abort-default-%d' % attempt)
        env = clean_environment(dict(TRACING))
        env.pop('OMPI_MCA_odls_base_sigkill_timeout', None)
        p = subprocess.run([args.mpirun, '-np', '4', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_failures'),
                            'abort'], cwd=directory, env=env, capture_output=True, text=True, timeout=240)
        assert p.returncode != 0, 'the job must fail'
        assert 'run mpirun --mca odls_base_sigkill_timeout 10' in p.stderr, p.stderr
        experiment = glob.glob(os.path.join(directory, 'strata-*'))[0]
        written = {rank: sorted(os.listdir(os.path.join(experiment, 'rank-%d' % rank)))
                   for rank in range(4) if os.path.isdir(os.path.join(experiment, 'rank-%d' % rank))}
        complete = [r for r, names in written.items() if 'profile.h5' in names and 'traces.otf2' in names]
        markers = glob.glob(os.path.join(experiment, 'writing-*', '*'))
        outcomes.append('try %d: complete %s of %s, markers left %s' % (attempt, complete, written, markers))
        if len(complete) == 4:
            assert not markers, outcomes[-1]
            assert not glob.glob(os.path.join(experiment, 'writing-*')), 'the markers\' directory is removed'
            for rank in range(4):
                events = reader.read_otf2(os.path.join(experiment, 'rank-%d' % rank, 'traces.otf2'))
                expect_equal(reader.check_nesting(events['rank %d/thread 0' % rank])['work'], 3,
                             'rank %d: work regions' % rank)
            break
    else:
        raise AssertionError('with Open MPI\'s default kill timeout, a rank was killed before it had written '
                             'its experiment:\n' + '\n'.join(outcomes))


@scenario
def failure_abort_flush_np4(args):
    failure_run(args, 'failure-abort-flush', 'abort', 1, 'it called MPI_Abort', ticks=100000)


@scenario
def failure_segv_np4(args):
    failure_run(args, 'failure-segv', 'segv', 2, 'it received signal 11')


@scenario
def failure_kill_np4(args):
    # Rank 3 dies from SIGKILL: it writes nothing; mpirun stops the others, which write their own
    # experiments ("rank r of 4" in INCOMPLETE), and strata-analyze names the rank that left none.
    directory = fresh_directory(args, 'failure-kill')
    env = clean_environment(dict(TRACING, OMPI_MCA_odls_base_sigkill_timeout='5'))
    p = subprocess.run([args.mpirun, '-np', '4', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_failures'),
                        'kill'], cwd=directory, env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode != 0, 'the job must fail'
    experiment = glob.glob(os.path.join(directory, 'strata-*'))[0]
    expect_equal(sorted(os.path.basename(d) for d in glob.glob(os.path.join(experiment, 'rank-*'))),
                 ['rank-0', 'rank-1', 'rank-2'], 'the ranks that wrote their own experiments')
    for rank in range(3):
        with open(os.path.join(experiment, 'rank-%d' % rank, 'INCOMPLETE')) as note:
            assert note.read().startswith('rank %d of 4 did not finish' % rank), rank
    if not args.analyze:
        return
    analysed = subprocess.run([args.analyze, experiment], env=clean_environment({}), capture_output=True,
                              text=True, timeout=120)
    expect_equal(analysed.returncode, 1, 'strata-analyze on the job directory')
    assert 'No experiment from rank 3 of the 4: it ended without writing one' in analysed.stderr, analysed.stderr


@scenario
def disk_full_np4(args):
    # The experiment is on a file system that fills up while the ranks write their traces (a 4 MiB
    # tmpfs; skipped where it cannot be mounted): each rank names the system's error and the file,
    # the job ends normally, every profile is written, and no anchor or global definitions are left
    # that would make the incomplete archive look like a trace.
    directory = os.path.join(args.work_dir, 'disk-full')
    small = os.path.join(directory, 'small')
    subprocess.run(['umount', small], capture_output=True)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(small)
    mounted = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', small], capture_output=True)
    if mounted.returncode != 0:
        print('skipped: cannot mount a small tmpfs here (%s)' % mounted.stderr.decode().strip())
        sys.exit(77)
    try:
        experiment = os.path.join(small, 'exp')
        env = clean_environment(dict(TRACING, STRATA_EXPERIMENT_DIRECTORY=experiment))
        p = subprocess.run([args.mpirun, '-np', '4', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_failures'),
                            'none', '200000'], cwd=directory, env=env, capture_output=True, text=True, timeout=240)
        expect_equal(p.returncode, 0, 'the job ends normally: ' + p.stderr)
        assert 'No space left on device' in p.stderr, p.stderr
        assert 'INTEGRITY_FAULT' not in p.stderr and 'PROCESSED_WITH_FAULTS' not in p.stderr, p.stderr
        assert 'experiment written to %s, incomplete (see above)' % experiment in p.stderr, p.stderr
        for name in ('traces.otf2', 'traces.def'):
            assert not os.path.exists(os.path.join(experiment, name)), name + ' left over an incomplete archive'
        visits = reader.visits_by_path(reader.read_profile(os.path.join(experiment, 'profile.h5')))
        expect_equal(sum(n for path, n in visits.items() if path.endswith('/tick')), 4 * 200000,
                     'tick visits of all ranks in profile.h5')
    finally:
        subprocess.run(['umount', small], capture_output=True)


@scenario
def file_size_limit_np2(args):
    # Under a file-size limit (ulimit -f: 12 MB, enough for Open MPI's own files) each rank's trace
    # outgrows it.  Nothing ignores SIGXFSZ here: Strata's writes must fail with EFBIG instead of the
    # signal killing the rank.  The job ends with the program's own status, one message per rank
    # names the limit, and each rank's profile is complete.
    import resource
    limit, ticks = 12 << 20, 1500000
    directory = fresh_directory(args, 'file-size-limit')
    command = [args.mpirun, '-np', '2', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_failures'), 'none',
               str(ticks)]
    p = subprocess.run(command, cwd=directory, env=clean_environment(TRACING), capture_output=True, text=True,
                       timeout=240, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    expect_equal(p.returncode, 0, "the program's own exit status\n" + p.stderr)
    expect_equal(p.stderr.count('strata: the trace could not be written: File too large'), 2,
                 'one message per rank: ' + p.stderr)
    expect_equal(p.stderr.count('(the file-size limit, ulimit -f, was reached)'), 2, 'the limit named: ' + p.stderr)
    everything = glob.glob(os.path.join(directory, 'strata-*'))
    expect_equal(len(everything), 1, 'one experiment directory: %s' % everything)
    assert not os.path.exists(os.path.join(everything[0], 'traces.otf2')), 'no anchor for an incomplete trace'
    profile = reader.read_profile(os.path.join(everything[0], 'profile.h5'))
    for column in range(2):
        visits = reader.visits_by_path(profile, column)
        expect_equal(sum(n for path, n in visits.items() if path.endswith('tick')), ticks,
                     'column %d: tick visits in profile.h5' % column)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--mpirun', default='mpirun')
    parser.add_argument('--analyze', help='strata-analyze, for the scenarios that analyse their experiment')
    args = parser.parse_args()
    args.bin_dir, args.work_dir = os.path.abspath(args.bin_dir), os.path.abspath(args.work_dir)
    SCENARIOS[args.scenario](args)
    print('%s: ok' % args.scenario)


if __name__ == '__main__':
    main()
