#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a traced run costs as a whole: the wall time of the process (start,
# run, finalisation, the trace written), plain and traced, and the part after
# the program's own timed loop (the trace's writing, mostly).  Medians of
# alternating runs; memory large enough that no buffer is flushed during the
# run, so that the writing happens at the end, where a job's time limit bites.
#
#   bench/run_write.sh [BUILD_DIR] [REPETITIONS] [calls|user|flush|mpi]   (default: calls and user;
#       flush: 64 threads' peak memory; mpi: the MPI and OpenMP workloads, whole process only)
#
# STRATA_BENCH_LIBRARY_DIR=DIR runs the same programs with the
# libstrata-measurement.so.0 in DIR instead of the build's (a before/after
# comparison of the write path with one set of binaries).
set -euo pipefail
build=${1:-build}
reps=${2:-7}
only=${3:-}
n=2000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
library_dir=${STRATA_BENCH_LIBRARY_DIR:-}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }

# run_one BINARY MODE -> "whole_seconds loop_seconds events bytes"
run_one() {
  local bin=$1 mode=$2 dir="$work/exp-$RANDOM$RANDOM" begin end out loop events=0 bytes=0
  begin=$(now)
  if [ "$mode" = plain ]; then
    out=$("$bin" $n)
  else
    out=$(env ${library_dir:+LD_LIBRARY_PATH=$library_dir} STRATA_ENABLE_PROFILING=false \
          STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=2G STRATA_EXPERIMENT_DIRECTORY="$dir" \
          "$bin" $n 2>/dev/null)
  fi
  end=$(now)
  loop=$(sed -n 's/.*loop_seconds=\([0-9.]*\).*/\1/p' <<< "$out")
  if [ "$mode" = trace ]; then
    bytes=$(cat "$dir"/traces/*.evt | wc -c)
    events=$(otf2-print -A "$dir/traces.otf2" 2>/dev/null | sed -n 's/.*# Events: \([0-9]*\).*/\1/p' |
             awk '{s += $1} END {print s + 0}')
  fi
  rm -rf "$dir"
  echo "$(awk "BEGIN { print $end - $begin }") $loop $events $bytes"
}

bench() {
  local name=$1 plain=$2 strata=$3
  for f in "$plain" "$strata"; do
    [ -x "$f" ] || { echo "run_write.sh: $f not found; build first (cmake --build $build)" >&2; exit 1; }
  done
  : > "$work/plain"; : > "$work/trace"
  for ((i = 0; i < reps; i++)); do
    run_one "$plain" plain >> "$work/plain"
    run_one "$strata" trace >> "$work/trace"
  done
  local pw pl tw tl events bytes
  pw=$(cut -d' ' -f1 "$work/plain" | median); pl=$(cut -d' ' -f2 "$work/plain" | median)
  tw=$(cut -d' ' -f1 "$work/trace" | median); tl=$(cut -d' ' -f2 "$work/trace" | median)
  read -r _ _ events bytes < <(tail -1 "$work/trace")
  local library="the build's"
  [ -n "$library_dir" ] && library=$library_dir
  echo "$name ($n iterations, $reps repetitions, medians; libstrata-measurement of $library)"
  printf '  plain     whole process %7.3f s   its loop %7.3f s\n' "$pw" "$pl"
  printf '  traced    whole process %7.3f s   its loop %7.3f s   after the loop %7.3f s\n' \
    "$tw" "$tl" "$(awk "BEGIN { print $tw - $tl - ($pw - $pl) }")"
  printf '  trace     %s events, %s bytes of event files: %.2f ns per event after the loop\n' \
    "$events" "$bytes" "$(awk "BEGIN { e = $events; if (e > 0) print 1e9 * ($tw - $tl - ($pw - $pl)) / e; else print 0 }")"
}

# flush_threads: peak memory and wall time of 64 threads that flush 1M of trace memory over and over.
flush_threads() {
  local bin=$build/bench/bench-flush-threads-strata dir="$work/exp-flush" rss wall
  [ -x "$bin" ] || { echo "run_write.sh: $bin not found; build first (cmake --build $build)" >&2; exit 1; }
  : > "$work/flush"
  for ((i = 0; i < reps; i++)); do
    rm -rf "$dir"
    env ${library_dir:+LD_LIBRARY_PATH=$library_dir} STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true \
      STRATA_TOTAL_MEMORY=1M STRATA_EXPERIMENT_DIRECTORY="$dir" \
      /usr/bin/time -f '%M %e' -o "$work/time" "$bin" 64 200000 > /dev/null 2>&1
    cat "$work/time" >> "$work/flush"
  done
  rss=$(cut -d' ' -f1 "$work/flush" | median); wall=$(cut -d' ' -f2 "$work/flush" | median)
  echo "64 threads flushing 1M of trace memory over and over (200000 regions each, $reps repetitions, medians)"
  printf '  peak resident memory %8.1f MiB   wall %6.2f s\n' "$(awk "BEGIN { print $rss / 1024 }")" "$wall"
}

# whole NAME: the whole-process wall time of a program run plain and traced, for
# workloads without a loop time of their own (MPI: mpi_bench.c on 2 ranks;
# OpenMP: omp_bench.c, 2 threads), each built as run_mpi.sh / run_omp.sh build it.
whole() {
  local name=$1 plain=$2 strata=$3 launch=$4 size=$5 dir="$work/exp-whole" begin end
  : > "$work/whole-plain"; : > "$work/whole-trace"
  for ((i = 0; i < reps; i++)); do
    begin=$(now); $launch "$plain" "$size" > /dev/null 2>&1; end=$(now)
    awk "BEGIN { print $end - $begin }" >> "$work/whole-plain"
    rm -rf "$dir"
    begin=$(now)
    env ${library_dir:+LD_LIBRARY_PATH=$library_dir} STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true \
      STRATA_TOTAL_MEMORY=2G STRATA_EXPERIMENT_DIRECTORY="$dir" $launch "$strata" "$size" > /dev/null 2>&1
    end=$(now)
    awk "BEGIN { print $end - $begin }" >> "$work/whole-trace"
  done
  local events bytes p t
  bytes=$(cat "$dir"/traces/*.evt | wc -c)
  events=$(otf2-print -A "$dir/traces.otf2" 2>/dev/null | sed -n 's/.*# Events: \([0-9]*\).*/\1/p' |
           awk '{s += $1} END {print s + 0}')
  p=$(median < "$work/whole-plain"); t=$(median < "$work/whole-trace")
  echo "$name ($reps repetitions, medians)"
  printf '  whole process: plain %7.3f s, traced %7.3f s; %s events, %s bytes of event files\n' "$p" "$t" \
    "$events" "$bytes"
}

mpi_and_openmp() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
  local here cc
  here=$(cd "$(dirname "$0")" && pwd)
  mpicc -O2 "$here/mpi_bench.c" -o "$work/mpi-plain"
  "$build/instrumenter/strata" --no-compiler mpicc -O2 "$here/mpi_bench.c" -o "$work/mpi-strata" 2> /dev/null
  whole "MPI (mpi_bench.c 1000000: ping-pong and allreduce, 2 ranks)" "$work/mpi-plain" "$work/mpi-strata" \
    "mpirun -np 2 -x LD_LIBRARY_PATH" 1000000
  cc=$(command -v clang || command -v clang-14)
  "$cc" -O2 -fopenmp "$here/omp_bench.c" -o "$work/omp-plain"
  "$build/instrumenter/strata" --no-compiler "$cc" -O2 -fopenmp "$here/omp_bench.c" -o "$work/omp-strata" \
    2> /dev/null
  whole "OpenMP (omp_bench.c 1000000 parallel regions, 2 threads)" "$work/omp-plain" "$work/omp-strata" "" 1000000
}

[ "$only" = flush ] && { flush_threads; exit 0; }
[ "$only" = mpi ] && { mpi_and_openmp; exit 0; }
[ "$only" != user ] && bench "calls (compiler instrumentation)" "$build/bench/bench-calls-plain" \
  "$build/bench/bench-calls-strata"
[ "$only" != calls ] && bench "user regions" "$build/bench/bench-user-regions-plain" \
  "$build/bench/bench-user-regions-strata"
exit 0
