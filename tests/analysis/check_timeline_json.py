#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""timeline.json (report.html's timeline) against trace.json of the same
analysis, with Python's standard library only:

    check_timeline_json.py TIMELINE_JSON TRACE_JSON

- the form: every lane's shares have one value per bin, 0 to 100, and a bin's
  classes add up to at most 100 (each rounds to the nearest, so up to half a
  point per class more);
- each lane's busy time (the bins' shares times their width) against the time
  trace.json's outermost slices of that track cover: the same within a point
  of a bin per bin (rounding) where trace.json holds every slice;
- where the window is the whole run and no lane's detail was cut: the
  window's instances are trace.json's slices (pid = rank, tid = track, ts,
  dur) and its messages are trace.json's message flows.
Prints "timeline.json: ..." with what it compared; exits 1 on a difference.
"""
import collections
import json
import os
import sys


def fail(message):
    print('timeline.json: ' + message)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        timeline = json.load(f)
    with open(sys.argv[2]) as f:
        trace = json.load(f)['traceEvents']
    bins, length = timeline['bins'], timeline['length_us']
    width = length / bins
    lanes = timeline['lanes']
    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, dur)]
    for e in trace:
        if e['ph'] == 'X':
            slices[(e['pid'], e['tid'])].append((e['ts'], e['dur']))
    # trace.json may hold only some slices (--timeline-events): waitstates.json beside it says so.
    cut = []
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), 'waitstates.json')) as f:
            cut = json.load(f)['summary'].get('timeline_cut', [])
    except (OSError, ValueError, KeyError):
        pass
    compared = 0
    for lane in lanes:
        busy = [0] * bins
        for name, shares in lane['shares'].items():
            if name not in timeline['classes']:
                fail('lane %s: unknown class %r' % (lane['name'], name))
            if len(shares) != bins or any(not 0 <= v <= 100 for v in shares):
                fail('lane %s, %s: %d values, or one outside 0..100' % (lane['name'], name, len(shares)))
            for b, v in enumerate(shares):
                busy[b] += v
        limit = 100 + len(lane['shares']) // 2 + 1
        if any(v > limit for v in busy):
            fail('lane %s: a bin adds up to more than 100 %%: %d' % (lane['name'], max(busy)))
        # The outermost slices of the track: their union is the lane's busy time.
        track = sorted(slices.get((lane['rank'], lane['track']), []))
        covered, end = 0.0, None
        for ts, dur in track:
            if end is None or ts >= end:
                covered += dur
                end = ts + dur
            elif ts + dur > end:
                covered += ts + dur - end
                end = ts + dur
        from_bins = sum(busy) / 100.0 * width
        tolerance = width * (0.5 * len(lane['shares']) * bins / 100.0 + 1) + 1e-3
        if not cut and track and abs(from_bins - covered) > max(tolerance, 0.01 * covered):
            fail('lane rank %d track %d: busy %.3f us in the bins, %.3f us in trace.json'
                 % (lane['rank'], lane['track'], from_bins, covered))
        compared += 1
    window = timeline['window']
    detail = 'not compared (the window is %s)' % window['chosen']
    whole = not cut and window['chosen'] == 'the whole run' and all(l['detail_left_out'] == 0 for l in lanes)
    if whole:
        mine = sorted((lanes[s[0]]['rank'], lanes[s[0]]['track'], round(s[3], 3), round(s[4], 3))
                      for s in timeline['slices'])
        shown = {(l['rank'], l['track']) for l in lanes}
        theirs = sorted((p, t, round(ts, 3), round(dur, 3)) for (p, t), v in slices.items() if (p, t) in shown
                        for ts, dur in v)
        if mine != theirs:
            fail('the window\'s %d instances are not trace.json\'s %d slices' % (len(mine), len(theirs)))
        flows = sum(1 for e in trace if e['ph'] == 's' and e.get('cat') == 'message')
        if len(timeline['messages']) > flows:
            fail('%d messages in the window, %d flows in trace.json' % (len(timeline['messages']), flows))
        detail = '%d instances and %d messages against trace.json' % (len(mine), len(timeline['messages']))
    print('timeline.json: %d lanes compared with trace.json (busy time per lane%s); window: %s'
          % (compared, ', not compared: trace.json is cut' if cut else '', detail))


if __name__ == '__main__':
    main()
