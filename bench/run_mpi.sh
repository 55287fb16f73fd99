#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI wrapper overhead: mpi_bench.c on 2 ranks, built plain (mpicc) and with
# `strata --no-compiler mpicc`; medians of alternating runs of µs per ping-pong
# round trip and per 8-byte MPI_Allreduce, profiling only and tracing only.
#
#   bench/run_mpi.sh [BUILD_DIR] [REPETITIONS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${2:-7}
n=100000
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mpicc -O2 "$here/mpi_bench.c" -o "$work/plain"
"$build/instrumenter/strata" --no-compiler mpicc -O2 "$here/mpi_bench.c" -o "$work/strata" 2> /dev/null

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

run() {  # run NAME BINARY [VAR=VALUE...]: appends "pingpong allreduce" to $work/NAME
  local name=$1 bin=$2
  shift 2
  rm -rf "$work/exp"
  env "$@" STRATA_EXPERIMENT_DIRECTORY="$work/exp" mpirun -np 2 "$bin" $n < /dev/null 2> "$work/stderr" |
    sed -n 's/.*pingpong_us=\([0-9.]*\) allreduce_us=\([0-9.]*\).*/\1 \2/p' >> "$work/result-$name"
}

for ((i = 0; i < reps; i++)); do
  run plain "$work/plain"
  run profile "$work/strata" STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false
  run plain "$work/plain"
  run trace "$work/strata" STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G
done
col() { awk -v c="$2" '{print $c}' "$work/result-$1" | median; }
# The median of each repetition's difference to the plain run right before it
# (the first plain run of a repetition for profile, the second for trace): the
# machine's speed drifts from one repetition to the next, and the pairs share the drift.
paired() {  # paired MODE OFFSET COLUMN
  paste -d' ' <(awk -v c="$3" '{print $c}' "$work/result-$1") \
    <(awk -v o="$2" -v c="$3" 'NR % 2 == (o + 1) % 2 {print $c}' "$work/result-plain") |
    awk '{print $1 - $2}' | median
}
pp=$(col plain 1) ar=$(col plain 2)
echo "MPI (mpi_bench.c, 2 ranks, $n iterations, $reps repetitions, medians)"
printf '  plain       ping-pong %7.3f us   allreduce %7.3f us\n' "$pp" "$ar"
for mode in profile trace; do
  p=$(col $mode 1) a=$(col $mode 2)
  offset=0
  [[ $mode == trace ]] && offset=1
  printf '  %-10s  ping-pong %7.3f us   allreduce %7.3f us   -> overhead %s us per round trip, %s us per allreduce\n' \
    "$mode" "$p" "$a" "$(calc "$p - $pp")" "$(calc "$a - $ar")"
  printf '  %-10s  paired with the adjacent plain run: %s us per round trip, %s us per allreduce\n' \
    "" "$(calc "$(paired "$mode" $offset 1)")" "$(calc "$(paired "$mode" $offset 2)")"
done
