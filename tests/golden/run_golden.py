#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden test: runs one scenario with STRATA_TIMER=steps (no real clock: each
reading on a thread is 1 us after the last), then compares digests of what it
wrote with expected/<scenario>.sha256:

  traces/*.evt          the OTF2 event files, byte for byte
  traces.otf2           the global definitions, as otf2-print -G prints them
  profile.h5            its contents, as h5dump prints them
  analysis/<report>     every report of strata-analyze (profile.cubex: its members)

Text is compared after the paths of this checkout, the host's name and the
wall-clock dates are replaced by <source>, <build>, <host> and <date>.  A
refactoring must leave every digest as it is; a change that alters output on
purpose updates them:

    run_golden.py SCENARIO ... --update     (the ctest command line, plus --update)

On a difference the normalised texts of this run are left in
<work-dir>/<scenario>/normalised/ to compare with those of an earlier build.

usage: run_golden.py SCENARIO --bin-dir D --nesting P --work-dir D --source-dir D --build-dir D
                     --analyze P --otf2-print P --h5dump P [--mpirun P] [--fixture P] [--update]
"""
import argparse
import hashlib
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))

# scenario: (program, ranks (0: no mpirun), environment); the program 'fixture'
# is strata-fixture-experiment, which writes a synthetic experiment with a
# profile (calltree-fixture) and one with a trace of GPU streams (gpu-fixture)
# for the analysis alone.
SCENARIOS = {
    'calltree-fixture': ('fixture', 0, {}),
    'gpu-fixture': ('fixture', 0, {}),
    'user-trace': ('nesting', 0, {'STRATA_ENABLE_TRACING': 'true'}),
    'mpi-trace': ('golden_mpi', 2, {'STRATA_ENABLE_TRACING': 'true'}),
    # Profiling alone: the single-substrate paths of the event core.
    'mpi-profile': ('golden_mpi', 2, {'STRATA_ENABLE_TRACING': 'false'}),
    'openmp-trace': ('golden_openmp', 0, {'STRATA_ENABLE_TRACING': 'true', 'OMP_NUM_THREADS': '2',
                                          'OMP_PROC_BIND': 'false'}),
    # The same program of GCC, on libgomp through its entry points.
    'openmp-gomp-trace': ('golden_openmp_gcc', 0, {'STRATA_ENABLE_TRACING': 'true', 'OMP_NUM_THREADS': '2',
                                                   'OMP_PROC_BIND': 'false'}),
}

# Scenarios whose threads define regions and strings concurrently: the
# definitions come in the order the threads happen to make them (a worker's
# location name before or after the master's next region), and so do the ids
# that event files and profile.h5 use.  For them the event files and
# profile.h5 are compared through what the analysis reports of them (by
# name: trace.json holds every slice), and the definitions without their ids,
# sorted.
THREADED = {'openmp-trace', 'openmp-gomp-trace'}



class Normaliser:
    """Replaces what differs between machines and runs but not between builds."""

    def __init__(self, args, experiment):
        self.paths = sorted({(os.path.realpath(experiment), '<experiment>'),
                             (os.path.abspath(experiment), '<experiment>'),
                             (os.path.realpath(args.build_dir), '<build>'),
                             (os.path.abspath(args.build_dir), '<build>'),
                             (os.path.realpath(args.source_dir), '<source>'),
                             (os.path.abspath(args.source_dir), '<source>')},
                            key=lambda p: -len(p[0]))
        host = re.escape(socket.gethostname())
        self.host = re.compile(r'(?<![A-Za-z0-9_.-])' + host + r'(?![A-Za-z0-9_-])')
        self.dates = [
            re.compile(r'\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?( ?[+-]\d{4}|Z)?'),
        ]

    def text(self, data):
        text = data.decode('utf-8', errors='surrogateescape')
        for path, name in self.paths:
            text = text.replace(path, name)
        text = self.host.sub('<host>', text)
        for pattern in self.dates:
            text = pattern.sub('<date>', text)
        return text.encode('utf-8', errors='surrogateescape')


def run(command, env, cwd, what):
    p = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit('%s failed (status %d): %s\nstdout:\n%s\nstderr:\n%s' %
                 (what, p.returncode, ' '.join(command), p.stdout.decode(errors='replace'),
                  p.stderr.decode(errors='replace')))
    return p.stdout


def measure(args, scenario, work):
    program, ranks, extra = SCENARIOS[scenario]
    if program == 'fixture':
        run([args.fixture, 'calltree-fixture', 'gpu-fixture'], None, work, 'strata-fixture-experiment')
        experiment = os.path.join(work, scenario)
        run([args.analyze, '--output', os.path.join(experiment, 'analysis'), scenario], None, work,
            'strata-analyze')
        return experiment
    binary = args.nesting if program == 'nesting' else os.path.join(args.bin_dir, program)
    env = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
    env.update({'STRATA_TIMER': 'steps', 'STRATA_EXPERIMENT_DIRECTORY': 'experiment',
                'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
                'OMPI_MCA_rmaps_base_oversubscribe': '1'})
    env.update(extra)
    command = [binary] if ranks == 0 else [args.mpirun, '-np', str(ranks), '--oversubscribe', binary]
    run(command, env, work, 'the measured run')
    experiment = os.path.join(work, 'experiment')
    run([args.analyze, '--output', os.path.join(experiment, 'analysis'), 'experiment'],
        {k: v for k, v in env.items() if not k.startswith('OMP_')}, work, 'strata-analyze')
    return experiment


def without_ids(definitions):
    """otf2-print -G's lines without the ids of definitions and references, sorted."""
    lines = []
    for line in definitions.decode('utf-8', errors='surrogateescape').splitlines():
        line = re.sub(r' <\d+>', '', line)
        line = re.sub(r'^(\S+)\s+\d+\s', r'\1 ', line)
        lines.append(line)
    return '\n'.join(sorted(lines)).encode('utf-8', errors='surrogateescape')


def artifacts(args, scenario, experiment):
    """(name, normalised bytes) of everything compared."""
    norm = Normaliser(args, experiment)
    threaded = scenario in THREADED
    out = []
    traces = os.path.join(experiment, 'traces')
    if os.path.isdir(traces):
        for name in sorted(os.listdir(traces)):
            if name.endswith('.evt') and not threaded:
                with open(os.path.join(traces, name), 'rb') as f:
                    out.append(('traces/' + name, f.read()))
        anchor = os.path.join(experiment, 'traces.otf2')
        definitions = norm.text(run([args.otf2_print, '-G', anchor], None, experiment, 'otf2-print'))
        if threaded:
            out.append(('traces.otf2 (otf2-print -G, without ids, sorted)', without_ids(definitions)))
        else:
            out.append(('traces.otf2 (otf2-print -G)', definitions))
    profile = os.path.join(experiment, 'profile.h5')
    if os.path.exists(profile) and not threaded:
        # One line per dataset (-w 0): h5dump wraps long lines where the texts' lengths put them.
        dump = run([args.h5dump, '-w', '0', 'profile.h5'], None, experiment, 'h5dump')
        out.append(('profile.h5 (h5dump)', norm.text(dump)))
    analysis = os.path.join(experiment, 'analysis')
    for name in sorted(os.listdir(analysis)):
        path = os.path.join(analysis, name)
        if name.endswith('.cubex'):
            with tarfile.open(path) as tar:
                for member in sorted(tar.getmembers(), key=lambda m: m.name):
                    data = tar.extractfile(member).read() if member.isfile() else b''
                    out.append(('analysis/%s/%s' % (name, member.name), norm.text(data)))
        else:
            with open(path, 'rb') as f:
                out.append(('analysis/' + name, norm.text(f.read())))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    for option in ('bin-dir', 'nesting', 'work-dir', 'source-dir', 'build-dir', 'analyze', 'otf2-print',
                   'h5dump'):
        parser.add_argument('--' + option, required=True)
    parser.add_argument('--mpirun', default='mpirun')
    parser.add_argument('--fixture', help='strata-fixture-experiment (the fixture scenarios)')
    parser.add_argument('--update', action='store_true', help='write the digests of this run as expected')
    args = parser.parse_args()

    work = os.path.join(args.work_dir, args.scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    experiment = measure(args, args.scenario, work)
    found = artifacts(args, args.scenario, experiment)
    digests = ['%s  %s\n' % (hashlib.sha256(data).hexdigest(), name) for name, data in found]
    expected_file = os.path.join(HERE, 'expected', args.scenario + '.sha256')
    if args.update:
        with open(expected_file, 'w') as f:
            f.write('# Digests of golden scenario %s (run_golden.py --update writes them).\n' % args.scenario)
            f.writelines(digests)
        print('golden %s: %d digests written to %s' % (args.scenario, len(digests), expected_file))
        return
    normalised = os.path.join(work, 'normalised')
    for name, data in found:
        path = os.path.join(normalised, name.split(' ')[0])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    if not os.path.exists(expected_file):
        sys.exit('golden %s: no expected digests (%s); run with --update to create them' %
                 (args.scenario, expected_file))
    with open(expected_file) as f:
        expected = {line[66:].rstrip('\n'): line[:64] for line in f if not line.startswith('#')}
    actual = {line[66:].rstrip('\n'): line[:64] for line in digests}
    problems = []
    for name in sorted(set(expected) | set(actual)):
        if name not in actual:
            problems.append('missing: %s (expected, not written by this run)' % name)
        elif name not in expected:
            problems.append('new: %s (written by this run, not expected)' % name)
        elif expected[name] != actual[name]:
            problems.append('differs: %s' % name)
    if problems:
        sys.exit('golden %s: %d of %d outputs are not as expected:\n  %s\n'
                 'This run\'s normalised outputs are in %s.  If the change is meant, update the digests '
                 'with this command line plus --update.' %
                 (args.scenario, len(problems), len(set(expected) | set(actual)), '\n  '.join(problems),
                  normalised))
    print('golden %s: all %d outputs as expected' % (args.scenario, len(actual)))


if __name__ == '__main__':
    main()
