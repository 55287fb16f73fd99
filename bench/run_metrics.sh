#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints the extra cost of reading counters (STRATA_METRIC_*) at every region
# enter and exit: the user-region workload with profiling (and with tracing),
# without counters and with 1 and 3 PAPI events and with rusage; medians of
# alternating runs.  Each region is one enter and one exit, so one region
# reads the counters twice.
#
#   bench/run_metrics.sh [BUILD_DIR] [REPETITIONS]
set -euo pipefail
build=${1:-build}
reps=${2:-5}
n=200000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

strata=$build/bench/bench-user-regions-strata
[ -x "$strata" ] || { echo "run_metrics.sh: $strata not found; build first (cmake --build $build)" >&2; exit 1; }

papi1=perf::TASK-CLOCK
papi3=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES
rusage=ru_utime,ru_stime,ru_minflt,ru_nvcsw,ru_nivcsw

# run_one MODE SUBSTRATE -> prints ns_per_region; MODE is none, papi1, papi3 or rusage,
# SUBSTRATE profile or trace
run_one() {
  local mode=$1 substrate=$2 dir="$work/exp-$RANDOM$RANDOM"
  local -a env=(STRATA_EXPERIMENT_DIRECTORY="$dir" STRATA_TOTAL_MEMORY=1G)
  case $substrate in
    profile) env+=(STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false) ;;
    trace) env+=(STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true) ;;
  esac
  case $mode in
    papi1) env+=(STRATA_METRIC_PAPI=$papi1) ;;
    papi3) env+=(STRATA_METRIC_PAPI=$papi3) ;;
    rusage) env+=(STRATA_METRIC_RUSAGE=$rusage) ;;
  esac
  env "${env[@]}" "$strata" $n 2>/dev/null | sed -n 's/.*ns_per_region=\([0-9.]*\).*/\1/p'
  rm -rf "$dir"
}

modes="none papi1 papi3 rusage"
for s in profile trace; do for m in $modes; do : > "$work/$s-$m"; done; done
for ((i = 0; i < reps; i++)); do
  for s in profile trace; do
    for m in $modes; do run_one "$m" "$s" >> "$work/$s-$m"; done
  done
done

echo "counters at every enter and exit (user regions, $n iterations x 2 regions, $reps repetitions, medians)"
echo "  papi1 = $papi1"
echo "  papi3 = $papi3"
echo "  rusage = $rusage (one getrusage call)"
for s in profile trace; do
  base=$(median < "$work/$s-none")
  printf '  %-9s no counters %8.1f ns per region\n' "$s" "$base"
  for m in papi1 papi3 rusage; do
    v=$(median < "$work/$s-$m")
    printf '  %-9s %-11s %8.1f ns per region -> %7.1f ns per region, %7.1f ns per enter or exit\n' \
      "$s" "$m" "$v" "$(calc "$v - $base")" "$(calc "($v - $base) / 2")"
  done
done
