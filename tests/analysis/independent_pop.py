#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The summary figures of a profile.h5 — wall time, run time, the time
classes and the POP efficiencies — and the load balance of every region and
call path,
computed without any Strata code: h5py reads the file as
share/doc/profile-format.md describes it, and the definitions of
share/doc/analysis-reports.md ("Definitions") are applied here from scratch.
Used to check strata-analyze's summary.csv and loadbalance.csv (every region and call-path row) on real
experiments.

    independent_pop.py PROFILE_H5 [ANALYSIS_DIR]

Prints each summary figure and the number of load-balance rows; with ANALYSIS_DIR
(where strata-analyze wrote its reports) also strata-analyze's figures beside
them, and exits 1 when one differs by more than the rounding the analysis
documents (each (call path, location) time is rounded to whole nanoseconds
before it is added up, and each rank's mean per thread as well), naming the
rows of loadbalance.csv that differ.
"""
import csv
import math
import os
import sys

import numpy

from profile_tables import callpath_names, load, text  # this folder: Python puts the script's own first on the path

# Region roles (profile-format.md) of the OpenMP regions whose time is synchronisation.
OPENMP_SYNC_ROLES = {6, 7, 19, 21, 22, 25, 26, 28}  # barrier, implicit_barrier, critical, atomic,
#                                                     ordered, task_create, task_wait, lock
PARADIGM = {0: 'unknown', 1: 'user', 2: 'compiler', 3: 'mpi', 4: 'openmp', 5: 'cuda', 6: 'measurement'}
MPI_START_AND_END = {'MPI_Init', 'MPI_Init_thread', 'MPI_Finalize'}
FILE_IO_ROLE = 29  # file_io: reads or writes files


def half_up(value):
    return numpy.floor(value + 0.5)


def figures(path):
    tables = load(path)
    regions, callpaths, locations = tables['regions'], tables['callpaths'], tables['locations']
    inclusive, exclusive = tables['time_inclusive'], tables['time_exclusive']
    # Whole nanoseconds per cell, as the analysis adds them up (halves up, as
    # every rounding here: numpy.round would take halves to even).
    inclusive = half_up(inclusive * 1e9)
    exclusive = half_up(exclusive * 1e9)
    names = [text(n) for n in regions['name_text']]
    parent = callpaths['parent']
    region_of = callpaths['region']

    def class_of(region):
        paradigm = PARADIGM.get(int(regions['paradigm'][region]), 'unknown')
        # File I/O: the role, or MPI-IO by name (profiles from before the role).
        if int(regions['role'][region]) == FILE_IO_ROLE or (paradigm == 'mpi' and names[region].startswith('MPI_File_')):
            return 'io'
        if paradigm in ('mpi', 'measurement'):
            return paradigm
        if paradigm == 'openmp':
            return 'openmp' if int(regions['role'][region]) in OPENMP_SYNC_ROLES else 'computation'
        if paradigm == 'cuda':
            name = names[region]
            waits = 'Synchronize' in name or (
                (name.startswith('cudaMemcpy') or name.startswith('cuMemcpy')) and 'Async' not in name)
            return 'gpu_wait' if waits else 'cuda_api'
        return 'computation'

    # A call path at or below MPI_Init/MPI_Init_thread/MPI_Finalize is set apart.
    start_or_end = numpy.zeros(len(callpaths), dtype=bool)
    for c in range(len(callpaths)):
        p = c
        while p >= 0:
            region = region_of[p]
            if names[region] in MPI_START_AND_END and PARADIGM.get(int(regions['paradigm'][region])) == 'mpi':
                start_or_end[c] = True
                break
            p = parent[p]
    classes = [('mpi_init_finalize' if start_or_end[c] else class_of(region_of[c])) for c in range(len(callpaths))]
    # The outermost MPI_Init/Finalize call paths: their inclusive time leaves the run time.
    outermost_start_or_end = [c for c in range(len(callpaths))
                              if start_or_end[c] and (parent[c] < 0 or not start_or_end[parent[c]])]
    roots = [c for c in range(len(callpaths)) if parent[c] < 0]

    cpu = [j for j in range(len(locations)) if int(locations['type'][j]) == 0]
    ranks = sorted({int(locations['rank'][j]) for j in cpu})
    out = {}
    for name in ('computation', 'mpi', 'io', 'openmp', 'gpu_wait', 'cuda_api', 'measurement', 'mpi_init_finalize'):
        rows = [c for c in range(len(callpaths)) if classes[c] == name]
        out['time.' + name] = exclusive[numpy.ix_(rows, cpu)].sum() if rows else 0.0
    out['time.program'] = sum(out['time.' + n] for n in ('computation', 'mpi', 'io', 'openmp', 'gpu_wait',
                                                          'cuda_api', 'measurement'))
    wall, run = {}, {}
    useful = {}
    for r in ranks:
        threads = [j for j in cpu if int(locations['rank'][j]) == r]
        wall[r] = max(inclusive[roots][:, j].sum() for j in threads)
        run[r] = max(inclusive[roots][:, j].sum() - inclusive[outermost_start_or_end][:, j].sum()
                     for j in threads)
        rows = [c for c in range(len(callpaths)) if classes[c] == 'computation']
        useful[r] = half_up(exclusive[numpy.ix_(rows, threads)].sum() / len(threads))
    out['run.wall_time'] = max(wall.values())
    out['run.run_time'] = max(run.values())
    out['run.ranks'] = len(ranks)
    mean = sum(useful.values()) / len(useful)
    out['pop.useful_time_mean'] = mean
    out['pop.useful_time_max'] = max(useful.values())
    out['pop.useful_time_min'] = min(useful.values())
    out['pop.load_balance'] = mean / max(useful.values()) if max(useful.values()) > 0 else 0.0
    out['pop.communication_efficiency'] = max(useful.values()) / out['run.run_time']
    out['pop.parallel_efficiency'] = mean / out['run.run_time']
    cells = len(callpaths) * len(cpu)
    # Back to seconds; ratios stay ratios.  The tolerance: half a nanosecond per cell added.
    summary = {k: (v if k in ('run.ranks',) or 'efficiency' in k or 'balance' in k else v / 1e9)
               for k, v in out.items()}

    # Load balance per region and per call path: x_p = the exclusive time of
    # the region's call paths (parameter nodes included), or of the call path,
    # summed over the rank's CPU threads / T_p, over the ranks taking part (a
    # thread visited it or spent time there).
    visits = numpy.asarray(tables['visits'])
    threads_of = {r: [j for j in cpu if int(locations['rank'][j]) == r] for r in ranks}

    def balance_row(rows, visit_rows):
        x = {}
        for r in ranks:
            time = exclusive[numpy.ix_(rows, threads_of[r])].sum()
            seen = visits[numpy.ix_(rows, threads_of[r])].sum()
            if time > 0 or seen > 0:
                x[r] = half_up(time / len(threads_of[r]))
        if not x:
            return None
        values = list(x.values())
        mean = sum(values) / len(values)
        most = max(values)
        return {
            'ranks': len(x), 'min_s': min(values) / 1e9, 'mean_s': mean / 1e9, 'max_s': most / 1e9,
            'stddev_s': math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) / 1e9,
            'rank_at_min': min(r for r in x if x[r] == min(values)),
            'rank_at_max': min(r for r in x if x[r] == most),
            'imbalance': (most - mean) / most if most > 0 else 0.0,
            'saved_s': (most - mean) / 1e9,
            'total_s': exclusive[numpy.ix_(rows, cpu)].sum() / 1e9,
            'visits': int(visits[numpy.ix_(visit_rows, cpu)].sum()) if visit_rows else 0}

    by_name = {}
    for c in range(len(callpaths)):
        by_name.setdefault(names[region_of[c]], []).append(c)
    balance = {}  # (level, name) -> [row, ...]
    for name, rows in by_name.items():
        row = balance_row(rows, [c for c in rows if callpaths['parameter'][c] < 0])
        if row is not None:
            balance.setdefault(('region', name), []).append(row)
    paths = callpath_names(tables)
    for c in range(len(callpaths)):
        row = balance_row([c], [c])
        if row is not None:
            balance.setdefault(('callpath', '/'.join(paths[c])), []).append(row)
    return summary, balance, cells


def strata_figures(directory):
    with open(os.path.join(directory, 'summary.csv'), newline='') as f:
        summary = {row['section'] + '.' + row['name']: row['value'] for row in csv.DictReader(f)}
    balance = {}  # (level, name) -> [row, ...]
    with open(os.path.join(directory, 'loadbalance.csv'), newline='') as f:
        for row in csv.DictReader(f):
            balance.setdefault((row['level'], row['name']), []).append(row)
    return summary, balance


def close(mine, theirs, cells, ratio):
    if ratio:
        return abs(theirs - mine) <= 1e-6 * max(1.0, abs(mine))
    return abs(theirs - mine) <= cells * 1e-9 + 1e-8 * abs(mine)


def compare_balance(independent, strata, cells):
    """What differs between the rows computed here and loadbalance.csv's, one line each."""
    problems = []
    for key in sorted(set(independent) | set(strata)):
        label = '%s %s' % key
        mine, theirs = independent.get(key, []), strata.get(key, [])
        if len(mine) != len(theirs):
            problems.append('%s: %d rows here, %d in loadbalance.csv' % (label, len(mine), len(theirs)))
            continue
        # Rows of the same name (two regions or call paths named alike): compared in order of their time.
        mine = sorted(mine, key=lambda r: (r['total_s'], r['visits']))
        theirs = sorted(theirs, key=lambda r: (float(r['total_s']), int(r['visits'])))
        for a, b in zip(mine, theirs):
            for column, value in a.items():
                other = float(b[column])
                if column in ('ranks', 'visits', 'rank_at_min', 'rank_at_max'):
                    same = other == value
                else:
                    same = close(value, other, cells, column == 'imbalance')
                if not same:
                    problems.append('%s: %s %s, loadbalance.csv %s' % (label, column, value, b[column]))
    return problems


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    independent, balance, cells = figures(sys.argv[1])
    strata, strata_balance = strata_figures(sys.argv[2]) if len(sys.argv) == 3 else (None, None)
    differ = False
    for name, value in independent.items():
        line = '%-32s %18.9f' % (name, value)
        if strata is not None:
            theirs = float(strata[name]) if name in strata else None
            same = theirs is not None and close(value, theirs, cells, 'efficiency' in name or 'balance' in name)
            differ |= not same
            line += '   strata-analyze %18s%s' % (strata.get(name, '(missing)'), '' if same else '   DIFFERENT')
        print(line)
    rows = sum(len(v) for v in balance.values())
    print('%-32s %18d' % ('loadbalance.rows', rows), end='')
    if strata_balance is not None:
        problems = compare_balance(balance, strata_balance, cells)
        print('   strata-analyze %18d%s' % (sum(len(v) for v in strata_balance.values()),
                                            '   DIFFERENT' if problems else ''))
        for problem in problems:
            print('  ' + problem)
        differ |= bool(problems)
    else:
        print()
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
