#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instructions Strata adds per MPI call, counted by callgrind (valgrind), so
# independent of the machine's load: mpi_bench.c on 2 ranks, built with
# `strata --no-compiler mpicc`; for MPI_Send, MPI_Recv and MPI_Allreduce on
# rank 0, the instructions executed inside the wrapper but outside the PMPI
# call it makes, per call, profiling only and tracing only.  Needs valgrind.
#
#   bench/count_mpi_instructions.sh [BUILD_DIR] [ITERATIONS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-20000}
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null || {
  echo "count_mpi_instructions.sh: needs valgrind (apt-get install valgrind)" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$build/instrumenter/strata" --no-compiler mpicc -O2 -g "$here/mpi_bench.c" -o "$work/strata" 2> /dev/null

count() {  # count MODE VAR=VALUE...: prints the instructions per call of the three wrappers
  local mode=$1
  shift
  rm -rf "$work/exp" "$work"/callgrind.*
  env "$@" STRATA_EXPERIMENT_DIRECTORY="$work/exp" mpirun -np 2 \
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%q{OMPI_COMM_WORLD_RANK}" "$work/strata" "$n" \
    < /dev/null > /dev/null 2>&1
  callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$work/callgrind.0" 2> /dev/null > "$work/tree"
  # Per wrapper MPI_<fn> of rank 0: its inclusive count (the largest entry of
  # that name: code inlined from headers is also listed under its own file)
  # minus the PMPI_<fn> calls made from it.
  python3 - "$work/tree" "$mode" "$n" << 'PY'
import re, sys
path, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
entry = re.compile(r'^\s*([\d,]+) \(\s*[\d.]+%\)\s+([*>])\s+(\S+)')
functions = ('Send', 'Recv', 'Allreduce')
total, inner = dict.fromkeys(functions, 0), dict.fromkeys(functions, 0)
current = None
for line in open(path, errors='replace'):
    m = entry.match(line)
    if not m:
        if not line.strip():
            current = None
        continue
    count, kind, name = int(m.group(1).replace(',', '')), m.group(2), m.group(3).rsplit(':', 1)[-1]
    if kind == '*':
        current = name[4:] if name.startswith('MPI_') and name[4:] in total else None
        if current:
            total[current] = max(total[current], count)
    elif current and name == 'PMPI_' + current:
        inner[current] += count
for f in functions:
    print('  %-8s MPI_%-10s %5.0f instructions per call' % (mode, f, (total[f] - inner[f]) / n))
PY
}

echo "Instructions Strata adds per MPI call (callgrind, mpi_bench.c, 2 ranks, $n iterations)"
count profile STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false
count trace STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G
