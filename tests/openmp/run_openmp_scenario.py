# SPDX-License-Identifier: BSD-3-Clause
"""One OpenMP adapter scenario: a program built with `strata clang|gcc -fopenmp`
(or `strata mpicc -fopenmp`) is run, and its experiment is checked with
independent readers (python3 otf2, otf2-print, h5dump;
tests/integration/experiment_reader.py).

    /usr/bin/python3 run_openmp_scenario.py SCENARIO --bin-dir DIR --work-dir DIR
                                            --source-dir DIR [--mpirun MPIRUN]

The expected structure of programs/omp_constructs.c is in its header comment;
source lines come from its "@name" markers, never from numbers written here.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import experiment_reader as reader  # noqa: E402

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


def expect_equal(actual, expected, what):
    assert actual == expected, '%s: got %r, expected %r' % (what, actual, expected)


def clean_environment(env):
    e = {k: v for k, v in os.environ.items() if not k.startswith(('STRATA_', 'OMP_'))}
    e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'})
    e.update(env or {})
    return e


def markers(source):
    """{'loops': 28, ...}: the line of each "@name" marker of a program."""
    found = {}
    with open(source) as f:
        for number, line in enumerate(f, 1):
            for name in re.findall(r'@(\w+)', line):
                found[name] = number
    return found


def run(args, name, command, env, expect_status=0):
    work = os.path.join(args.work_dir, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    p = subprocess.run(command, cwd=work, env=clean_environment(env), capture_output=True, text=True,
                       timeout=240, stdin=subprocess.DEVNULL)
    assert p.returncode == expect_status, '%s: status %d (expected %d)\nstdout:\n%s\nstderr:\n%s' % (
        command, p.returncode, expect_status, p.stdout, p.stderr)
    experiments = glob.glob(os.path.join(work, 'strata-*'))
    return p, experiments


def read_thread_events(archive):
    """{location key: [(kind, time, detail)]} of enters/leaves and thread events, and
    {team name: member location keys} from the definitions."""
    import otf2
    events = collections.defaultdict(list)
    with otf2.reader.open(archive) as trace:
        keys = {}
        for location in trace.definitions.locations:
            keys[location] = reader.location_key(location)
        teams = {}  # team names repeat on every rank: (rank prefix, name) -> member locations
        for comm in trace.definitions.comms:
            if comm.group.paradigm == otf2.Paradigm.OPENMP:
                members = sorted(keys[loc] for loc in comm.group.members)
                teams[(team_scope(members[0]), comm.name)] = members
                TEAM_ORDER[(team_scope(members[0]), comm.name)] = [keys[loc] for loc in comm.group.members]
        for location, event in trace.events:
            key = keys[location]
            if isinstance(event, otf2.events.Enter):
                events[key].append(('E', event.time, event.region.name))
            elif isinstance(event, otf2.events.Leave):
                events[key].append(('L', event.time, event.region.name))
            elif isinstance(event, otf2.events.ThreadFork):
                events[key].append(('fork', event.time, event.number_of_requested_threads))
            elif isinstance(event, otf2.events.ThreadJoin):
                events[key].append(('join', event.time, None))
            elif isinstance(event, otf2.events.ThreadTeamBegin):
                events[key].append(('team_begin', event.time, (team_scope(key), event.thread_team.name)))
            elif isinstance(event, otf2.events.ThreadTeamEnd):
                events[key].append(('team_end', event.time, (team_scope(key), event.thread_team.name)))
            elif isinstance(event, (otf2.events.ThreadTaskCreate, otf2.events.ThreadTaskSwitch,
                                    otf2.events.ThreadTaskComplete)):
                kind = {otf2.events.ThreadTaskCreate: 'task_create', otf2.events.ThreadTaskSwitch: 'task_switch',
                        otf2.events.ThreadTaskComplete: 'task_complete'}[type(event)]
                task = (team_scope(key), event.thread_team.name, event.creating_thread, event.generation_number)
                events[key].append((kind, event.time, task))
        roles = {r.name: str(r.region_role).split('.')[-1] for r in trace.definitions.regions}
        paradigms = {r.name: str(r.paradigm).split('.')[-1] for r in trace.definitions.regions}
    return dict(events), teams, roles, paradigms


def team_scope(location_key):
    """'rank 1' of 'rank 1/thread 0'; '' for a single process."""
    return location_key.rsplit('/', 1)[0] if '/' in location_key else ''


def kind_counts(events):
    return {key: collections.Counter(kind for kind, _, _ in evs if kind not in ('E', 'L'))
            for key, evs in events.items()}


# (rank prefix, team name) -> the team's members in the order of its OTF2 group (read_thread_events).
TEAM_ORDER = {}


def check_tasks(events, created):
    """OTF2 ThreadTask events: `created` tasks, each (team, creating thread's number,
    generation) created once, started (switched to) before it completes on the thread
    that completes it, and completed once; a thread numbers the tasks it creates 1, 2, ..."""
    creates, completes = [], []
    for key, evs in events.items():
        switched = set()
        generations = []
        for kind, _, task in evs:
            if kind == 'task_create':
                creates.append(task)
                generations.append(task[3])
                # Here the tasks are created in the outer team, whose thread n is location n.
                expect_equal(task[2], int(key.rsplit(' ', 1)[-1]), '%s: creating thread of %r' % (key, task))
                # OTF2 names the creating thread by its rank in the team: member n of the group is thread n.
                order = TEAM_ORDER[(task[0], task[1])]
                expect_equal(order[task[2]], key, 'member %d of %r (its group: %r)' % (task[2], task[1], order))
            elif kind == 'task_switch':
                switched.add(task)
            elif kind == 'task_complete':
                assert task in switched, '%s: task %r completes without having started here' % (key, task)
                completes.append(task)
        expect_equal(generations, list(range(1, len(generations) + 1)), '%s: generation numbers' % key)
    expect_equal(len(creates), created, 'ThreadTaskCreate events')
    expect_equal(len(set(creates)), created, 'distinct tasks created')
    expect_equal(sorted(completes), sorted(creates), 'the tasks completed are the tasks created, once each')


def check_thread_structure(events, teams):
    """Forks and joins alternate per location; team begins and ends pair up, each
    in a team whose members include the location; enters and leaves nest."""
    for key, evs in events.items():
        reader.check_nesting([e for e in evs if e[0] in ('E', 'L')])
        open_forks, open_teams = 0, []
        for kind, _, detail in evs:
            if kind == 'fork':
                open_forks += 1
            elif kind == 'join':
                assert open_forks > 0, '%s: join without fork' % key
                open_forks -= 1
            elif kind == 'team_begin':
                assert key in teams.get(detail, []), '%s: begins team %r whose members are %r' % (
                    key, detail, teams.get(detail))
                open_teams.append(detail)
            elif kind == 'team_end':
                assert open_teams and open_teams[-1] == detail, '%s: ends %r, open %r' % (key, detail, open_teams)
                open_teams.pop()
        assert open_forks == 0 and not open_teams, '%s: still open: %d forks, teams %r' % (key, open_forks,
                                                                                         open_teams)


def check_fork_join_times(events):
    """Time never goes back on a location.  The forking thread's team begin is at
    its fork, and its team end, with the leaves right before it, at its join:
    the runtime reports them back to back, and the adapter takes one clock
    reading for each group (ompt_tool.cpp)."""
    for key, evs in events.items():
        times = [t for _, t, _ in evs]
        assert times == sorted(times), '%s: time goes back' % key
        for i, (kind, time, _) in enumerate(evs):
            if kind == 'fork':
                expect_equal(evs[i + 1][:2], ('team_begin', time), '%s: the event after a fork' % key)
            elif kind == 'join':
                expect_equal(evs[i - 1][:2], ('team_end', time), '%s: the event before a join' % key)
                expect_equal(evs[i - 2][:2], ('L', time), '%s: the leave before a join\'s team end' % key)


def check_late_ends_at_join(events):
    """A thread other than the forking one ends its part of a team (its team end,
    and the leaves right before it: the barrier at the end of the parallel region,
    the parallel region) at the join of that team, the first join of the team after
    the thread's team begin: libomp reports those ends only when the thread wakes
    up for the next parallel region, and the idle time until then is no barrier.
    Through libomp's own entry points (clang), and on GCC's libgomp, whose adapter
    ends them so (gomp_entry_points.cpp); not for GCC's code on libomp (GOMP_parallel
    of libomp), which may report them on time, right after the barrier, when the
    thread may read the clock before the forking thread has published its join time."""
    joins = collections.defaultdict(list)  # team -> join times
    for evs in events.values():
        for i, (kind, time, _) in enumerate(evs):
            if kind == 'join':
                joins[evs[i - 1][2]].append(time)
    checked = 0
    for key, evs in events.items():
        begun = []  # the open teams' begin times
        for i, (kind, time, team) in enumerate(evs):
            if kind == 'team_begin':
                begun.append(time)
            elif kind == 'team_end':
                begin = begun.pop()
                if i + 1 < len(evs) and evs[i + 1][0] == 'join':
                    continue  # the forking thread's own
                later = [j for j in joins[team] if j >= begin]
                assert later, '%s: team %r begun at %d never joined' % (key, team, begin)
                expect_equal(time, min(later), '%s: team end of %r (begun at %d) at its join' % (key, team, begin))
                expect_equal(evs[i - 1][:2], ('L', time), '%s: the leave before a team end' % key)
                checked += 1
    assert checked > 0, 'no team end of a thread other than the forking one'


def enters(events, predicate):
    """Enter counts over all locations of the regions `predicate` accepts."""
    counts = collections.Counter()
    for evs in events.values():
        for kind, _, name in evs:
            if kind == 'E' and predicate(name):
                counts[name] += 1
    return counts


def construct_at(name, construct, line, exact):
    """True for "<construct> @omp_constructs.c:<line>"; GCC attributes some calls to the
    line before the construct (its line table, not ours), so not `exact` allows that."""
    m = re.match(r'^(.*) @omp_constructs\.c:(\d+)$', name)
    if not m or m.group(1) != construct:
        return False
    return int(m.group(2)) == line or (not exact and int(m.group(2)) in (line - 1, line))


def check_constructs(args, compiler):
    program = os.path.join(args.bin_dir, 'omp_constructs_' + compiler)
    lines = markers(os.path.join(args.source_dir, 'programs', 'omp_constructs.c'))
    exact = compiler == 'clang'
    p, experiments = run(args, 'constructs-' + compiler, [program],
                         {'STRATA_ENABLE_TRACING': 'true', 'OMP_MAX_ACTIVE_LEVELS': '2'})
    expect_equal(len(experiments), 1, 'experiments')
    assert 'not recorded' not in p.stderr, p.stderr
    # A GCC program moved to libomp says so (its threads wait as libomp's do); on its own
    # libgomp (measured through its GOMP_* entry points) nothing needs saying.
    expect_equal(p.stderr.count("this GCC-compiled OpenMP program runs on LLVM's libomp"),
                 1 if compiler == 'gcc_on_llvm' else 0, 'the note on the runtime: ' + p.stderr)
    archive = os.path.join(experiments[0], 'traces.otf2')
    events, teams, roles, paradigms = read_thread_events(archive)
    # Constructs are named after the program's code, never after the runtime's (the barrier at
    # the end of a GCC parallel region is reported from inside libomp's GOMP_parallel).
    runtime_named = [n for n in enters(events, lambda n: 'libomp' in n or 'GOMP' in n)]
    expect_equal(runtime_named, [], 'regions named after the OpenMP runtime')

    # One location per thread: 2 of the outer team, and the workers of the two nested teams
    # (two threads, or one when libomp reuses a pool thread for the second nested team
    # after the first has ended, as it does on a busy machine).
    n_threads = len(events)
    assert n_threads in (3, 4), 'locations: %r' % sorted(events)
    threads = ['thread %d' % i for i in range(n_threads)]
    expect_equal(sorted(events), threads, 'locations')
    extra = threads[2:]
    check_thread_structure(events, teams)
    check_fork_join_times(events)
    if compiler in ('clang', 'gcc'):  # libomp's own entry points, and libgomp's GOMP adapter
        check_late_ends_at_join(events)
    counts = kind_counts(events)
    forks = {k: c['fork'] for k, c in counts.items()}
    expect_equal(forks, dict({'thread 0': 5, 'thread 1': 1}, **{t: 0 for t in extra}), 'forks per location')
    expect_equal({k: c['join'] for k, c in counts.items()}, forks, 'joins per location')
    begins = {k: c['team_begin'] for k, c in counts.items()}
    expect_equal((begins['thread 0'], begins['thread 1'], sum(begins[t] for t in extra)), (5, 5, 2),
                 'team begins of threads 0, 1 and the nested teams\' workers')
    for evs in events.values():
        for kind, _, requested in evs:
            if kind == 'fork':
                expect_equal(requested, 2, 'requested threads')
    # The same counts through otf2-print.
    printed = subprocess.run(['otf2-print', archive], check=True, capture_output=True, text=True).stdout
    expect_equal(len(re.findall(r'^THREAD_FORK ', printed, re.M)), 6, 'THREAD_FORK lines of otf2-print')
    expect_equal(len(re.findall(r'^THREAD_JOIN ', printed, re.M)), 6, 'THREAD_JOIN lines of otf2-print')
    expect_equal(len(re.findall(r'^THREAD_TEAM_BEGIN ', printed, re.M)), 12, 'THREAD_TEAM_BEGIN lines')
    expect_equal(len(re.findall(r'^THREAD_TEAM_END ', printed, re.M)), 12, 'THREAD_TEAM_END lines')
    expect_equal(len(re.findall(r'^THREAD_TASK_CREATE ', printed, re.M)), 12, 'THREAD_TASK_CREATE lines')
    expect_equal(len(re.findall(r'^THREAD_TASK_COMPLETE ', printed, re.M)), 12, 'THREAD_TASK_COMPLETE lines')
    check_tasks(events, 12)

    # Constructs, by source line: 3 rounds x 2 threads.
    def total(construct, line):
        return sum(enters(events, lambda n: construct_at(n, construct, line, exact)).values())
    expect_equal(total('!$omp parallel', lines['loops']), 6, 'parallel region of the loops, all threads')
    expect_equal(total('!$omp critical', lines['critical']), 6, 'critical')
    expect_equal(total('!$omp critical sblock', lines['critical']), 6, 'critical sblock')
    # Under contention libomp may report a lock request from inside itself (another return
    # address): all omp_set_lock regions count, and most name the program's line.
    locks = enters(events, lambda n: n.startswith('omp_set_lock'))
    expect_equal(sum(locks.values()), 6, 'omp_set_lock: %r' % dict(locks))
    assert total('omp_set_lock', lines['lock']) >= 3, 'omp_set_lock at its line: %r' % dict(locks)
    expect_equal(total('!$omp taskwait', lines['taskwait']), 3, 'taskwait')
    # The explicit barrier is one, by clang (barrier_explicit) and by gcc (libomp's GOMP_barrier
    # reports an implementation barrier at the program's code): never a "runtime barrier".
    barrier = enters(events, lambda n: re.search(r'@omp_constructs\.c:%d$' % lines['barrier'], n))
    expect_equal(dict(barrier), {n: 6 for n in barrier if n.startswith('!$omp barrier @')},
                 'the explicit barrier, named so: %r' % dict(barrier))
    expect_equal(sum(barrier.values()), 6, 'barrier at the explicit barrier: %r' % dict(barrier))
    assert all(roles[n] == 'BARRIER' for n in barrier), [roles[n] for n in barrier]
    # 3 rounds x 4 tasks, created and run (GCC's line table puts the task elsewhere).
    tasks = enters(events, lambda n: n.startswith('!$omp task @omp_constructs.c:'))
    created = enters(events, lambda n: n.startswith('!$omp create task @omp_constructs.c:'))
    expect_equal(sum(tasks.values()), 12, 'tasks run: %r' % dict(tasks))
    expect_equal(sum(created.values()), 12, 'tasks created: %r' % dict(created))
    if exact:
        expect_equal(list(tasks), ['!$omp task @omp_constructs.c:%d' % lines['task']], 'task region')
    for name in set(roles):
        if name.startswith('!$omp') or name.startswith('omp_set'):
            expect_equal(paradigms[name], 'OPENMP', 'paradigm of ' + name)
    expect_equal(roles.get('omp_set_lock @omp_constructs.c:%d' % lines['lock']), 'WRAPPER', 'role of the lock')
    assert not any('omp_outlined' in n or '_omp_fn' in n for n in roles), \
        'compiler-outlined bodies are not regions: %r' % sorted(roles)

    # Profile: every thread's work under the call path that opened its team.
    profile = reader.read_profile(os.path.join(experiments[0], 'profile.h5'))
    expect_equal(profile['locations'], n_threads, 'profile locations')
    loops = re.compile(r'^main/phase_loops/!\$omp parallel @omp_constructs\.c:\d+/(.*/)?work$')
    inner = re.compile(r'^main/nested/!\$omp parallel @omp_constructs\.c:\d+/(.*/)?'
                       r'!\$omp parallel @omp_constructs\.c:\d+/(.*/)?work$')
    nested_by_extra = 0
    for column in range(n_threads):
        visits = reader.visits_by_path(profile, column)
        loop_work = sum(n for path, n in visits.items() if loops.match(path))
        nested_work = sum(n for path, n in visits.items() if inner.match(path))
        if column < 2:
            assert loop_work >= 1, 'thread %d: no work under main/phase_loops/!$omp parallel: %r' % (
                column, {k: v for k, v in visits.items() if v})
            expect_equal(nested_work, 1, 'thread %d: work of the nested team under main/nested' % column)
        else:  # a thread of nested teams only: no visit of what it inherited
            nested_by_extra += nested_work
            expect_equal(visits.get('main', 0), 0, 'thread %d: visits of main' % column)
    expect_equal(nested_by_extra, 2, 'work of the nested teams\' workers under main/nested')
    if exact:  # clang: the static loop is a loop region; 2 threads share 100 iterations evenly
        for column in range(2):
            visits = reader.visits_by_path(profile, column)
            path = 'main/phase_loops/!$omp parallel @omp_constructs.c:%d/!$omp for @omp_constructs.c:%d/work' % (
                lines['loops'], lines['loops'] + 3)
            expect_equal(visits.get(path), 150, 'thread %d: %s' % (column, path))


@scenario
def constructs_clang(args):
    check_constructs(args, 'clang')


@scenario
def constructs_gcc(args):
    check_constructs(args, 'gcc')


@scenario
def constructs_gcc_libomp(args):
    check_constructs(args, 'gcc_on_llvm')


@scenario
def constructs_gfortran(args):
    """A gfortran program on GCC's libgomp (libstrata-openmp-gomp): teams, the loop, critical,
    lock, barrier and tasks named by their Fortran lines, every thread's work under the
    parallel region in the profile."""
    program = os.path.join(args.bin_dir, 'omp_constructs_gfortran')
    lines = markers(os.path.join(args.source_dir, 'programs', 'omp_constructs.f90'))
    p, experiments = run(args, 'constructs-gfortran', [program], {'STRATA_ENABLE_TRACING': 'true'})
    expect_equal(p.stdout, 'total 3015000.0 locked 6\n', 'program output')
    assert 'warning' not in p.stderr and 'not recorded' not in p.stderr, p.stderr
    expect_equal(len(experiments), 1, 'experiments')
    events, teams, roles, paradigms = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    expect_equal(sorted(events), ['thread 0', 'thread 1'], 'locations')
    check_thread_structure(events, teams)
    check_fork_join_times(events)
    check_late_ends_at_join(events)
    counts = kind_counts(events)
    expect_equal({k: (c['fork'], c['team_begin']) for k, c in counts.items()},
                 {'thread 0': (3, 3), 'thread 1': (0, 3)}, 'forks and team begins per location')
    check_tasks(events, 12)

    def total(construct, marker):  # GCC places some calls on the line before the construct
        pattern = re.compile(r'^%s @omp_constructs\.f90:(\d+)$' % re.escape(construct))
        found = enters(events, lambda n: bool(pattern.match(n)) and
                       int(pattern.match(n).group(1)) in (lines[marker] - 1, lines[marker]))
        return sum(found.values())
    expect_equal(total('!$omp parallel', 'loops'), 6, 'parallel region, all threads')
    expect_equal(total('!$omp implicit barrier', 'loops'), 6, 'the barrier at the end of the parallel region')
    expect_equal(total('!$omp for', 'do'), 6, 'the dynamic loop')
    expect_equal(total('!$omp critical', 'critical'), 6, 'critical')
    expect_equal(total('!$omp critical sblock', 'critical'), 6, 'critical sblock')
    expect_equal(total('omp_set_lock', 'lock'), 6, 'omp_set_lock (gfortran\'s omp_set_lock_)')
    assert total('!$omp barrier', 'barrier') >= 6, 'explicit barrier'
    expect_equal(total('!$omp taskwait', 'taskwait'), 3, 'taskwait')
    tasks = enters(events, lambda n: n.startswith('!$omp task @omp_constructs.f90:'))
    expect_equal(sum(tasks.values()), 12, 'tasks run: %r' % dict(tasks))
    for name in roles:
        if name.startswith(('!$omp', 'omp_set')):
            expect_equal(paradigms[name], 'OPENMP', 'paradigm of ' + name)
    expect_equal(roles.get('omp_set_lock @omp_constructs.f90:%d' % lines['lock']), 'WRAPPER', 'role of the lock')
    # Profile: each thread's work under the parallel region.
    profile = reader.read_profile(os.path.join(experiments[0], 'profile.h5'))
    under = re.compile(r'(^|/)!\$omp parallel @omp_constructs\.f90:\d+/(.*/)?work[.\d]*$')
    for column in range(2):
        visits = reader.visits_by_path(profile, column)
        work = sum(n for path, n in visits.items() if under.search(path))
        assert work >= 1, 'thread %d: no work under the parallel region: %r' % (
            column, {k: v for k, v in visits.items() if v})


@scenario
def both_adapters(args):
    """A GCC program linked with both OpenMP adapters (libstrata-openmp by hand beside the
    wrapper's libstrata-openmp-gomp) runs, shares one STRATA_OPENMP_ENABLE, and records
    each construct once: libgomp calls no OMPT tool."""
    program = os.path.join(args.bin_dir, 'omp_constructs_gcc_both')
    needed = subprocess.run(['readelf', '-d', program], capture_output=True, text=True).stdout
    assert 'libstrata-openmp.so' in needed and 'libstrata-openmp-gomp.so' in needed, needed
    p, experiments = run(args, 'both-adapters', [program],
                         {'STRATA_ENABLE_TRACING': 'true', 'OMP_MAX_ACTIVE_LEVELS': '2',
                          'STRATA_OPENMP_ENABLE': 'parallel,locks'})
    assert 'registered twice' not in p.stderr and 'warning' not in p.stderr, p.stderr
    expect_equal(len(experiments), 1, 'experiments')
    with open(os.path.join(experiments[0], 'strata.cfg')) as f:
        rows = [line for line in f if line.startswith('STRATA_OPENMP_ENABLE=')]
    expect_equal(rows, ['STRATA_OPENMP_ENABLE="parallel,locks"\n'], 'STRATA_OPENMP_ENABLE rows of strata.cfg')
    printed = subprocess.run(['otf2-print', os.path.join(experiments[0], 'traces.otf2')], check=True,
                             capture_output=True, text=True).stdout
    expect_equal(len(re.findall(r'^THREAD_FORK ', printed, re.M)), 6, 'THREAD_FORK lines')
    expect_equal(len(re.findall(r'^ENTER .*Region: "!\$omp critical @omp_constructs\.c:\d+"', printed, re.M)), 6,
                 'critical sections, once each')
    # The groups both adapters took: no barrier (sync), no task (tasks) recorded.
    expect_equal(len(re.findall(r'^ENTER .*Region: "!\$omp (barrier|task) @', printed, re.M)), 0,
                 'barriers and tasks (groups not enabled)')


@scenario
def taskloop_gcc(args):
    """Taskloops on GCC's libgomp: every task recorded (created, run as "!$omp task" at the
    taskloop's line, completed) and every iteration run exactly once with the bounds the
    runtime wrote into the task's copy (the program checks; with reduction and firstprivate)."""
    program = os.path.join(args.bin_dir, 'omp_taskloop_gcc')
    lines = markers(os.path.join(args.source_dir, 'programs', 'omp_taskloop.c'))
    p, experiments = run(args, 'taskloop-gcc', [program], {'STRATA_ENABLE_TRACING': 'true'})
    expect_equal(p.stdout, 'once 1000 once_ull 1000 sum 499500\n', 'program output')
    expect_equal(len(experiments), 1, 'experiments')
    events, teams, _, _ = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    check_thread_structure(events, teams)
    # 8 tasks (num_tasks), 10 (grainsize 100 of 1000 iterations), 4 (num_tasks).
    check_tasks(events, 22)
    near = lambda n, marker: any(n.endswith('@omp_taskloop.c:%d' % line)
                                 for line in range(lines['plain'] - 1, lines['unsigned'] + 1))
    tasks = enters(events, lambda n: n.startswith('!$omp task @') and near(n, 'plain'))
    expect_equal(sum(tasks.values()), 22, 'task regions at the taskloops: %r' % dict(tasks))
    loops = enters(events, lambda n: n.startswith('!$omp taskloop @') and near(n, 'plain'))
    expect_equal(sum(loops.values()), 3, 'taskloop regions: %r' % dict(loops))
    # The taskloops run inside the single, which they do not end (a taskloop is no worksharing
    # construct): each taskloop region is entered with the single open on its thread.
    inside = 0
    for evs in events.values():
        stack = []
        for kind, _, name in evs:
            if kind == 'E':
                if name.startswith('!$omp taskloop @'):
                    assert any(open_.startswith('!$omp single @') for open_ in stack), \
                        'taskloop outside the single: open %r' % stack
                    inside += 1
                stack.append(name)
            elif kind == 'L':
                stack.pop()
    expect_equal(inside, 3, 'taskloops inside the single')


def traced_with_debuginfod_probe(args, name, program):
    """Runs `program` traced, with a debuginfod server set that is never there, and returns its
    well-nested thread events.  The source look-up stays on this machine: the debuginfod client
    (which would ask the server over the network from inside the program's first parallel
    region) is never loaded."""
    p, experiments = run(args, name, [os.path.join(args.bin_dir, program)],
                         {'STRATA_ENABLE_TRACING': 'true', 'OMP_MAX_ACTIVE_LEVELS': '2',
                          'DEBUGINFOD_URLS': 'http://127.0.0.1:9/', 'LD_DEBUG': 'files'})
    expect_equal(len(experiments), 1, 'experiments')
    loaded = sorted(set(re.findall(r'file=(\S*debuginfod\S*)', p.stderr)))
    expect_equal(loaded, [], 'debuginfod libraries loaded into the program')
    events, _, _, _ = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    check_well_nested(events)
    return events


@scenario
def constructs_gcc_no_debug_info(args):
    """Built without -g: constructs are named by the function that holds them (GCC's outlined
    bodies are "f._omp_fn.N") and the offset in it, so that the three parallel constructs
    stay three regions; nothing is named after the runtime."""
    events = traced_with_debuginfod_probe(args, 'constructs-gcc-nodebug', 'omp_constructs_gcc_nodebug')
    constructs = enters(events, lambda n: n.startswith('!$omp '))
    functions = ('main', 'phase_loops', 'nested')
    for name in constructs:
        if ' @' not in name:
            continue  # the runtime names no code (GCC's static loop)
        m = re.match(r'^!\$omp [a-z ]+ @([\w.]+)\+0x[0-9a-f]+$', name)
        assert m and m.group(1).split('._omp_fn.')[0] in functions, 'construct name %r' % name
    parallel = sorted(n for n in constructs if n.startswith('!$omp parallel @'))
    expect_equal(len(parallel), 3, 'parallel constructs, one region each: %r' % parallel)


@scenario
def separate_debug_info(args):
    """Debug information in a separate file (objcopy --only-keep-debug, .gnu_debuglink): the
    constructs are still named by file and line, and only files of this machine are read."""
    events = traced_with_debuginfod_probe(args, 'separate-debug-info', 'omp_constructs_gcc_splitdebug')
    lines = markers(os.path.join(args.source_dir, 'programs', 'omp_constructs.c'))
    parallel = enters(events, lambda n: construct_at(n, '!$omp parallel', lines['loops'], False))
    expect_equal(sum(parallel.values()), 6, 'parallel region of the loops, named by its line: %r' % dict(parallel))


@scenario
def enable_none(args):
    """STRATA_OPENMP_ENABLE=none: no OpenMP event at all, the functions still."""
    p, experiments = run(args, 'enable-none', [os.path.join(args.bin_dir, 'omp_constructs_clang')],
                         {'STRATA_ENABLE_TRACING': 'true', 'STRATA_OPENMP_ENABLE': 'none'})
    events, teams, roles, paradigms = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    expect_equal(sorted(n for n, p in paradigms.items() if p == 'OPENMP'), [], 'OpenMP regions')
    expect_equal(sum(sum(c.values()) for c in kind_counts(events).values()), 0, 'thread events')
    assert enters(events, lambda n: n == 'work'), 'work is still recorded'


@scenario
def enable_groups(args):
    """STRATA_OPENMP_ENABLE=parallel,locks: teams and locks, no barrier, task or loop."""
    p, experiments = run(args, 'enable-groups', [os.path.join(args.bin_dir, 'omp_constructs_clang')],
                         {'STRATA_ENABLE_TRACING': 'true', 'STRATA_OPENMP_ENABLE': 'parallel,locks',
                          'OMP_MAX_ACTIVE_LEVELS': '2'})
    events, teams, roles, paradigms = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    check_thread_structure(events, teams)
    kinds = collections.Counter(roles[n] for n in enters(events, lambda n: paradigms[n] == 'OPENMP'))
    expect_equal(sorted(kinds), ['CRITICAL', 'CRITICAL_SBLOCK', 'PARALLEL', 'WRAPPER'], 'OpenMP region roles')


@scenario
def enable_bogus(args):
    """A bad STRATA_OPENMP_ENABLE stops before main with a message naming it."""
    p, experiments = run(args, 'enable-bogus', [os.path.join(args.bin_dir, 'omp_constructs_clang')],
                         {'STRATA_OPENMP_ENABLE': 'parallel,bariers'}, expect_status=1)
    assert 'STRATA_OPENMP_ENABLE' in p.stderr and 'bariers' in p.stderr, p.stderr
    assert 'total' not in p.stdout, 'main ran: ' + p.stdout
    # Nothing was measured: the directory made at start-up is gone, so the corrected run is not refused.
    expect_equal(experiments, [], 'experiment directories left')


@scenario
def hybrid_np2(args):
    """2 ranks x 2 threads: 4 CPU locations with MPI and OpenMP events in one experiment."""
    command = [args.mpirun, '-np', '2', '--oversubscribe', os.path.join(args.bin_dir, 'mpi_omp')]
    p, experiments = run(args, 'hybrid-np2', command, {'STRATA_ENABLE_TRACING': 'true'})
    expect_equal(len(experiments), 1, 'one experiment for both ranks')
    archive = os.path.join(experiments[0], 'traces.otf2')
    events, teams, roles, paradigms = read_thread_events(archive)
    expect_equal(sorted(events), ['rank 0/thread 0', 'rank 0/thread 1', 'rank 1/thread 0', 'rank 1/thread 1'],
                 'locations')
    check_thread_structure(events, teams)
    counts = kind_counts(events)
    for rank in range(2):
        master, worker = 'rank %d/thread 0' % rank, 'rank %d/thread 1' % rank
        expect_equal(counts[master]['fork'], 2, master + ': forks')
        expect_equal(counts[worker]['team_begin'], 2, worker + ': team begins')
        mpi = enters({master: events[master]}, lambda n: paradigms[n] == 'MPI')
        expect_equal(mpi.get('MPI_Allreduce'), 2, master + ': MPI_Allreduce')
        expect_equal(enters({worker: events[worker]}, lambda n: paradigms[n] == 'MPI'), collections.Counter(),
                     worker + ': MPI')
        # The team of a rank holds that rank's threads only.
        team = [e[2] for e in events[worker] if e[0] == 'team_begin'][0]
        expect_equal(teams[team], [master, worker], 'members of %r' % (team,))
    profile = reader.read_profile(os.path.join(experiments[0], 'profile.h5'))
    expect_equal(profile['locations'], 4, 'profile locations')
    expect_equal(sorted(profile['location_ranks']), [0, 0, 1, 1], 'ranks of the profile columns')


@scenario
def serial_phase(args):
    """A parallel phase, a serial one ten times as long, a parallel one again: the other
    thread's part of the first team ends at its join, before the serial phase (its
    idle time is no barrier time), and strata-analyze advises on the idle thread."""
    p, experiments = run(args, 'serial-phase', [os.path.join(args.bin_dir, 'omp_serial_phase')],
                         {'STRATA_ENABLE_TRACING': 'true'})
    expect_equal(len(experiments), 1, 'experiments')
    events, _, _, _ = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
    master, worker = events['thread 0'], events['thread 1']
    serial_begins = [t for kind, t, name in master if kind == 'E' and name == 'serial_phase']
    expect_equal(len(serial_begins), 1, 'serial_phase entered once')
    worker_end = [t for kind, t, _ in worker if kind == 'team_end']
    expect_equal(len(worker_end), 2, 'team ends of the other thread')
    join = [t for kind, t, _ in master if kind == 'join']
    expect_equal(worker_end, join, 'the other thread\'s team end at the join')
    assert worker_end[0] < serial_begins[0], 'the other thread\'s part ends before the serial phase'
    # The analysis: the other thread was idle for the serial phase (about 40 % of the
    # thread time, against the 20 % threshold).
    out = os.path.join(args.work_dir, 'serial-phase', 'analysis')
    a = subprocess.run([args.analyze, '--output', out, experiments[0]], capture_output=True, text=True,
                       timeout=240, stdin=subprocess.DEVNULL, env=clean_environment({}))
    assert a.returncode == 0, a.stdout + a.stderr
    with open(os.path.join(out, 'advice.json')) as f:
        advice = json.load(f)
    kinds = [finding['kind'] for finding in advice['findings']]
    assert 'idle_threads' in kinds, kinds
    idle = advice['findings'][kinds.index('idle_threads')]
    expect_equal(idle['ranks'], [0], 'the rank with the idle thread')


@scenario
def flushes_in_teams(args):
    """Trace buffers flushed inside teams, also while a thread's team begins or ends: the
    profile and the trace of the run agree on every call path of every thread
    (tests/analysis/independent_profile.py: the flush nested the same way in both)."""
    p, experiments = run(args, 'flushes-in-teams', [os.path.join(args.bin_dir, 'omp_many_regions'), '3000'],
                         {'STRATA_ENABLE_TRACING': 'true', 'STRATA_TOTAL_MEMORY': '128K',
                          'STRATA_PAGE_SIZE': '16K', 'OMP_NUM_THREADS': '2'})
    expect_equal(len(experiments), 1, 'experiments')
    assert 'flushed to disk' in p.stderr, p.stderr
    check = subprocess.run([sys.executable, os.path.join(HERE, '..', 'analysis', 'independent_profile.py'),
                            os.path.join(experiments[0], 'traces.otf2'),
                            os.path.join(experiments[0], 'profile.h5')],
                           capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    print(check.stdout)
    assert check.returncode == 0, 'the profile and the trace disagree:\n' + check.stdout + check.stderr
    assert 'STRATA_TRACE_BUFFER_FLUSH' in open(os.path.join(experiments[0], 'traces.def'), 'rb').read().decode(
        'latin-1'), 'no flush region defined'


def check_well_nested(events):
    """Every leave closes the innermost open region of its location, and nothing stays open."""
    for key, evs in events.items():
        stack = []
        for kind, time, name in evs:
            if kind == 'E':
                stack.append(name)
            elif kind == 'L':
                assert stack and stack[-1] == name, '%s: leave of %r at %d, open: %r' % (key, name, time, stack)
                stack.pop()
        expect_equal(stack, [], '%s: regions open at the end' % key)


@scenario
def lock_requests(args):
    """A failed omp_test_lock and a nest lock taken again by its owner wait for nothing:
    no region for either under OMPT (clang, and gcc moved to libomp), and nothing left open.
    On GCC's own libgomp every omp_set_*lock call is a region, as the program made it (its
    GOMP adapter wraps the calls); omp_test_lock is none.  The GCC build moved to libomp by
    the wrapper gets libgomp's kind of locks unless the user chose."""
    lines = markers(os.path.join(args.source_dir, 'programs', 'omp_lock_requests.c'))
    for compiler in ('gcc', 'gcc_on_llvm', 'clang'):
        program = os.path.join(args.bin_dir, 'omp_lock_requests_' + compiler)
        if not os.path.exists(program):
            continue
        p, experiments = run(args, 'lock-requests-' + compiler, [program], {'STRATA_ENABLE_TRACING': 'true'})
        kind = 'futex' if compiler == 'gcc_on_llvm' else '(unset)'
        expect_equal(p.stdout, 'threads 2 tested 0 lock kind %s\n' % kind, compiler + ': program output')
        assert 'warning' not in p.stderr, p.stderr
        expect_equal(len(experiments), 1, 'experiments')
        events, _, _, _ = read_thread_events(os.path.join(experiments[0], 'traces.otf2'))
        check_well_nested(events)
        locks = enters(events, lambda n: n.startswith(('omp_set_lock', 'omp_set_nest_lock')))
        expected = {'omp_set_lock @omp_lock_requests.c:%d' % lines['held']: 1,
                    'omp_set_nest_lock @omp_lock_requests.c:%d' % lines['nest']: 1}
        if compiler == 'gcc':
            expected['omp_set_nest_lock @omp_lock_requests.c:%d' % lines['again']] = 1
        expect_equal(dict(locks), expected, compiler + ': lock regions')
        # The nest lock's region is inside take_twice on thread 0.
        thread0 = [name for kind, _, name in events['thread 0'] if kind == 'E']
        nest_at = thread0.index('omp_set_nest_lock @omp_lock_requests.c:%d' % lines['nest'])
        expect_equal(thread0[nest_at - 1], 'take_twice', compiler + ': region entered before the nest lock')
    program = os.path.join(args.bin_dir, 'omp_lock_requests_gcc_on_llvm')
    p, _ = run(args, 'lock-requests-chosen', [program], {'KMP_LOCK_KIND': 'tas'})
    expect_equal(p.stdout, 'threads 2 tested 0 lock kind tas\n', 'gcc on libomp, the user\'s lock kind')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--source-dir', default=HERE)
    parser.add_argument('--mpirun', default='mpirun')
    parser.add_argument('--analyze', default='')
    args = parser.parse_args()
    SCENARIOS[args.scenario](args)
    print('%s: ok' % args.scenario)


if __name__ == '__main__':
    main()
