#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The profile and the trace of one experiment must tell the same story:
the visits and inclusive times of every call path on every CPU thread in
profile.h5 (h5py) against those replayed from the trace's Enter, Leave and
Parameter events (OTF2 Python bindings).  Both substrates record the same
events of the measurement runtime, so this checks the profiling substrate,
the tracing substrate and the writers of both files against each other.

    independent_profile.py TRACE_ANCHOR PROFILE_H5

A parameter opens a node below the innermost region that closes with that
region, as profile-format.md describes.  A thread of an OpenMP team that
did not fork it continues, in the profile, the call path the forking thread
had open at the fork (ThreadFork), without visits: those nodes get the
thread's time from its ThreadTeamBegin to its ThreadTeamEnd.

The OTF2 reader corrects the trace's times with the location's clock
offsets (it cannot be told not to); the profile keeps the thread's own
clock.  Between two offsets the correction stretches every duration by the
same factor 1 + (o2 - o1)/(t2 - t1), so each location's factor is taken from
its longest call path and the others must follow it to 1e-7 and a tick per
visit (OTF2 rounds each corrected time to a tick).
Visits must be equal.  Prints the number of call paths compared; exits 1 and
names them when one differs.
"""
import collections
import sys

import otf2

from profile_tables import callpath_names, load  # this folder: Python puts the script's own first on the path


def from_trace(anchor):
    visits = collections.Counter()  # (location id, path) -> visits
    inclusive = collections.Counter()  # (location id, path) -> ticks
    with otf2.reader.open(anchor) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        stacks = collections.defaultdict(list)  # location -> [[path, enter time, parameter nodes opened]]
        forks = {}  # rank -> (forking location, the call path open there at its latest fork)
        team_paths = {}  # team communicator -> the call path open on its forking thread at the fork
        teams = collections.defaultdict(list)  # location -> [(inherited path, team begin)]
        for location, event in trace.events:
            if location.type != otf2.LocationType.CPU_THREAD:
                continue
            stack = stacks[location]
            kind = type(event).__name__
            rank = location.group.name
            if kind == 'ThreadFork':
                forks[rank] = (location, stack[-1][0] if stack else ())
            elif kind == 'ThreadTeamBegin':
                if rank in forks and forks[rank][0] == location:  # the forking thread: its path is open
                    team_paths[event.thread_team] = forks[rank][1]
                    teams[location].append(None)
                else:
                    inherited = team_paths.get(event.thread_team, ())
                    teams[location].append((inherited, event.time))
                    stack.append([inherited, None, []])  # the base of the team's regions: no visit
            elif kind == 'ThreadTeamEnd' and teams[location]:
                team = teams[location].pop()
                if team is None:
                    continue
                inherited, begin = team
                while stack and stack[-1][1] is not None:
                    stack.pop()  # left open in the team (the trace closes them before the team's end)
                if stack:
                    stack.pop()  # the base
                for depth in range(1, len(inherited) + 1):
                    inclusive[(location._ref, inherited[:depth])] += event.time - begin
            elif kind == 'Enter':
                path = (stack[-1][0] if stack else ()) + (event.region.name,)
                stack.append([path, event.time, []])
                visits[(location._ref, path)] += 1
            elif kind == 'Leave' and stack and stack[-1][1] is not None:
                path, begin, parameters = stack.pop()
                for parameter_path, parameter_begin in parameters:
                    inclusive[(location._ref, parameter_path)] += event.time - parameter_begin
                inclusive[(location._ref, path)] += event.time - begin
            elif kind.startswith('Parameter') and stack:
                frame = stack[-1]
                base = frame[2][-1][0] if frame[2] else frame[0]  # parameters nest in the order set
                node = base + ('%s=%s' % (event.parameter.name, event.value),)
                frame[2].append((node, event.time))
                visits[(location._ref, node)] += 1
    return resolution, visits, inclusive


def from_profile(path):
    tables = load(path)
    paths = callpath_names(tables)
    locations, visits, inclusive = tables['locations'], tables['visits'], tables['time_inclusive']
    v, t = {}, {}
    for j in range(len(locations)):
        if int(locations['type'][j]) != 0:
            continue
        where = int(locations['id'][j])
        for c in range(len(paths)):
            if visits[c, j] or inclusive[c, j]:
                v[(where, paths[c])] = int(visits[c, j])
                t[(where, paths[c])] = float(inclusive[c, j])
    return v, t


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    resolution, trace_visits, trace_ticks = from_trace(sys.argv[1])
    profile_visits, profile_seconds = from_profile(sys.argv[2])
    # Each location's stretch of the clock correction, from its longest call path.
    stretch = {}
    for (where, path), seconds in profile_seconds.items():
        if seconds > 0 and seconds >= stretch.get(where, (0.0, 1.0))[0]:
            stretch[where] = (seconds, trace_ticks.get((where, path), 0) / resolution / seconds)
    problems = []
    for key in sorted(set(trace_visits) | set(trace_ticks) | set(profile_visits), key=str):
        where, path = key
        label = 'location %d %s' % (where, '/'.join(path))
        if trace_visits.get(key, 0) != profile_visits.get(key, 0):
            problems.append('%s: %d visits in the trace, %d in the profile'
                            % (label, trace_visits.get(key, 0), profile_visits.get(key, 0)))
            continue
        seconds = trace_ticks.get(key, 0) / resolution
        expected = profile_seconds.get(key, 0.0) * stretch.get(where, (0.0, 1.0))[1]
        # OTF2 rounds each corrected time to a tick: up to a tick per visit.
        if abs(seconds - expected) > 1e-7 * expected + (trace_visits.get(key, 0) + 2.0) / resolution:
            problems.append('%s: %.9f s in the trace, %.9f s in the profile (%.9f s stretched as the clock)'
                            % (label, seconds, profile_seconds.get(key, 0.0), expected))
    print('call paths compared: %d (visits %d); clock stretch per location: %s'
          % (len(set(trace_visits) | set(profile_visits)), sum(profile_visits.values()),
             ', '.join('%.7f' % factor for _, factor in sorted(stretch.values()))))
    for problem in problems:
        print('DIFFERENT ' + problem)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
