# SPDX-License-Identifier: BSD-3-Clause
"""One NVTX scenario: a program built WITHOUT Strata against the NVTX v3 headers
(programs/), run with libstrata-cuda preloaded (no GPU, no CUDA driver needed);
its experiment read by independent readers: the trace with the OTF2 Python
bindings (Debian's python3-otf2), the profile with h5py, the iterations with
strata-analyze.  What is expected is share/doc/nvtx.md.

    /usr/bin/python3 run_nvtx_scenario.py SCENARIO --cuda-library LIB --bin-dir DIR --work-dir DIR
        [--analyze STRATA_ANALYZE]

Exit status 77 means the scenario does not apply here (CTest reports it as skipped).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import experiment_reader as reader  # noqa: E402  (check_nesting)

SKIP = 77
SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


def expect_equal(actual, expected, what):
    assert actual == expected, '%s:\n  got      %r\n  expected %r' % (what, actual, expected)


def expect_in(text, part, what):
    assert part in text, '%s: %r not in:\n%s' % (what, part, text)


class Run:
    """The program `name` in a fresh directory work/<scenario>, with libstrata-cuda preloaded after
    what the caller preloads (a sanitizer's runtime must come first), tracing on, and
    NVTX_INJECTION64_PATH set to the library unless `inject` is False."""

    def __init__(self, args, scenario_name, name, inject=True, env=None):
        self.dir = os.path.join(args.work_dir, scenario_name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.experiment = os.path.join(self.dir, 'experiment')
        e = {k: v for k, v in os.environ.items()
             if not k.startswith('STRATA_') and k != 'NVTX_INJECTION64_PATH'}
        preload = [p for p in os.environ.get('LD_PRELOAD', '').split(':') if p] + [args.cuda_library]
        e.update({'LD_PRELOAD': ':'.join(preload), 'STRATA_EXPERIMENT_DIRECTORY': self.experiment,
                  'STRATA_ENABLE_TRACING': 'true', 'STRATA_ENABLE_PROFILING': 'true'})
        if inject:
            e['NVTX_INJECTION64_PATH'] = args.cuda_library
        e.update(env or {})
        p = subprocess.run([os.path.join(args.bin_dir, name)], cwd=self.dir, env=e, capture_output=True,
                           text=True, timeout=100)
        self.stdout, self.stderr = p.stdout, p.stderr
        assert p.returncode == 0, '%s: status %d\nstdout:\n%s\nstderr:\n%s' % (
            name, p.returncode, p.stdout, p.stderr)
        assert os.path.isfile(os.path.join(self.experiment, 'traces.otf2')), 'no trace:\n' + p.stderr
        self.trace = read_trace(os.path.join(self.experiment, 'traces.otf2'))
        self.profile = read_profile(os.path.join(self.experiment, 'profile.h5'))


# ---------------------------------------------------------------- readers

def read_trace(archive):
    """{'locations': {name: (id, type)}, 'events': {name: [(kind, time, region)]},
    'regions': {name: (paradigm, role, flags)}}; the program region (role ARTIFICIAL)
    is left out of the events of the thread that has it."""
    import otf2  # only in Debian's interpreter
    result = {'locations': {}, 'events': {}, 'regions': {}}
    phase = otf2.RegionFlag.PHASE
    with otf2.reader.open(archive) as trace:
        for location in trace.definitions.locations:
            result['locations'][location.name] = (location._ref, str(location.type))
        for region in trace.definitions.regions:
            result['regions'][region.name] = (str(region.paradigm), str(region.region_role),
                                              (region.region_flags & phase) == phase)
        for location, event in trace.events:
            if isinstance(event, (otf2.events.Enter, otf2.events.Leave)):
                if 'ARTIFICIAL' in str(event.region.region_role):
                    continue
                kind = 'E' if isinstance(event, otf2.events.Enter) else 'L'
                result['events'].setdefault(location.name, []).append((kind, event.time, event.region.name))
    return result


def read_profile(path):
    """{'visits': {(location id, 'a/b/c'): visits}, 'flags': {region name: flags}, 'locations': {id: name}}
    with h5py; call paths are named below the program region."""
    import h5py
    with h5py.File(path, 'r') as f:
        strings = [s.decode('utf-8') if isinstance(s, bytes) else s for s in f['/definitions/strings'][:]]
        regions = f['/definitions/regions'][:]
        callpaths = f['/definitions/callpaths'][:]
        locations = f['/definitions/locations'][:]
        visits = f['/metrics/visits'][:]
    names = [strings[r['name']] for r in regions]
    program_role = 13  # artificial (profile-format.md)

    def path(index):
        parts = []
        while index >= 0:
            cp = callpaths[index]
            if not (cp['parent'] < 0 and regions[cp['region']]['role'] == program_role):
                parts.append(names[cp['region']])
            index = cp['parent']
        return '/'.join(reversed(parts))

    result = {'visits': {}, 'flags': {}, 'locations': {}}
    for i, region in enumerate(regions):
        result['flags'][names[i]] = int(region['flags'])
    for j, location in enumerate(locations):
        result['locations'][int(location['id'])] = strings[location['name']]
    for i in range(len(callpaths)):
        for j, location in enumerate(locations):
            if visits[i][j]:
                key = (int(location['id']), path(i))
                result['visits'][key] = result['visits'].get(key, 0) + int(visits[i][j])
    return result


def sequence(run, location):
    """The (kind, region) events of a location, after checking that they nest."""
    events = run.trace['events'].get(location, [])
    reader.check_nesting(events)
    return [(kind, name) for kind, _, name in events]


def pair(name, *inner):
    return [('E', name)] + [e for part in inner for e in part] + [('L', name)]


def expect_nvtx_regions(run, names):
    for name in names:
        assert name in run.trace['regions'], 'no region %r in %r' % (name, sorted(run.trace['regions']))
        paradigm, role, _ = run.trace['regions'][name]
        expect_equal((paradigm, role), ('Paradigm.USER', 'RegionRole.CODE'), 'paradigm and role of %r' % name)


def expect_marks_instantaneous(run, location, marks):
    events = run.trace['events'][location]
    for i, (kind, time, name) in enumerate(events):
        if kind == 'E' and name in marks:
            expect_equal(events[i + 1], ('L', time, name), 'mark %r: its leave right after its enter' % name)


def expect_visits(run, location, expected):
    """expected: {path: visits} on the location with that id; paths not named are not checked."""
    for path, visits in expected.items():
        expect_equal(run.profile['visits'].get((location, path)), visits,
                     'profile: visits of %r on %d' % (path, location))


# ---------------------------------------------------------------- scenarios

WIDE = 'wide \u00e9\u4e2d'
WIDE_ATTRIBUTES = 'wide attributes \U0001F600'


@scenario
def basic(args):
    run = Run(args, 'basic', 'nvtx_basic')
    expect_in(run.stdout, 'levels 0 1 1 0\n', 'what push and pop return')
    step = pair('outer',
                pair('inner', pair('tick')),
                pair(WIDE, pair('wide tick')),
                pair('attributes', pair('attributes')),
                pair(WIDE_ATTRIBUTES))
    expected = step * 3 + pair('kept') + pair('level 0', pair('level 1'))
    expect_equal(sequence(run, 'thread 0'), expected, 'events of thread 0')
    expect_marks_instantaneous(run, 'thread 0', {'tick', 'wide tick'})
    expect_nvtx_regions(run, ['outer', 'inner', 'tick', WIDE, 'wide tick', 'attributes', WIDE_ATTRIBUTES,
                              'kept'])
    for name in ('bad version', 'bad size', 'bad type', 'bad domain', '(null)'):
        assert not any(name in r for r in run.trace['regions']), 'region %r must not exist' % name
    for line in ('NVTX: 2 range pops without an open range', 'NVTX: 1 range ends of an id that was not open',
                 'NVTX: 15 calls without a usable message'):
        expect_in(run.stderr, line, 'the report of what was ignored')
    expect_visits(run, 0, {'outer': 3, 'outer/inner': 3, 'outer/inner/tick': 3, 'outer/' + WIDE: 3,
                           'outer/%s/wide tick' % WIDE: 3, 'outer/attributes/attributes': 3,
                           'outer/' + WIDE_ATTRIBUTES: 3, 'kept': 1, 'level 0/level 1': 1})


@scenario
def threads(args):
    run = Run(args, 'threads', 'nvtx_threads')
    expect_in(run.stdout, 'threads done', 'the program ran')
    locations = run.trace['locations']
    expect_equal(locations.get('NVTX ranges'), (0x10000, 'LocationType.CPU_THREAD'), 'the first lane')
    expect_equal(locations.get('NVTX ranges 2'), (0x10001, 'LocationType.CPU_THREAD'), 'the second lane')
    expect_equal(len([n for n in locations if n.startswith('NVTX ranges')]), 2, 'lanes: %r' % locations)
    expect_equal(sequence(run, 'NVTX ranges'),
                 pair('transfer') + pair('after') + pair('wide range') + pair('left open'), 'the first lane')
    expect_equal(sequence(run, 'NVTX ranges 2'), pair('worker range') + pair('ex range'), 'the second lane')
    expect_equal(sequence(run, 'thread 0'), pair('main work'), 'thread 0')
    expect_equal(sequence(run, 'thread 1'), pair('worker'), 'thread 1')
    # "transfer", started on thread 0, ends on thread 1 while "worker range" is open.
    events = {(loc, kind, name): time for loc in ('NVTX ranges', 'NVTX ranges 2', 'thread 1')
              for kind, time, name in run.trace['events'][loc]}
    assert events[('NVTX ranges 2', 'E', 'worker range')] < events[('NVTX ranges', 'L', 'transfer')] \
        < events[('NVTX ranges 2', 'L', 'worker range')], 'the ranges overlap: %r' % events
    assert events[('thread 1', 'E', 'worker')] < events[('NVTX ranges', 'L', 'transfer')] \
        < events[('thread 1', 'L', 'worker')], 'transfer ends inside worker: %r' % events
    expect_nvtx_regions(run, ['transfer', 'worker range', 'after', 'wide range', 'ex range', 'left open'])
    expect_in(run.stderr, 'NVTX: 1 range ends of an id that was not open', 'the second end of "ex range"')
    expect_in(run.stderr, 'NVTX: 1 start/end ranges still open at the end', '"left open"')
    expect_equal(run.profile['locations'].get(0x10000), 'NVTX ranges', 'profile: the first lane')
    expect_equal(run.profile['locations'].get(0x10001), 'NVTX ranges 2', 'profile: the second lane')
    expect_visits(run, 0x10000, {'transfer': 1, 'after': 1, 'wide range': 1, 'left open': 1})
    expect_visits(run, 0x10001, {'worker range': 1, 'ex range': 1})


DOMAIN_ITERATIONS = 5


def check_domains(run):
    expect_in(run.stdout, 'same domain 1', 'nvtxDomainCreateW(L"io") and nvtxDomainCreateA("io")')
    step = pair('step',
                pair('compute'),
                pair('compute [io]'),
                pair('read [io]', pair('flush [io]')),
                pair('checkpoint'))
    crossing = pair('outer io [io]', pair('crossing')) + pair('crossing')
    expect_equal(sequence(run, 'thread 0'), step * DOMAIN_ITERATIONS + crossing, 'events of thread 0')
    expect_marks_instantaneous(run, 'thread 0', {'flush [io]', 'checkpoint'})
    names = ['step', 'compute', 'compute [io]', 'read [io]', 'flush [io]', 'checkpoint', 'outer io [io]',
             'crossing']
    expect_nvtx_regions(run, names)
    expect_equal(sorted(n for n in names if run.trace['regions'][n][2]), ['step'],
                 'regions with the phase flag')
    expect_equal(run.profile['flags'].get('step'), 1, 'profile: the phase flag of step')
    expect_equal(run.profile['flags'].get('checkpoint'), 0, 'profile: a mark is no phase')
    n = DOMAIN_ITERATIONS
    expect_visits(run, 0, {'step': n, 'step/compute': n, 'step/compute [io]': n,
                           'step/read [io]/flush [io]': n, 'step/checkpoint': n, 'outer io [io]/crossing': 1,
                           'crossing': 1})
    expect_in(run.stderr, 'NVTX: 1 range pops ended a range that ranges of other domains', 'the crossed pop')


@scenario
def domains(args):
    check_domains(Run(args, 'domains', 'nvtx_domains'))


@scenario
def phase_analysis(args):
    if not args.analyze:
        print('strata-analyze is not built')
        sys.exit(SKIP)
    run = Run(args, 'phase-analysis', 'nvtx_domains')
    check_domains(run)
    p = subprocess.run([args.analyze, run.experiment], cwd=run.dir, capture_output=True, text=True,
                       timeout=100, env={k: v for k, v in os.environ.items() if not k.startswith('STRATA_')})
    assert p.returncode == 0, 'strata-analyze: status %d\n%s\n%s' % (p.returncode, p.stdout, p.stderr)
    with open(os.path.join(run.experiment, 'analysis', 'iterations.json')) as f:
        iterations = json.load(f)
    expect_equal(iterations['key_region'], 'step', 'the key region')
    expect_equal(iterations['key_source'], 'phase flag', 'where the key region comes from')
    expect_equal(iterations['instances'], DOMAIN_ITERATIONS, 'instances of the key region')
    expect_equal(iterations['iterations'], DOMAIN_ITERATIONS + 1, 'iterations (the steps and the tail)')
    expect_equal(len(iterations['rows']), DOMAIN_ITERATIONS + 1, 'rows of iterations.json')


def check_libraries(run):
    work = pair('library a') + pair('library b', pair('library b mark'))
    expect_equal(sequence(run, 'thread 0'), pair('program', work * 2), 'events of thread 0')
    expect_nvtx_regions(run, ['program', 'library a', 'library b', 'library b mark'])
    expect_visits(run, 0, {'program': 1, 'program/library a': 2, 'program/library b/library b mark': 2})


@scenario
def libraries(args):
    check_libraries(Run(args, 'libraries', 'nvtx_libraries'))


@scenario
def announce(args):
    """NVTX_INJECTION64_PATH unset: the CUDA adapter points it at itself before main."""
    check_libraries(Run(args, 'announce', 'nvtx_libraries', inject=False))


@scenario
def disabled(args):
    """STRATA_CUDA_ENABLE without nvtx: the injection is declined, nothing of NVTX is recorded."""
    run = Run(args, 'disabled', 'nvtx_libraries', env={'STRATA_CUDA_ENABLE': 'runtime'})
    expect_equal(sequence(run, 'thread 0'), [], 'events of thread 0')
    for name in ('program', 'library a', 'library b'):
        assert name not in run.trace['regions'], 'region %r recorded while NVTX is disabled' % name
    assert 'NVTX:' not in run.stderr, run.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--cuda-library', required=True)
    parser.add_argument('--bin-dir', required=True)
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--analyze')
    args = parser.parse_args()
    try:
        import otf2  # noqa: F401
        import h5py  # noqa: F401
    except ImportError as e:
        print('needs python3-otf2 and python3-h5py: %s' % e)
        sys.exit(SKIP)
    SCENARIOS[args.scenario](args)
    print('nvtx.%s: ok' % args.scenario)


if __name__ == '__main__':
    main()
