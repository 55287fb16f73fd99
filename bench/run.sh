#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints Strata's overhead per event against the plain build of each workload:
# medians of alternating runs, profiling only and tracing only (memory large
# enough that no flush happens), and the trace size per event.
#
#   bench/run.sh [BUILD_DIR] [REPETITIONS] [user|calls]    (default: both workloads)
set -euo pipefail
build=${1:-build}
reps=${2:-7}
only=${3:-}
n=2000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run_one BINARY MODE [PRELOAD] -> prints ns_per_region; MODE is plain, profile or trace;
# PRELOAD goes into LD_PRELOAD of the binary alone (not of the tools around it)
run_one() {
  local bin=$1 mode=$2 preload=${3:-} dir="$work/exp-$RANDOM$RANDOM"
  case $mode in
    plain) "$bin" $n ;;
    profile) env ${preload:+LD_PRELOAD=$preload} STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false \
             STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $n 2>/dev/null ;;
    trace) env ${preload:+LD_PRELOAD=$preload} STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true \
           STRATA_TOTAL_MEMORY=1G STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $n 2>/dev/null ;;
  esac | sed -n 's/.*ns_per_region=\([0-9.]*\).*/\1/p'
  if [ "$mode" = trace ]; then
    local bytes events
    bytes=$(cat "$dir"/traces/*.evt | wc -c)
    events=$(otf2-print "$dir/traces.otf2" 2>/dev/null | grep -cE '^(ENTER|LEAVE) ')
    echo "$bytes $events" >> "$work/trace-size"
  fi
  rm -rf "$dir"
}

if [ "$only" != calls ]; then
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
# The same workload through NVTX ranges, with Strata's CUDA adapter as the NVTX
# tool (no GPU needed): the CUDA adapter's target is an NVTX range at no more
# than a user region's cost.
nvtx=$build/bench/bench-user-regions-nvtx
cuda_adapter=$build/adapters/cuda/libstrata-cuda.so
: > "$work/nvtx-profile"; : > "$work/nvtx-trace"
if [ -x "$nvtx" ] && [ -e "$cuda_adapter" ]; then
  for ((i = 0; i < reps; i++)); do
    STRATA_CUDA_ENABLE=nvtx run_one "$nvtx" profile "$cuda_adapter" >> "$work/nvtx-profile"
    STRATA_CUDA_ENABLE=nvtx run_one "$nvtx" trace "$cuda_adapter" >> "$work/nvtx-trace"
  done
fi

echo "user regions ($n iterations x 2 regions, $reps repetitions, medians)"
printf '  plain                %8.2f ns per region\n' "$p"
printf '  profiling            %8.2f ns per region  -> overhead %6.2f ns\n' "$pr" "$(calc "$pr - $p")"
printf '  tracing              %8.2f ns per region  -> overhead %6.2f ns\n' "$tr" "$(calc "$tr - $p")"
printf '  trace size           %8.2f bytes per event (%s bytes, %s events in the OTF2 files)\n' \
  "$(calc "$bytes / $events")" "$bytes" "$events"
if [ -s "$work/nvtx-profile" ]; then
  np=$(median < "$work/nvtx-profile"); nt=$(median < "$work/nvtx-trace")
  printf '  NVTX ranges, profiling %6.2f ns per range   -> overhead %6.2f ns\n' "$np" "$(calc "$np - $p")"
  printf '  NVTX ranges, tracing   %6.2f ns per range   -> overhead %6.2f ns\n' "$nt" "$(calc "$nt - $p")"
fi
fi

[ "$only" = user ] && exit 0

# --- compiler instrumentation: calls.c (1 call of mid() and 10 of leaf() per iteration)
# bench-calls-strata is built by the wrapper as users get it (the GCC plugin when Strata has it),
# bench-calls-strata-no-plugin with -finstrument-functions (strata --no-plugin).
calls_n=1000000
calls_plain=$build/bench/bench-calls-plain
calls_empty=$build/bench/bench-calls-empty-hooks
calls_strata=$build/bench/bench-calls-strata
calls_cyg=$build/bench/bench-calls-strata-no-plugin
# leaf() not instrumented (compile-time exclusion): the baselines of "leaf filtered"
calls_strata_out=$build/bench/bench-calls-strata-plugin-leaf-out
calls_cyg_out=$build/bench/bench-calls-strata-no-plugin-leaf-out
leaf_filter=$(cd "$(dirname "$0")" && pwd)/leaf.filter
all_filter=$work/all.filter
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n' > "$all_filter"
for f in "$calls_plain" "$calls_empty" "$calls_strata" "$calls_cyg" "$calls_strata_out" "$calls_cyg_out"; do
  [ -x "$f" ] || { echo "run.sh: $f not found; build first (cmake --build $build)" >&2; exit 1; }
done
if nm -u "$calls_strata" | grep -q strata_plugin_enter; then
  strata_label="GCC plugin"
else
  strata_label="-finstrument-functions (Strata built without its GCC plugin)"
fi

# run_calls BINARY MODE -> prints ns_per_call; MODE is plain, profile, trace, leaf or all
# (leaf: leaf() filtered out; all: every function filtered out)
run_calls() {
  local bin=$1 mode=$2 dir="$work/exp-$RANDOM$RANDOM"
  case $mode in
    plain) "$bin" $calls_n ;;
    profile) STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false STRATA_EXPERIMENT_DIRECTORY=$dir \
             "$bin" $calls_n 2>/dev/null ;;
    trace) STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G \
           STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $calls_n 2>/dev/null ;;
    leaf|all) local rules=$leaf_filter
              [ "$mode" = all ] && rules=$all_filter
              STRATA_ENABLE_PROFILING=true STRATA_ENABLE_TRACING=false STRATA_FILTERING_FILE=$rules \
              STRATA_EXPERIMENT_DIRECTORY=$dir "$bin" $calls_n 2>/dev/null ;;
  esac | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'
  rm -rf "$dir"
}

# Alternating runs: a load that comes and goes affects every variant alike.  The filtered
# figures are medians of differences between runs made one right after the other (leaf
# filtered - leaf not instrumented; all filtered - plain), which a changing load disturbs less
# than a difference of medians.
variants="strata cyg"
for m in plain empty; do : > "$work/calls-$m"; done
for v in $variants; do for m in profile trace leaf all out leaf-diff all-diff; do : > "$work/calls-$v-$m"; done; done
for ((i = 0; i < reps; i++)); do
  run_calls "$calls_plain" plain >> "$work/calls-plain"
  run_calls "$calls_empty" plain >> "$work/calls-empty"
  for v in $variants; do
    bin=$calls_strata out=$calls_strata_out
    [ "$v" = cyg ] && bin=$calls_cyg out=$calls_cyg_out
    run_calls "$bin" profile >> "$work/calls-$v-profile"
    run_calls "$bin" trace >> "$work/calls-$v-trace"
    o=$(run_calls "$out" profile); l=$(run_calls "$bin" leaf)
    p=$(run_calls "$calls_plain" plain); a=$(run_calls "$bin" all)
    echo "$o" >> "$work/calls-$v-out"; echo "$l" >> "$work/calls-$v-leaf"
    echo "$p" >> "$work/calls-plain"; echo "$a" >> "$work/calls-$v-all"
    # With leaf filtered, mid is still recorded: the same program with leaf not instrumented
    # costs the recorded mid alone, and the difference is 10 filtered calls per iteration.
    calc "11 * ($l - $o) / 10" >> "$work/calls-$v-leaf-diff"
    calc "$a - $p" >> "$work/calls-$v-all-diff"
  done
done
cp=$(median < "$work/calls-plain"); cem=$(median < "$work/calls-empty")
echo "compiler instrumentation (calls.c: $calls_n iterations x 11 calls, $reps repetitions, medians)"
printf '  plain                %8.2f ns per call\n' "$cp"
printf '  empty hooks          %8.2f ns per call    -> overhead %6.2f ns (-finstrument-functions alone)\n' \
  "$cem" "$(calc "$cem - $cp")"
for v in $variants; do
  if [ "$v" = strata ]; then echo "  $strata_label:"; else echo "  -finstrument-functions (strata --no-plugin):"; fi
  cpr=$(median < "$work/calls-$v-profile"); ctr=$(median < "$work/calls-$v-trace")
  cle=$(median < "$work/calls-$v-leaf"); cal=$(median < "$work/calls-$v-all")
  cout=$(median < "$work/calls-$v-out")
  printf '    profiling          %8.2f ns per call    -> overhead %6.2f ns\n' "$cpr" "$(calc "$cpr - $cp")"
  printf '    tracing            %8.2f ns per call    -> overhead %6.2f ns\n' "$ctr" "$(calc "$ctr - $cp")"
  printf '    leaf filtered      %8.2f ns per call    -> overhead %6.2f ns per filtered call (mid recorded;\n' \
    "$cle" "$(median < "$work/calls-$v-leaf-diff")"
  printf '                                                   %8.2f ns per call with leaf not instrumented)\n' "$cout"
  printf '    all filtered       %8.2f ns per call    -> overhead %6.2f ns per filtered call\n' \
    "$cal" "$(median < "$work/calls-$v-all-diff")"
done
