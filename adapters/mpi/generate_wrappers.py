# SPDX-License-Identifier: BSD-3-Clause
"""Generates Strata's MPI wrappers from mpi_functions.spec (run by CMake at build time).

    generate_wrappers.py --spec mpi_functions.spec --output-dir <build>/adapters/mpi/generated

Writes four files, all derived from the spec alone (same spec, same bytes):

    mpi_groups.hpp           the groups of STRATA_MPI_ENABLE_GROUPS: bits, names, default set
    mpi_function_table.hpp   one row per function: region name, role, group (the region table)
    mpi_c_wrappers.cpp       MPI_Xxx -> enter, message events, PMPI_Xxx, message events, exit
    mpi_fortran_wrappers.cpp mpi_xxx_ (and the other manglings) -> the same around pmpi_xxx_

The message events a wrapper records follow from the argument roles of the
spec (event_plan below): a function with `dest` and `comm` sends, one with
`source`, `buf` and `status` receives, `newrequest` makes it nonblocking, a
`coll` function named after an OTF2 collective operation records
MpiCollectiveBegin/End, `newcomm` defines a communicator, and so on.  What the
events need beyond the arguments is hand-written C++ next to this file
(p2p_events, request_completion, collectives, communicators).

The spec's format is described at its top.  Only the standard library is used.
"""
import argparse
import os
import re
import sys

GROUP_KINDS = ('default', 'optional')
REGION_ROLES = ('function', 'point_to_point', 'barrier', 'coll_one2all', 'coll_all2one', 'coll_all2all',
                'coll_other', 'file_io')
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
#     experiment directory and open the trace archive, and MPI_COMM_WORLD and
#     MPI_COMM_SELF are defined (mpi_process_group.cpp).
#     Later: measure the clock offsets to rank 0.
#   MPI_Abort: before PMPI_Abort, this rank writes what it recorded alone
#     (rank-<r>/ of the experiment); the others follow when they are killed.
#   MPI_Finalize: before PMPI_Finalize, the ranks unify their definitions and
#     write the experiment while MPI still works.  Later: clock offsets again.
# Besides these, every function that creates a communicator (role newcomm) or
# frees one (an `MPI_Comm *` with role comm) has a hook made from its roles
# (event_plan): later message events must be able to name the communicator.
# Those run only when the call is the program's own (not made inside Strata or
# inside another MPI call).
HOOKS_BEFORE_CALL = {'MPI_Finalize': 'strata::mpi::before_finalize();', 'MPI_Abort': 'strata::mpi::before_abort();'}
HOOKS_AFTER_CALL = {'MPI_Init': 'strata::mpi::after_init();', 'MPI_Init_thread': 'strata::mpi::after_init();'}

# Blocking collectives with MpiCollectiveBegin/End: the operation is the
# function's name without "MPI_", as OTF2 (and events::CollectiveOp) names it.
COLLECTIVE_OPS = frozenset('''allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast exscan
    gather gatherv reduce reduce_scatter reduce_scatter_block scan scatter scatterv'''.split())
# The argument roles a collective's byte count may use (fields of mpi::CollectiveArgs).
COLLECTIVE_ROLES = ('buf', 'sendbuf', 'recvbuf', 'count', 'sendcount', 'recvcount', 'sendcounts', 'recvcounts',
                    'datatype', 'sendtype', 'recvtype', 'sendtypes', 'recvtypes', 'root', 'comm')
# Request operations whose roles alike (one `MPI_Request *request`) do not tell apart.
REQUEST_OPERATIONS = {'MPI_Start': 'start', 'MPI_Startall': 'start', 'MPI_Cancel': 'cancel',
                      'MPI_Request_free': 'free'}


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
        self.where = 'mpi_functions.spec:%d' % line  # set to the real file name by parse_spec
        self.fortran = fortran                  # '-', 'f' or 'F'
        self.fortran_params = fortran_params    # None: every C parameter
        self.result, self.params, self.variadic, self.line = result, params, variadic, line

    @property
    def fortran_name(self):
        return self.name.lower()

    def by_role(self, role):
        """The parameter with `role`, or None."""
        return next((p for p in self.params if p.role == role), None)

    @property
    def roles(self):
        return {p.role for p in self.params if p.role}


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
        functions[-1].where = where
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
        roles = [p.role for p in f.params if p.role]
        if len(set(roles)) != len(roles):
            raise SpecError('%s:%d: %s has two arguments with the same role' % (spec_name, f.line, f.name))
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


# ---------------------------------------------------------------- event plans

class CBinding:
    """C++ expressions of the C wrapper's arguments (C handles already)."""
    fortran = False
    ok = 'strata_result == MPI_SUCCESS'
    result = 'strata_result'

    def __init__(self, f):
        self.f = f

    def param(self, role):
        p = self.f.by_role(role)
        if p is None:
            raise SpecError('%s: %s needs an argument with role %s for its events' % (self.f.where, self.f.name, role))
        return p

    def value(self, role):
        """An input argument's C value."""
        return self.param(role).name

    def pointed(self, role):
        """The C handle an `MPI_Xxx *` argument holds (before the call, or after it for outputs)."""
        return '*' + self.param(role).name

    def ints(self, role):
        """An `int *` output (flag, index, outcount, indices)."""
        return self.param(role).name

    def status_storage(self, role):
        name = self.param(role).name
        return ['MPI_Status strata_status_storage;',
                'MPI_Status* const strata_status = %s == MPI_STATUS_IGNORE ? &strata_status_storage : %s;'
                % (name, name)]

    status_value = 'strata_status'

    def completion(self, count, requests, statuses, array):
        return 'mpi::Completion strata_completion(%s, %s, %s, %s);' % (count, requests, statuses, array)

    completion_statuses = 'strata_completion.statuses()'

    def start(self, count, requests):
        return 'mpi::start_requests(%s, %s);' % (count, requests)


class FortranBinding(CBinding):
    """The same for the Fortran entry points: every argument is a Fortran
    INTEGER (or handle, buffer, status) passed by reference (mpi_handles.hpp)."""
    fortran = True
    ok = 'mpi::f_ok(ierror)'
    result = 'mpi::f_result(ierror)'
    CONVERSIONS = {'comm': 'f_comm', 'newcomm': 'f_comm', 'datatype': 'f_type', 'sendtype': 'f_type',
                   'recvtype': 'f_type', 'buf': 'f_buffer', 'sendbuf': 'f_buffer', 'recvbuf': 'f_buffer',
                   'sendcounts': 'f_ints', 'recvcounts': 'f_ints', 'request': 'f_request',
                   'newrequest': 'f_request', 'message': 'f_message', 'newmessage': 'f_message'}

    def param(self, role):
        p = CBinding.param(self, role)
        if self.f.fortran_params is not None and p.name not in self.f.fortran_params:
            raise SpecError('%s: the Fortran binding of %s lacks the argument with role %s'
                            % (self.f.where, self.f.name, role))
        return p

    def value(self, role):
        name = self.param(role).name
        if role in ('sendtypes', 'recvtypes'):
            raise SpecError('%s: %s: Fortran arrays of datatypes are not converted yet; mark it f'
                            % (self.f.where, self.f.name))
        return 'mpi::%s(%s)' % (self.CONVERSIONS.get(role, 'f_int'), name)

    def pointed(self, role):
        return self.value(role)

    def ints(self, role):
        return 'mpi::f_int_out(%s)' % self.param(role).name

    def status_storage(self, role):
        name = self.param(role).name
        return ['MPI_Fint strata_status_storage[mpi::kFortranStatusSize];',
                'void* const strata_status = mpi::f_status_ignored(%s) ? strata_status_storage : %s;'
                % (name, name)]

    status_value = 'mpi::FortranStatus(strata_status).get()'

    def completion(self, count, requests, statuses, array):
        return ('mpi::Completion strata_completion(mpi::Completion::Fortran{}, %s, %s, %s, %s);'
                % (count, requests, statuses, array))

    completion_statuses = 'strata_completion.fortran_statuses()'

    def start(self, count, requests):
        return 'mpi::start_fortran_requests(%s, %s);' % (count, requests)


class Plan:
    """What a wrapper does besides enter and exit, as lines of C++ code."""

    def __init__(self):
        self.before_enter = []   # recorded path, before the region is entered
        self.before_call = []    # recorded path, after enter
        self.after_call = []     # recorded path, before exit
        self.arguments = {}      # parameter name -> what the PMPI call gets instead
        self.hook_before = []    # both paths (program's own calls only), before the call
        self.hook_after = []     # both paths (program's own calls only), after the call
        self.begin = None        # enter and the first message event in one call (instead of begin)
        self.end = None          # the last message event and exit in one call (instead of end)
        self.events_before, self.events_after = [], []  # for the comment


def collective_op(f):
    op = f.name[len('MPI_'):].lower()
    if f.group == 'coll' and op in COLLECTIVE_OPS and 'newrequest' not in f.roles:
        return op
    return None


def nonblocking_collective_op(f):
    """'allreduce' for MPI_Iallreduce (the operation of its blocking form), else None."""
    op = f.name[len('MPI_'):].lower()
    if f.group == 'coll' and 'newrequest' in f.roles and op.startswith('i') and op[1:] in COLLECTIVE_OPS:
        return op[1:]
    return None


def family(f):
    """The kind of message events of a function, from its roles (None: region only)."""
    r = f.roles
    if f.name in REQUEST_OPERATIONS:
        return REQUEST_OPERATIONS[f.name]
    if collective_op(f):
        return 'collective'
    if nonblocking_collective_op(f):
        return 'icollective'
    request = f.by_role('request')
    if (('requests' in r) or (request is not None and '*' in request.ctype)) and ('status' in r or 'statuses' in r):
        return 'completion'
    init = f.name.endswith('_init')
    if 'dest' in r and 'source' in r:
        return 'sendrecv'
    if 'message' in r:
        return 'imrecv' if 'newrequest' in r else 'mrecv'
    if 'newmessage' in r:
        return 'mprobe'
    if 'dest' in r and 'newrequest' in r:
        return 'send_init' if init else 'isend'
    if 'source' in r and 'buf' in r and 'newrequest' in r:
        return 'recv_init' if init else 'irecv'
    if 'dest' in r and 'comm' in r:
        return 'send'
    if 'source' in r and 'buf' in r and 'status' in r:
        return 'recv'
    return None


def first(b, *roles):
    """The value of the first role the function has (sendcount or count, ...)."""
    for role in roles:
        if b.f.by_role(role) is not None:
            return b.value(role)
    return b.value(roles[-1])


def send_arguments(b):
    return '%s, %s, %s, %s, %s' % (first(b, 'sendcount', 'count'), first(b, 'sendtype', 'datatype'),
                                   b.value('dest'), first(b, 'sendtag', 'tag'), b.value('comm'))


def substitute_status(plan, b):
    plan.before_enter.extend(b.status_storage('status'))
    plan.arguments[b.param('status').name] = 'strata_status'


def collective_record(plan, f, b, op):
    """strata_collective: the bytes of collective `op` from the call's arguments, before it starts."""
    plan.before_enter.append('mpi::CollectiveArgs strata_args;')
    for role in COLLECTIVE_ROLES:
        if role in f.roles:
            plan.before_enter.append('strata_args.%s = %s;' % (role, b.value(role)))
    plan.before_enter.append('const mpi::CollectiveRecord strata_collective = '
                             'mpi::collective_bytes<strata::events::CollectiveOp::%s>(strata_args);' % op)


def event_plan(f, b):
    plan = Plan()
    kind = family(f)
    ok = b.ok
    if kind == 'send':
        plan.begin = 'mpi::begin_send(Function::%s, %s)' % (f.name, send_arguments(b))
        plan.events_before.append('MpiSend')
    elif kind in ('recv', 'sendrecv'):
        if kind == 'sendrecv':
            plan.begin = 'mpi::begin_send(Function::%s, %s)' % (f.name, send_arguments(b))
            plan.events_before.append('MpiSend')
        substitute_status(plan, b)
        plan.end = 'mpi::end_recv(strata_region, %s, %s, %s);' % (ok, b.value('comm'), b.status_value)
        plan.events_after.append('MpiRecv')
    elif kind == 'isend':
        plan.before_call.append('const mpi::RequestEntry strata_send = mpi::isend_begin(%s, %s, %s, %s, %s);'
                                % (b.value('count'), b.value('datatype'), b.value('dest'), b.value('tag'),
                                   b.value('comm')))
        plan.after_call.append('if (%s) mpi::isend_end(strata_send, %s);' % (ok, b.pointed('newrequest')))
        plan.events_before.append('MpiIsend')
    elif kind == 'irecv':
        plan.after_call.append('if (%s) mpi::irecv_posted(%s, %s, %s);'
                               % (ok, b.value('source'), b.value('comm'), b.pointed('newrequest')))
        plan.events_after.append('MpiIrecvRequest')
    elif kind == 'send_init':
        plan.after_call.append('if (%s) mpi::persistent_send_created(%s, %s, %s, %s, %s, %s);'
                               % (ok, b.value('count'), b.value('datatype'), b.value('dest'), b.value('tag'),
                                  b.value('comm'), b.pointed('newrequest')))
    elif kind == 'recv_init':
        plan.after_call.append('if (%s) mpi::persistent_recv_created(%s, %s, %s);'
                               % (ok, b.value('source'), b.value('comm'), b.pointed('newrequest')))
    elif kind == 'mprobe':
        plan.after_call.append('if (%s) mpi::message_matched(%s, %s);'
                               % (ok, b.value('comm'), b.pointed('newmessage')))
    elif kind in ('mrecv', 'imrecv'):
        plan.before_call.append('const strata::events::CommunicatorHandle strata_message_comm = '
                                'mpi::message_taken(%s);' % b.pointed('message'))
        if kind == 'mrecv':
            substitute_status(plan, b)
            plan.after_call.append('if (%s) mpi::on_recv(strata_message_comm, %s);' % (ok, b.status_value))
            plan.events_after.append('MpiRecv')
        else:
            plan.after_call.append('if (%s) mpi::irecv_posted(strata_message_comm, %s);'
                                   % (ok, b.pointed('newrequest')))
            plan.events_after.append('MpiIrecvRequest')
    elif kind == 'start':
        if 'requests' in f.roles:
            plan.before_call.append(b.start(b.value('nrequests'), b.param('requests').name))
        else:
            plan.before_call.append(b.start('1', b.param('request').name))
        plan.events_before.append('MpiIsend or MpiIrecvRequest per started request')
    elif kind == 'cancel':
        plan.before_call.append('mpi::cancel_requested(%s);' % b.pointed('request'))
    elif kind == 'free':
        plan.before_call.append('mpi::request_freed(%s);' % b.pointed('request'))
    elif kind == 'completion':
        array = 'statuses' in f.roles
        status = b.param('statuses' if array else 'status').name
        if 'requests' in f.roles:
            count, requests = b.value('nrequests'), b.param('requests').name
        else:
            count, requests = '1', b.param('request').name
        plan.before_call.append(b.completion(count, requests, status, 'true' if array else 'false'))
        plan.arguments[status] = b.completion_statuses
        optional = [b.ints(role) if role in f.roles else 'nullptr' for role in ('flag', 'index', 'outcount', 'indices')]
        is_test = 'true' if f.name.startswith('MPI_Test') else 'false'
        plan.after_call.append('strata_completion.finish(%s, %s, %s);' % (b.result, is_test, ', '.join(optional)))
        plan.events_after.append('MpiIsendComplete, MpiIrecv, MpiRequestCancelled%s per tracked request'
                                 % (' or MpiRequestTest' if is_test == 'true' else ''))
    elif kind == 'icollective':
        op = nonblocking_collective_op(f)
        collective_record(plan, f, b, op)
        plan.after_call.append('if (%s) mpi::icollective_posted(strata_collective, %s);'
                               % (ok, b.pointed('newrequest')))
        plan.events_after.append('NonBlockingCollectiveRequest(%s); NonBlockingCollectiveComplete at its completion'
                                 % op)
    elif kind == 'collective':
        op = collective_op(f)
        collective_record(plan, f, b, op)
        plan.begin = 'mpi::begin_collective(Function::%s)' % f.name
        plan.end = 'mpi::end_collective(strata_region, strata_collective);'
        plan.events_before.append('MpiCollectiveBegin')
        plan.events_after.append('MpiCollectiveEnd(%s)' % op)
    # Communicators: made (role newcomm; MPI_Comm_idup's, whose request is still
    # open, without communication) or freed (an MPI_Comm * with role comm).
    if 'newcomm' in f.roles and 'newrequest' not in f.roles:
        parent = b.value('comm') if 'comm' in f.roles else 'MPI_COMM_NULL'
        plan.hook_after.append('if (%s) mpi::communicator_created("%s", %s, %s);'
                               % (ok, f.name, parent, b.pointed('newcomm')))
        plan.events_after.append('communicator definition')
    elif 'newcomm' in f.roles and 'comm' in f.roles:
        plan.hook_after.append('if (%s) mpi::communicator_idup(%s, %s);'
                               % (ok, b.value('comm'), b.pointed('newcomm')))
        plan.events_after.append('communicator definition')
    comm = f.by_role('comm')
    if comm is not None and comm.ctype.replace(' ', '') == 'MPI_Comm*' and 'newcomm' not in f.roles:
        plan.hook_before.append('mpi::communicator_freed(%s);' % b.pointed('comm'))
    return plan


def events_comment(f, plan, real):
    steps = ['enter %s' % f.name] + plan.events_before + [real] + plan.events_after + ['exit %s' % f.name]
    return ', '.join(steps)


def indent(lines, depth=1):
    return ['    ' * depth + line + '\n' for line in lines]


def hook(table, f):
    code = table.get(f.name)
    return code.splitlines() if code else []


def wrapper_body(f, b, call, returns):
    """The body of a wrapper: `call(arguments)` is the C++ expression of the real
    call (PMPI_Xxx(...) or real(...)), given {parameter: replacement}; `returns`
    its type."""
    returns_value = returns != 'void'
    plan = event_plan(f, b)
    out = []
    always_before, always_after = hook(HOOKS_BEFORE_CALL, f), hook(HOOKS_AFTER_CALL, f)
    keep = ('const %s strata_result = ' % returns + '%s;') if returns_value else '%s;'
    give = 'return strata_result;' if returns_value else 'return;'
    own = '!mpi::detail::inside_strata'  # on the unrecorded path: the program's own call?
    group = 'mpi::%s' % group_constant(f.group)
    if always_before or always_after or plan.hook_before or plan.hook_after:
        out.append('    if (!mpi::detail::should_record(%s)) {\n' % group)
        body = list(always_before)
        body += ['if (%s) %s' % (own, line) for line in plan.hook_before]
        body.append(keep % call({}))
        body += list(always_after)
        body += ['if (%s && %s' % (own, line[len('if ('):]) if line.startswith('if (') else
                 'if (%s) %s' % (own, line) for line in plan.hook_after]
        body.append(give)
        out.extend(indent(body, 2))
        out.append('    }\n')
    else:
        out.append('    if (!mpi::detail::should_record(%s)) %s%s;\n'
                   % (group, 'return ' if returns_value else 'return ', call({})))
    # A fused begin or end is only right when nothing runs between it and the call.
    assert plan.begin is None or not (always_before or plan.hook_before or plan.before_call), f.name
    assert plan.end is None or not (always_after or plan.after_call or plan.hook_after), f.name
    body = list(plan.before_enter)
    body.append('const RegionHandle strata_region = %s;'
                % (plan.begin or 'mpi::detail::begin(Function::%s)' % f.name))
    body += always_before + plan.hook_before + plan.before_call
    body.append(keep % call(plan.arguments))
    body += always_after + plan.after_call + plan.hook_after
    body.append(plan.end or 'mpi::detail::end(strata_region);')
    if returns_value:
        body.append('return strata_result;')
    out.extend(indent(body))
    return plan, out


# ---------------------------------------------------------------- mpi_c_wrappers.cpp

def call_arguments(params, replace=None):
    replace = replace or {}
    return ', '.join(replace.get(p.name, p.name) for p in params)


def write_c_wrappers(groups, functions):
    out = [HEADER, '''// The C wrappers: for each function of the spec, MPI_Xxx records the region
// "MPI_Xxx" around PMPI_Xxx when its group is enabled (STRATA_MPI_ENABLE_GROUPS)
// and the calling thread is not inside Strata or inside another MPI call, with
// the message events its argument roles call for (generate_wrappers.py, event_plan).
#include "collectives.hpp"
#include "communicators.hpp"
#include "mpi_adapter.hpp"
#include "mpi_process_group.hpp"
#include "p2p_events.hpp"
#include "request_completion.hpp"

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
        b = CBinding(f)
        plan, body = wrapper_body(f, b, lambda replace: 'P%s(%s)' % (f.name, call_arguments(f.params, replace)),
                                  f.result)
        out.append('\n// %s: mpi_functions.spec line %d; group %s, region role %s, MPI %s.\n'
                   % (f.name, f.line, f.group, f.role, f.since))
        if f.variadic:
            out.append('// The variable arguments are not forwarded (PMPI_%s ignores them too).\n'
                       % f.name[4:])
        if f.name in HOOKS_BEFORE_CALL or f.name in HOOKS_AFTER_CALL:
            out.append('// The measurement of all ranks starts / ends here (generate_wrappers.py, HOOKS_*).\n')
        out.append('// Events when the group is enabled: %s.\n' % events_comment(f, plan, 'P' + f.name))
        out.append('#if %s && !defined(%s) && !defined(P%s)\n' % (version_guard(f), f.name, f.name))
        out.append('extern "C" STRATA_MPI_EXPORT %s %s(%s) {\n' % (f.result, f.name, params))
        out.extend(body)
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
// compilers call are defined here, and each records the same region and message
// events as the C wrapper around the MPI library's own pmpi_xxx_ entry point:
//
//     mpi_xxx_  mpi_xxx__  mpi_xxx  MPI_XXX  (mpif.h, "use mpi")  -> pmpi_xxx_
//     mpi_xxx_f08_                          ("use mpi_f08")       -> pmpi_xxx_f08_
//
// The pmpi symbols are weak references: C programs link libstrata-mpi without the
// Fortran MPI libraries, and never call these functions.  Every argument is passed
// on unchanged (Fortran passes them by reference; character lengths by value);
// the events read them through the conversions of mpi_handles.hpp.
#include <cstddef>

#include "collectives.hpp"
#include "communicators.hpp"
#include "mpi_adapter.hpp"
#include "mpi_handles.hpp"
#include "mpi_process_group.hpp"
#include "p2p_events.hpp"
#include "request_completion.hpp"

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
        b = FortranBinding(f)
        plan, body = wrapper_body(f, b, lambda replace: 'real(%s)' % ', '.join(replace.get(a, a) for a in args),
                                  returns)
        out.append('\n// %s: mpi_functions.spec line %d; group %s.  Events when the group is enabled: '
                   '%s.\n' % (f.name, f.line, f.group, events_comment(f, plan, 'pmpi_%s_' % lower[4:])))
        out.append('#if %s\n' % version_guard(f))
        out.append('using %s_fn = %s(%s);\n' % (lower, returns, params))
        out.append('%s %s_record(%s_fn* real, const char* real_name%s) {\n'
                   % (returns, lower, lower, ''.join(', ' + d for d in decls)))
        out.append('    if (real == nullptr) mpi::detail::missing_fortran_symbol(real_name);\n')
        out.extend(body)
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
        outputs = {
            'mpi_groups.hpp': write_groups(groups),
            'mpi_function_table.hpp': write_function_table(groups, functions),
            'mpi_c_wrappers.cpp': write_c_wrappers(groups, functions),
            'mpi_fortran_wrappers.cpp': write_fortran_wrappers(groups, functions),
        }
    except SpecError as error:  # also from event_plan: roles an event needs
        print('generate_wrappers.py: %s' % error, file=sys.stderr)
        return 1
    os.makedirs(args.output_dir, exist_ok=True)
    for name, text in sorted(outputs.items()):
        write_if_changed(os.path.join(args.output_dir, name), text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
