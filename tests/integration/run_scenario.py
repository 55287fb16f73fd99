# SPDX-License-Identifier: BSD-3-Clause
"""One integration scenario: run a program built with Strata, then check its
experiment with independent readers (python3 otf2, otf2-print, h5dump).

    /usr/bin/python3 run_scenario.py SCENARIO --bin-dir DIR --work-dir DIR
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment_reader as reader  # noqa: E402

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


class Run:
    def __init__(self, args, name):
        self.bin_dir = args.bin_dir
        self.dir = os.path.join(args.work_dir, name)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)

    def program(self, name, *argv, env=None, expect=0, preexec=None):
        e = dict(os.environ)
        for k in list(e):
            if k.startswith('STRATA_'):
                del e[k]
        e['STRATA_EXPERIMENT_DIRECTORY'] = self.dir
        e.update(env or {})
        p = subprocess.run([os.path.join(self.bin_dir, name)] + list(argv), env=e,
                           capture_output=True, text=True, timeout=300, preexec_fn=preexec)
        self.stdout, self.stderr, self.status = p.stdout, p.stderr, p.returncode
        assert p.returncode == expect, 'exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s' % (
            p.returncode, expect, p.stdout, p.stderr)
        return self

    @property
    def archive(self):
        return os.path.join(self.dir, 'traces.otf2')

    @property
    def profile(self):
        return os.path.join(self.dir, 'profile.h5')


def expect_equal(actual, expected, what):
    assert actual == expected, '%s: got %r, expected %r' % (what, actual, expected)


TRACING = {'STRATA_ENABLE_TRACING': 'true'}

NESTING_PATHS = {
    'outer': 1, 'outer/size=42': 1, 'outer/size=42/mode=fast': 1,
    'outer/size=42/mode=fast/step': 5, 'outer/size=42/mode=fast/step/middle': 10,
    'outer/size=42/mode=fast/step/middle/inner': 30, 'outer/size=42/mode=fast/io': 1,
}


@scenario
def nesting(args):
    run = Run(args, 'nesting').program('nesting', env=TRACING)
    assert os.path.isfile(os.path.join(run.dir, 'strata.cfg'))
    # Trace, python3 otf2 bindings: exact pairs, nesting, monotonic time, phase flag.
    programs = {}
    events = reader.read_otf2(run.archive, programs)
    expect_equal(list(events), ['thread 0'], 'locations')
    expect_equal(programs, {'thread 0': 'nesting'}, 'the program region, named after the program, around all events')
    pairs = reader.check_nesting(events['thread 0'])
    expect_equal(dict(pairs), {'outer': 1, 'step': 5, 'middle': 10, 'inner': 30, 'io': 1}, 'enter/leave pairs')
    params = [e[2] for e in events['thread 0'] if e[0] == 'P']
    expect_equal(params, ['size=42', 'mode=fast'], 'parameters')
    flags = reader.region_flags(run.archive)
    assert 'PHASE' in flags['step'] and 'PHASE' not in flags['middle'], flags
    # Trace, otf2-print.
    counts = reader.otf2_print_counts(run.archive)
    for region, n in (('outer', 1), ('step', 5), ('middle', 10), ('inner', 30), ('io', 1)):
        expect_equal(counts[(0, 'ENTER', region)], n, 'otf2-print ENTER ' + region)
        expect_equal(counts[(0, 'LEAVE', region)], n, 'otf2-print LEAVE ' + region)
    # Profile, h5dump: call paths with parameters, exact visits, time relations.
    profile = reader.read_profile(run.profile)
    expect_equal(reader.visits_by_path(profile), NESTING_PATHS, 'profile call paths and visits')
    for path, incl, excl in zip(profile['paths'], profile['metrics']['time_inclusive'],
                                profile['metrics']['time_exclusive']):
        assert 0 <= excl[0] <= incl[0], (path, incl, excl)
    inner = profile['paths'].index('outer/size=42/mode=fast/step/middle/inner')
    middle = profile['paths'].index('outer/size=42/mode=fast/step/middle')
    assert profile['metrics']['time_inclusive'][middle][0] >= profile['metrics']['time_inclusive'][inner][0]
    # The program region is the root, the only one: its inclusive time is the
    # whole measurement, at least that of 'outer' (all of main's work).
    expect_equal(list(profile['program']), ['nesting'], 'program region')
    program = profile['program']['nesting']
    outer = profile['paths'].index('outer')
    expect_equal(profile['metrics']['visits'][program], [1], 'program region visits')
    assert profile['metrics']['time_inclusive'][program][0] >= profile['metrics']['time_inclusive'][outer][0]
    roots = [p for p, parent in zip(profile['paths'], reader.profile_parents(run.profile)) if parent < 0]
    expect_equal(roots, [''], 'root call paths: the program region alone')


@scenario
def profile_only(args):
    run = Run(args, 'profile-only').program('nesting')
    assert not os.path.exists(run.archive), 'tracing is off by default'
    expect_equal(reader.visits_by_path(reader.read_profile(run.profile)), NESTING_PATHS, 'visits')


@scenario
def threads(args):
    run = Run(args, 'threads').program('scope', env=TRACING)
    programs = {}
    events = reader.read_otf2(run.archive, programs)
    expect_equal(len(events), 4, 'one location per thread')
    expect_equal(programs, {'thread 0': 'scope'}, 'the program region: on the main thread only')
    leaves = sorted(reader.check_nesting(ev).get('leaf', 0) for ev in events.values())
    expect_equal(leaves, [5, 10, 20, 30], 'leaf calls per thread')
    profile = reader.read_profile(run.profile)
    expect_equal(profile['locations'], 4, 'profile columns')
    visits = reader.visits_by_path(profile)
    expect_equal(visits['main/worker/leaf'], 5, 'main thread path')
    expect_equal(visits['worker/leaf'], 60, 'worker threads path')


@scenario
def many_threads(args):
    # 400 short-lived threads: each is a location (its event writer is closed as soon as its
    # events are written, so that the end of the run does not hold 400 OTF2 buffers at once).
    n = 400
    run = Run(args, 'many-threads').program('many_threads', str(n), env=TRACING)
    programs = {}
    events = reader.read_otf2(run.archive, programs)
    # The main thread records nothing itself: its location, made at the end, holds the program region.
    expect_equal(programs, {'thread %d' % n: 'many_threads'}, 'the main thread with its program region')
    expect_equal(len(events), n, 'locations with events: every worker')
    tasks = sorted(reader.check_nesting(ev).get('task', 0) for ev in events.values())
    expect_equal(tasks, [3] * n, 'tasks per worker')
    expect_equal(sum(n for (loc, kind, name), n in reader.otf2_print_counts(run.archive).items()
                     if kind == 'ENTER' and name == 'task'), 3 * n, 'otf2-print tasks')
    profile = reader.read_profile(run.profile)
    expect_equal(profile['locations'], n + 1, 'profile columns')
    expect_equal(reader.visits_by_path(profile)['task'], 3 * n, 'task visits')


def crash_common(args, how, status, preexec=None, name=None):
    run = Run(args, name or 'crash-' + how).program('crash', how, env=TRACING, expect=status, preexec=preexec)
    events = reader.read_otf2(run.archive)['thread 0']
    pairs = reader.check_nesting(events)  # the open regions were closed at the end
    expect_equal(dict(pairs), {'before': 1, 'work': 7, 'doomed': 1}, 'regions before the crash')
    visits = reader.visits_by_path(reader.read_profile(run.profile))
    expect_equal(visits, {'before': 1, 'before/work': 7, 'before/doomed': 1}, 'profile before the crash')
    return run


def incomplete_note(run, signal_number):
    """A run ended by a signal says so in its experiment (INCOMPLETE), and strata-analyze's summary shows it."""
    with open(os.path.join(run.dir, 'INCOMPLETE')) as f:
        note = f.read()
    assert 'received signal %d' % signal_number in note, note
    return note


@scenario
def crash_segv(args):
    run = crash_common(args, 'segv', -signal.SIGSEGV)
    assert 'signal 11' in run.stderr, run.stderr
    incomplete_note(run, signal.SIGSEGV)
    analysed = subprocess.run([args.analyze, run.dir], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1'))
    expect_equal(analysed.returncode, 0, 'strata-analyze: ' + analysed.stderr)
    assert 'Incomplete' in analysed.stdout and 'received signal 11' in analysed.stdout, analysed.stdout


@scenario
def crash_abort(args):
    crash_common(args, 'abort', -signal.SIGABRT)


@scenario
def crash_term(args):
    incomplete_note(crash_common(args, 'term', -signal.SIGTERM), signal.SIGTERM)


def output_to_a_closed_pipe():
    """In the child: stdout and stderr both go to a pipe nobody reads any more."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)


@scenario
def broken_pipe(args):
    # The program's output pipe closes (its reader ended, or mpirun tore a failed job down): it dies
    # from SIGPIPE, and Strata writes what it recorded first.  Strata's own messages then go to the
    # closed pipe too and must not end the process halfway through its files (before, no experiment
    # was written at all).
    run = crash_common(args, 'pipe', -signal.SIGPIPE, preexec=output_to_a_closed_pipe)
    incomplete_note(run, signal.SIGPIPE)
    # A SIGTERM with the output closed: Strata's first message raises SIGPIPE, which must not end
    # the process before its files are written (mpirun closes a failed job's output as it ends it).
    run = crash_common(args, 'term', -signal.SIGTERM, preexec=output_to_a_closed_pipe,
                       name='broken-pipe-term')
    incomplete_note(run, signal.SIGTERM)


@scenario
def exit_inside_regions(args):
    run = crash_common(args, 'exit', 3)
    assert not os.path.exists(os.path.join(run.dir, 'INCOMPLETE')), 'exit() ends a program normally'


@scenario
def flush(args):
    n = 200000
    # 256 KiB of 16 KiB pages: the buffer fills several times.
    env = dict(TRACING, STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K')
    run = Run(args, 'flush').program('many_events', str(n), env=env)
    assert 'flushed to disk' in run.stderr, run.stderr
    events = reader.read_otf2(run.archive)['thread 0']
    pairs = reader.check_nesting(events)
    expect_equal(pairs['tick'], n, 'every tick survives the flushes')
    expect_equal(pairs['all'], 1, 'outer region')
    assert pairs['STRATA_TRACE_BUFFER_FLUSH'] >= 3, 'flushes recorded as regions: %r' % pairs
    counts = reader.otf2_print_counts(run.archive)
    expect_equal(counts[(0, 'ENTER', 'tick')], n, 'otf2-print ticks')
    # The flush region is in the profile too, below the region that was open.
    visits = reader.visits_by_path(reader.read_profile(run.profile))
    expect_equal(visits['all/tick'], n, 'profile ticks')
    assert visits.get('all/STRATA_TRACE_BUFFER_FLUSH', 0) + visits.get('all/tick/STRATA_TRACE_BUFFER_FLUSH', 0) \
        == pairs['STRATA_TRACE_BUFFER_FLUSH'], visits
    check_profile_matches_trace(run)


def check_profile_matches_trace(run):
    """Every call path's visits and time in the profile are the trace's (analysis/independent_profile.py)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'analysis', 'independent_profile.py')
    check = subprocess.run([sys.executable, script, run.archive, run.profile], capture_output=True, text=True,
                           timeout=240, stdin=subprocess.DEVNULL)
    assert check.returncode == 0, 'the profile and the trace disagree:\n' + check.stdout + check.stderr


def file_size_limit(limit, ignore_signal=True):
    """For preexec_fn: files may not grow beyond `limit` bytes.  With `ignore_signal` a write past
    it fails (EFBIG), as on a full disk; without, SIGXFSZ keeps its default action (killing the
    process), as under a plain `ulimit -f`: Strata's own writes must then fail the same way."""
    def apply():
        import resource
        if ignore_signal:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@scenario
def disk_full(args):
    # The trace cannot be written (at the end, or at a flush during the run): the program runs to
    # its end with its own exit status, one message says why, and the profile is complete.
    # Also under a plain file-size limit, where SIGXFSZ would kill the program (ulimit -f).
    n = 200000
    small = dict(TRACING, STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K')
    for name, env, ignore in (('disk-full', TRACING, True), ('disk-full-flush', small, True),
                              ('file-size-limit', TRACING, False), ('file-size-limit-flush', small, False)):
        run = Run(args, name).program('many_events', str(n), env=env, preexec=file_size_limit(128 << 10, ignore))
        expect_equal(run.stdout, 'many_events: %d\n' % n, name + ': the program ran to its end')
        expect_equal(run.stderr.count('strata: the trace could not be written: '), 1, name + ': ' + run.stderr)
        assert 'experiment written to ' + run.dir + ', incomplete (see above)' in run.stderr, run.stderr
        assert 'File too large' in run.stderr and 'the trace is incomplete' in run.stderr, run.stderr
        assert '[OTF2]' not in run.stderr, name + ": OTF2's own messages are replaced by Strata's: " + run.stderr
        assert not os.path.exists(run.archive), name + ': no anchor for an incomplete trace'
        visits = reader.visits_by_path(reader.read_profile(run.profile))
        expect_equal(visits['all/tick'], n, name + ': profile ticks')


@scenario
def trace_max_size(args):
    # STRATA_TRACE_MAX_SIZE=256K: the event file stops within the bound (a MeasurementOnOff event, off,
    # where it stops, every region closed), the run goes on, the profile has every event, the note says
    # so, and strata-analyze says where the trace ends.
    n = 300000
    env = dict(TRACING, STRATA_TRACE_MAX_SIZE='256K', STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K')
    run = Run(args, 'trace-max-size').program('many_events', str(n), env=env)
    expect_equal(run.stdout, 'many_events: %d\n' % n, 'the program ran to its end')
    assert 'the trace reached STRATA_TRACE_MAX_SIZE=256K: it stops early on 1 of 1 threads' in run.stderr, \
        run.stderr
    size = os.path.getsize(os.path.join(run.dir, 'traces', '0.evt'))
    assert 0 < size <= 256 << 10, 'event file of %d bytes' % size
    printed = subprocess.run(['otf2-print', run.archive], capture_output=True, text=True, timeout=120).stdout
    offs = [line for line in printed.splitlines() if line.startswith('MEASUREMENT_ON_OFF')]
    expect_equal(len(offs), 1, 'MeasurementOnOff events')
    assert offs[0].endswith('Mode: OFF'), offs[0]
    events = reader.read_otf2(run.archive)
    pairs = reader.check_nesting(events['thread 0'])  # every region closed where the trace stops
    assert 0 < pairs['tick'] < n, pairs
    expect_equal(reader.visits_by_path(reader.read_profile(run.profile))['all/tick'], n, 'profile ticks')
    analysed = subprocess.run([args.analyze, '--output', os.path.join(run.dir, 'reports'), run.dir],
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1'))
    expect_equal(analysed.returncode, 0, 'strata-analyze: ' + analysed.stderr)
    assert 'Trace stops: rank 0, thread 0 (location 0): the trace stops at ' in analysed.stdout, analysed.stdout
    assert 'the trace stops early on 1 locations' in ' '.join(analysed.stdout.split()), analysed.stdout


@scenario
def invalid_utf8_names(args):
    # Names that are not UTF-8 are written as \xNN when they are defined: the trace reads
    # whole with the OTF2 Python bindings (which decode every string as UTF-8), profile.h5's
    # UTF-8 strings are UTF-8, every JSON report parses and report.html is UTF-8.
    run = Run(args, 'invalid-utf8').program('invalid_utf8', env=TRACING)
    events = reader.read_otf2(run.archive)
    pairs = reader.check_nesting(events['thread 0'])
    for name in ('caf\\xe9', '\\xff\\xfe', 'euro \\xe2\\x82', '\u00b5s \u2192 ok'):
        expect_equal(pairs.get(name), 1, 'enter/leave pairs of %r (%s)' % (name, sorted(pairs)))
    params = [e[2] for e in events['thread 0'] if e[0] == 'P']
    expect_equal(params, ['mode=\\xc0\\xaf'], 'the string parameter')
    # h5dump prints bytes beyond ASCII as octal escapes: h5py reads the strings' bytes.
    import h5py
    with h5py.File(run.profile, 'r') as f:
        strings = [s if isinstance(s, bytes) else s.encode() for s in f['definitions/strings'][()]]
    texts = [s.decode('utf-8') for s in strings]  # raises on a byte that is not UTF-8
    for name in ('caf\\xe9', '\\xc0\\xaf', '\u00b5s \u2192 ok'):
        assert name in texts, (name, texts)
    visits = reader.visits_by_path(reader.read_profile(run.profile))
    assert 'caf\\xe9/mode=\\xc0\\xaf/euro \\xe2\\x82' in visits, visits
    reports = os.path.join(run.dir, 'reports')
    analysed = subprocess.run([args.analyze, '--output', reports, run.dir], capture_output=True, timeout=120,
                              env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1'))
    expect_equal(analysed.returncode, 0, 'strata-analyze: %r' % analysed.stderr)
    analysed.stdout.decode('utf-8')
    for name in os.listdir(reports):
        with open(os.path.join(reports, name), 'rb') as f:
            data = f.read()
        if name.endswith('.json'):
            json.loads(data.decode('utf-8'))
        elif not name.endswith('.cubex'):
            data.decode('utf-8')
    assert b'caf\\xe9' in open(os.path.join(reports, 'loadbalance.csv'), 'rb').read()


@scenario
def signal_during_flush(args):
    # SIGTERM arrives while a trace buffer is being flushed (signal_on_write.so raises it from
    # the first write of an event file): the flush ends first, then the experiment is written, with every
    # event recorded until then, and the program dies from the signal.
    n = 400000
    env = dict(TRACING, STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K',
               LD_PRELOAD=os.path.join(args.bin_dir, 'signal_on_write.so'))
    run = Run(args, 'signal-during-flush').program('many_events', str(n), env=env, expect=-signal.SIGTERM)
    assert 'received signal 15' in run.stderr, run.stderr
    assert 'could not be written' not in run.stderr and 'incomplete' not in run.stderr, run.stderr
    events = reader.read_otf2(run.archive)
    pairs = reader.check_nesting(events['thread 0'])
    assert 0 < pairs['tick'] < n, pairs
    assert pairs['STRATA_TRACE_BUFFER_FLUSH'] >= 1, pairs
    visits = reader.visits_by_path(reader.read_profile(run.profile))
    expect_equal(pairs['tick'], visits['all/tick'], 'ticks in the trace and in the profile')


@scenario
def exit_from_thread(args):
    # exit() from one thread while four threads record: the exit status is the program's, no
    # thread is said to leave a region it did not enter, and every location is well nested.
    # (The race is timing-dependent: several runs.)
    for attempt in range(4):
        run = Run(args, 'exit-from-thread').program('exit_from_thread', env=TRACING, expect=3)
        assert 'warning' not in run.stderr, 'run %d: %s' % (attempt, run.stderr)
        events = reader.read_otf2(run.archive)
        assert len(events) >= 2, 'locations: the main thread and the one that exits, at least: %r' % sorted(events)
        for name, ev in events.items():
            reader.check_nesting(ev)
        reader.otf2_print_counts(run.archive)


@scenario
def change_directory(args):
    # A relative STRATA_EXPERIMENT_DIRECTORY, and the default name, are relative to where the
    # program started, although it changes its working directory before the end.
    top = os.path.join(args.work_dir, 'change-directory')
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(os.path.join(top, 'elsewhere'))
    for named in (True, False):
        e = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
        e.update(TRACING)
        if named:
            e['STRATA_EXPERIMENT_DIRECTORY'] = 'exp'
        p = subprocess.run([os.path.join(args.bin_dir, 'change_directory'), 'elsewhere'], cwd=top, env=e,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and 'incomplete' not in p.stderr, p.stderr
        expect_equal(os.listdir(os.path.join(top, 'elsewhere')), [], 'nothing written where it went')
        found = [d for d in os.listdir(top) if d == 'exp' or d.startswith('strata-')]
        expect_equal(len(found), 1, 'the experiment where it started: %r' % found)
        experiment = os.path.join(top, found[0])
        pairs = reader.check_nesting(reader.read_otf2(os.path.join(experiment, 'traces.otf2'))['thread 0'])
        expect_equal((pairs['before'], pairs['after']), (1, 1), 'both regions')
        reader.read_profile(os.path.join(experiment, 'profile.h5'))
        shutil.rmtree(experiment)


def check_flushing_workers(archive):
    """threads_flush's trace: its four workers' 100 000 a and b regions each, every one
    flushed at least once (the main thread records nothing)."""
    events = reader.read_otf2(archive)
    expect_equal(len(events), 4, 'the four workers (the main thread records nothing)')
    for name, ev in events.items():
        pairs = reader.check_nesting(ev)
        expect_equal((pairs['a'], pairs['b']), (100000, 100000), name)
    flushes = sum(reader.check_nesting(ev).get('STRATA_TRACE_BUFFER_FLUSH', 0) for ev in events.values())
    assert flushes >= 4, flushes


@scenario
def threads_flush(args):
    env = dict(TRACING, STRATA_TOTAL_MEMORY='512K', STRATA_PAGE_SIZE='16K')
    run = Run(args, 'threads-flush').program('threads_flush', env=env)
    assert 'lost' not in run.stderr, run.stderr
    check_flushing_workers(run.archive)
    check_profile_matches_trace(run)


@scenario
def launched_threads_flush(args):
    # A process a launcher started among several, without MPI: its directory is
    # made at its first write, here by four threads flushing at once; every
    # event reaches the one <name>-rank<r> it makes.
    env = dict(TRACING, STRATA_TOTAL_MEMORY='512K', STRATA_PAGE_SIZE='16K',
               OMPI_COMM_WORLD_SIZE='2', OMPI_COMM_WORLD_RANK='1')
    run = Run(args, 'launched-flush')
    shutil.rmtree(run.dir + '-rank1', ignore_errors=True)
    run.program('threads_flush', env=env)
    assert 'lost' not in run.stderr and 'not written' not in run.stderr, run.stderr
    expect_equal(os.path.exists(run.dir), False, 'no directory under the name itself')
    check_flushing_workers(os.path.join(run.dir + '-rank1', 'traces.otf2'))


@scenario
def bad_configuration(args):
    cases = [
        ({'STRATA_TOTAL_MEMORY': '64Q'}, 'STRATA_TOTAL_MEMORY'),
        ({'STRATA_ENABLE_TRACING': 'maybe'}, 'STRATA_ENABLE_TRACING'),
        ({'STRATA_TIMER': 'sundial'}, 'STRATA_TIMER'),
    ]
    for env, name in cases:
        run = Run(args, 'bad-config').program('nesting', env=env, expect=1)
        assert name in run.stderr and list(env.values())[0] in run.stderr, run.stderr
        expect_equal(run.stdout, '', 'main() must not run')
        expect_equal(len([l for l in run.stderr.splitlines() if l.strip()]), 1, 'one message: ' + run.stderr)


@scenario
def misspelt_variable(args):
    run = Run(args, 'typo').program('nesting', env={'STRATA_ENABLE_TRACNG': 'true'})
    assert 'STRATA_ENABLE_TRACNG is not a Strata variable (did you mean STRATA_ENABLE_TRACING?)' in run.stderr, \
        run.stderr


@scenario
def existing_directory(args):
    first = Run(args, 'existing').program('nesting')
    again = Run.__new__(Run)
    again.bin_dir, again.dir = first.bin_dir, first.dir  # same directory, not removed
    again.program('nesting', expect=1)
    assert 'already exists' in again.stderr and 'STRATA_OVERWRITE_EXPERIMENT_DIRECTORY' in again.stderr
    again.program('nesting', env={'STRATA_OVERWRITE_EXPERIMENT_DIRECTORY': 'true'})
    # A directory that is not an experiment is never replaced.
    plain = os.path.join(args.work_dir, 'not-an-experiment')
    os.makedirs(plain, exist_ok=True)
    open(os.path.join(plain, 'precious.txt'), 'w').write('keep me')
    again.dir = plain
    again.program('nesting', env={'STRATA_OVERWRITE_EXPERIMENT_DIRECTORY': 'true'}, expect=1)
    assert os.path.exists(os.path.join(plain, 'precious.txt'))
    # Nor is a project tree that merely holds a file named strata.cfg (it has no marker of Strata's).
    open(os.path.join(plain, 'strata.cfg'), 'w').write('# the project settings\n')
    again.program('nesting', env={'STRATA_OVERWRITE_EXPERIMENT_DIRECTORY': 'true'}, expect=1)
    assert "is not a directory Strata made (it has no .strata-experiment)" in again.stderr, again.stderr
    assert os.path.exists(os.path.join(plain, 'precious.txt'))
    # Nor an experiment into which someone put a file of their own.
    again.dir = first.dir
    open(os.path.join(first.dir, 'notes.txt'), 'w').write('mine')
    again.program('nesting', env={'STRATA_OVERWRITE_EXPERIMENT_DIRECTORY': 'true'}, expect=1)
    assert "also holds 'notes.txt', which Strata did not write" in again.stderr, again.stderr
    assert os.path.exists(os.path.join(first.dir, 'notes.txt')) and os.path.exists(os.path.join(first.dir, 'profile.h5'))


@scenario
def user_filter(args):
    # STRATA_FILTERING_FILE applies to user regions, as in Score-P: by name and by source file.
    work = os.path.join(args.work_dir, 'user-filter')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    by_name = os.path.join(work, 'inner.filter')
    with open(by_name, 'w') as f:
        f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE inner\nSCOREP_REGION_NAMES_END\n')
    run = Run(args, 'user-filter/by-name').program('nesting', env=dict(TRACING, STRATA_FILTERING_FILE=by_name))
    pairs = reader.check_nesting(reader.read_otf2(run.archive)['thread 0'])
    expect_equal(dict(pairs), {'outer': 1, 'step': 5, 'middle': 10, 'io': 1}, 'enter/leave pairs, inner filtered')
    expected = {path: n for path, n in NESTING_PATHS.items() if not path.endswith('/inner')}
    expect_equal(reader.visits_by_path(reader.read_profile(run.profile)), expected, 'profile without inner')
    assert 'warning' not in run.stderr, run.stderr  # the END of a filtered region is no END without BEGIN
    # A file rule takes out every region of the file; their ENDs are no warnings either.
    by_file = os.path.join(work, 'file.filter')
    with open(by_file, 'w') as f:
        f.write('SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE */nesting.c\nSCOREP_FILE_NAMES_END\n')
    run = Run(args, 'user-filter/by-file').program('nesting', env=dict(TRACING, STRATA_FILTERING_FILE=by_file))
    pairs = reader.check_nesting(reader.read_otf2(run.archive)['thread 0'])
    expect_equal(dict(pairs), {}, 'no user region of nesting.c')
    assert 'warning' not in run.stderr, run.stderr
    # A bad filter file stops a program that has only user regions too, before main, with one message.
    bad = os.path.join(work, 'bad.filter')
    with open(bad, 'w') as f:
        f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo[\nSCOREP_REGION_NAMES_END\n')
    run = Run(args, 'user-filter/bad').program('nesting', env={'STRATA_FILTERING_FILE': bad}, expect=1)
    assert "STRATA_FILTERING_FILE='" + bad + "' is not valid" in run.stderr, run.stderr
    assert 'nesting: done' not in run.stdout, run.stdout
    assert not os.path.exists(run.dir), 'no experiment directory is left behind'


@scenario
def default_name_taken(args):
    # The default name (date, time, process id) is taken, as by a run in another container with
    # the same pid in the same second: this run takes <name>.2 and runs measured.
    top = os.path.join(args.work_dir, 'default-name')
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    env = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
    # Occupy the names this run could get (its pid is only known once it runs: a small shell
    # that makes them, then execs the program under the same pid, in the same second or one of
    # the next few: a loaded machine may take seconds to start the program).
    script = ('now=$(date +%s); for d in 0 1 2 3 4 5 6 7 8 9; do '
              'mkdir -p strata-$(date -d @$((now + d)) +%Y%m%d_%H%M%S)_$$; done; exec ' +
              os.path.join(args.bin_dir, 'nesting'))
    p = subprocess.run(['sh', '-c', script], cwd=top, env=env, capture_output=True, text=True, timeout=120)
    expect_equal(p.returncode, 0, 'status\n' + p.stderr)
    written = re.search(r'experiment written to (\S+)', p.stderr)
    assert written and written.group(1).endswith('.2'), p.stderr
    assert os.path.isfile(os.path.join(written.group(1), 'profile.h5')), written.group(1)


@scenario
def recording_off(args):
    run = Run(args, 'recording').program('recording', env=TRACING)
    events = reader.read_otf2(run.archive)['thread 0']
    pairs = reader.check_nesting(events)
    expect_equal(pairs['visible'], 2, 'regions while recording')
    expect_equal(pairs.get('hidden', 0), 0, 'regions while not recording')
    expect_equal(pairs['STRATA_RECORDING_OFF'], 1, 'the gap is a region')
    assert 'STRATA_REGION_END("nope") has no matching' in run.stderr, run.stderr
    assert "region 'inner' was left while" not in run.stderr
    assert "'mismatch_outer' was left while 'mismatch_inner'" in run.stderr, run.stderr


@scenario
def fork_child(args):
    run = Run(args, 'fork').program('forks', env=TRACING)
    pairs = reader.check_nesting(reader.read_otf2(run.archive)['thread 0'])
    expect_equal(dict(pairs), {'parent_work': 1}, 'only the parent records')
    expect_equal(reader.visits_by_path(reader.read_profile(run.profile)), {'parent_work': 1}, 'profile')
    # Only the parent writes the experiment (the child would overwrite it).
    expect_equal(run.stderr.count('experiment written to'), 1, 'writers of the experiment: ' + run.stderr)


@scenario
def clock_gettime_timer(args):
    run = Run(args, 'clock').program('nesting', env=dict(TRACING, STRATA_TIMER='clock_gettime'))
    import otf2
    with otf2.reader.open(run.archive) as trace:
        expect_equal(trace.definitions.clock_properties.timer_resolution, 1000000000, 'ns timer')
    pairs = reader.check_nesting(reader.read_otf2(run.archive)['thread 0'])
    expect_equal(pairs['inner'], 30, 'inner')
    assert 'STRATA_TIMER="clock_gettime"' in open(os.path.join(run.dir, 'strata.cfg')).read()


@scenario
def nothing_recorded(args):
    run = Run(args, 'empty').program('empty', env=TRACING)
    # A program without events still ran: its program region holds its time.
    programs = {}
    expect_equal(reader.read_otf2(run.archive, programs), {}, 'events in the program region')
    expect_equal(programs, {'thread 0': 'empty'}, 'the program region')
    subprocess.run(['otf2-print', run.archive], check=True, capture_output=True)
    profile = reader.read_profile(run.profile)
    expect_equal(profile['paths'], [''], 'call paths: the program region alone')
    expect_equal(profile['metrics']['visits'][profile['program']['empty']], [1], 'program region visits')


@scenario
def nothing_enabled(args):
    # Profiling and tracing both off: one line says so, no directory is made and
    # nothing claims an experiment was written; a misspelt variable is still named.
    env = {'STRATA_ENABLE_PROFILING': 'false', 'STRATA_ENABLE_TRACING': 'false', 'STRATA_ENABLE_TRACNG': 'true'}
    run = Run(args, 'nothing-enabled').program('nesting', env=env)
    expect_equal(run.stderr.count('STRATA_ENABLE_PROFILING and STRATA_ENABLE_TRACING are both off'), 1, run.stderr)
    assert 'STRATA_ENABLE_TRACNG is not a Strata variable' in run.stderr, run.stderr
    assert 'experiment written' not in run.stderr, run.stderr
    assert not os.path.exists(run.dir), 'no experiment directory'


@scenario
def without_strata(args):
    run = Run(args, 'without').program('no_strata')
    expect_equal(run.stdout, 'no_strata: ok\n', 'output')
    assert not os.path.exists(run.dir), 'no experiment without the runtime'


# ---------------------------------------------------------------- counters (STRATA_METRIC_*)
# The software events of the kernel (virtual machines have no hardware counters) and rusage.
PAPI_EVENTS = ['perf::TASK-CLOCK', 'perf::PAGE-FAULTS', 'perf::CONTEXT-SWITCHES']
RUSAGE_MEMBERS = ['ru_utime', 'ru_minflt', 'ru_nvcsw', 'ru_nivcsw']
COUNTERS = dict(STRATA_METRIC_PAPI=','.join(PAPI_EVENTS), STRATA_METRIC_RUSAGE=','.join(RUSAGE_MEMBERS))


@scenario
def metrics_papi(args):
    run = Run(args, 'metrics-papi').program('metrics', env=dict(TRACING, **COUNTERS))
    measured = dict(item.split('=') for item in run.stdout.split())
    spin_wall, spin_cpu, pages = (int(measured[k]) for k in ('spin_wall_ns', 'spin_cpu_ns', 'pages'))
    members, events = reader.read_otf2_metrics(run.archive)
    names = [m['name'] for m in members]
    expect_equal(names, PAPI_EVENTS + RUSAGE_MEMBERS, 'metric members')
    expect_equal(members[0]['unit'], 'ns', 'unit of TASK-CLOCK')
    expect_equal(members[3]['unit'], 'us', 'unit of ru_utime')
    expect_equal([m['type'] for m in members], ['MetricType.PAPI'] * 3 + ['MetricType.OTHER'] * 4, 'metric types')
    assert all(m['mode'] == 'MetricMode.ACCUMULATED_START' for m in members), members
    thread = events['thread 0']
    reader.check_metric_events(thread, len(names))
    reader.check_nesting([e for e in thread if e[0] in 'EL'])
    # TASK-CLOCK counts the time the thread is on a CPU as the kernel sees it: at
    # least the thread's CPU time by the program's own clock, never more than the
    # spin's wall time.  (In a virtual machine whose host runs other work, the
    # time the host takes the CPU away, "steal", is in TASK-CLOCK but not in the
    # thread's CPU time, so the two can differ by more than measurement noise.)
    (task_clock,) = reader.region_counter_deltas(thread, 'spin', 0)
    assert task_clock >= 0.9 * spin_cpu - 2e6, (task_clock, spin_cpu)
    assert task_clock <= spin_wall * 1.02 + 2e6, (task_clock, spin_wall)
    # Every new page is a page fault, for PAPI and for rusage.
    (faults,) = reader.region_counter_deltas(thread, 'touch', 1)
    (minflt,) = reader.region_counter_deltas(thread, 'touch', 4)
    assert faults >= pages and minflt >= pages, (faults, minflt, pages)
    # otf2-print, another reader: one METRIC per ENTER and LEAVE.
    out = subprocess.run(['otf2-print', run.archive], check=True, capture_output=True, text=True).stdout
    regions = len([l for l in out.splitlines() if l.startswith(('ENTER ', 'LEAVE '))])
    metrics = len([l for l in out.splitlines() if l.startswith('METRIC ')])
    expect_equal(metrics, regions, 'METRIC records in otf2-print')
    assert '("perf::TASK-CLOCK" <0>; UINT64;' in out, out[:2000]
    # Profile: the same increments per call path, and inclusive = exclusive + children.
    profile = reader.read_profile(run.profile)
    assert 'outer/level=1/short' in profile['paths'], profile['paths']
    qualified = ['papi:' + n for n in PAPI_EVENTS] + ['rusage:' + n for n in RUSAGE_MEMBERS]
    inclusive = reader.check_inclusive_exclusive(run.profile, profile, qualified)
    spin = profile['paths'].index('outer/spin')
    expect_equal(inclusive['papi:perf::TASK-CLOCK'][spin][0], task_clock, 'profile TASK-CLOCK of spin = trace')
    touch = profile['paths'].index('outer/touch')
    expect_equal(inclusive['papi:perf::PAGE-FAULTS'][touch][0], faults, 'profile PAGE-FAULTS of touch = trace')


@scenario
def metrics_rusage_profile(args):
    run = Run(args, 'metrics-rusage').program('metrics', env={'STRATA_METRIC_RUSAGE': 'all'})
    assert not os.path.exists(run.archive), 'tracing is off by default'
    profile = reader.read_profile(run.profile)
    members = ['ru_utime', 'ru_stime', 'ru_maxrss', 'ru_minflt', 'ru_majflt', 'ru_inblock', 'ru_oublock',
               'ru_nvcsw', 'ru_nivcsw']
    inclusive = reader.check_inclusive_exclusive(run.profile, profile, ['rusage:' + m for m in members])
    touch = profile['paths'].index('outer/touch')
    assert inclusive['rusage:ru_minflt'][touch][0] >= 300, inclusive['rusage:ru_minflt'][touch]
    spin = profile['paths'].index('outer/spin')
    used = inclusive['rusage:ru_utime'][spin][0] + inclusive['rusage:ru_stime'][spin][0]
    measured = dict(item.split('=') for item in run.stdout.split())
    # getrusage() has a coarser clock than the program's (a scheduler tick at worst).
    assert abs(used * 1000 - int(measured['spin_cpu_ns'])) <= 0.1 * int(measured['spin_cpu_ns']) + 10e6, \
        (used, measured)
    units = subprocess.run(['h5dump', '-a', '/metrics/rusage:ru_utime_inclusive/unit', run.profile],
                           check=True, capture_output=True, text=True).stdout
    assert '"us"' in units, units


@scenario
def metrics_threads(args):
    env = dict(TRACING, STRATA_METRIC_PAPI='perf::TASK-CLOCK', STRATA_METRIC_RUSAGE='ru_utime')
    run = Run(args, 'metrics-threads').program('metrics_threads', env=env)
    members, events = reader.read_otf2_metrics(run.archive)
    expect_equal([m['name'] for m in members], ['perf::TASK-CLOCK', 'ru_utime'], 'members')
    expect_equal(len(events), 13, 'the main thread and 3 rounds of 4 threads')
    import otf2
    with otf2.reader.open(run.archive) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
    workers = 0
    for name, ev in events.items():
        reader.check_metric_events(ev, 2)
        for region in ('work', 'main_work'):
            enters = [e[1] for e in ev if e[0] == 'E' and e[2] == region]
            leaves = [e[1] for e in ev if e[0] == 'L' and e[2] == region]
            deltas = reader.region_counter_deltas(ev, region, 0)
            for delta, begin, end in zip(deltas, enters, leaves):
                # Each thread counts its own CPU time: positive, never more than its wall time.
                wall = (end - begin) * 1e9 / resolution
                assert 0 < delta <= wall * 1.02 + 2e6, (name, region, delta, wall)
            workers += 1 if region == 'work' and deltas else 0
    expect_equal(workers, 12, 'threads with counted work')
    profile = reader.read_profile(run.profile)
    reader.check_inclusive_exclusive(run.profile, profile, ['papi:perf::TASK-CLOCK', 'rusage:ru_utime'])
    work = profile['paths'].index('work')
    incl = reader.profile_metric(run.profile, 'papi:perf::TASK-CLOCK_inclusive', len(profile['paths']),
                                 profile['locations'])
    expect_equal(len([v for v in incl[work] if v > 0]), 12, 'TASK-CLOCK of work on every worker')


@scenario
def metrics_flush(args):
    # Buffers fill several times: the metric record stays right after its region
    # record, and each flush (a region of Strata's) carries the counters it cost.
    n = 50000
    env = dict(TRACING, STRATA_TOTAL_MEMORY='256K', STRATA_PAGE_SIZE='16K', STRATA_METRIC_PAPI='perf::TASK-CLOCK',
               STRATA_METRIC_RUSAGE='ru_minflt')
    run = Run(args, 'metrics-flush').program('many_events', str(n), env=env)
    assert 'lost' not in run.stderr, run.stderr
    _, events = reader.read_otf2_metrics(run.archive)
    thread = events['thread 0']
    reader.check_metric_events(thread, 2)
    pairs = reader.check_nesting([e for e in thread if e[0] in 'EL'])
    expect_equal(pairs['tick'], n, 'every tick survives the flushes')
    flushes = reader.region_counter_deltas(thread, 'STRATA_TRACE_BUFFER_FLUSH', 0)
    assert len(flushes) >= 3 and all(f > 0 for f in flushes), flushes
    profile = reader.read_profile(run.profile)
    reader.check_inclusive_exclusive(run.profile, profile, ['papi:perf::TASK-CLOCK', 'rusage:ru_minflt'])
    check_profile_matches_trace(run)


@scenario
def metrics_crash(args):
    # Regions still open at a fatal signal are closed with counters as well.
    env = dict(TRACING, STRATA_METRIC_RUSAGE='ru_utime,ru_minflt')
    run = Run(args, 'metrics-crash').program('crash', 'segv', env=env, expect=-signal.SIGSEGV)
    _, events = reader.read_otf2_metrics(run.archive)
    thread = events['thread 0']
    reader.check_metric_events(thread, 2)
    expect_equal(dict(reader.check_nesting([e for e in thread if e[0] in 'EL'])),
                 {'before': 1, 'work': 7, 'doomed': 1}, 'regions before the crash')
    profile = reader.read_profile(run.profile)
    reader.check_inclusive_exclusive(run.profile, profile, ['rusage:ru_utime', 'rusage:ru_minflt'])


@scenario
def metrics_without_papi(args):
    # A build without PAPI: asking for PAPI events stops the run and says why.
    # (The kernel's software events, perf::TASK-CLOCK and the like, Strata counts itself.)
    run = Run(args, 'metrics-no-papi').program('metrics', env={'STRATA_METRIC_PAPI': 'PAPI_TOT_INS'}, expect=1)
    assert 'no PAPI support' in run.stderr and 'STRATA_METRIC_PAPI' in run.stderr, run.stderr
    expect_equal(run.stdout, '', 'main() must not run')
    assert not os.path.exists(run.dir), 'no experiment directory for a run that did not start'


@scenario
def metrics_bad_events(args):
    cases = [
        ({'STRATA_METRIC_PAPI': 'PAPI_NO_SUCH_EVENT'}, 'PAPI_NO_SUCH_EVENT', 'strata-info metrics'),
        ({'STRATA_METRIC_PAPI': 'perf::TASK-CLOCK,perf::no-such-event'}, 'perf::no-such-event', 'strata-info metrics'),
        # Known to PAPI, but no hardware counters here.
        ({'STRATA_METRIC_PAPI': 'perf::CYCLES'}, 'perf::CYCLES', 'strata-info metrics'),
        ({'STRATA_METRIC_RUSAGE': 'ru_utime,ru_nothing'}, 'ru_nothing', 'ru_minflt'),
        # More counters than a location records (16).
        ({'STRATA_METRIC_PAPI': 'perf::TASK-CLOCK,perf::CPU-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES,'
                                'perf::CPU-MIGRATIONS,perf::MINOR-FAULTS,perf::MAJOR-FAULTS,perf::CGROUP-SWITCHES',
          'STRATA_METRIC_RUSAGE': 'all'}, '17 counters', 'at most 16'),
    ]
    for env, name, hint in cases:
        run = Run(args, 'metrics-bad').program('metrics', env=env, expect=1)
        assert name in run.stderr and hint in run.stderr, run.stderr
        expect_equal(run.stdout, '', 'main() must not run')
        expect_equal(len([l for l in run.stderr.splitlines() if l.strip()]), 1, 'one message: ' + run.stderr)
        assert not os.path.exists(run.dir), 'no experiment directory for a run that did not start'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--analyze', help='strata-analyze, for the scenarios that analyse what they measured')
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    SCENARIOS[args.scenario](args)
    print('%s: passed' % args.scenario)


if __name__ == '__main__':
    main()
