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

# Calls per rank of programs/mpi_ring.c.
RING_C = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Send': 3, 'MPI_Recv': 3,
          'MPI_Irecv': 6, 'MPI_Isend': 6, 'MPI_Waitall': 3, 'MPI_Allreduce': 4, 'MPI_Bcast': 1,
          'MPI_Barrier': 1, 'MPI_Comm_split': 1, 'MPI_Allgather': 1, 'MPI_Comm_free': 1,
          'MPI_Finalize': 1}
# Calls per rank of programs/mpi_ring.f90 and mpi_ring_f08.f90.
RING_FORTRAN = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Send': 3, 'MPI_Recv': 3,
                'MPI_Irecv': 6, 'MPI_Isend': 6, 'MPI_Waitall': 3, 'MPI_Allreduce': 3, 'MPI_Bcast': 1,
                'MPI_Reduce': 1, 'MPI_Gather': 1, 'MPI_Scatter': 1, 'MPI_Alltoall': 1, 'MPI_Barrier': 1,
                'MPI_Finalize': 1}
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
        expect_equal(mpi_region_counts(pairs), expected, what + ': MPI regions (python3 otf2)')
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
        expect_equal({name: n for (kind, name), n in printed.items() if kind == 'ENTER'}, expected,
                     what + ': MPI enters (otf2-print)')
        expect_equal({name: n for (kind, name), n in printed.items() if kind == 'LEAVE'}, expected,
                     what + ': MPI leaves (otf2-print)')
        # Definitions: the MPI regions are exactly those called, with paradigm MPI and their role.
        import otf2
        with otf2.reader.open(archive) as trace:
            regions = {r.name: r for r in trace.definitions.regions}
        mpi_paradigm = {name for name, r in regions.items() if r.paradigm == otf2.Paradigm.MPI}
        expect_equal(sorted(mpi_paradigm), sorted(expected), what + ': regions with paradigm MPI')
        for name in expected:
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
    expect_equal(dict(visits), expected, what + ': MPI visits in profile.h5')


def check_all_ranks(run, expected, tracing=True):
    for rank in range(run.ranks):
        check_rank(rank, run.directory, expected, tracing)


@scenario
def ring_np2(args):
    check_all_ranks(MpiRun(args, 'ring-np2', 'mpi_ring', 2, TRACING), RING_C)


@scenario
def ring_np4(args):
    check_all_ranks(MpiRun(args, 'ring-np4', 'mpi_ring', 4, TRACING), RING_C)


@scenario
def ring_np8(args):
    check_all_ranks(MpiRun(args, 'ring-np8', 'mpi_ring', 8, TRACING), RING_C)


@scenario
def directory_named_np4(args):
    # STRATA_EXPERIMENT_DIRECTORY names the one directory of all ranks.
    run = MpiRun(args, 'named-np4', 'mpi_ring', 4, dict(TRACING, STRATA_EXPERIMENT_DIRECTORY='strata-named'))
    expect_equal(os.path.basename(run.directory), 'strata-named', 'directory')
    check_all_ranks(run, RING_C)


@scenario
def profile_only_np2(args):
    run = MpiRun(args, 'profile-only-np2', 'mpi_ring', 2)
    assert not os.path.exists(os.path.join(run.directory, 'traces.otf2')), run.directory
    check_all_ranks(run, RING_C, tracing=False)


@scenario
def groups_coll(args):
    # Only the collectives, and the completion of requests (the derived request group).
    run = MpiRun(args, 'groups-coll', 'mpi_ring', 2, dict(TRACING, STRATA_MPI_ENABLE_GROUPS='coll'))
    expected = {name: RING_C[name] for name in ('MPI_Allreduce', 'MPI_Bcast', 'MPI_Barrier', 'MPI_Allgather',
                                                'MPI_Waitall')}
    check_all_ranks(run, expected)
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
    directory = os.path.join(args.work_dir, 'groups-bogus')
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    p = subprocess.run([os.path.join(args.bin_dir, 'mpi_ring')], cwd=directory, capture_output=True, text=True,
                       env=clean_environment({'STRATA_MPI_ENABLE_GROUPS': 'p2p,bogus'}), timeout=60)
    expect_equal(p.returncode, 1, 'exit status')
    expect_equal(p.stdout, '', 'standard output (main must not run)')
    message = [line for line in p.stderr.splitlines() if 'is not valid' in line]
    assert len(message) == 1, p.stderr
    for text in ("STRATA_MPI_ENABLE_GROUPS='p2p,bogus' is not valid", "unknown item 'bogus'",
                 'default, all, none, env, p2p, coll, cg, topo, rma, io, type, err, ext, spawn, misc, perf'):
        assert text in message[0], 'message %r lacks %r' % (message[0], text)


@scenario
def thread_multiple_np2(args):
    # Three threads per rank call MPI at the same time: each thread's regions on its own location.
    run = MpiRun(args, 'thread-multiple-np2', 'mpi_threads', 2, TRACING)
    main = {'MPI_Init_thread': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Barrier': 1, 'MPI_Finalize': 1}
    worker = {'MPI_Send': 5, 'MPI_Recv': 5}
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
        expect_equal(dict(visits), dict(main, MPI_Send=15, MPI_Recv=15), 'rank %d: MPI visits in profile.h5' % rank)


@scenario
def fortran_np2(args):
    check_all_ranks(MpiRun(args, 'fortran-np2', 'mpi_ring_f', 2, TRACING), RING_FORTRAN)


@scenario
def fortran_f08_np2(args):
    check_all_ranks(MpiRun(args, 'fortran-f08-np2', 'mpi_ring_f08', 2, TRACING), RING_FORTRAN)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--mpirun', default='mpirun')
    args = parser.parse_args()
    args.bin_dir, args.work_dir = os.path.abspath(args.bin_dir), os.path.abspath(args.work_dir)
    SCENARIOS[args.scenario](args)
    print('%s: ok' % args.scenario)


if __name__ == '__main__':
    main()
