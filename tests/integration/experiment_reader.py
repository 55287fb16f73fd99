# SPDX-License-Identifier: BSD-3-Clause
"""Independent readers of a Strata experiment, for the integration tests.

Traces are read twice, by two programs that share no code with Strata:
the OTF2 Python bindings (Debian's python3-otf2, importable from /usr/bin/python3)
and the text output of otf2-print.  The profile is read from the text output
of h5dump.
"""
import collections
import re
import subprocess


# ---------------------------------------------------------------- OTF2 (bindings)

def location_key(location):
    """'thread 0' for a single process; 'rank 3/thread 0' in an MPI experiment."""
    group = location.group.name
    return location.name if group == 'process' else '%s/%s' % (group, location.name)


def is_program_region(region):
    """The program region (named after the program, the root on the thread that
    started the measurement): role ARTIFICIAL, paradigm USER."""
    return 'ARTIFICIAL' in str(region.region_role) and 'USER' in str(region.paradigm)


def strip_program_region(events, program_regions, key, name):
    """Checks that the events of one location begin with the Enter of its program
    region and end with its Leave, and returns them without those two (the
    scenarios check what the program did inside it).  Records the region's name
    in program_regions[key]."""
    assert events and events[0][0] == 'E' and events[0][2] == name, \
        '%s: the program region %r is not the first event: %r' % (key, name, events[:1])
    assert events[-1][0] == 'L' and events[-1][2] == name, \
        '%s: the program region %r is not the last event: %r' % (key, name, events[-1:])
    program_regions[key] = name
    return events[1:-1]


def read_otf2(archive, program_regions=None):
    """Returns {location key: [(kind, time, name)]} with kind 'E', 'L', 'P' (see location_key).
    The program region is checked and left out (strip_program_region); its name
    per location goes to `program_regions` when given.  Locations with no other
    event are left out."""
    import otf2  # only in Debian's interpreter
    events = collections.defaultdict(list)
    programs = {}
    with otf2.reader.open(archive) as trace:
        for location, event in trace.events:
            key = location_key(location)
            if isinstance(event, otf2.events.Enter) and is_program_region(event.region) and key not in events:
                programs[key] = event.region.name
            if isinstance(event, otf2.events.Enter):
                events[key].append(('E', event.time, event.region.name))
            elif isinstance(event, otf2.events.Leave):
                events[key].append(('L', event.time, event.region.name))
            elif isinstance(event, (otf2.events.ParameterInt, otf2.events.ParameterUnsignedInt)):
                events[key].append(('P', event.time, '%s=%s' % (event.parameter.name, event.value)))
            elif isinstance(event, otf2.events.ParameterString):
                events[key].append(('P', event.time, '%s=%s' % (event.parameter.name, event.string)))
    return without_program_regions(events, programs, program_regions)


def without_program_regions(events, programs, program_regions):
    """`events` without the program regions {location key: name} (strip_program_region)."""
    found = {} if program_regions is None else program_regions
    result = {}
    for key, ev in events.items():
        if key in programs:
            ev = strip_program_region(ev, found, key, programs[key])
        if ev:
            result[key] = ev
    return result


def region_flags(archive):
    """{region name: set of flag names} from the global definitions."""
    import otf2
    with otf2.reader.open(archive) as trace:
        return {r.name: str(r.region_flags) for r in trace.definitions.regions}


def check_nesting(events):
    """Asserts that enters and leaves nest and that time never goes backwards.
    Returns {region: number of enter/leave pairs}."""
    counts = collections.Counter()
    stack, last = [], 0
    for kind, time, name in events:
        assert time >= last, 'time goes backwards at %s %s (%d < %d)' % (kind, name, time, last)
        last = time
        if kind == 'E':
            stack.append((name, time))
        elif kind == 'L':
            assert stack, 'leave of %s with nothing open' % name
            top, begin = stack.pop()
            assert top == name, 'leave of %s while %s is innermost' % (name, top)
            assert time >= begin
            counts[name] += 1
    assert not stack, 'regions still open at the end: %s' % [s[0] for s in stack]
    return counts


# ---------------------------------------------------------------- OTF2 (otf2-print)

def otf2_print_program_regions(archive):
    """Names of the program regions (see is_program_region) in otf2-print's definitions."""
    out = subprocess.run(['otf2-print', '-G', archive], check=True, capture_output=True, text=True).stdout
    return set(re.findall(r'^REGION\s+\d+\s+Name: "([^"]*)".*Role: ARTIFICIAL, Paradigm: USER,', out, re.M))


def otf2_print_counts(archive):
    """{(location, 'ENTER'|'LEAVE', region): count} from otf2-print's event listing,
    without the program region's enter and leave (see read_otf2), which are
    checked: once each, on one location, first and last."""
    programs = otf2_print_program_regions(archive)
    out = subprocess.run(['otf2-print', archive], check=True, capture_output=True, text=True).stdout
    counts = collections.Counter()
    pattern = re.compile(r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)"')
    first, last = {}, {}
    for line in out.splitlines():
        m = pattern.match(line)
        if m:
            key = (int(m.group(2)), m.group(1), m.group(4))
            first.setdefault(key[0], key)
            last[key[0]] = key
            counts[key] += 1
    for name in programs:
        places = [key for key in counts if key[2] == name]
        for key in places:
            assert counts[key] == 1, 'otf2-print: %d %s of the program region %r' % (counts[key], key[1], name)
            assert first[key[0]] == (key[0], 'ENTER', name) and last[key[0]] == (key[0], 'LEAVE', name), \
                'otf2-print: the program region %r does not enclose location %d' % (name, key[0])
            del counts[key]
    return counts


# ---------------------------------------------------------------- profile (h5dump)

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z_0-9]*)')


def h5dump_dataset(path, dataset):
    """Values of a dataset in file order, as read by h5dump: a flat list of
    str / int / float tokens (compound fields and matrix elements in order)."""
    out = subprocess.run(['h5dump', '-w', '0', '-d', dataset, path], check=True,
                         capture_output=True, text=True).stdout
    start = out.index('DATA {') + len('DATA {')
    # The DATA block ends at its matching brace (attributes may follow it).
    depth, i, in_string = 1, start, False
    while depth > 0:
        c = out[i]
        if in_string:
            if c == '\\':
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        i += 1
    data = re.sub(r'\(\d+(?:,\d+)*\):', ' ', out[start:i - 1])
    values = []
    for text, number, word in _TOKEN.findall(data):
        if number:
            values.append(float(number) if any(c in number for c in '.eE') else int(number))
        elif word:
            values.append(word)
        else:
            values.append(text)  # a quoted string, possibly empty
    return values


def h5dump_fields(path, dataset):
    out = subprocess.run(['h5dump', '-H', '-d', dataset, path], check=True, capture_output=True,
                         text=True).stdout
    return re.findall(r'^\s+H5T_[A-Z0-9_]+(?:\s*\{[^}]*\})?\s+"(\w+)";', out, re.M) or \
        re.findall(r'"(\w+)";', out)


def read_profile(path):
    """Call paths and metrics of profile.h5 through h5dump:
    {'paths': ['outer/step/middle', ...], 'locations': n,
     'metrics': {name: [[value per location] per call path]}}"""
    strings = [v for v in h5dump_dataset(path, '/definitions/strings')]
    def records(dataset):
        fields = h5dump_fields(path, dataset)
        flat = h5dump_dataset(path, dataset)
        n = len(fields)
        return [dict(zip(fields, flat[i:i + n])) for i in range(0, len(flat), n)]
    regions = records('/definitions/regions')
    params = records('/definitions/parameters')
    callpaths = records('/definitions/callpaths')
    locations = records('/definitions/locations')
    n_loc = len(locations)

    def label(cp):
        if cp['parameter'] >= 0:
            p = params[cp['parameter']]
            value = strings[cp['string_value']] if cp['string_value'] >= 0 else cp['int_value']
            return '%s=%s' % (strings[p['name']], value)
        return strings[regions[cp['region']]['name']]

    def is_program(cp):  # see is_program_region
        if cp['parent'] >= 0 or cp['parameter'] >= 0:
            return False
        region = regions[cp['region']]
        return region['role'] == 'artificial' and region['paradigm'] == 'user'

    paths, program = [], {}
    for index, cp in enumerate(callpaths):
        parts, c = [], cp
        while True:
            parts.append(label(c))
            if c['parent'] < 0:
                break
            c = callpaths[c['parent']]
        if is_program(c):
            # Call paths below the program region are named as if it were not
            # there (the scenarios check what the program did inside it); its
            # own row is named '' and listed in 'program': {name: row}.
            parts.pop()
            if not parts:
                program[label(c)] = index
        paths.append('/'.join(reversed(parts)))
    metrics = {}
    for name in ('visits', 'time_inclusive', 'time_exclusive'):
        flat = h5dump_dataset(path, '/metrics/' + name)
        metrics[name] = [flat[i * n_loc:(i + 1) * n_loc] for i in range(len(callpaths))]
    return {'paths': paths, 'locations': n_loc, 'metrics': metrics, 'program': program,
            'location_ids': [l['id'] for l in locations], 'location_ranks': [l['rank'] for l in locations]}


def visits_by_path(profile, location=None):
    """{path: visits} summed over locations (or of one location); the program
    region's own row ('') is left out."""
    result = {}
    for path, row in zip(profile['paths'], profile['metrics']['visits']):
        if path:
            result[path] = row[location] if location is not None else sum(row)
    return result


# ---------------------------------------------------------------- counters (STRATA_METRIC_*)

def read_otf2_metrics(archive):
    """Counters in the trace, read with the OTF2 bindings.  Returns (members, events):
    members = [{'name', 'unit', 'type', 'mode'}] of the metric class the events use,
    events = {location key: [('E'|'L', time, region) or ('M', time, [values])]} in order."""
    import otf2
    events = collections.defaultdict(list)
    members = None
    programs = {}
    with otf2.reader.open(archive) as trace:
        for location, event in trace.events:
            key = location_key(location)
            if isinstance(event, otf2.events.Enter) and is_program_region(event.region) and key not in events:
                programs[key] = event.region.name
            if isinstance(event, otf2.events.Enter):
                events[key].append(('E', event.time, event.region.name))
            elif isinstance(event, otf2.events.Leave):
                events[key].append(('L', event.time, event.region.name))
            elif isinstance(event, otf2.events.Metric):
                if members is None:
                    members = [{'name': m.name, 'unit': m.unit, 'type': str(m.metric_type),
                                'mode': str(m.metric_mode)} for m in event.metric.members]
                events[key].append(('M', event.time, list(event.values)))
    # The program region's enter and leave, each with its metric event (see read_otf2).
    for key, name in programs.items():
        ev = events[key]
        assert len(ev) >= 4 and ev[0][:1] == ('E',) and ev[0][2] == name and ev[1][0] == 'M' and \
            ev[-2][0] == 'L' and ev[-2][2] == name and ev[-1][0] == 'M', \
            '%s: the program region %r does not enclose the events' % (key, name)
        events[key] = ev[2:-2]
    return members or [], {key: ev for key, ev in events.items() if ev}


def region_counter_deltas(events, region, member):
    """[value at leave - value at enter] of counter index `member` for every visit of
    `region` in one location's events (each region event followed by its metric event)."""
    deltas, open_values = [], []
    for i, (kind, _, name) in enumerate(events):
        if kind in 'EL' and name == region:
            kind_next, _, values = events[i + 1]
            assert kind_next == 'M', 'no metric event after %s %s' % (kind, name)
            if kind == 'E':
                open_values.append(values[member])
            else:
                deltas.append(values[member] - open_values.pop())
    return deltas


def profile_metric(path, name, n_callpaths, n_locations):
    """A metric matrix of profile.h5 by name, read with h5dump: [[value per location] per call path]."""
    flat = h5dump_dataset(path, '/metrics/' + name)
    assert len(flat) == n_callpaths * n_locations, (name, len(flat))
    return [flat[i * n_locations:(i + 1) * n_locations] for i in range(n_callpaths)]


def profile_parents(path):
    """The parent index of every call path (-1 for roots), from h5dump."""
    fields = h5dump_fields(path, '/definitions/callpaths')
    flat = h5dump_dataset(path, '/definitions/callpaths')
    n = len(fields)
    return [dict(zip(fields, flat[i:i + n]))['parent'] for i in range(0, len(flat), n)]


def check_metric_events(events, n_values):
    """Every enter and leave is followed by a metric event at the same time; every
    counter only grows."""
    last = None
    for i, (kind, time, payload) in enumerate(events):
        if kind in 'EL':
            assert i + 1 < len(events) and events[i + 1][0] == 'M' and events[i + 1][1] == time, \
                'no metric event at the time of %s %s' % (kind, payload)
        elif kind == 'M':
            assert len(payload) == n_values, payload
            if last is not None:
                for k, (before, now) in enumerate(zip(last, payload)):
                    assert now >= before, 'counter %d goes back: %d -> %d' % (k, before, now)
            last = payload


def check_inclusive_exclusive(profile_path, profile, names):
    """inclusive = exclusive + the children's inclusive, per call path and location, per counter."""
    parents = profile_parents(profile_path)
    n_cp, n_loc = len(profile['paths']), profile['locations']
    matrices = {}
    for name in names:
        incl = profile_metric(profile_path, name + '_inclusive', n_cp, n_loc)
        excl = profile_metric(profile_path, name + '_exclusive', n_cp, n_loc)
        children = [[0] * n_loc for _ in range(n_cp)]
        for c, parent in enumerate(parents):
            if parent >= 0:
                for l in range(n_loc):
                    children[parent][l] += incl[c][l]
        for c in range(n_cp):
            for l in range(n_loc):
                assert incl[c][l] == excl[c][l] + children[c][l], \
                    '%s of %s on location %d: inclusive %d, exclusive %d, children %d' % (
                        name, profile['paths'][c], l, incl[c][l], excl[c][l], children[c][l])
        matrices[name] = incl
    return matrices
