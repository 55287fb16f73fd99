# SPDX-License-Identifier: BSD-3-Clause
"""One compiler-instrumentation scenario: build programs with the `strata` wrapper, run them,
and check the experiment with independent readers (python3 otf2, otf2-print, h5dump).

    /usr/bin/python3 run_compiler_scenario.py SCENARIO --strata EXE --work-dir DIR

Exit status 77 means "skipped" (a compiler the scenario needs is missing).
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, 'programs')
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import experiment_reader as reader  # noqa: E402

SKIP = 77
SCENARIOS = {}
SOURCE_LINES = True  # False when Strata was built without libdw (--no-source-lines)
GCC_PLUGIN = False  # True when Strata's GCC plugin is built (--gcc-plugin): gcc and g++ use it


def scenario(fn):
    SCENARIOS[fn.__name__.replace('_', '-')] = fn
    return fn


def needs_gcc_plugin(fn):
    """A scenario of Strata's GCC plugin: skipped when Strata was built without it."""
    def run(args):
        if not GCC_PLUGIN:
            print("Strata was built without its GCC plugin: skipped")
            return SKIP
        return fn(args)
    run.__name__ = fn.__name__
    return run


def needs_source_lines(fn):
    """A scenario that depends on DWARF files: skipped when Strata was built without libdw."""
    def run(args):
        if not SOURCE_LINES:
            print('Strata was built without libdw (no source files): skipped')
            return SKIP
        return fn(args)
    run.__name__ = fn.__name__
    return run


def expect_equal(actual, expected, what):
    assert actual == expected, '%s:\n  got      %r\n  expected %r' % (what, actual, expected)


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
    env.update(extra or {})
    return env


class Work:
    """A scenario's directory, the wrapper, and the programs built and run in it."""

    def __init__(self, args, name, options=()):
        self.strata = args.strata
        self.options = list(options)  # the wrapper's own options, e.g. --no-plugin
        self.uses_plugin = False
        self.dir = os.path.join(args.work_dir, name)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def build(self, *command):
        """Runs `strata <command>` in the work directory."""
        p = subprocess.run([self.strata] + self.options + list(command), cwd=self.dir, env=clean_env(),
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, 'strata %s failed (%d):\n%s%s' % (' '.join(command), p.returncode,
                                                                   p.stdout, p.stderr)
        if command[0] in ('gcc', 'g++') and GCC_PLUGIN and '--no-plugin' not in self.options:
            self.uses_plugin = True  # its functions carry file and line, with or without -g and libdw

    def mathlib(self, compiler='gcc', flags=('-g', '-O0')):
        self.build(compiler, *flags, '-shared', '-fPIC', os.path.join(PROGRAMS, 'mathlib.c'),
                   '-o', 'libmathlib.so')

    def program(self, source, output, compiler, flags=('-g', '-O0'), libs=('-L.', '-lmathlib')):
        self.build(compiler, *flags, '-I' + PROGRAMS, os.path.join(PROGRAMS, source), *libs,
                   '-Wl,-rpath,' + self.dir, '-o', output)

    def run(self, name, *argv, env=None, expect=0, experiment='exp'):
        self.experiment = self.path(experiment)
        e = clean_env({'STRATA_EXPERIMENT_DIRECTORY': self.experiment, 'STRATA_ENABLE_TRACING': 'true'})
        e.update(env or {})
        p = subprocess.run([self.path(name)] + list(argv), cwd=self.dir, env=e, capture_output=True,
                           text=True, timeout=300)
        self.stdout, self.stderr = p.stdout, p.stderr
        assert p.returncode == expect, 'exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s' % (
            p.returncode, expect, p.stdout, p.stderr)
        return self


    def expect_instrumentation(self, name, plugin):
        """`name` was instrumented by the GCC plugin (plugin=True) or -finstrument-functions:
        its code calls strata_plugin_enter or __cyg_profile_func_enter, never both."""
        symbols = subprocess.run(['nm', '-u', self.path(name)], capture_output=True, text=True, check=True).stdout
        calls = {s for s in ('strata_plugin_enter', '__cyg_profile_func_enter') if s in symbols}
        expect_equal(calls, {'strata_plugin_enter' if plugin else '__cyg_profile_func_enter'},
                     'instrumentation of ' + name)


# ---------------------------------------------------------------- reading the experiment

def trace_paths(events):
    """{call path: number of enters} from one location's events."""
    paths, stack = collections.Counter(), []
    for kind, _, name in events:
        if kind == 'E':
            stack.append(name)
            paths['/'.join(stack)] += 1
        elif kind == 'L':
            stack.pop()
    return dict(paths)


def otf2_regions(archive):
    """{name: (file, line, paradigm, role)} from the trace's definitions (python3 otf2)."""
    import otf2
    with otf2.reader.open(archive) as trace:
        return {r.name: (r.source_file, r.begin_line_number, str(r.paradigm), str(r.region_role))
                for r in trace.definitions.regions}


def profile_regions(profile):
    """{name: (file, line, paradigm, role)} from profile.h5's region table (h5dump)."""
    strings = reader.h5dump_dataset(profile, '/definitions/strings')
    fields = reader.h5dump_fields(profile, '/definitions/regions')
    flat = reader.h5dump_dataset(profile, '/definitions/regions')
    rows = [dict(zip(fields, flat[i:i + len(fields)])) for i in range(0, len(flat), len(fields))]
    return {strings[r['name']]: (strings[r['file']], r['line'], r['paradigm'], r['role'])
            for r in rows if r['name'] > 0}


def line_of(source, text):
    """The 1-based line of the first occurrence of `text` in a program's source."""
    with open(os.path.join(PROGRAMS, source)) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError('%r not in %s' % (text, source))


def check_experiment(work, paths, location='thread 0'):
    """The exact call paths and visits `paths` ({path: visits}) of one thread, in the profile
    (h5dump), in the trace (python3 otf2: paths, nesting, pairs) and in otf2-print's listing."""
    profile = reader.read_profile(os.path.join(work.experiment, 'profile.h5'))
    expect_equal(reader.visits_by_path(profile), paths, 'profile call paths and visits')
    archive = os.path.join(work.experiment, 'traces.otf2')
    events = reader.read_otf2(archive)
    expect_equal(sorted(events), [location], 'trace locations')
    pairs = reader.check_nesting(events[location])
    expect_equal(trace_paths(events[location]), paths, 'trace call paths')
    per_region = collections.Counter()
    for path, visits in paths.items():
        per_region[path.split('/')[-1]] += visits
    expect_equal(dict(pairs), dict(per_region), 'trace enter/leave pairs')
    counts = reader.otf2_print_counts(archive)
    printed = {(kind, region): n for (loc, kind, region), n in counts.items() if loc == 0}
    expect_equal(printed, {**{('ENTER', r): n for r, n in per_region.items()},
                           **{('LEAVE', r): n for r, n in per_region.items()}}, 'otf2-print ENTER/LEAVE')
    return profile


def check_sources(work, expected):
    """Each region of `expected` ({name: (source, line)}; source None = unknown) has that file
    and line, paradigm compiler and role function, in the trace and in the profile."""
    in_trace = otf2_regions(os.path.join(work.experiment, 'traces.otf2'))
    in_profile = profile_regions(os.path.join(work.experiment, 'profile.h5'))
    for name, (source, line) in expected.items():
        if not SOURCE_LINES and not work.uses_plugin:
            source, line = None, 0  # built without libdw: names only
        path = os.path.join(PROGRAMS, source) if source else ''
        expect_equal(in_trace.get(name), (path, line, 'Paradigm.COMPILER', 'RegionRole.FUNCTION'),
                     'trace definition of ' + name)
        expect_equal(in_profile.get(name), (path, line, 'compiler', 'function'),
                     'profile definition of ' + name)


# ---------------------------------------------------------------- the C program

C_PATHS = {
    'main': 1,
    'main/work': 3, 'main/work/leaf': 3, 'main/work/helper': 3,
    'main/work/lib_square': 3, 'main/work/lib_square/lib_scale': 3,
    'main/fact': 1, 'main/fact/fact': 1, 'main/fact/fact/fact': 1, 'main/fact/fact/fact/fact': 1,
}


def c_sources(debug=True):
    def at(source, text):
        return (source, line_of(source, text)) if debug else (None, 0)
    return {
        'main': at('calls.c', 'int main(void)'), 'work': at('calls.c', 'int work(int i)'),
        'leaf': at('calls.c', 'void leaf(void)'), 'helper': at('calls.c', 'static int helper'),
        'fact': at('calls.c', 'int fact(int n)'),
        'lib_square': at('mathlib.c', 'int lib_square'), 'lib_scale': at('mathlib.c', 'static int lib_scale'),
    }


def build_c(work, compiler='gcc', flags=('-g', '-O0')):
    work.mathlib(compiler, flags)
    work.program('calls.c', 'calls', compiler, flags)


@scenario
def c_program(args):
    work = Work(args, 'c-program')
    build_c(work)
    work.run('calls')
    expect_equal(work.stdout, 'sum=35\n', 'program output')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources())


@scenario
def c_program_clang(args):
    if shutil.which('clang') is None:
        print('clang not found: skipped')
        return SKIP
    work = Work(args, 'c-program-clang')
    build_c(work, 'clang')
    work.run('calls')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources())


@scenario
def c_program_without_debug_info(args):
    # -finstrument-functions: names from the symbol tables, file and line only from DWARF.
    work = Work(args, 'c-program-without-debug-info', options=['--no-plugin'])
    build_c(work, flags=('-O0',))
    work.expect_instrumentation('calls', plugin=False)
    work.run('calls')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources(debug=False))


@scenario
def c_program_no_plugin(args):
    # The fallback of compilers without the plugin, asked for with --no-plugin.
    work = Work(args, 'c-program-no-plugin', options=['--no-plugin'])
    build_c(work)
    work.expect_instrumentation('calls', plugin=False)
    work.expect_instrumentation('libmathlib.so', plugin=False)
    work.run('calls')
    expect_equal(work.stdout, 'sum=35\n', 'program output')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources())


@scenario
@needs_gcc_plugin
def c_program_plugin(args):
    work = Work(args, 'c-program-plugin')
    build_c(work)
    work.expect_instrumentation('calls', plugin=True)
    work.expect_instrumentation('libmathlib.so', plugin=True)
    work.run('calls')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources())


@scenario
@needs_gcc_plugin
def c_program_plugin_without_debug_info(args):
    # The plugin compiles each function's file and line in: known without -g.
    work = Work(args, 'c-program-plugin-without-debug-info')
    build_c(work, flags=('-O0',))
    work.expect_instrumentation('calls', plugin=True)
    work.run('calls')
    check_experiment(work, C_PATHS)
    check_sources(work, c_sources())


@scenario
def c_program_profile_only(args):
    work = Work(args, 'c-program-profile-only')
    build_c(work)
    work.run('calls', env={'STRATA_ENABLE_TRACING': 'false'})
    assert not os.path.exists(os.path.join(work.experiment, 'traces.otf2'))
    profile = reader.read_profile(os.path.join(work.experiment, 'profile.h5'))
    expect_equal(reader.visits_by_path(profile), C_PATHS, 'profile call paths and visits')


@scenario
def linked_without_strata(args):
    # Objects compiled through the wrapper and linked without Strata's libraries still run:
    # the plugin's references to the runtime are weak, -finstrument-functions' hooks are
    # glibc's empty ones.
    for name, options, plugin in (('plugin', (), GCC_PLUGIN), ('no-plugin', ('--no-plugin',), False)):
        work = Work(args, 'linked-without-strata-' + name, options)
        work.build('gcc', '-O1', '-c', os.path.join(PROGRAMS, 'threads.c'), '-o', 'threads.o')
        p = subprocess.run(['gcc', 'threads.o', '-pthread', '-o', 'threads'], cwd=work.dir, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, 'link without Strata failed:\n' + p.stderr
        symbols = subprocess.run(['nm', work.path('threads')], capture_output=True, text=True).stdout
        if plugin:
            assert ' w strata_plugin_enter' in symbols, symbols
        work.run('threads')
        expect_equal(work.stdout, '20200\n', 'program output')
        assert not os.path.exists(work.experiment), 'no experiment without Strata'


# ---------------------------------------------------------------- the C++ program

POWER = 'int geo::power<%d>(int)'
LAMBDA = 'main::{lambda(double)#1}::operator()(double) const'
CPP_PATHS = {
    'main': 1,
    'main/geo::Square::area() const': 1,
    'main/' + LAMBDA: 1,
    'main/int geo::twice<int>(int)': 1,
    'main/double geo::twice<double>(double)': 1,
    'main/' + POWER % 2: 1,
    'main/' + POWER % 2 + '/' + POWER % 1: 1,
    'main/' + POWER % 2 + '/' + POWER % 1 + '/' + POWER % 0: 1,
    'main/count_down(int)': 1, 'main/count_down(int)/count_down(int)': 1,
    'main/count_down(int)/count_down(int)/count_down(int)': 1,
    'main/bump(int)': 1,
    'main/lib_square': 1, 'main/lib_square/lib_scale': 1,
}


def build_cpp(work):
    work.mathlib()
    work.program('shapes.cpp', 'shapes', 'g++')


@scenario
@needs_source_lines
def cpp_program(args):
    work = Work(args, 'cpp-program')
    build_cpp(work)
    work.run('shapes')
    expect_equal(work.stdout, '18 7 9 2 4 4\n', 'program output')
    # std::vector's functions are instrumented inline in the program (as GCC documents) but
    # declared under /usr/include (known from DWARF): not recorded, like Score-P.
    check_experiment(work, CPP_PATHS)
    src = 'shapes.cpp'
    check_sources(work, {
        'main': (src, line_of(src, 'int main()')),
        'geo::Square::area() const': (src, line_of(src, 'double area() const')),
        LAMBDA: (src, line_of(src, 'auto scale = [](double x)')),
        'int geo::twice<int>(int)': (src, line_of(src, 'T twice(T x)')),
        'double geo::twice<double>(double)': (src, line_of(src, 'T twice(T x)')),
        POWER % 1: (src, line_of(src, 'int power(int x)')),
        'count_down(int)': (src, line_of(src, 'int count_down(int n)')),
        'bump(int)': (src, line_of(src, 'static int bump')),
        'lib_square': ('mathlib.c', line_of('mathlib.c', 'int lib_square')),
    })


@scenario
def exceptions(args):
    work = Work(args, 'exceptions')
    work.program('exceptions.cpp', 'exceptions', 'g++', libs=())
    work.run('exceptions')
    expect_equal(work.stdout, 'caught positive\n1\n', 'program output')
    check_experiment(work, {'main': 1, 'main/outer(int)': 2, 'main/outer(int)/inner(int)': 2})


UNWIND_PATHS = {
    'main': 1,
    'main/rethrower(int)': 2, 'main/rethrower(int)/top(int)': 2, 'main/rethrower(int)/top(int)/middle(int)': 2,
    'main/rethrower(int)/top(int)/middle(int)/deepest(int)': 2,
    'main/rethrower(int)/top(int)/middle(int)/deepest(int)/deepest(int)': 2,
    'main/rethrower(int)/top(int)/middle(int)/deepest(int)/deepest(int)/deepest(int)': 2,
    'main/rethrower(int)/top(int)/middle(int)/Guard::~Guard()': 2,
    'main/top(int)': 1, 'main/top(int)/middle(int)': 1, 'main/top(int)/middle(int)/deepest(int)': 1,
    'main/top(int)/middle(int)/Guard::~Guard()': 1,
    'main/absorb()': 1, 'main/absorb()/deepest(int)': 1,
}


def unwind_run(args, name, options, plugin):
    work = Work(args, name, options)
    work.program('unwind.cpp', 'unwind', 'g++', libs=())
    work.expect_instrumentation('unwind', plugin)
    work.run('unwind')
    expect_equal(work.stdout, '2 7 5 3\n', 'program output')
    # check_experiment checks that the trace is well nested: every exit an exception takes
    # through an instrumented frame is recorded, at the right depth.
    check_experiment(work, UNWIND_PATHS)


@scenario
def exceptions_unwind(args):
    unwind_run(args, 'exceptions-unwind', (), plugin=GCC_PLUGIN)


@scenario
def exceptions_unwind_no_plugin(args):
    unwind_run(args, 'exceptions-unwind-no-plugin', ('--no-plugin',), plugin=False)


@scenario
def own_allocator(args):
    # operator new/delete compiled with -finstrument-functions: the first events of the
    # thread, new call-path nodes and new trace pages allocate through them.
    work = Work(args, 'own-allocator')
    work.program('own_allocator.cpp', 'own_allocator', 'g++', libs=())
    for env in ({}, {'STRATA_TOTAL_MEMORY': '256K', 'STRATA_PAGE_SIZE': '16K'}):
        work.run('own_allocator', env=env)
        expect_equal(work.stdout, '500\n', 'program output')
        events = reader.read_otf2(os.path.join(work.experiment, 'traces.otf2'))
        pairs = reader.check_nesting(events['thread 0'])
        expect_equal(pairs['work(int)'], 5, 'work calls')
        assert pairs['operator new(unsigned long)'] >= 5, pairs
        shutil.rmtree(work.experiment)


# ---------------------------------------------------------------- shared objects and threads

@scenario
def dlopen(args):
    work = Work(args, 'dlopen')
    work.build('gcc', '-g', '-O0', '-shared', '-fPIC', os.path.join(PROGRAMS, 'plugin.c'), '-o', 'libplugin.so')
    work.program('dlopen_main.c', 'dlopen_main', 'gcc', libs=('-ldl',))
    work.run('dlopen_main', work.path('libplugin.so'))
    expect_equal(work.stdout, '14\n', 'program output')
    check_experiment(work, {'main': 1, 'main/before': 1, 'main/plugin_run': 2,
                            'main/plugin_run/plugin_helper': 2})
    check_sources(work, {'plugin_helper': ('plugin.c', line_of('plugin.c', 'static int plugin_helper'))})


@scenario
def threads(args):
    work = Work(args, 'threads')
    work.program('threads.c', 'threads', 'gcc', libs=('-pthread',))
    work.run('threads')
    events = reader.read_otf2(os.path.join(work.experiment, 'traces.otf2'))
    expect_equal(len(events), 5, 'locations (main thread and four workers)')
    paths = collections.Counter()
    for location_events in events.values():
        reader.check_nesting(location_events)
        paths.update(trace_paths(location_events))
    expected = {'main': 1, 'body': 4, 'body/task': 400, 'body/task/step': 400}
    expect_equal(dict(paths), expected, 'trace call paths of all threads')
    profile = reader.read_profile(os.path.join(work.experiment, 'profile.h5'))
    expect_equal(reader.visits_by_path(profile), expected, 'profile call paths and visits')


# ---------------------------------------------------------------- run-time filtering

def filtered_c_run(args, name, text):
    work = Work(args, name)
    build_c(work)
    with open(work.path('rules.filter'), 'w') as f:
        f.write(text)
    work.run('calls', env={'STRATA_FILTERING_FILE': work.path('rules.filter')})
    expect_equal(work.stdout, 'sum=35\n', 'program output')
    return work


@scenario
def filter_wildcards(args):
    # Callees of excluded functions attach to the nearest recorded caller.
    work = filtered_c_run(args, 'filter-wildcards', """\
# work and the library's functions are not recorded
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE wor? lib_*
SCOREP_REGION_NAMES_END
""")
    check_experiment(work, {'main': 1, 'main/leaf': 3, 'main/helper': 3, 'main/fact': 1, 'main/fact/fact': 1,
                            'main/fact/fact/fact': 1, 'main/fact/fact/fact/fact': 1})


@scenario
def filter_wildcards_both_ways(args):
    # The plugin stores "filtered" in the function's descriptor, the hooks in their address
    # cache: the same functions are absent and their callees attach to the same parents.
    rules = 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE work fact\nSCOREP_REGION_NAMES_END\n'
    expected = {'main': 1, 'main/leaf': 3, 'main/helper': 3, 'main/lib_square': 3, 'main/lib_square/lib_scale': 3}
    for name, options, plugin in (('plugin', (), GCC_PLUGIN), ('no-plugin', ('--no-plugin',), False)):
        work = Work(args, 'filter-wildcards-' + name, options)
        build_c(work)
        work.expect_instrumentation('calls', plugin)
        with open(work.path('rules.filter'), 'w') as f:
            f.write(rules)
        work.run('calls', env={'STRATA_FILTERING_FILE': work.path('rules.filter')})
        expect_equal(work.stdout, 'sum=35\n', 'program output')
        check_experiment(work, expected)


@scenario
def instrument_filter(args):
    # Compile-time exclusion (--instrument-filter): GCC's exclude lists, or the plugin's.
    for name, options in (('plugin', ()), ('no-plugin', ('--no-plugin',))):
        work = Work(args, 'instrument-filter-' + name, options)
        with open(work.path('compile.filter'), 'w') as f:
            f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *help* *lib_sc*\nSCOREP_REGION_NAMES_END\n'
                    'SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE *mathlib.c*\nSCOREP_FILE_NAMES_END\n')
        work.options.append('--instrument-filter=' + work.path('compile.filter'))
        build_c(work)
        work.run('calls')
        expect_equal(work.stdout, 'sum=35\n', 'program output')
        check_experiment(work, {'main': 1, 'main/work': 3, 'main/work/leaf': 3, 'main/fact': 1,
                                'main/fact/fact': 1, 'main/fact/fact/fact': 1, 'main/fact/fact/fact/fact': 1})


def descriptors(work, name):
    """The functions of `name` that Strata's GCC plugin instrumented: one descriptor each."""
    symbols = subprocess.run(['nm', work.path(name)], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in symbols.splitlines() if line.split()[-1].startswith('__strata_fn.'))


@scenario
def instrument_filter_exact(args):
    # With the plugin, --instrument-filter applies every rule as the run-time filter would:
    # exact names, INCLUDE back, MANGLED.  Nothing is set at run time, and the functions left
    # out carry no instrumentation at all.
    if not GCC_PLUGIN:
        print("Strata was built without its GCC plugin: skipped")
        return SKIP
    work = Work(args, 'instrument-filter-exact')
    with open(work.path('compile.filter'), 'w') as f:
        f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main work lib_*\n  EXCLUDE lib_scale\n'
                'SCOREP_REGION_NAMES_END\n')
    work.options.append('--instrument-filter=' + work.path('compile.filter'))
    build_c(work)
    expect_equal((descriptors(work, 'calls'), descriptors(work, 'libmathlib.so')), (2, 1),
                 'instrumented functions (main, work; lib_square)')
    work.run('calls')
    expect_equal(work.stdout, 'sum=35\n', 'program output')
    check_experiment(work, {'main': 1, 'main/work': 3, 'main/work/lib_square': 3})

    cpp = Work(args, 'instrument-filter-exact-mangled')
    with open(cpp.path('compile.filter'), 'w') as f:
        f.write(MANGLED_RULES)
    cpp.options.append('--instrument-filter=' + cpp.path('compile.filter'))
    build_cpp(cpp)
    cpp.run('shapes')
    check_experiment(cpp, paths_without_mangled_rules())


@scenario
def filter_include_back(args):
    # Later rules override earlier ones: everything out, some back in, one out again.
    work = filtered_c_run(args, 'filter-include-back', """\
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE *
  INCLUDE main work lib_*
  EXCLUDE lib_scale
SCOREP_REGION_NAMES_END
""")
    check_experiment(work, {'main': 1, 'main/work': 3, 'main/work/lib_square': 3})


@scenario
@needs_source_lines
def filter_files(args):
    work = filtered_c_run(args, 'filter-files', """\
SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */mathlib.c
SCOREP_FILE_NAMES_END
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE fact
  INCLUDE lib_square   # a region rule cannot include back a function of an excluded file
SCOREP_REGION_NAMES_END
""")
    check_experiment(work, {'main': 1, 'main/work': 3, 'main/work/leaf': 3, 'main/work/helper': 3})


MANGLED_RULES = """\
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE MANGLED _ZN3geo5powerILi*        # every power<N>
  INCLUDE MANGLED _ZN3geo5powerILi0EEEii   # ... but power<0>
  EXCLUDE MANGLED _Z10count_downi _ZNK3geo6Square4areaEv
  EXCLUDE MANGLED _ZZ4mainENKUldE_clEd     # the lambda
SCOREP_REGION_NAMES_END
"""


def paths_without_mangled_rules():
    """The C++ program's call paths without what MANGLED_RULES leave out."""
    paths = {p: v for p, v in CPP_PATHS.items()
             if 'power' not in p and 'count_down' not in p and 'area' not in p and 'lambda' not in p}
    paths['main/' + POWER % 0] = 1
    return paths


@scenario
@needs_source_lines
def filter_mangled(args):
    work = Work(args, 'filter-mangled')
    build_cpp(work)
    with open(work.path('rules.filter'), 'w') as f:
        f.write(MANGLED_RULES)
    work.run('shapes', env={'STRATA_FILTERING_FILE': work.path('rules.filter')})
    check_experiment(work, paths_without_mangled_rules())


@scenario
def filter_errors(args):
    work = Work(args, 'filter-errors')
    build_c(work)
    bad = work.path('bad.filter')
    with open(bad, 'w') as f:
        f.write('SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE leaf\nSCOREP_FILE_NAMES_END\n')
    cases = [
        (bad, "bad.filter:3: expected SCOREP_REGION_NAMES_END (to close the block opened at line 1), "
              "found 'SCOREP_FILE_NAMES_END'"),
        (work.path('missing.filter'), "cannot read filter file '%s'" % work.path('missing.filter')),
    ]
    for path, message in cases:
        work.run('calls', env={'STRATA_FILTERING_FILE': path}, expect=1, experiment='exp-' + os.path.basename(path))
        expect_equal(work.stdout, '', 'main() must not run')
        lines = [line for line in work.stderr.splitlines() if line.strip()]
        expect_equal(len(lines), 1, 'one message: ' + work.stderr)
        assert 'STRATA_FILTERING_FILE' in lines[0] and message in lines[0], lines[0]
        # Nothing was measured: no experiment directory is left to refuse the corrected run.
        assert not os.path.exists(work.experiment), os.listdir(work.experiment)
    # An empty value means no filter.
    work.run('calls', env={'STRATA_FILTERING_FILE': ''})
    check_experiment(work, C_PATHS)


# ---------------------------------------------------------------- a CMake project

@scenario
def cmake_project(args):
    work = Work(args, 'cmake-project')
    build = work.path('build')
    env = clean_env({'CC': '%s gcc' % work.strata, 'CXX': '%s g++' % work.strata})
    for command in (['cmake', '-S', os.path.join(HERE, 'project'), '-B', build, '-DCMAKE_BUILD_TYPE=Debug'],
                    ['cmake', '--build', build, '-j', '2']):
        p = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, '%s failed:\n%s%s' % (' '.join(command), p.stdout, p.stderr)
    shutil.copy(os.path.join(build, 'app'), work.path('app'))  # the rpath points at build/
    work.run('app')
    expect_equal(work.stdout, '    3.00\n    6.00\n', 'program output')
    check_experiment(work, {
        'main': 1,
        'main/stats::mean(double const*, int)': 1,
        'main/stats::mean(double const*, int)/stats::sum(double const*, int)': 1,
        'main/render_line': 2, 'main/render_line/pad': 2,
    })
    in_trace = otf2_regions(os.path.join(work.experiment, 'traces.otf2'))
    project = os.path.join(HERE, 'project')
    files = SOURCE_LINES or GCC_PLUGIN  # the CMake project is built with gcc and g++
    expect_equal(in_trace['pad'][0], os.path.join(project, 'render', 'render.c') if files else '',
                 'file of pad')
    expect_equal(in_trace['stats::sum(double const*, int)'][0],
                 os.path.join(project, 'core', 'stats.cpp') if files else '', 'file of stats::sum')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scenario', choices=sorted(SCENARIOS))
    parser.add_argument('--strata', required=True, help='the strata wrapper of the build tree')
    parser.add_argument('--work-dir', required=True)
    parser.add_argument('--no-source-lines', action='store_true',
                        help='Strata was built without libdw: regions have no file and line')
    parser.add_argument('--gcc-plugin', action='store_true',
                        help="Strata's GCC plugin is built: the wrapper uses it for gcc and g++")
    args = parser.parse_args()
    global SOURCE_LINES, GCC_PLUGIN
    SOURCE_LINES = not args.no_source_lines
    GCC_PLUGIN = args.gcc_plugin
    return SCENARIOS[args.scenario](args) or 0


if __name__ == '__main__':
    sys.exit(main())
