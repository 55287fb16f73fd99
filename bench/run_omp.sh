#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# OpenMP adapter overhead: omp_bench.c (many short parallel regions, each with a
# worksharing loop and its implicit barrier) on 2 threads, built with clang
# -fopenmp plain and with `strata --no-compiler clang -fopenmp` (the same LLVM
# libomp for both); medians of alternating runs of µs per parallel region,
# profiling only and tracing only.  The plain build also runs with an OMPT tool
# that registers the same callbacks and does nothing (omp_null_tool.c): the
# runtime's own cost of reporting to a tool, which no tool can avoid.
#
#   [REGIONS=N] bench/run_omp.sh [BUILD_DIR] [REPETITIONS]
#
# The reference argument is 20000 regions, but a run of 20000 regions lasts
# 20-60 ms, and on a VM whose second core has been idle the first milliseconds
# are slow: the plain build (which starts timing soonest) then came out slower
# than the builds with a tool.  200000 regions by default make that start-up
# negligible; the cost per region is the same.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${2:-7}
n=${REGIONS:-200000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap '[[ -n ${KEEP_RESULTS:-} ]] && cp "$work"/result-* "$KEEP_RESULTS"/; rm -rf "$work"' EXIT
cc=$(command -v clang || command -v clang-14)
export OMP_NUM_THREADS=2

"$cc" -O2 -fopenmp "$here/omp_bench.c" -o "$work/plain"
"$cc" -O2 -fPIC -shared "$here/omp_null_tool.c" -o "$work/null_tool.so"
"$build/instrumenter/strata" --no-compiler "$cc" -O2 -fopenmp "$here/omp_bench.c" -o "$work/strata" 2> /dev/null

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

run() {  # run NAME BINARY [VAR=VALUE...]: appends µs per region to $work/result-NAME
  local name=$1 bin=$2
  shift 2
  rm -rf "$work/exp"
  env "$@" STRATA_EXPERIMENT_DIRECTORY="$work/exp" "$bin" $n 2> "$work/stderr" |
    sed -n 's/.*us_per_region=\([0-9.]*\).*/\1/p' >> "$work/result-$name"
}

for ((i = 0; i < reps; i++)); do
  run plain "$work/plain"
  run null_tool "$work/plain" LD_PRELOAD="$work/null_tool.so"
  run profile "$work/strata" STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false
  run plain "$work/plain"
  run trace "$work/strata" STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G
done
# The median of each repetition's difference to the plain run right before it
# (the first plain run of a repetition for null_tool and profile, the second
# for trace): the machine's speed drifts from one repetition to the next, and
# the pairs share the drift.
paired() {  # paired MODE OFFSET
  paste -d' ' "$work/result-$1" <(awk -v o="$2" 'NR % 2 == (o + 1) % 2' "$work/result-plain") |
    awk '{print $1 - $2}' | median
}
plain=$(median < "$work/result-plain")
echo "OpenMP (omp_bench.c, $OMP_NUM_THREADS threads, $n parallel regions, $reps repetitions, medians)"
printf '  plain       %7.3f us per parallel region\n' "$plain"
for mode in null_tool profile trace; do
  t=$(median < "$work/result-$mode")
  offset=0
  [[ $mode == trace ]] && offset=1
  printf '  %-10s  %7.3f us per parallel region   -> overhead %s us (paired with the adjacent plain run: %s us)\n' \
    "$mode" "$t" "$(calc "$t - $plain")" "$(calc "$(paired "$mode" $offset)")"
done
