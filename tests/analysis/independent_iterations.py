#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The iterations of an OTF2 trace (DLProf's rule, METRICS.md "Iterations",
share/doc/analysis-reports.md "Iterations"), computed without any Strata
code: the OTF2 Python bindings read the trace (their reader applies the
clock offsets), and the rule is applied here from scratch.  Used to check
strata-analyze's iterations.csv on real traces.

    independent_iterations.py TRACE_ANCHOR [ITERATIONS_CSV] [--key-region NAME]

The key region: NAME, else the first region defined with the phase flag.  On
each rank, the ends k_1 < ... < k_N of its instances on the rank's first CPU
thread (by location id) that enters it; B_n = the latest n-th end over the
ranks, aligned by index up to the smallest count.  Iterations [T0, B_1), ...,
[B_N, T1] (T0, T1: the first and last timestamps of the CPU threads); a rank's
own time runs from its (n-1)-th to its n-th end (T0 and T1 at the ends).
Outliers differ from the median duration by more than 20 % of it (with 3
iterations or more); those before the first regular one are warm-up; the
stable range is the longest run of regular iterations (the first on ties).

Prints one line per iteration; with ITERATIONS_CSV compares every column but
the GPU ones and exits 1 when one differs (times by more than 2 ticks: OTF2's
reader and strata-analyze round interpolated clock offsets differently; for
the same reason the slowest rank may be any rank within 4 ticks of the
largest time (two rank times, each the difference of two corrected times), and flags within 4 ticks of the outlier threshold may go
either way, the stable range with them).
"""
import collections
import csv
import statistics
import sys

import otf2


def rank_of(location):
    return int(location.group.name.split()[-1])


def read(anchor, key_name):
    with otf2.reader.open(anchor) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        key = None
        for region in trace.definitions.regions:
            if (region.name == key_name if key_name else (region.region_flags & otf2.RegionFlag.PHASE) == otf2.RegionFlag.PHASE):
                key = region.name
                break
        first, last = None, None
        ends = collections.defaultdict(lambda: collections.defaultdict(list))  # rank -> location id -> ends
        open_key = collections.Counter()
        for location, event in trace.events:
            if location.type != otf2.LocationType.CPU_THREAD:
                continue
            first = event.time if first is None else min(first, event.time)
            last = event.time if last is None else max(last, event.time)
            kind = type(event).__name__
            if kind in ('Enter', 'Leave') and event.region.name == key:
                if kind == 'Enter':
                    open_key[location] += 1
                elif open_key[location] > 0:
                    open_key[location] -= 1
                    ends[rank_of(location)][location._ref].append(event.time)
    # Each rank's first thread that calls the key region.
    per_rank = {r: by_location[min(by_location)] for r, by_location in ends.items()}
    return resolution, key, first, last, per_rank


def iterations(resolution, key, first, last, per_rank, ranks):
    counts = [len(per_rank.get(r, [])) for r in ranks]
    n = min(counts) if key is not None and counts else 0
    bounds = [max(per_rank[r][i] for r in ranks) for i in range(n)]
    edges = [first] + bounds + [last]
    rows = []
    for i in range(len(edges) - 1):
        own = {}
        for r in ranks:
            marks = [first] + per_rank.get(r, [])[:n] + [last]
            own[r] = marks[i + 1] - marks[i]
        slowest = min(r for r in ranks if own[r] == max(own.values()))
        rows.append({'iteration': i, 'begin_s': (edges[i] - first) / resolution,
                     'end_s': (edges[i + 1] - first) / resolution,
                     'duration_s': (edges[i + 1] - edges[i]) / resolution, 'slowest_rank': slowest,
                     'min_rank_s': min(own.values()) / resolution, 'max_rank_s': max(own.values()) / resolution,
                     'spread_s': (max(own.values()) - min(own.values())) / resolution,
                     **{'rank_%d_s' % r: own[r] / resolution for r in ranks}})
    # Outliers, warm-up, the stable range.
    durations = [row['duration_s'] for row in rows]
    median = statistics.median(durations)
    regular = [not (len(rows) >= 3 and abs(d - median) > 0.2 * median) for d in durations]
    # Within a few ticks of the outlier threshold, the rounding of the clock
    # correction (see the top) can decide either way.
    tick = 1.0 / resolution
    borderline = [len(rows) >= 3 and abs(abs(d - median) - 0.2 * median) <= 4 * tick for d in durations]
    first_regular = regular.index(True) if True in regular else len(rows)
    best, start = (0, 0), None
    for i, ok in enumerate(regular + [False]):
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    for i, row in enumerate(rows):
        row['flag'] = '' if regular[i] else ('warm-up' if i < first_regular else 'outlier')
        row['stable'] = 1 if best[0] <= i < best[1] else 0
    return rows, borderline


def main():
    args = sys.argv[1:]
    key_name = None
    if '--key-region' in args:
        at = args.index('--key-region')
        key_name = args[at + 1]
        del args[at:at + 2]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    resolution, key, first, last, per_rank = read(args[0], key_name)
    strata = None
    if len(args) == 2:
        with open(args[1], newline='') as f:
            strata = list(csv.DictReader(f))
    ranks = sorted({int(c[5:-2]) for c in strata[0] if c.startswith('rank_')}) if strata else sorted(per_rank)
    rows, borderline = iterations(resolution, key, first, last, per_rank, ranks)
    # A flag decided by rounding moves the warm-up and the stable range too: then only the flags of
    # the iterations away from the threshold are compared, and not the stable range.
    flags_settled = not any(borderline)
    if not flags_settled:
        print('iterations within a few ticks of the outlier threshold: %d (their flags and the stable range '
              'are not compared)' % sum(borderline))
    print('key region %s: %d iterations' % (key, len(rows)))
    differ = strata is not None and len(strata) != len(rows)
    if differ:
        print('iterations.csv has %d rows' % len(strata))
    tick = 2.0 / resolution
    for i, row in enumerate(rows):
        line = ' '.join('%s=%s' % (k, ('%.9f' % v) if isinstance(v, float) else v) for k, v in row.items())
        problems = []
        if strata is not None and i < len(strata):
            for column, value in row.items():
                theirs = strata[i][column]
                if isinstance(value, float):
                    same = abs(float(theirs) - value) <= tick + 1e-8 * abs(value)
                elif column == 'slowest_rank':  # ranks within a few ticks of each other: either
                    their_time = row.get('rank_%s_s' % theirs)
                    same = their_time is not None and abs(their_time - row['max_rank_s']) <= 2 * tick
                elif column == 'stable' and not flags_settled:
                    same = True
                elif column == 'flag' and (borderline[i] or not flags_settled and value and theirs):
                    # An outlier is warm-up when it comes before the first regular
                    # iteration, which a flag decided by rounding may have moved.
                    same = True
                else:
                    same = theirs == str(value)
                if not same:
                    problems.append('%s: iterations.csv %s' % (column, theirs))
        print(line + ''.join('\n    DIFFERENT ' + p for p in problems))
        differ |= bool(problems)
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
