#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""End to end: each program is measured with tracing on 4 ranks and analysed
by strata-analyze on 2 analysis ranks.  Then scripts of this folder compute
figures again without any Strata code, and must agree:
independent_wait_states.py the wait states from the trace (OTF2 Python
bindings) with waitstates.csv, independent_iterations.py the iterations of
the phase region from the trace with iterations.csv, independent_pop.py the
time classes, wall and run time, POP efficiencies and load balance from
profile.h5 (h5py) with summary.csv and loadbalance.csv, and
independent_profile.py the visits and times of every call path replayed from
the trace with profile.h5 (the two substrates of the measurement), and
independent_cube.py profile.cubex (tar and XML by Python's standard library)
with profile.h5 and waitstates.csv, independent_calltree.py calltree.json
(every value, sum, mean and extreme, the heatmap) with profile.h5 (h5py);
check_trace_json.py trace.json against the format rules of METRICS.md,
check_timeline_json.py timeline.json (report.html's timeline) against
trace.json, independent_definitions.py the trace's
definitions against the conventions of Score-P's traces that Scalasca,
Vampir and Cube rely on.

    analyze_independently.py --program "[VAR=VALUE...] PROG [ARG...]" [--program ...]
                             --analyze STRATA_ANALYZE --mpirun MPIRUN --work-dir DIR

VAR=VALUE words before the program are set in its environment (e.g. a small
STRATA_TOTAL_MEMORY, so that trace buffers are flushed during the run); each
experiment is named after the program and its position on the command line.

All ranks run on this host.  Where they read one clock (CLOCK_MONOTONIC, or
a TSC the kernel keeps time with), every ClockOffset of the trace must be 0
with a deviation of 0 (otf2-print -C) and the trace free of clock-condition
violations, in messages, collectives, MPI_Init and MPI_Finalize: measuring an
offset there only adds the ping-pong's noise.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

from e2e_support import Checks  # this folder: Python puts the script's own first on the path

CHECKS = Checks('analyze_independently')
fail, environment, run = CHECKS.fail, CHECKS.environment, CHECKS.run
HERE = os.path.dirname(os.path.abspath(__file__))


def one_clock(settings):
    """Whether the ranks of a run on this host read one clock: Strata's CLOCK_MONOTONIC
    always; its TSC (the default, when the CPU's is invariant) where the kernel's clocksource is tsc."""
    if settings.get('STRATA_TIMER') == 'clock_gettime':
        return True
    try:
        with open('/sys/devices/system/clocksource/clocksource0/current_clocksource') as f:
            if f.read().strip() == 'tsc':
                return True
        with open('/proc/cpuinfo') as f:
            return 'nonstop_tsc' not in f.read().split()  # no invariant TSC: Strata uses CLOCK_MONOTONIC
    except OSError:
        return False


def check_clock_offsets(name, trace):
    """Every ClockOffset of the trace is exactly 0, with a deviation of 0."""
    printed = subprocess.run(['otf2-print', '-C', trace], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True, timeout=120).stdout
    offsets = [line.split() for line in printed.splitlines() if line.startswith('CLOCK_OFFSET')]
    if not offsets:
        fail('%s: otf2-print -C shows no ClockOffset:\n%s' % (name, printed))
    for words in offsets:
        if words[words.index('Offset:') + 1] not in ('+0,', '0,') or words[words.index('StdDev:') + 1] != '0':
            fail('%s: the ranks share one clock, but a ClockOffset corrects it: %s' % (name, ' '.join(words)))
    print('%s: %d ClockOffset records, all 0' % (name, len(offsets)))


def check_file_io(name, experiment):
    """programs/mpi_io.c: its MPI_File_* regions have OTF2's role FILE_IO in the trace, and the
    analysis counts them as file I/O (not MPI), with an io_share finding first."""
    import otf2
    with otf2.reader.open(os.path.join(experiment, 'traces.otf2')) as trace:
        roles = {r.name: str(r.region_role).split('.')[-1] for r in trace.definitions.regions
                 if r.name.startswith('MPI_File_')}
    if not roles or set(roles.values()) != {'FILE_IO'}:
        fail('%s: the MPI-IO regions should have the role FILE_IO: %r' % (name, roles))
    with open(os.path.join(experiment, 'analysis', 'summary.json')) as f:
        time = json.load(f)['time_s']
    if not time['io'] > time['mpi']:
        fail('%s: most of the MPI time of mpi_io is file I/O: %r' % (name, time))
    with open(os.path.join(experiment, 'analysis', 'advice.json')) as f:
        kinds = [finding['kind'] for finding in json.load(f)['findings']]
    # On a loaded machine the (little) MPI time may cross its threshold too: then its finding comes after.
    if not kinds or kinds[0] != 'io_share':
        fail('%s: the first finding should be about file I/O: %r' % (name, kinds))
    print('%s: MPI-IO is file I/O (%.6f s against %.6f s of MPI); findings %s' % (name, time['io'], time['mpi'], kinds))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--program', required=True, action='append')
    parser.add_argument('--analyze', required=True)
    parser.add_argument('--mpirun', required=True)
    parser.add_argument('--work-dir', required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    for number, program in enumerate(args.program):
        command = shlex.split(program)
        settings = {'STRATA_ENABLE_TRACING': 'true'}
        while command and '=' in command[0]:
            variable, value = command.pop(0).split('=', 1)
            settings[variable] = value
        name = '%d-%s' % (number, os.path.basename(command[0]))
        experiment = os.path.join(args.work_dir, name)
        settings['STRATA_EXPERIMENT_DIRECTORY'] = experiment
        run([args.mpirun, '-np', '4', '--oversubscribe'] + command, cwd=args.work_dir, env=environment(settings))
        run([args.mpirun, '-np', '2', '--oversubscribe', args.analyze, experiment], cwd=args.work_dir,
            env=environment())
        trace = os.path.join(experiment, 'traces.otf2')
        profile = os.path.join(experiment, 'profile.h5')
        reports = os.path.join(experiment, 'analysis')
        # Where the clocks violate the clock condition, strata-analyze moves the times
        # (the controlled logical clock), which a reader of the trace's own times cannot
        # follow: nothing may be left violated, and the wait states are compared with
        # an analysis of the times as written.
        waits = os.path.join(reports, 'waitstates.csv')
        with open(os.path.join(reports, 'waitstates.json')) as f:
            logical_clock = json.load(f)['summary']['logical_clock']
        if logical_clock['rounds'] > 0:
            print('%s: the logical clock moved times: %s' % (name, logical_clock))
            if logical_clock['clock_violations_left'] or logical_clock['collective_clock_violations_left']:
                fail('%s: the logical clock left clock-condition violations' % name)
            as_written = os.path.join(experiment, 'analysis-as-written')
            run([args.mpirun, '-np', '2', '--oversubscribe', args.analyze, '--no-logical-clock',
                 '--output', as_written, experiment], cwd=args.work_dir, env=environment())
            waits = os.path.join(as_written, 'waitstates.csv')
        # Each script, its files, and what its output must show it compared.
        for script, files, compared in (
                ('independent_wait_states.py', [trace, waits], 'strata-analyze'),
                ('independent_iterations.py', [trace, os.path.join(reports, 'iterations.csv')], 'iteration=0 '),
                ('independent_pop.py', [profile, reports], 'strata-analyze'),
                ('independent_profile.py', [trace, profile], 'call paths compared: '),
                ('independent_cube.py', [profile, reports], 'wait-state sums compared: '),
                ('independent_calltree.py', [profile, os.path.join(reports, 'calltree.json')],
                 'call paths compared: '),
                ('independent_definitions.py', [trace], 'regions checked: '),
                ('check_trace_json.py', [os.path.join(reports, 'trace.json')], 'trace.json: '),
                ('check_timeline_json.py', [os.path.join(reports, 'timeline.json'), os.path.join(reports, 'trace.json')],
                 'timeline.json: ')):
            # The same interpreter: it has the OTF2 bindings and h5py (CMake chose it for that).
            check = subprocess.run([sys.executable, os.path.join(HERE, script)] + files,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True, timeout=240)
            print('%s, %s:\n%s' % (name, script, check.stdout))
            if check.returncode != 0:
                fail('%s: %s found a difference (above)' % (name, script))
            if compared not in check.stdout or 'call paths compared: 0 ' in check.stdout:
                fail('%s: %s compared nothing' % (name, script))
            if script == 'independent_wait_states.py' and one_clock(settings) and \
                    any('%s 0\n' % v not in check.stdout.replace('   strata-analyze 0', '')
                        for v in ('clock_violations', 'collective_clock_violations', 'init_finalize_violations')):
                fail('%s: clock-condition violations in a trace of ranks sharing one clock' % name)
        if one_clock(settings):
            check_clock_offsets(name, trace)
        if os.path.basename(command[0]) == 'mpi_io':
            check_file_io(name, experiment)


if __name__ == '__main__':
    main()
