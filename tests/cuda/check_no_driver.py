#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs programs/no_driver.cu under Strata (built with `strata nvcc`, or plain
with `strata-preload` in front) on a machine without a CUDA driver: the
program finishes as it does alone, Strata says in one line that GPU activity
is not recorded, and the NVTX ranges are in the trace, nested in main (or the program region), with
no NVTX or nvcc helper functions recorded as regions (OTF2 Python bindings).

    check_no_driver.py --work DIR [--expect REASON] -- COMMAND...
"""
import argparse
import os
import shutil
import subprocess
import sys

import otf2

failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAILED: ') + message)
    if not condition:
        failures.append(message)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--expect', default='', help='the reason the one line must give')
    ap.add_argument('--expect-sampling', default='',
                    help='with STRATA_CUDA_SAMPLING_INTERVAL set: why the one line about GPU metrics says '
                         'they are not sampled')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    exp = os.path.join(args.work, 'exp')
    env = dict(os.environ, STRATA_ENABLE_TRACING='1', STRATA_EXPERIMENT_DIRECTORY=exp)
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd=args.work)
    print(run.stdout + run.stderr)
    check(run.returncode == 0, 'the program finished normally (exit %d)' % run.returncode)
    on_gpu = 'ran on a GPU' in run.stdout
    lines = [l for l in run.stderr.splitlines() if 'GPU activity not recorded' in l]
    if on_gpu:
        check(not lines, 'on a GPU: no line saying GPU activity is not recorded')
    else:
        check(len(lines) == 1 and lines[0].startswith('strata: CUDA: ') and args.expect in lines[0],
              'one line says why GPU activity is not recorded: %s' % lines)
    if args.expect_sampling:
        sampling = [l for l in run.stderr.splitlines() if 'GPU metrics not sampled' in l]
        check(len(sampling) == 1 and args.expect_sampling in sampling[0],
              'one line says why GPU metrics are not sampled: %s' % sampling)
    check('warning' not in run.stderr, 'no warning (the NVTX ranges nest)')
    path, names = [], []
    with otf2.reader.open(os.path.join(exp, 'traces.otf2')) as trace:
        for location, e in trace.events:
            if isinstance(e, otf2.events.Enter):
                names.append('/'.join(path + [e.region.name]))
                path.append(e.region.name)
            elif isinstance(e, otf2.events.Leave):
                check(path and path[-1] == e.region.name, 'Leave %s matches its Enter' % e.region.name)
                path.pop()
    # Inside main when the program is instrumented, else inside the program region.
    inside = 'main/' if any(n.endswith('/main') for n in names) else ''
    steps = [n for n in names if n.endswith('/' + inside + 'step')]
    check(len(steps) == 3, '3 NVTX "step" ranges inside %s: %s' % (inside or 'the program', steps))
    check(any(n.endswith('/' + inside + 'set-up') for n in names), 'the NVTX "set-up" range')
    helpers = [n for n in names if n.split('/')[-1].startswith(('nvtx', '__nv', '__cuda', '__sti'))]
    check(not helpers, 'no NVTX or nvcc helper function recorded: %s' % helpers)


if __name__ == '__main__':
    main()
    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)
