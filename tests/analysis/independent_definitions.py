#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The global definitions of a Strata trace, read with the OTF2 Python
bindings, against the conventions Scalasca, Vampir and Cube rely on in
Score-P's traces (share/doc/using-with-scalasca-vampir-cube.md):

- every MPI region (paradigm MPI) has the source file "MPI" (how Scalasca
  recognises MPI calls), a name and canonical name "MPI_...", and the role
  Score-P gives the well-known calls (POINT2POINT for sends and receives,
  BARRIER, COLL_ONE2ALL / ALL2ONE / ALL2ALL / OTHER for the collectives,
  FILE_IO for MPI-IO); no other region claims the file "MPI";
- the system tree: every location group is a PROCESS under a system-tree
  node with a "machine" above it (Score-P's machine > node; Scalasca's clock
  correction needs it), every node has a class and its parent chain ends at a root;
- one process per rank of MPI_COMM_WORLD: member i of MPI_COMM_WORLD is a
  CPU thread of the i-th process; every location belongs to a process;
- ClockProperties: a timer resolution and a trace length;
- a PARADIGM definition, named and classed as Score-P's, for MPI (PROCESS),
  OpenMP (THREAD_FORK_JOIN) and CUDA (ACCELERATOR) where regions use them.

    independent_definitions.py TRACE_ANCHOR

Prints what it checked; exits 1 naming what breaks a convention.
"""
import sys

import otf2

R = otf2.RegionRole
ROLE_BY_NAME = {}
for names, role in (
        (('MPI_Send', 'MPI_Bsend', 'MPI_Ssend', 'MPI_Rsend', 'MPI_Isend', 'MPI_Ibsend', 'MPI_Issend',
          'MPI_Irsend', 'MPI_Recv', 'MPI_Irecv', 'MPI_Sendrecv', 'MPI_Sendrecv_replace', 'MPI_Probe'),
         R.POINT2POINT),
        (('MPI_Barrier', 'MPI_Ibarrier'), R.BARRIER),
        (('MPI_Bcast', 'MPI_Scatter', 'MPI_Scatterv', 'MPI_Ibcast'), R.COLL_ONE2ALL),
        (('MPI_Reduce', 'MPI_Gather', 'MPI_Gatherv', 'MPI_Ireduce'), R.COLL_ALL2ONE),
        (('MPI_Allreduce', 'MPI_Allgather', 'MPI_Allgatherv', 'MPI_Alltoall', 'MPI_Alltoallv', 'MPI_Alltoallw',
          'MPI_Reduce_scatter', 'MPI_Reduce_scatter_block', 'MPI_Iallreduce'), R.COLL_ALL2ALL),
        (('MPI_Scan', 'MPI_Exscan'), R.COLL_OTHER),
        (('MPI_Init', 'MPI_Init_thread', 'MPI_Finalize', 'MPI_Comm_rank', 'MPI_Comm_size', 'MPI_Wait',
          'MPI_Waitall'), R.FUNCTION)):
    for name in names:
        ROLE_BY_NAME[name] = role

problems = []


def problem(message):
    print('CONVENTION BROKEN: ' + message)
    problems.append(message)


def main():
    with otf2.reader.open(sys.argv[1]) as trace:
        d = trace.definitions
        mpi_regions = 0
        for r in d.regions:
            if r.paradigm == otf2.Paradigm.MPI:
                mpi_regions += 1
                if r.source_file != 'MPI':
                    problem('MPI region %s: source file %r, not "MPI"' % (r.name, r.source_file))
                if not r.name.startswith('MPI_') or r.canonical_name != r.name:
                    problem('MPI region %s: canonical name %r' % (r.name, r.canonical_name))
                expected = R.FILE_IO if r.name.startswith('MPI_File_') else ROLE_BY_NAME.get(r.name)
                if expected is not None and r.region_role != expected:
                    problem('MPI region %s: role %s, Score-P gives %s' % (r.name, r.region_role, expected))
            elif r.source_file == 'MPI':
                problem('region %s (paradigm %s) claims the source file "MPI"' % (r.name, r.paradigm))

        nodes = list(d.system_tree_nodes)
        for n in nodes:
            if not n.class_name:
                problem('system-tree node %s has no class' % n.name)
            seen, up = set(), n
            while up is not None:
                if id(up) in seen:
                    problem('system-tree node %s: its parents form a cycle' % n.name)
                    break
                seen.add(id(up))
                up = up.parent
        groups = list(d.location_groups)
        for g in groups:
            if g.location_group_type != otf2.LocationGroupType.PROCESS:
                problem('location group %s is a %s, not a process' % (g.name, g.location_group_type))
            if g.system_tree_parent is None:
                problem('location group %s is under no system-tree node' % g.name)
                continue
            # Scalasca's clock correction looks for the machine above each process.
            classes, up = [], g.system_tree_parent
            while up is not None and len(classes) < 100:
                classes.append(up.class_name)
                up = up.parent
            if 'machine' not in classes:
                problem('location group %s: no system-tree node of class "machine" above it (%s)'
                        % (g.name, ' < '.join(classes)))
        locations = list(d.locations)
        for l in locations:
            if l.group is None:
                problem('location %s belongs to no group' % l.name)
        world = [c for c in d.comms if c.name == 'MPI_COMM_WORLD']
        ranks = 0
        if world:
            members = list(world[0].group.members)
            ranks = len(members)
            if len(groups) != ranks:
                problem('%d processes for %d ranks of MPI_COMM_WORLD' % (len(groups), ranks))
            for i, member in enumerate(members):
                if member.type != otf2.LocationType.CPU_THREAD:
                    problem('MPI_COMM_WORLD member %d is a %s' % (i, member.type))
                if i < len(groups) and member.group is not groups[i] and member.group.name != groups[i].name:
                    problem('MPI_COMM_WORLD member %d is in %s, not in the %d-th process %s'
                            % (i, member.group.name, i, groups[i].name))
        # As Score-P: each parallel paradigm the regions use is defined, named and classed.
        expected = {otf2.Paradigm.MPI: ('MPI', otf2.ParadigmClass.PROCESS),
                    otf2.Paradigm.OPENMP: ('OpenMP', otf2.ParadigmClass.THREAD_FORK_JOIN),
                    otf2.Paradigm.CUDA: ('CUDA', otf2.ParadigmClass.ACCELERATOR)}
        defined = {p.paradigm: (p.name, p.paradigm_class) for p in d.paradigms}
        paradigms = 0
        for used in {r.paradigm for r in d.regions if r.paradigm in expected}:
            paradigms += 1
            if defined.get(used) != expected[used]:
                problem('paradigm %s: defined as %s, Score-P defines %s' % (used, defined.get(used), expected[used]))
        clock = d.clock_properties
        if not clock.timer_resolution > 0 or not clock.trace_length > 0:
            problem('ClockProperties: resolution %s, trace length %s' % (clock.timer_resolution, clock.trace_length))
    print('regions checked: %d MPI regions, %d paradigms, %d system-tree nodes, %d processes, %d locations, %d ranks'
          % (mpi_regions, paradigms, len(nodes), len(groups), len(locations), ranks))
    if problems:
        sys.exit(1)


if __name__ == '__main__':
    main()
