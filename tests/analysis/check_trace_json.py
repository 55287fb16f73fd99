#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""trace.json against the rules of the Chrome trace / Perfetto format that
METRICS.md states ("Chrome trace / Perfetto export"), with Python's json alone:

  - a JSON object {"traceEvents": [...], "displayTimeUnit": "ns"};
  - complete events (ph "X") have name, ts, dur, pid, tid, with ts and dur
    numbers, dur not negative; the slices of one (pid, tid) nest (a slice
    that overlaps another without containing it breaks the viewers);
  - metadata (ph "M"): process_name / thread_name with args.name a string,
    process_sort_index / thread_sort_index with args.sort_index a number;
    every pid and (pid, tid) that has slices is named;
  - counters (ph "C"): args a non-empty object of numbers;
  - flows: each "s" has exactly one "f" with the same id, name and cat (a flow
    cannot fork), and the other way round; an "f" binds to its enclosing
    slice ("bp": "e") and does not come before its "s".

    check_trace_json.py TRACE_JSON [--min-slices N]

Prints what it checked; exits 1 with every problem found (at most 20 shown).
"""
import argparse
import collections
import json
import numbers
import sys

EPSILON = 1e-6  # microseconds: ts and dur are written with a few decimals


def check(path, min_slices):
    problems = []

    def problem(text):
        problems.append(text)

    with open(path) as f:
        document = json.load(f)
    if not isinstance(document, dict) or not isinstance(document.get('traceEvents'), list):
        return ['not an object with a traceEvents list']
    if document.get('displayTimeUnit') != 'ns':
        problem('displayTimeUnit is %r, not "ns"' % document.get('displayTimeUnit'))
    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, end, name)]
    named_processes, named_threads = set(), set()
    starts, finishes = {}, collections.defaultdict(list)
    counters = instants = 0
    for i, e in enumerate(document['traceEvents']):
        if not isinstance(e, dict) or 'ph' not in e:
            problem('event %d has no "ph": %r' % (i, e))
            continue
        ph = e['ph']
        if ph == 'X':
            missing = [k for k in ('name', 'ts', 'dur', 'pid', 'tid') if k not in e]
            if missing:
                problem('slice %d lacks %s: %r' % (i, missing, e))
                continue
            if not isinstance(e['ts'], numbers.Number) or not isinstance(e['dur'], numbers.Number):
                problem('slice %d: ts or dur not a number: %r' % (i, e))
                continue
            if e['dur'] < 0:
                problem('slice %d has a negative duration: %r' % (i, e))
            slices[(e['pid'], e['tid'])].append((e['ts'], e['ts'] + e['dur'], e['name']))
        elif ph == 'M':
            args = e.get('args', {})
            if e.get('name') in ('process_name', 'thread_name'):
                if not isinstance(args.get('name'), str):
                    problem('metadata %d: %s without a string args.name: %r' % (i, e.get('name'), e))
                elif e['name'] == 'process_name':
                    named_processes.add(e.get('pid'))
                else:
                    named_threads.add((e.get('pid'), e.get('tid')))
            elif e.get('name') in ('process_sort_index', 'thread_sort_index'):
                if not isinstance(args.get('sort_index'), numbers.Number):
                    problem('metadata %d: %s without a number args.sort_index: %r' % (i, e.get('name'), e))
        elif ph == 'C':
            counters += 1
            args = e.get('args')
            if not isinstance(args, dict) or not args or \
                    not all(isinstance(v, numbers.Number) for v in args.values()):
                problem('counter %d: args must be an object of numbers: %r' % (i, e))
        elif ph in ('s', 'f'):
            if not all(k in e for k in ('id', 'name', 'cat', 'ts', 'pid', 'tid')):
                problem('flow event %d lacks id, name, cat, ts, pid or tid: %r' % (i, e))
                continue
            key = (e['id'], e['name'], e['cat'])
            if ph == 's':
                if key in starts:
                    problem('flow %r starts twice' % (key,))
                starts[key] = e
            else:
                if e.get('bp') != 'e':
                    problem('flow end %d does not bind to its enclosing slice ("bp": "e"): %r' % (i, e))
                finishes[key].append(e)
        elif ph in ('i', 'I'):
            instants += 1
    # Flows: one end per start, never before it.
    for key, start in starts.items():
        ends = finishes.get(key, [])
        if len(ends) != 1:
            problem('flow %r has %d ends (one expected)' % (key, len(ends)))
        elif ends[0]['ts'] + EPSILON < start['ts']:
            problem('flow %r ends before it starts' % (key,))
    for key in finishes:
        if key not in starts:
            problem('flow %r ends without a start' % (key,))
    # Nesting, per track: sorted by start (longer first at equal starts), each slice inside
    # every open one or after it.
    for track, items in slices.items():
        items.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for begin, end, name in items:
            while open_ends and open_ends[-1] <= begin + EPSILON:
                open_ends.pop()
            if open_ends and end > open_ends[-1] + EPSILON:
                problem('track %r: slice %r [%s, %s] overlaps an enclosing one ending at %s' %
                        (track, name, begin, end, open_ends[-1]))
                break
            open_ends.append(end)
        if track[0] not in named_processes:
            problem('pid %r has slices but no process_name' % (track[0],))
        if track not in named_threads:
            problem('track %r has slices but no thread_name' % (track,))
    total = sum(len(v) for v in slices.values())
    if total < min_slices:
        problem('%d slices, fewer than the %d expected' % (total, min_slices))
    print('trace.json: %d slices on %d tracks, %d flows, %d counters, %d instants, %d processes named' %
          (total, len(slices), len(starts), counters, instants, len(named_processes)))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('trace_json')
    ap.add_argument('--min-slices', type=int, default=1)
    args = ap.parse_args()
    problems = check(args.trace_json, args.min_slices)
    for p in problems[:20]:
        print('FAILED: %s' % p)
    if problems:
        print('%d problem(s) in %s' % (len(problems), args.trace_json))
        sys.exit(1)


if __name__ == '__main__':
    main()
