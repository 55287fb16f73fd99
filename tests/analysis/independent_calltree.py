#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""calltree.json against profile.h5, computed without any Strata code: h5py
reads every metric matrix as share/doc/profile-format.md describes it, and
the definitions of share/doc/analysis-reports.md ("Call tree") are applied
here from scratch.

    independent_calltree.py PROFILE_H5 CALLTREE_JSON

For every call path of the report: its name and region, the participants,
and per metric the value on each shown location (exactly: the report prints
"%.9g" of the same number, integers whole), the sum and the mean (integers
exactly, the others to 1e-8 relative: the report prints nine digits and
adds in another order), the
largest and smallest locations; that each call path's caller is in the
report and that the cap is filled; and the heatmap's
regions and per-rank times.  Prints "call paths compared: N" and exits 1
naming what differs.
"""
import json
import math
import sys

import h5py
import numpy

from profile_tables import callpath_names, text  # this folder: Python puts the script's own first on the path

CPU_THREAD, METRIC_LOCATION = 0, 2
MAX_LABELS = 64  # longer names have their middle left out (profile_aggregates.hpp)


def close(a, b):
    return a == b or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-8, abs_tol=1e-15))


def printed(value, integral):
    """The value as the report prints it, read back."""
    return int(value) if integral else float('%.9g' % value)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with h5py.File(sys.argv[1], 'r') as f:
        tables = {name: f['definitions/' + name][()]
                  for name in ('strings', 'regions', 'parameters', 'locations', 'callpaths')}
        matrices = {name: f['metrics/' + name][()] for name in f['metrics']}
    with open(sys.argv[2], encoding='utf-8') as f:
        report = json.load(f)
    problems = []
    locations = tables['locations']
    scope = [l for l in range(len(locations)) if int(locations['type'][l]) != METRIC_LOCATION]
    shown = scope[:report['caps']['locations']]
    if report['shown_locations'] != len(shown) or report['locations_total'] != len(scope):
        problems.append('locations: %d of %d shown, report %d of %d' % (
            len(shown), len(scope), report['shown_locations'], report['locations_total']))
    names = ['/'.join(n) for n in callpath_names(tables)]
    depth = [len(n) for n in callpath_names(tables)]
    regions = tables['regions']
    metrics = [m['name'] for m in report['metrics']]
    if sorted(metrics) != sorted(matrices) or metrics[:3] != ['time_inclusive', 'time_exclusive', 'visits']:
        problems.append('metrics: %s, the profile has %s' % (metrics, sorted(matrices)))
    integral = {name: numpy.issubdtype(matrices[name].dtype, numpy.integer) for name in matrices}
    visits, inclusive = matrices['visits'], matrices['time_inclusive']

    kept = set(cp['id'] for cp in report['callpaths'])
    for cp in report['callpaths']:
        c = cp['id']
        where = 'call path %d (%s)' % (c, cp['callpath'])
        if depth[c] <= MAX_LABELS and cp['callpath'] != names[c]:
            problems.append('%s: the profile names it %s' % (where, names[c]))
        if cp['region'] != text(regions['name_text'][int(tables['callpaths']['region'][c])]):
            problems.append('%s: region %s' % (where, cp['region']))
        parent = int(tables['callpaths']['parent'][c])
        if (cp['parent'] if cp['parent'] is not None else -1) != parent or (parent >= 0 and parent not in kept):
            problems.append('%s: parent %s, the profile %d (kept: %s)' % (where, cp['parent'], parent, parent in kept))
        part = [l for l in scope if visits[c, l] > 0 or inclusive[c, l] > 0]
        if cp['participants'] != len(part):
            problems.append('%s: %d participants, the profile %d' % (where, cp['participants'], len(part)))
        for m, name in enumerate(metrics):
            if name not in matrices:
                continue
            row, whole = matrices[name][c], integral[name]
            if cp['values'] is not None:
                expected = [printed(row[l], whole) for l in shown]
                if cp['values'][m] != expected:
                    problems.append('%s, %s: values %s, the profile %s' % (where, name, cp['values'][m], expected))
            total = int(sum(int(row[l]) for l in scope)) if whole else float(sum(float(row[l]) for l in scope))
            mean = None if not part else (sum(int(row[l]) for l in part) / len(part) if whole
                                          else sum(float(row[l]) for l in part) / len(part))
            if not close(cp['sum'][m], total) or not close(cp['mean'][m], mean):
                problems.append('%s, %s: sum %s mean %s, the profile %s, %s' % (where, name, cp['sum'][m],
                                                                              cp['mean'][m], total, mean))
            for key, sign in (('largest', -1), ('smallest', 1)):
                order = sorted(part, key=lambda l: (sign * (int(row[l]) if whole else float(row[l])), l))[:3]
                expected = [[l, printed(row[l], whole)] for l in order]
                if cp[key][m] != expected:
                    problems.append('%s, %s: %s %s, the profile %s' % (where, name, key, cp[key][m], expected))

    # Within the cap every call path is there; beyond it, the cap is filled.
    count = len(tables['callpaths'])
    if len(kept) != min(count, report['caps']['callpaths']) and len(kept) < count:
        problems.append('%d call paths of %d kept, the cap is %d' % (len(kept), count, report['caps']['callpaths']))

    # The heatmap: exclusive time per region and rank over CPU threads.
    exclusive = matrices['time_exclusive']
    threads = [l for l in range(len(locations)) if int(locations['type'][l]) == CPU_THREAD]
    ranks = sorted(set(int(locations['rank'][l]) for l in threads))[:report['caps']['heatmap_ranks']]
    per_region = {}
    for c in range(len(tables['callpaths'])):
        r = int(tables['callpaths']['region'][c])
        per_region.setdefault(r, numpy.zeros(len(locations)))
        per_region[r] += exclusive[c]
    heat = report['heatmap']
    if heat['ranks'] != ranks:
        problems.append('heatmap ranks %s, the profile %s' % (heat['ranks'], ranks))
    for row in heat['rows']:
        matches = [r for r in per_region if text(regions['name_text'][r]) == row['region']]
        if not matches:
            problems.append('heatmap: no region %s' % row['region'])
            continue
        values = per_region[matches[0]]
        total = float(sum(values[l] for l in threads))
        by_rank = [float(sum(values[l] for l in threads if int(locations['rank'][l]) == k)) for k in ranks]
        if not close(row['total_s'], total) or not all(close(a, b) for a, b in zip(row['ranks_s'], by_rank)):
            problems.append('heatmap %s: %s %s, the profile %s %s' % (row['region'], row['total_s'],
                                                                      row['ranks_s'], total, by_rank))
    shown_totals = [row['total_s'] for row in heat['rows']]
    if shown_totals != sorted(shown_totals, reverse=True):
        problems.append('heatmap rows not by exclusive time: %s' % shown_totals)

    print('calltree.json: %d of %d call paths, %d metrics, %d locations shown of %d' % (
        len(report['callpaths']), len(tables['callpaths']), len(metrics), len(shown), len(scope)))
    print('call paths compared: %d' % len(report['callpaths']))
    for p in problems[:40]:
        print('DIFFERS: ' + p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
