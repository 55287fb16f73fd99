# SPDX-License-Identifier: BSD-3-Clause
"""One strata-preload scenario: programs built WITHOUT Strata run under the built
strata-preload (with mpirun for MPI), their experiments read by independent readers
(python3 otf2, otf2-print, h5dump through tests/integration/experiment_reader.py, and the
per-rank checks of tests/mpi/run_mpi_scenario.py); refusals checked for message and status.

    /usr/bin/python3 run_preload_scenario.py SCENARIO --preload EXE --bin-dir DIR --work-dir DIR
        [--mpirun MPIRUN] --library LIB... [--mpi-library LIB] --user-library LIB

Exit status 77 means the scenario does not apply here (CTest reports it as skipped).
"""
import argparse
import glob
import os
import re
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
sys.path.insert(0, os.path.join(HERE, '..', 'mpi'))
import experiment_reader as reader  # noqa: E402
import run_mpi_scenario as mpi_checks  # noqa: E402  (RING_C: the calls per rank of mpi_ring.c)

SKIP = 77
TRACING = {'STRATA_ENABLE_TRACING': 'true'}
REFUSED = 2
SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


def expect_equal(actual, expected, what):
    assert actual == expected, '%s: got %r, expected %r' % (what, actual, expected)


def expect_in(text, part, what):
    assert part in text, '%s: %r not in:\n%s' % (what, part, text)


class Skip(Exception):
    pass


class Run:
    """Runs a command in a fresh directory `work/<name>`, without STRATA_* and LD_PRELOAD of the caller."""

    def __init__(self, args, name, command, env=None, fresh=True):
        self.dir = os.path.join(args.work_dir, name)
        if fresh:
            shutil.rmtree(self.dir, ignore_errors=True)
            os.makedirs(self.dir)
        e = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_') and k != 'LD_PRELOAD'}
        e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'})
        e.update(env or {})
        p = subprocess.run(command, cwd=self.dir, env=e, capture_output=True, text=True, timeout=240)
        self.status, self.stdout, self.stderr = p.returncode, p.stdout, p.stderr
        self.experiments = sorted(glob.glob(os.path.join(self.dir, 'strata-*')))

    def explain(self):
        return 'status %d\nstdout:\n%s\nstderr:\n%s' % (self.status, self.stdout, self.stderr)


def preload(args, *rest):
    return [args.preload] + list(rest)


def program(args, name):
    return os.path.join(args.bin_dir, name)


def real(path):
    return os.path.realpath(path)


def ld_preload_of(line, resolve=True):
    """The library list of a dry-run line 'LD_PRELOAD=a:b command...', as real paths (or as written)."""
    match = re.match(r"^LD_PRELOAD=(\S+) ", line)
    assert match, 'no LD_PRELOAD in %r' % line
    return [real(p) if resolve else p for p in match.group(1).split(':')]


def expect_refused(run, parts, what):
    expect_equal(run.status, REFUSED, what + ': exit status (' + run.explain() + ')')
    for part in parts:
        expect_in(run.stderr, part, what + ': message')
    assert run.stderr.startswith('strata-preload: '), what + ': ' + run.stderr
    expect_equal(run.stdout, '', what + ': standard output (nothing may run)')
    expect_equal(run.experiments, [], what + ': experiment directories')


def expect_serial_experiment(run, what):
    """One experiment of one process, with strata.cfg and a profile.h5 that h5dump reads.  (The
    program records no region: it is built without Strata and uses none of the adapters.)"""
    expect_equal(run.status, 0, what + ': ' + run.explain())
    pid = int(re.search(r'^serial pid (\d+)$', run.stdout, re.M).group(1))
    expect_equal(len(run.experiments), 1, what + ': experiment directories')
    directory = run.experiments[0]
    assert directory.endswith('_%d' % pid), (directory, pid)
    for name in ('strata.cfg', 'profile.h5'):
        assert os.path.isfile(os.path.join(directory, name)), '%s: no %s in %s' % (what, name, directory)
    with open(os.path.join(directory, 'strata.cfg')) as cfg:
        assert re.search(r'^STRATA_ENABLE_PROFILING="?true"?$', cfg.read(), re.M), directory
    reader.read_profile(os.path.join(directory, 'profile.h5'))  # h5dump reads it
    expect_equal(run.stderr.count('experiment written to'), 1, what + ': reports')
    return directory


# ---------------------------------------------------------------- programs without MPI

@scenario
def serial(args):
    # By path, with arguments that a shell would split or expand: passed as they are.
    run = Run(args, 'serial', preload(args, program(args, 'serial_work'), '0', 'two words', '*', ''))
    expect_serial_experiment(run, 'serial')
    for line in ('arg 1 [0]', 'arg 2 [two words]', 'arg 3 [*]', 'arg 4 []'):
        expect_in(run.stdout, line, 'arguments')
    # By name, through PATH.
    run = Run(args, 'serial-path', preload(args, 'serial_work'),
              {'PATH': args.bin_dir + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin')})
    expect_serial_experiment(run, 'serial through PATH')


def traced_gcc_openmp(args, name, options):
    """The plain GCC OpenMP program under strata-preload `options`, traced: its otf2-print text."""
    program_path = program(args, 'plain_omp')
    with open(program_path, 'rb') as f:
        assert b'libgomp' in f.read(), 'the program is not linked with libgomp'
    run = Run(args, name, preload(args, '--verbose', *options, program_path),
              {'STRATA_ENABLE_TRACING': 'true', 'OMP_MAX_ACTIVE_LEVELS': '2'})
    expect_equal(run.status, 0, name + ': ' + run.explain())
    assert 'has no OMPT interface: its OpenMP constructs are not recorded' not in run.stderr, run.stderr
    expect_equal(len(run.experiments), 1, 'experiment directories')
    printed = subprocess.run(['otf2-print', os.path.join(run.experiments[0], 'traces.otf2')], check=True,
                             capture_output=True, text=True).stdout
    locations = set(re.findall(r'^(?:ENTER|THREAD_\w+)\s+(\d+)\s', printed, re.M))
    assert len(locations) in (3, 4), 'threads with events: %r' % locations  # see run_openmp_scenario.py
    expect_equal(len(re.findall(r'^THREAD_FORK ', printed, re.M)), 6, 'forks')
    expect_equal(len(re.findall(r'^THREAD_JOIN ', printed, re.M)), 6, 'joins')
    expect_equal(len(re.findall(r'^ENTER .*Region: "!\$omp critical @omp_constructs\.c:\d+"', printed, re.M)),
                 6, 'critical sections')
    return run, printed


@scenario
def openmp_gcc(args):
    """A GCC OpenMP program built without Strata keeps GCC's libgomp (no OMPT): strata-preload
    preloads libstrata-openmp-gomp, whose GOMP_* entry points record every thread's constructs."""
    run, printed = traced_gcc_openmp(args, 'openmp-gcc', [])
    expect_in(run.stderr, 'libstrata-openmp-gomp.so for libgomp', 'the adapter of libgomp')
    assert "LLVM's libomp" not in run.stderr, run.stderr
    # Each thread of a team waits in the barrier at the end of the parallel region (5 teams of
    # 2 threads, 2 nested teams of 2), measured as OPARI2 measures it.
    expect_equal(len(re.findall(r'^ENTER .*Region: "!\$omp implicit barrier @omp_constructs\.c:\d+"', printed,
                                re.M)) >= 14, True, 'implicit barriers at the ends of the parallel regions')


@scenario
def openmp_gcc_on_libomp(args):
    """--gcc-openmp-runtime=libomp: the same program on LLVM's libomp, measured through OMPT."""
    run, _ = traced_gcc_openmp(args, 'openmp-gcc-on-libomp', ['--gcc-openmp-runtime=libomp'])
    expect_in(run.stderr, "LLVM's libomp", 'the note on libomp')
    expect_in(run.stderr, "libstrata-openmp-gnu.so: libomp's locks are futex locks, as libgomp's",
              'the note on libgomp-like locks')


@scenario
def openmp_dlopen(args):
    """A program without OpenMP opens a GCC OpenMP plugin itself (RTLD_LOCAL, a relative path):
    `--openmp` preloads both adapters, libgomp's records the plugin's parallel regions, named
    by the plugin's source lines."""
    plugin = os.path.join(args.bin_dir, 'omp_plugin.so')
    run_dir = os.path.join(args.work_dir, 'openmp-dlopen')
    relative = os.path.relpath(plugin, run_dir)
    assert not relative.startswith('/'), relative
    run = Run(args, 'openmp-dlopen', preload(args, '--verbose', '--openmp', program(args, 'open_plugin'), relative),
              {'STRATA_ENABLE_TRACING': 'true', 'OMP_NUM_THREADS': '2'})
    expect_equal(run.status, 0, 'openmp-dlopen: ' + run.explain())
    expect_in(run.stderr, 'libstrata-openmp-gomp.so (--openmp)', 'libgomp\'s adapter beside the OMPT tool')
    expect_equal(len(run.experiments), 1, 'experiment directories')
    printed = subprocess.run(['otf2-print', os.path.join(run.experiments[0], 'traces.otf2')], check=True,
                             capture_output=True, text=True).stdout
    expect_equal(len(re.findall(r'^THREAD_FORK ', printed, re.M)), 5, 'forks of the plugin\'s parallel regions')
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'openmp', 'programs', 'omp_plugin.c')
    with open(source) as f:
        line = [n for n, text in enumerate(f, 1) if '@parallel' in text][0]
    named = re.findall(r'^ENTER .*Region: "!\$omp parallel @omp_plugin\.c:(\d+)"', printed, re.M)
    expect_equal(len(named), 10, 'parallel regions named by the plugin\'s source line: %r' % named[:3])
    assert all(int(n) in (line - 1, line) for n in named), named[:3]


@scenario
def serial_exit_status(args):
    # exec: the program's status is strata-preload's; the experiment is written anyway.
    run = Run(args, 'serial-exit-status', preload(args, program(args, 'serial_work'), '3'))
    expect_equal(run.status, 3, 'exit status')
    run.status = 0
    expect_serial_experiment(run, 'exit status 3')


@scenario
def user_preload_kept(args):
    run = Run(args, 'user-preload-kept', preload(args, '--verbose', program(args, 'serial_work')),
              {'LD_PRELOAD': args.user_library})
    expect_serial_experiment(run, 'with the user LD_PRELOAD')
    # Loaded in strata-preload (whose environment has it) and in the program.
    expect_equal(run.stderr.count('user preload library loaded in serial_work\n'), 1, 'the user library in the program')
    line = [l for l in run.stderr.splitlines() if l.startswith('strata-preload: LD_PRELOAD=')]
    expect_equal(len(line), 1, 'verbose LD_PRELOAD line')
    libraries = ld_preload_of(line[0][len('strata-preload: '):] + ' ')
    expect_equal(libraries, [real(l) for l in args.library] + [real(args.user_library)], 'LD_PRELOAD order')


@scenario
def children_not_measured(args):
    # The programs the measured program starts (here a shell and the program again) run with the
    # LD_PRELOAD strata-preload found: they write no experiment of their own into the same place.
    for name, env, seen in (('children', {}, 'unset'),
                            ('children-user-preload', {'LD_PRELOAD': args.user_library}, args.user_library)):
        run = Run(args, name, preload(args, program(args, 'serial_work'), 'spawn'),
                  dict(env, STRATA_EXPERIMENT_DIRECTORY='exp'))
        assert run.status == 0, run.explain()
        expect_in(run.stdout, 'child LD_PRELOAD=[%s]\n' % seen, 'what the child got')
        expect_equal(run.stdout.count('serial pid'), 2, 'the program and its child ran:\n' + run.stdout)
        expect_equal(sorted(os.listdir(run.dir)), ['exp'], 'experiments')
        expect_equal(run.stderr.count('experiment written to'), 1, 'one experiment:\n' + run.stderr)
        assert 'already exists' not in run.stderr, run.stderr
        assert 'STRATA_' not in run.stdout, run.stdout


@scenario
def already_linked(args):
    run = Run(args, 'already-linked', preload(args, '--verbose', program(args, 'linked_work')))
    expect_serial_experiment(run, 'program linked with Strata')
    expect_in(run.stderr, 'linked with Strata already', 'note')
    assert 'LD_PRELOAD=' not in run.stderr, run.stderr
    run = Run(args, 'already-linked-dry', preload(args, '--dry-run', program(args, 'linked_work')))
    expect_equal(run.stdout, program(args, 'linked_work') + '\n', 'dry run of a linked program')


@scenario
def dry_run(args):
    exe = program(args, 'serial_work')
    run = Run(args, 'dry-run', preload(args, '--dry-run', exe, 'a', 'b c'))
    expect_equal(run.status, 0, run.explain())
    lines = run.stdout.splitlines()
    expect_equal(len(lines), 1, 'one line')
    expect_equal(ld_preload_of(lines[0]), [real(l) for l in args.library], 'LD_PRELOAD of a program without MPI')
    assert lines[0].endswith(" %s a 'b c'" % exe), lines[0]
    expect_equal(run.experiments, [], 'nothing ran')
    assert 'serial pid' not in run.stdout
    # The user's LD_PRELOAD follows ours.
    run = Run(args, 'dry-run-user', preload(args, '--dry-run', exe), {'LD_PRELOAD': args.user_library})
    expect_equal(ld_preload_of(run.stdout), [real(l) for l in args.library] + [real(args.user_library)],
                 'LD_PRELOAD with the user library')
    # --mpi forces the MPI adapter on a program without MPI.
    if args.mpi_library:
        run = Run(args, 'dry-run-forced', preload(args, '--dry-run', '--mpi', exe))
        expect_equal(ld_preload_of(run.stdout), [real(args.mpi_library)] + [real(l) for l in args.library],
                     'LD_PRELOAD with --mpi')


@scenario
def dry_run_mpi(args):
    exe = program(args, 'plain_ring')
    run = Run(args, 'dry-run-mpi', preload(args, '--dry-run', '--verbose', exe))
    expect_equal(run.status, 0, run.explain())
    expect_equal(ld_preload_of(run.stdout), [real(args.mpi_library)] + [real(l) for l in args.library],
                 'LD_PRELOAD of the MPI program')
    assert re.search(r'^strata-preload: MPI: libstrata-mpi\.so for libmpi\.so', run.stderr, re.M), run.stderr
    run = Run(args, 'dry-run-no-mpi', preload(args, '--dry-run', '--no-mpi', exe))
    expect_equal(ld_preload_of(run.stdout), [real(l) for l in args.library], 'LD_PRELOAD with --no-mpi')


@scenario
def installed(args):
    # An install tree, moved after installing: strata-preload finds <prefix>/<libdir> from its own place.
    root = os.path.join(args.work_dir, 'installed')
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    p = subprocess.run([args.cmake, '--install', args.build_dir, '--prefix', os.path.join(root, 'prefix')],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, 'cmake --install: %s\n%s' % (p.stdout, p.stderr)
    moved = os.path.join(root, 'moved')
    os.rename(os.path.join(root, 'prefix'), moved)
    exe = os.path.join(moved, 'bin', 'strata-preload')
    run = Run(args, 'installed-dry', [exe, '--dry-run', program(args, 'serial_work')])
    expect_equal(run.status, 0, run.explain())
    libraries = ld_preload_of(run.stdout, resolve=False)
    expect_equal([os.path.basename(l) for l in libraries], [os.path.basename(l) for l in args.library],
                 'installed libraries')
    for library in libraries:
        assert real(library).startswith(real(moved) + os.sep) and os.path.isfile(library), library
    run = Run(args, 'installed-run', [exe, program(args, 'serial_work')])
    expect_serial_experiment(run, 'installed strata-preload')
    if args.mpi_library:
        run = Run(args, 'installed-dry-mpi', [exe, '--dry-run', program(args, 'plain_ring')])
        libraries = ld_preload_of(run.stdout, resolve=False)
        expect_equal(os.path.basename(libraries[0]), 'libstrata-mpi.so', 'installed MPI adapter')
        assert real(libraries[0]).startswith(real(moved) + os.sep), libraries[0]


# ---------------------------------------------------------------- refusals

@scenario
def missing_program(args):
    run = Run(args, 'missing-program', preload(args, './nosuch', 'x'))
    expect_refused(run, ["strata-preload: program './nosuch' not found"], 'missing program')
    run = Run(args, 'missing-in-path', preload(args, 'strata-no-such-program'))
    expect_refused(run, ["program 'strata-no-such-program' not found in PATH"], 'missing in PATH')
    run = Run(args, 'no-program', preload(args, '--verbose'))
    expect_refused(run, ['no program given'], 'no program')


@scenario
def not_executable(args):
    directory = os.path.join(args.work_dir, 'not-executable')
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    copy = os.path.join(directory, 'serial_copy')
    shutil.copyfile(program(args, 'serial_work'), copy)
    os.chmod(copy, 0o644)
    if os.access(copy, os.X_OK):  # root may execute anything with an x bit only; 0644 has none
        raise Skip('the file is executable for this user')
    run = Run(args, 'not-executable', preload(args, copy), fresh=False)
    expect_refused(run, ['is not an executable file'], 'not executable')


@scenario
def not_elf(args):
    directory = os.path.join(args.work_dir, 'not-elf')
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    path = os.path.join(directory, 'data')
    with open(path, 'w') as f:
        f.write('plain text, no #! line\n')
    os.chmod(path, 0o755)
    run = Run(args, 'not-elf', preload(args, path), fresh=False)
    expect_refused(run, ['is not an ELF program (not an ELF file)', "name the program's binary"], 'not ELF')


@scenario
def script_refused(args):
    directory = os.path.join(args.work_dir, 'script')
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    path = os.path.join(directory, 'run.sh')
    with open(path, 'w') as f:
        f.write('#!/bin/sh\ntouch ran\nexec %s\n' % program(args, 'serial_work'))
    os.chmod(path, 0o755)
    run = Run(args, 'script', preload(args, path), fresh=False)
    expect_refused(run, ['is a script (#!/bin/sh), not a binary', "exec strata-preload ./app"], 'script')
    assert not os.path.exists(os.path.join(directory, 'ran')), 'the script ran'


@scenario
def setuid_refused(args):
    # The loader ignores LD_PRELOAD when the set-user-ID bit changes the user (secure execution).
    directory = os.path.join(args.work_dir, 'setuid')
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    os.chmod(directory, 0o755)
    candidates = []
    if os.geteuid() == 0:
        for mode, what in ((stat.S_ISUID, 'setuid'), (stat.S_ISGID, 'setgid')):
            copy = os.path.join(directory, what + '_copy')
            shutil.copyfile(program(args, 'serial_work'), copy)
            os.chown(copy, 65534, 65534)
            os.chmod(copy, 0o755 | mode)
            candidates.append((copy, what))
    else:
        for path in ('/usr/bin/passwd', '/usr/bin/su', '/bin/su', '/usr/bin/mount'):
            info = os.stat(path) if os.path.exists(path) else None
            if info and info.st_mode & stat.S_ISUID and info.st_uid != os.getuid():
                candidates.append((path, 'setuid'))
                break
    if not candidates:
        raise Skip('no setuid program to try')
    for path, what in candidates:
        run = Run(args, 'setuid', preload(args, path), fresh=False)
        expect_refused(run, ["'%s' is %s: the loader ignores LD_PRELOAD" % (path, what)], what)


@scenario
def launcher_refused(args):
    run = Run(args, 'launcher', preload(args, 'mpirun', '-np', '2', program(args, 'serial_work')))
    expect_refused(run, ["'mpirun' is a launcher: put strata-preload after it",
                         "mpirun -np 4 strata-preload ./app"], 'launcher')


@scenario
def static_refused(args):
    exe = program(args, 'static_hello')
    for extra in ([], ['--mpi'], ['--dry-run']):
        run = Run(args, 'static', preload(args, *(extra + [exe])), TRACING)
        expect_refused(run, ["'%s' is statically linked" % exe, 'cannot be measured through LD_PRELOAD',
                             'rebuild it with `strata <compiler>`'], 'static program %s' % extra)


@scenario
def static_pie_refused(args):
    exe = program(args, 'static_pie_hello')
    run = Run(args, 'static-pie', preload(args, exe), TRACING)
    expect_refused(run, ["'%s' is statically linked" % exe, 'cannot be measured through LD_PRELOAD'], 'static-pie')


@scenario
def options(args):
    run = Run(args, 'options', preload(args, '--help'))
    expect_equal(run.status, 0, run.explain())
    for part in ('usage: strata-preload [options] <program>', '--mpi, --no-mpi', '--dry-run', '--verbose'):
        expect_in(run.stdout, part, '--help')
    run = Run(args, 'options', preload(args, '--version'))
    assert re.match(r'^strata-preload \(Strata\) \d+\.\d+\.\d+\n$', run.stdout), run.stdout
    run = Run(args, 'options', preload(args, '--frobnicate', program(args, 'serial_work')))
    expect_refused(run, ["unknown option '--frobnicate'"], 'unknown option')


# ---------------------------------------------------------------- MPI programs built without Strata

def mpi_ring(args, ranks, name='plain_ring', expected=mpi_checks.RING_C):
    exe = program(args, name)
    run = Run(args, '%s-np%d' % (name, ranks),
              [args.mpirun, '-np', str(ranks), '--oversubscribe'] + preload(args, exe), TRACING)
    assert run.status == 0, 'mpirun: ' + run.explain()
    pids = dict((int(r), int(p)) for r, p in re.findall(r'^rank (\d+) pid (\d+)$', run.stdout, re.M))
    expect_equal(sorted(pids), list(range(ranks)), 'ranks that reported their pid')
    # One experiment for all ranks, named by rank 0 (strata_mpi_adapter_linked found through LD_PRELOAD).
    expect_equal(len(run.experiments), 1, 'one experiment directory for all ranks: %s' % run.experiments)
    directory = run.experiments[0]
    assert directory.endswith('_%d' % pids[0]), (directory, pids)
    expect_equal(run.stderr.count('experiment written to'), 1, 'one report, from rank 0')
    assert 'strata-preload:' not in run.stderr, run.stderr
    # Every MPI call of every rank, exactly: python3 otf2, otf2-print, and profile.h5 (h5dump).
    for rank in range(ranks):
        mpi_checks.check_rank(rank, directory, expected)
    # The program's own time, between its MPI calls, is in its program region (the
    # root on every rank): without it a preloaded binary would show no computation.
    profile = reader.read_profile(os.path.join(directory, 'profile.h5'))
    expect_equal(list(profile['program']), [name], 'program region, named after the program')
    row = profile['program'][name]
    parents = reader.profile_parents(os.path.join(directory, 'profile.h5'))
    children = [i for i, parent in enumerate(parents) if parent == row]
    metrics = profile['metrics']
    for column in range(profile['locations']):
        expect_equal(metrics['visits'][row][column], 1, 'program region visits, column %d' % column)
        inclusive = metrics['time_inclusive'][row][column]
        below = sum(metrics['time_inclusive'][c][column] for c in children)
        assert inclusive > below > 0, ('program region', column, inclusive, below)
        # (h5dump prints 6 significant digits)
        assert abs(metrics['time_exclusive'][row][column] - (inclusive - below)) <= 1e-5 * inclusive, \
            ('program region exclusive time', column, metrics['time_exclusive'][row][column], inclusive, below)


@scenario
def mpi_ring_np2(args):
    mpi_ring(args, 2)


@scenario
def mpi_ring_np4(args):
    mpi_ring(args, 4)


@scenario
def fortran_ring_np2(args):
    mpi_ring(args, 2, 'plain_ring_f', mpi_checks.RING_FORTRAN)


@scenario
def fortran_f08_ring_np2(args):
    mpi_ring(args, 2, 'plain_ring_f08', mpi_checks.RING_FORTRAN)


@scenario
def serial_under_mpirun(args):
    # A program without MPI started by mpirun: each process writes its own experiment; a note says so once.
    run = Run(args, 'serial-mpirun',
              [args.mpirun, '-np', '2', '--oversubscribe'] + preload(args, program(args, 'serial_work')))
    assert run.status == 0, 'mpirun: ' + run.explain()
    expect_equal(len(run.experiments), 2, 'one experiment per process')
    expect_equal(run.stderr.count('does not use MPI: each of the 2 processes'), 1, 'the note, once')
    # With one STRATA_EXPERIMENT_DIRECTORY for all: <directory>-rank<r> each (not all but one stopping).
    named = Run(args, 'serial-mpirun-named',
                [args.mpirun, '-np', '2', '--oversubscribe'] + preload(args, program(args, 'serial_work')),
                {'STRATA_EXPERIMENT_DIRECTORY': 'exp'})
    assert named.status == 0, 'mpirun: ' + named.explain()
    expect_equal(sorted(os.listdir(named.dir)), ['exp-rank0', 'exp-rank1'], 'experiment directories')
    for rank in range(2):
        reader.read_profile(os.path.join(named.dir, 'exp-rank%d' % rank, 'profile.h5'))
    expect_equal(named.stderr.count('each writes its own experiment, exp-rank<r>'), 1, 'the runtime\'s note, once')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--preload', required=True)
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--mpirun', default='mpirun')
    parser.add_argument('--cmake', default='cmake')
    parser.add_argument('--build-dir', default='')
    parser.add_argument('--library', action='append', required=True,
                        help='the core libraries strata-preload must preload, in order')
    parser.add_argument('--mpi-library', default='')
    parser.add_argument('--user-library', required=True)
    args = parser.parse_args()
    args.bin_dir, args.work_dir = os.path.abspath(args.bin_dir), os.path.abspath(args.work_dir)
    os.makedirs(args.work_dir, exist_ok=True)
    try:
        SCENARIOS[args.scenario](args)
    except Skip as skip:
        print('%s: skipped: %s' % (args.scenario, skip))
        sys.exit(SKIP)
    print('%s: ok' % args.scenario)


if __name__ == '__main__':
    main()
