#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# End to end: run the integration program 'nesting' with Strata for real, then
# check that strata-score reports the program's known structure
#   outer x1 { step x5 { middle x2 { inner x3 } }, io x1 }
# in its default table, per call path and as CSV, below the program region
# 'nesting' (the root, named after the program).
import argparse
import os
import shutil
import subprocess
import sys

EXPECTED_VISITS = {'inner': 30, 'middle': 10, 'step': 5, 'outer': 1, 'io': 1, 'nesting': 1}


def fail(message):
    sys.exit('score_nesting: ' + message)


def run(command, env=None):
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)
    if done.returncode != 0:
        fail('%s exited with %d\nstdout:\n%s\nstderr:\n%s' % (command, done.returncode, done.stdout, done.stderr))
    return done.stdout


def table(text):
    """The rows after the column header line: {name: {'paradigm', 'visits'}}, in order."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('paradigm  visits'))
    name_column = len(lines[start]) - len(lines[start].split('  ')[-1])  # where 'region' or 'call path' starts
    rows = []
    for line in lines[start + 1:]:
        if line.startswith('('):
            break
        fields = line.split()
        rows.append((line[name_column:], fields[0], int(fields[1])))  # the name keeps its indentation
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--program', required=True)
    parser.add_argument('--score', required=True)
    parser.add_argument('--work-dir', required=True)
    args = parser.parse_args()

    experiment = os.path.join(args.work_dir, 'nesting-experiment')
    shutil.rmtree(experiment, ignore_errors=True)
    os.makedirs(args.work_dir, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
    env['STRATA_EXPERIMENT_DIRECTORY'] = experiment
    run([args.program], env=env)

    # Default: one row per region, sorted by exclusive time.
    text = run([args.score, experiment])
    print(text)
    if 'Experiment:  ' + experiment + '\n' not in text:
        fail('header does not name the experiment')
    if 'Locations:   1 (ranks: 1, CPU threads: 1)' not in text:
        fail('expected one location')
    rows = table(text)
    visits = {name: count for name, _, count in rows}
    if visits != EXPECTED_VISITS:
        fail('visits per region: expected %r, got %r' % (EXPECTED_VISITS, visits))
    if any(paradigm != 'user' for _, paradigm, _ in rows):
        fail('every region comes from the user API (the program region too): %r' % rows)

    # Per call path: the tree with the parameter nodes set in 'outer'.
    tree = [(name, count) for name, _, count in table(run([args.score, experiment, '--by', 'callpath']))]
    expected_tree = [('nesting', 1), ('  outer', 1), ('    size=42', 1), ('      mode=fast', 1)]
    if tree[:4] != expected_tree:
        fail('call tree starts with %r, expected %r' % (tree[:4], expected_tree))
    for name, count in (('        step', 5), ('          middle', 10), ('            inner', 30), ('        io', 1)):
        if (name, count) not in tree:
            fail('call tree lacks %r with %d visits: %r' % (name, count, tree))

    # CSV: same visits, full call-path names.
    csv = run([args.score, experiment, '--csv', '--by', 'callpath']).splitlines()
    paths = {line.split(',')[0]: int(line.split(',')[3]) for line in csv[1:]}
    if paths.get('nesting/outer/size=42/mode=fast/step/middle/inner') != 30:
        fail('CSV call paths: %r' % paths)
    print('score_nesting: ok')


if __name__ == '__main__':
    main()
