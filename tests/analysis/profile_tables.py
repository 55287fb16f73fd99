# SPDX-License-Identifier: BSD-3-Clause
"""profile.h5 read with h5py alone, as share/doc/profile-format.md describes
it: what the independent checks of this folder (independent_pop.py,
independent_profile.py, independent_calltree.py) share."""
import h5py


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def load(path):
    """The definition tables and the metric matrices the checks use, by name."""
    with h5py.File(path, 'r') as f:
        tables = {name: f['definitions/' + name][()]
                  for name in ('strings', 'regions', 'parameters', 'locations', 'callpaths')}
        for metric in ('visits', 'time_inclusive', 'time_exclusive'):
            tables[metric] = f['metrics/' + metric][()]
    return tables


def callpath_names(tables):
    """Each call path as a tuple of names from its root: regions by name,
    parameter nodes as name=value (how loadbalance.csv writes them, joined by /)."""
    callpaths, regions = tables['callpaths'], tables['regions']
    parameters, strings = tables['parameters'], tables['strings']
    names = {}

    def own(c):
        p = int(callpaths['parameter'][c])
        if p < 0:
            return text(regions['name_text'][int(callpaths['region'][c])])
        value = (text(strings[int(callpaths['string_value'][c])]) if int(parameters['type'][p]) == 1
                 else str(int(callpaths['int_value'][c])))
        return '%s=%s' % (text(parameters['name_text'][p]), value)

    for c in range(len(callpaths)):
        # Up to the first named ancestor (no recursion: call paths of recursive code are deep).
        chain = []
        while c >= 0 and c not in names:
            chain.append(c)
            c = int(callpaths['parent'][c])
        path = names[c] if c >= 0 else ()
        for link in reversed(chain):
            path = path + (own(link),)
            names[link] = path
    return [names[c] for c in range(len(callpaths))]
