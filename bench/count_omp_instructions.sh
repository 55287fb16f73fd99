#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instructions Strata adds per OpenMP parallel region, counted by callgrind
# (valgrind), so independent of the machine's speed: omp_bench.c on 2 threads,
# built with `strata --no-compiler clang -fopenmp`; per thread (the forking
# one and the worker), the instructions executed inside the adapter's OMPT
# callbacks (everything they call included: callgrind --toggle-collect) per
# region, profiling only and tracing only.  Run with N and 2N regions: the difference divided by N
# leaves out what happens once (start-up, the first region's look-ups, the
# end).  The threads' own code and libomp's are not counted: under valgrind
# the threads run one at a time and a barrier spins for as long as its
# time slice lasts.  Needs valgrind and clang.
#
#   bench/count_omp_instructions.sh [BUILD_DIR] [N]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null || {
  echo "count_omp_instructions.sh: needs valgrind (apt-get install valgrind)" >&2
  exit 1
}
cc=$(command -v clang || command -v clang-14) || {
  echo "count_omp_instructions.sh: needs clang (LLVM's OpenMP runtime implements OMPT)" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2

"$build/instrumenter/strata" --no-compiler "$cc" -O2 -fopenmp "$here/omp_bench.c" -o "$work/strata" 2> /dev/null

# total FILE: the instructions callgrind counted in FILE.
total() { callgrind_annotate "$1" 2> /dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }

count() {  # count MODE VAR=VALUE...: prints the instructions per region of both threads
  local mode=$1 regions
  shift
  for regions in "$n" $((2 * n)); do
    rm -rf "$work/exp"
    # Counting only inside the callbacks libomp calls (on_parallel_begin,
    # on_implicit_task, ...), with all they call.
    env "$@" STRATA_EXPERIMENT_DIRECTORY="$work/exp" valgrind --tool=callgrind --separate-threads=yes \
      --toggle-collect='strata::openmp::(anonymous namespace)::on_*' \
      --callgrind-out-file="$work/cg.$regions" "$work/strata" "$regions" > /dev/null 2>&1
  done
  local first second
  first=$((($(total "$work/cg.$((2 * n))-01") - $(total "$work/cg.$n-01")) / n))
  second=$((($(total "$work/cg.$((2 * n))-02") - $(total "$work/cg.$n-02")) / n))
  printf '  %-8s forking thread %5d   worker %5d   both %5d instructions per region\n' \
    "$mode" "$first" "$second" $((first + second))
}

echo "Instructions in Strata's OMPT callbacks per parallel region (callgrind, omp_bench.c, 2 threads, $n and $((2 * n)) regions)"
count profile STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false
count trace STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G
