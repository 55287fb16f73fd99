#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints Strata's overhead per event against the plain build of each workload:
# medians of alternating runs, profiling only and tracing only (memory large
# enough that no flush happens), and the trace size per event.
#
#   bench/run.sh [BUILD_DIR] [REPETITIONS]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
n=2000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run_one BINARY MODE -> prints ns_per_region; MODE is plain, profile or trace
run_one() {
  local bin=$1 mode=$2 dir="$work/exp-$RANDOM$RANDOM"
  case $mode in
    plain) "$bin" $n ;;
    profile) STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $n 2>/dev/null ;;
    trace) STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G \
           STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $n 2>/dev/null ;;
  esac | sed -n 's/.*ns_per_region=\([0-9.]*\).*/\1/p'
  if [ "$mode" = trace ]; then
    local bytes events
    bytes=$(cat "$dir"/traces/*.evt | wc -c)
    events=$(otf2-print "$dir/traces.otf2" 2>/dev/null | grep -cE '^(ENTER|LEAVE) ')
    echo "$bytes $events" >> "$work/trace-size"
  fi
  rm -rf "$dir"
}

plain=$build/bench/bench-user-regions-plain
strata=$build/bench/bench-user-regions-strata
for f in "$plain" "$strata"; do [ -x "$f" ] || { echo "run.sh: $f not found; build first (cmake --build $build)" >&2; exit 1; }; done

: > "$work/plain"; : > "$work/profile"; : > "$work/trace"; : > "$work/trace-size"
for ((i = 0; i < reps; i++)); do
  run_one "$plain" plain >> "$work/plain"
  run_one "$strata" profile >> "$work/profile"
  run_one "$plain" plain >> "$work/plain"
  run_one "$strata" trace >> "$work/trace"
done
p=$(median < "$work/plain"); pr=$(median < "$work/profile"); tr=$(median < "$work/trace")
read -r bytes events < <(tail -1 "$work/trace-size")
echo "user regions ($n iterations x 2 regions, $reps repetitions, medians)"
printf '  plain                %8.2f ns per region\n' "$p"
printf '  profiling            %8.2f ns per region  -> overhead %6.2f ns\n' "$pr" "$(calc "$pr - $p")"
printf '  tracing              %8.2f ns per region  -> overhead %6.2f ns\n' "$tr" "$(calc "$tr - $p")"
printf '  trace size           %8.2f bytes per event (%s bytes, %s events in the OTF2 files)\n' \
  "$(calc "$bytes / $events")" "$bytes" "$events"
