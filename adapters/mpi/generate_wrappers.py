# SPDX-License-Identifier: BSD-3-Clause
"""Generates Strata's MPI wrappers from mpi_functions.spec (run by CMake at build time).

    generate_wrappers.py --spec mpi_functions.spec --output-dir <build>/adapters/mpi/generated

Writes four files, all derived from the spec alone (same spec, same bytes):

    mpi_groups.hpp           the groups of STRATA_MPI_ENABLE_GROUPS: bits, names, default set
    mpi_function_table.hpp   one row per function: region name, role, group (the region table)
    mpi_c_wrappers.cpp       MPI_Xxx -> enter, PMPI_Xxx, exit
    mpi_fortran_wrappers.cpp mpi_xxx_ (and the other manglings) -> enter, pmpi_xxx_, exit

The spec's format is described at its top.  Only the standard library is used.
"""
import argparse
import os
import re
import sys

GROUP_KINDS = ('default', 'optional')
REGION_ROLES = ('function', 'point_to_point', 'barrier', 'coll_one2all', 'coll_all2one', 'coll_all2all',
                'coll_other')
ARGUMENT_ROLES = frozenset('''
    buf sendbuf recvbuf count sendcount recvcount sendcounts recvcounts datatype sendtype recvtype
    sendtypes recvtypes dest source target tag sendtag recvtag root op comm newcomm group newgroup
    win newwin file newfile newrequest request requests nrequests index indices outcount flag
    status statuses message newmessage'''.split())
VERSIONS = ('1.0', '1.2', '2.0', '2.2', '3.0', '3.1')

# Where the measurement hooks into the wrappers, for the C and the Fortran entry
# points alike.  A hook is C++ code placed before or after the PMPI call; it
# runs whether or not the function's group is recorded (a program measured with
# STRATA_MPI_ENABLE_GROUPS=none is still one experiment of all ranks).
#   MPI_Init, MPI_Init_thread: after PMPI_Init, the ranks agree on the
#     experiment directory and open the trace archive (mpi_process_group.cpp).
#     Later: define MPI_COMM_WORLD, measure the clock offsets to rank 0.
#   MPI_Finalize: before PMPI_Finalize, the ranks unify their definitions and
#     write the experiment while MPI still works.  Later: clock offsets again.
HOOKS_BEFORE_CALL = {'MPI_Finalize': 'strata::mpi::before_finalize();'}
HOOKS_AFTER_CALL = {'MPI_Init': 'strata::mpi::after_init();', 'MPI_Init_thread': 'strata::mpi::after_init();'}


class SpecError(Exception):
    pass


class Group:
    def __init__(self, name, kind, derived_from, description, line):
        self.name, self.kind, self.derived_from = name, kind, derived_from
        self.description, self.line = description, line


class Parameter:
    def __init__(self, declaration, name, ctype, role):
        self.declaration = declaration  # C declaration without the role, e.g. "const void *buf"
        self.name = name
        self.ctype = ctype              # the declaration without the name, e.g. "const void *"
        self.role = role                # None when the parameter has no role

    @property
    def is_char(self):
        return re.search(r'\bchar\b', self.ctype) is not None


class Function:
    def __init__(self, name, group, role, since, fortran, fortran_params, result, params, variadic, line):
        self.name, self.group, self.role, self.since = name, group, role, since
        self.fortran = fortran                  # '-', 'f' or 'F'
        self.fortran_params = fortran_params    # None: every C parameter
        self.result, self.params, self.variadic, self.line = result, params, variadic, line

    @property
    def fortran_name(self):
        return self.name.lower()

    @property
    def events(self):
        return 'enter %s, P%s, exit %s' % (self.name, self.name, self.name)


def split_parameters(text):
    """Splits a parameter list at top-level commas (function-pointer types have none in MPI)."""
    text = text.strip()
    if text in ('', 'void'):
        return []
    return [p.strip() for p in text.split(',')]


def parse_parameter(text, where):
    declaration, _, role = text.partition(':')
    declaration, role = declaration.strip(), role.strip() or None
    if role is not None and role not in ARGUMENT_ROLES:
        raise SpecError('%s: unknown argument role "%s"' % (where, role))
    m = re.match(r'^(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)$', declaration)
    if not m or not m.group(1).strip():
        raise SpecError('%s: cannot read the parameter "%s"' % (where, text))
    ctype = (m.group(1) + m.group(3)).strip()
    return Parameter(declaration, m.group(2), ctype, role)


def parse_spec(path):
    groups, functions = [], []
    spec_name = os.path.basename(path)
    with open(path, encoding='utf-8') as spec:
        lines = spec.read().splitlines()
    for number, raw in enumerate(lines, 1):
        where = '%s:%d' % (spec_name, number)
        text = raw.split('#', 1)[0].strip()
        if not text:
            continue
        if text.startswith('group '):
            fields = text.split(None, 3)
            if len(fields) < 4:
                raise SpecError('%s: a group needs a name, a kind and a description' % where)
            _, name, kind, description = fields
            derived_from = []
            if kind.startswith('derived:'):
                derived_from = kind[len('derived:'):].split(',')
                kind = 'derived'
            elif kind not in GROUP_KINDS:
                raise SpecError('%s: group kind must be default, optional or derived:A,B' % where)
            if not re.match(r'^[a-z][a-z0-9]*$', name) or name in ('default', 'all', 'none'):
                raise SpecError('%s: bad group name "%s"' % (where, name))
            groups.append(Group(name, kind, derived_from, description, number))
            continue
        m = re.match(r'^(MPI_\w+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+?)\s*\((.*)\)$', text)
        if not m:
            raise SpecError('%s: expected "MPI_NAME GROUP ROLE SINCE FORTRAN RETURN (PARAMETERS)"' % where)
        name, group, role, since, fortran, result, params_text = m.groups()
        if role not in REGION_ROLES:
            raise SpecError('%s: unknown region role "%s"' % (where, role))
        if since not in VERSIONS:
            raise SpecError('%s: unknown MPI version "%s"' % (where, since))
        params = [p for p in split_parameters(params_text)]
        variadic = bool(params) and params[-1] == '...'
        if variadic:
            params = params[:-1]
        params = [parse_parameter(p, where) for p in params]
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise SpecError('%s: two parameters have the same name' % where)
        if any(n.startswith('strata_') for n in names):
            raise SpecError('%s: parameter names starting with strata_ are reserved for the wrappers' % where)
        fm = re.match(r'^(-|f|F)(?:\(([\w,]*)\))?$', fortran)
        if not fm or (fm.group(2) is not None and fm.group(1) != 'F'):
            raise SpecError('%s: Fortran field must be -, f, F or F(a,b)' % where)
        fortran_params = None
        if fm.group(2) is not None:
            fortran_params = [n for n in fm.group(2).split(',') if n]
            for n in fortran_params:
                if n not in names:
                    raise SpecError('%s: Fortran parameter "%s" is not a C parameter' % (where, n))
        functions.append(Function(name, group, role, since, fm.group(1), fortran_params, result.strip(),
                                  params, variadic, number))
    check_spec(groups, functions, spec_name)
    return groups, functions


def check_spec(groups, functions, spec_name):
    names = [g.name for g in groups]
    if len(set(names)) != len(names):
        raise SpecError('%s: a group is defined twice' % spec_name)
    if len(groups) > 32:
        raise SpecError('%s: at most 32 groups fit the group mask' % spec_name)
    for g in groups:
        for source in g.derived_from:
            if source not in names or source == g.name:
                raise SpecError('%s:%d: derived group %s names unknown group "%s"' % (spec_name, g.line, g.name, source))
    seen = set()
    for f in functions:
        if f.name in seen:
            raise SpecError('%s:%d: %s is listed twice' % (spec_name, f.line, f.name))
        seen.add(f.name)
        if f.group not in names:
            raise SpecError('%s:%d: %s has unknown group "%s"' % (spec_name, f.line, f.name, f.group))
        if f.fortran == 'F' and f.variadic:
            raise SpecError('%s:%d: variadic functions cannot have Fortran wrappers yet' % (spec_name, f.line))


# ---------------------------------------------------------------- output helpers

HEADER = '''// SPDX-License-Identifier: BSD-3-Clause
// Generated by adapters/mpi/generate_wrappers.py from adapters/mpi/mpi_functions.spec.
// Do not edit: change the spec or the generator, and rebuild.
'''


def version_guard(f):
    major, minor = f.since.split('.')
    return 'STRATA_MPI_SINCE(%s, %s)' % (major, minor)


def group_constant(name):
    return 'group_' + name


def group_mask(groups, names):
    return ' | '.join(group_constant(n) for n in names) if names else '0u'


# ---------------------------------------------------------------- mpi_groups.hpp

def write_groups(groups):
    out = [HEADER, '''// The groups of STRATA_MPI_ENABLE_GROUPS.  No MPI header needed: the configuration
// row (mpi_config.cpp) can be linked into tools that do not use MPI.
#pragma once

#include <cstdint>

namespace strata::mpi {

/// One bit per group of the spec; a wrapper records when its group's bit is set.
enum Group : std::uint32_t {
''']
    for i, g in enumerate(groups):
        out.append('    %s = 1u << %d,  ///< %s\n' % (group_constant(g.name), i, g.description))
    out.append('};\n\n')
    out.append('''/// How a group is switched on.
enum class GroupKind : std::uint8_t {
    default_on,  ///< on unless the user lists other groups
    optional,    ///< on only when named (or with "all")
    derived,     ///< on whenever one of `derived_from` is on; cannot be named
};

/// A row of the group table.
struct GroupInfo {
    const char* name;
    std::uint32_t bit;
    GroupKind kind;
    std::uint32_t derived_from;  ///< groups that switch a derived group on
    const char* description;
};

/// Every group of the spec, in spec order.
inline constexpr GroupInfo group_table[] = {
''')
    kinds = {'default': 'GroupKind::default_on', 'optional': 'GroupKind::optional', 'derived': 'GroupKind::derived'}
    for g in groups:
        out.append('    {"%s", %s, %s, %s, "%s"},\n' % (g.name, group_constant(g.name), kinds[g.kind],
                                                     group_mask(groups, g.derived_from), c_string(g.description)))
    out.append('};\n\n')
    defaults = [g.name for g in groups if g.kind == 'default']
    named = [g.name for g in groups if g.kind != 'derived']
    out.append('/// The groups "default" stands for (derived groups are added by apply_derived_groups).\n')
    out.append('inline constexpr std::uint32_t default_groups = %s;\n' % group_mask(groups, defaults))
    out.append('/// The groups "all" stands for.\n')
    out.append('inline constexpr std::uint32_t all_groups = %s;\n\n' % group_mask(groups, named))
    out.append('''/// Adds the derived groups that `mask` switches on.
constexpr std::uint32_t apply_derived_groups(std::uint32_t mask) {
    for (const GroupInfo& g : group_table)
        if (g.kind == GroupKind::derived && (mask & g.derived_from) != 0) mask |= g.bit;
    return mask;
}

}  // namespace strata::mpi
''')
    return ''.join(out)


def c_string(text):
    return text.replace('\\', '\\\\').replace('"', '\\"')


# ---------------------------------------------------------------- mpi_function_table.hpp

def write_function_table(groups, functions):
    out = [HEADER, '''// The region table: one row per function of the spec.  No MPI header needed.
#pragma once

#include <cstdint>

#include "mpi_groups.hpp"
#include "strata/measurement/types.hpp"

namespace strata::mpi {

/// Index of a function in function_table (spec order).
enum class Function : std::uint16_t {
''']
    for f in functions:
        out.append('    %s,\n' % f.name)
    out.append('''};

/// Number of functions in the spec.
inline constexpr std::size_t function_count = %d;

/// What the region of a wrapped function is.
struct FunctionInfo {
    const char* name;  ///< region name, e.g. "MPI_Send"
    RegionRole role;
    std::uint32_t group;
};

/// Region name, role and group of every function, indexed by Function.
inline constexpr FunctionInfo function_table[function_count] = {
''' % len(functions))
    for f in functions:
        out.append('    {"%s", RegionRole::%s, %s},\n' % (f.name, f.role, group_constant(f.group)))
    out.append('''};

}  // namespace strata::mpi
''')
    return ''.join(out)


# ---------------------------------------------------------------- mpi_c_wrappers.cpp

def call_arguments(params):
    return ', '.join(p.name for p in params)


def hook(table, f):
    code = table.get(f.name)
    return ['    %s\n' % line for line in code.splitlines()] if code else []


def write_c_wrappers(groups, functions):
    out = [HEADER, '''// The C wrappers: for each function of the spec, MPI_Xxx records the region
// "MPI_Xxx" around PMPI_Xxx when its group is enabled (STRATA_MPI_ENABLE_GROUPS)
// and the calling thread is not inside Strata or inside another MPI call.
#include "mpi_adapter.hpp"
#include "mpi_process_group.hpp"

// Deprecated MPI functions (MPI_Attr_get, ...) are wrapped like the others.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace mpi = strata::mpi;
using strata::RegionHandle;
using mpi::Function;
''']
    for f in functions:
        params = ', '.join(p.declaration for p in f.params) or 'void'
        if f.variadic:
            params += ', ...'
        args = call_arguments(f.params)
        out.append('\n// %s: mpi_functions.spec line %d; group %s, region role %s, MPI %s.\n'
                   % (f.name, f.line, f.group, f.role, f.since))
        if f.variadic:
            out.append('// The variable arguments are not forwarded (PMPI_%s ignores them too).\n'
                       % f.name[4:])
        if f.name in HOOKS_BEFORE_CALL or f.name in HOOKS_AFTER_CALL:
            out.append('// The measurement of all ranks starts / ends here (generate_wrappers.py, HOOKS_*).\n')
        out.append('// Events when the group is enabled: %s.\n' % f.events)
        out.append('#if %s && !defined(%s) && !defined(P%s)\n' % (version_guard(f), f.name, f.name))
        out.append('extern "C" STRATA_MPI_EXPORT %s %s(%s) {\n' % (f.result, f.name, params))
        if f.name in HOOKS_BEFORE_CALL or f.name in HOOKS_AFTER_CALL:
            out.append('    if (!mpi::detail::should_record(mpi::%s)) {\n' % group_constant(f.group))
            out.extend('    ' + line for line in hook(HOOKS_BEFORE_CALL, f))
            out.append('        const %s strata_result = P%s(%s);\n' % (f.result, f.name, args))
            out.extend('    ' + line for line in hook(HOOKS_AFTER_CALL, f))
            out.append('        return strata_result;\n    }\n')
        else:
            out.append('    if (!mpi::detail::should_record(mpi::%s)) return P%s(%s);\n'
                       % (group_constant(f.group), f.name, args))
        out.append('    const RegionHandle strata_region = mpi::detail::begin(Function::%s);\n' % f.name)
        out.extend(hook(HOOKS_BEFORE_CALL, f))
        out.append('    const %s strata_result = P%s(%s);\n' % (f.result, f.name, args))
        out.extend(hook(HOOKS_AFTER_CALL, f))
        out.append('    mpi::detail::end(strata_region);\n')
        out.append('    return strata_result;\n')
        out.append('}\n#endif\n')
    return ''.join(out)


# ---------------------------------------------------------------- mpi_fortran_wrappers.cpp

def fortran_signature(f):
    """(parameters as C declarations, forwarded argument names, return type) of the Fortran binding."""
    chosen = f.params if f.fortran_params is None else [p for n in f.fortran_params for p in f.params
                                                          if p.name == n]
    decls = ['void* %s' % p.name for p in chosen]
    args = [p.name for p in chosen]
    returns = 'void' if f.result == 'int' else f.result
    if f.result == 'int':
        decls.append('MPI_Fint* ierror')
        args.append('ierror')
    # gfortran (and ifort) pass the length of each character argument, by value, after all others.
    for p in chosen:
        if p.is_char:
            decls.append('std::size_t %s_length' % p.name)
            args.append('%s_length' % p.name)
    return decls, args, returns


def write_fortran_wrappers(groups, functions):
    out = [HEADER, '''// The Fortran entry points.  Open MPI's (and MPICH's) Fortran bindings call the
// PMPI C functions directly, so a Fortran program's calls never reach the C
// wrappers: for each function marked F in the spec, the symbols the Fortran
// compilers call are defined here, and each records the same region as the C
// wrapper around the MPI library's own pmpi_xxx_ entry point:
//
//     mpi_xxx_  mpi_xxx__  mpi_xxx  MPI_XXX  (mpif.h, "use mpi")  -> pmpi_xxx_
//     mpi_xxx_f08_                          ("use mpi_f08")       -> pmpi_xxx_f08_
//
// The pmpi symbols are weak references: C programs link libstrata-mpi without the
// Fortran MPI libraries, and never call these functions.  Every argument is passed
// on unchanged (Fortran passes them by reference; character lengths by value).
#include <cstddef>

#include "mpi_adapter.hpp"
#include "mpi_process_group.hpp"

namespace mpi = strata::mpi;
using strata::RegionHandle;
using mpi::Function;

namespace {
''']
    wrapped = [f for f in functions if f.fortran == 'F']
    for f in wrapped:
        decls, args, returns = fortran_signature(f)
        lower = f.fortran_name
        params = ', '.join(decls) or 'void'
        arg_list = ', '.join(args)
        out.append('\n// %s: mpi_functions.spec line %d; group %s.  Events when the group is enabled: '
                   'enter %s, pmpi_%s_, exit %s.\n' % (f.name, f.line, f.group, f.name, lower[4:], f.name))
        out.append('#if %s\n' % version_guard(f))
        out.append('using %s_fn = %s(%s);\n' % (lower, returns, params))
        out.append('%s %s_record(%s_fn* real, const char* real_name%s) {\n'
                   % (returns, lower, lower, ''.join(', ' + d for d in decls)))
        out.append('    if (real == nullptr) mpi::detail::missing_fortran_symbol(real_name);\n')
        if f.name in HOOKS_BEFORE_CALL or f.name in HOOKS_AFTER_CALL:
            out.append('    if (!mpi::detail::should_record(mpi::%s)) {\n' % group_constant(f.group))
            out.extend('    ' + line for line in hook(HOOKS_BEFORE_CALL, f))
            if returns != 'void':
                out.append('        const %s strata_result = real(%s);\n' % (returns, arg_list))
            else:
                out.append('        real(%s);\n' % arg_list)
            out.extend('    ' + line for line in hook(HOOKS_AFTER_CALL, f))
            out.append('        return%s;\n    }\n' % (' strata_result' if returns != 'void' else ''))
        else:
            out.append('    if (!mpi::detail::should_record(mpi::%s)) return real(%s);\n'
                       % (group_constant(f.group), arg_list))
        out.append('    const RegionHandle strata_region = mpi::detail::begin(Function::%s);\n' % f.name)
        out.extend(hook(HOOKS_BEFORE_CALL, f))
        if returns != 'void':
            out.append('    const %s strata_result = real(%s);\n' % (returns, arg_list))
        else:
            out.append('    real(%s);\n' % arg_list)
        out.extend(hook(HOOKS_AFTER_CALL, f))
        out.append('    mpi::detail::end(strata_region);\n')
        if returns != 'void':
            out.append('    return strata_result;\n')
        out.append('}\n#endif\n')
    out.append('\n}  // namespace\n\nextern "C" {\n')
    for f in wrapped:
        decls, args, returns = fortran_signature(f)
        lower, upper = f.fortran_name, f.name.upper()
        params = ', '.join(decls) or 'void'
        fwd = ''.join(', ' + a for a in args)
        ret = 'return ' if returns != 'void' else ''
        out.append('\n// %s (mpi_functions.spec line %d)\n#if %s\n' % (f.name, f.line, version_guard(f)))
        for real in ('p%s_' % lower, 'p%s_f08_' % lower):
            out.append('%s %s(%s) __attribute__((weak));\n' % (returns, real, params))
        out.append('STRATA_MPI_EXPORT %s %s_(%s) { %s%s_record(p%s_, "p%s_"%s); }\n'
                   % (returns, lower, params, ret, lower, lower, lower, fwd))
        for alias in ('%s__' % lower, lower, upper):
            out.append('STRATA_MPI_EXPORT %s %s(%s) __attribute__((alias("%s_")));\n'
                       % (returns, alias, params, lower))
        out.append('STRATA_MPI_EXPORT %s %s_f08_(%s) { %s%s_record(p%s_f08_, "p%s_f08_"%s); }\n'
                   % (returns, lower, params, ret, lower, lower, lower, fwd))
        out.append('#endif\n')
    out.append('\n}  // extern "C"\n')
    return ''.join(out)


# ---------------------------------------------------------------- main

def write_if_changed(path, text):
    """Leaves an unchanged file alone, so that a rerun does not trigger a rebuild."""
    if os.path.exists(path):
        with open(path, encoding='utf-8') as existing:
            if existing.read() == text:
                return
    with open(path, 'w', encoding='utf-8', newline='\n') as out:
        out.write(text)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--spec', required=True, help='mpi_functions.spec')
    parser.add_argument('--output-dir', required=True, help='directory that receives the generated files')
    args = parser.parse_args(argv)
    try:
        groups, functions = parse_spec(args.spec)
    except SpecError as error:
        print('generate_wrappers.py: %s' % error, file=sys.stderr)
        return 1
    os.makedirs(args.output_dir, exist_ok=True)
    outputs = {
        'mpi_groups.hpp': write_groups(groups),
        'mpi_function_table.hpp': write_function_table(groups, functions),
        'mpi_c_wrappers.cpp': write_c_wrappers(groups, functions),
        'mpi_fortran_wrappers.cpp': write_fortran_wrappers(groups, functions),
    }
    for name, text in sorted(outputs.items()):
        write_if_changed(os.path.join(args.output_dir, name), text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
