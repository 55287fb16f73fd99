#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""profile.cubex, the Cube report strata-analyze writes, read with Python's
standard library alone (tarfile, xml.etree, struct) as the CUBE4 format is
laid out (analysis/cube/cube_file.hpp, share/doc/using-with-scalasca-vampir-cube.md),
against profile.h5 (h5py) and waitstates.csv:

- the members: anchor.xml and, per metric, <id>.index ("CUBEX.INDEX", sparse)
  and <id>.data ("CUBEX.DATA", one row per listed cnode, one value per location);
- the call tree: every cnode's path (regions by name, parameters as
  name=value) is a call path of the profile and every call path is a cnode;
- the system tree: one location per profile location, named alike, in its
  rank's process, in the node of its host;
- values: time = time_exclusive and visits = visits at every call path and
  location; mpi = time of the call paths of MPI regions (paradigm 3);
  execution = time less Strata's own measurement (paradigm 6);
- the metric tree: a metric's value is never below the sum of its children's
  at any cnode and location (Cube shows the difference as the parent's own);
- with waitstates.csv: each wait-state metric summed per call path and rank
  equals the csv's rows (the metrics Scalasca names mpi_latesender, ...).

    independent_cube.py PROFILE_H5 ANALYSIS_DIR

Prints what it compared; exits 1 naming the first differences.
"""
import collections
import csv
import os
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET

from profile_tables import callpath_names, load, text  # this folder: Python puts the script's own first on the path

WAIT_METRICS = {'late_sender': 'mpi_latesender', 'late_receiver': 'mpi_latereceiver',
                'wait_at_barrier': 'mpi_barrier_wait', 'wait_at_nxn': 'mpi_wait_nxn',
                'late_broadcast': 'mpi_latebroadcast', 'early_reduce': 'mpi_earlyreduce',
                'wait_at_finalize': 'mpi_finalize_wait'}
MPI_PARADIGM, MEASUREMENT_PARADIGM = 3, 6

problems = []


def problem(message):
    if len(problems) < 20:
        print('DIFFERENT: ' + message)
    problems.append(message)


def close(a, b, relative=1e-12, absolute=1e-15):
    return abs(a - b) <= max(absolute, relative * max(abs(a), abs(b)))


def read_cube(path):
    with tarfile.open(path, 'r:') as archive:  # uncompressed, as Cube writes it
        members = {m.name: archive.extractfile(m).read() for m in archive.getmembers()}
    anchor = ET.fromstring(members['anchor.xml'])
    if anchor.tag != 'cube' or not anchor.get('version', '').startswith('4'):
        sys.exit('profile.cubex: anchor.xml is not a CUBE 4 anchor')

    metrics = {}  # uniq_name -> (id, dtype, parent uniq_name or None)

    def walk_metrics(element, parent):
        for m in element.findall('metric'):
            name = m.findtext('uniq_name')
            metrics[name] = (int(m.get('id')), m.findtext('dtype'), parent)
            walk_metrics(m, name)
    walk_metrics(anchor.find('metrics'), None)

    program = anchor.find('program')
    regions = {int(r.get('id')): r.findtext('name') for r in program.findall('region')}
    cnode_paths = {}  # id -> tuple of names

    todo = [(c, ()) for c in program.findall('cnode')]  # a loop: call trees of recursive code are deep
    while todo:
        c, above = todo.pop()
        p = c.find('parameter')
        own = ('%s=%s' % (p.get('parkey'), p.get('parvalue')) if p is not None
               else regions[int(c.get('calleeId'))])
        cnode_paths[int(c.get('id'))] = above + (own,)
        todo.extend((child, above + (own,)) for child in c.findall('cnode'))

    locations = {}  # id -> (rank, name)
    node_of_rank = {}  # rank -> the name of the system-tree node (host) it is in
    for node in anchor.iter('systemtreenode'):
        for group in node.findall('locationgroup'):
            rank = int(group.findtext('rank'))
            node_of_rank[rank] = node.findtext('name')
            for location in group.findall('location'):
                locations[int(location.get('Id'))] = (rank, location.findtext('name'))

    values = {}  # uniq_name -> {cnode: [value per location]}
    for name, (mid, dtype, _) in metrics.items():
        index, data = members['%d.index' % mid], members['%d.data' % mid]
        if index[:11] != b'CUBEX.INDEX' or data[:10] != b'CUBEX.DATA':
            sys.exit('profile.cubex: metric %s: no CUBEX.INDEX/CUBEX.DATA marker' % name)
        endian, version, layout = struct.unpack_from('<IHB', index, 11)
        if (endian, version, layout) != (1, 0, 1):
            sys.exit('profile.cubex: metric %s: index header %s, expected little-endian sparse (1, 0, 1)'
                     % (name, (endian, version, layout)))
        (count,) = struct.unpack_from('<I', index, 18)
        cnodes = struct.unpack_from('<%dI' % count, index, 22)
        width = len(locations)
        code = {'FLOAT': 'd', 'INTEGER': 'q'}[dtype]
        if len(data) != 10 + 8 * width * count:
            sys.exit('profile.cubex: metric %s: %d data bytes for %d rows of %d locations'
                     % (name, len(data), count, width))
        rows = struct.unpack_from('<%d%s' % (width * count, code), data, 10)
        values[name] = {c: rows[i * width:(i + 1) * width] for i, c in enumerate(cnodes)}
    return metrics, cnode_paths, locations, values, node_of_rank


def main():
    profile_path, reports = sys.argv[1], sys.argv[2]
    metrics, cnode_paths, locations, values, node_of_rank = read_cube(os.path.join(reports, 'profile.cubex'))
    tables = load(profile_path)
    names = callpath_names(tables)
    profile_locations = tables['locations']
    strings = tables['strings']
    callpaths, regions = tables['callpaths'], tables['regions']

    # Call tree and system tree.
    callpath_of = {path: c for c, path in enumerate(names)}
    if len(callpath_of) != len(names):
        sys.exit('profile.h5: two call paths of one name; this check cannot pair them')
    cube_of = {}
    for cnode, path in cnode_paths.items():
        if path in callpath_of:
            cube_of[callpath_of[path]] = cnode
        elif not path[-1].endswith('(in the trace, not in the profile)'):
            problem('cnode %d %s is no call path of the profile' % (cnode, '/'.join(path)))
    for c, path in enumerate(names):
        if c not in cube_of:
            problem('call path %s is no cnode' % '/'.join(path))
    column_of = {}
    for j in range(len(profile_locations)):
        key = (int(profile_locations['rank'][j]), text(strings[int(profile_locations['name'][j])]))
        column_of[key] = j
    if sorted(column_of) != sorted(locations.values()):
        problem('locations: cube %s, profile %s' % (sorted(locations.values()), sorted(column_of)))
    location_column = {lid: column_of.get(key) for lid, key in locations.items()}
    # Each rank in the node of its host (profile.h5's locations name it).
    if 'host' in profile_locations.dtype.names:
        for j in range(len(profile_locations)):
            rank = int(profile_locations['rank'][j])
            host = text(strings[int(profile_locations['host'][j])]) or 'node'
            if node_of_rank.get(rank) != host:
                problem('rank %d: in the node %r, its host is %r' % (rank, node_of_rank.get(rank), host))

    def cube_value(metric, cnode, lid):
        row = values[metric].get(cnode)
        return row[lid] if row is not None else 0

    # Values against the profile.
    compared = 0
    for c in range(len(names)):
        cnode = cube_of.get(c)
        if cnode is None:
            continue
        paradigm = int(regions['paradigm'][int(callpaths['region'][c])])
        for lid, j in location_column.items():
            if j is None:
                continue
            t = float(tables['time_exclusive'][c][j])
            expected = {'time': t, 'visits': int(tables['visits'][c][j]),
                        'mpi': t if paradigm == MPI_PARADIGM else 0.0,
                        'execution': 0.0 if paradigm == MEASUREMENT_PARADIGM else t}
            for metric, want in expected.items():
                got = cube_value(metric, cnode, lid)
                if not close(got, want):
                    problem('%s at %s, location %s: cube %r, profile %r'
                            % (metric, '/'.join(names[c]), locations[lid], got, want))
                compared += 1

    # The metric tree: a parent holds its children.
    children = collections.defaultdict(list)
    for name, (_, _, parent) in metrics.items():
        if parent is not None:
            children[parent].append(name)
    for parent, kids in children.items():
        for cnode in cnode_paths:
            for lid in locations:
                total = sum(cube_value(k, cnode, lid) for k in kids)
                if cube_value(parent, cnode, lid) < total - 1e-9 * max(1.0, abs(total)):
                    problem('%s below its children %s at %s, location %s'
                            % (parent, kids, '/'.join(cnode_paths[cnode]), locations[lid]))

    # The wait states against waitstates.csv (9 significant digits there).
    waits_compared = 0
    waitstates = os.path.join(reports, 'waitstates.csv')
    if os.path.exists(waitstates):
        expected = collections.Counter()
        with open(waitstates, newline='') as f:
            for row in csv.DictReader(f):
                expected[(WAIT_METRICS[row['metric']], row['callpath'], int(row['rank']))] += float(row['time_s'])
        got = collections.Counter()
        for csv_metric, metric in WAIT_METRICS.items():
            if metric not in metrics:
                problem('metric %s missing, although the trace was analysed' % metric)
                continue
            for cnode, row in values[metric].items():
                # The trace's call path names leave parameter nodes out.
                path = '/'.join(p for p in cnode_paths[cnode] if '=' not in p)
                for lid, value in enumerate(row):
                    if value:
                        got[(metric, path, locations[lid][0])] += value
        for key in set(expected) | set(got):
            if not close(expected[key], got[key], relative=2e-8, absolute=1e-9):
                problem('%s at %s on rank %d: cube %r, waitstates.csv %r' % (key + (got[key], expected[key])))
            waits_compared += 1
    print('cnodes compared: %d, values compared: %d, wait-state sums compared: %d, metrics: %s'
          % (len(cube_of), compared, waits_compared, ' '.join(sorted(metrics))))
    if problems:
        print('%d differences' % len(problems))
        sys.exit(1)


if __name__ == '__main__':
    main()
