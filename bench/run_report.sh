#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The reports of large traces: how big they are and how long report.html
# takes to open.  Two experiments, each analysed once by `strata-analyze`
# with its default options (trace.json included):
#   mpi    a synthetic MPI trace of about 8 ranks x ITERATIONS x 11.3 events
#          (bench-analysis-trace-gen, as run_analysis.sh; default 560000
#          iterations, about 50.5 million events; a trace, no profile.h5);
#   calls  bench-calls-strata CALLS traced (compiler instrumentation; default
#          2000000 calls, about 44 million events; profile and trace);
# and for each:
#   - the wall time of the analysis;
#   - the size of report.html, trace.json, timeline.json and the whole analysis/ directory;
#   - the time headless Chromium takes to load report.html and run its
#     scripts (`--dump-dom`), minus that of an empty page, median of REPS.
# The trace is deleted at the end.
#
#   bench/run_report.sh [BUILD_DIR] [ITERATIONS] [REPS] [CALLS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
iterations=${2:-560000}
reps=${3:-5}
gen=$build/bench/bench-analysis-trace-gen
analyze=$build/analysis/strata-analyze
chromium=$(command -v chromium || command -v chromium-browser || true)
for tool in "$gen" "$analyze"; do
  [[ -x $tool ]] || { echo "run_report.sh: $tool is missing (build the tree first)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

calls=${4:-2000000}
size() { du -b "$1" | cut -f1 | awk '{ printf ($1 < 1e6 ? "%.0f kB" : "%.1f MB"), ($1 < 1e6 ? $1 / 1e3 : $1 / 1e6) }'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
load() {  # wall seconds of headless Chromium loading $1 and printing its DOM
  local s e
  s=$(date +%s.%N)
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --dump-dom "$1" > /dev/null 2>&1
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}
report() {  # report NAME EXPERIMENT DESCRIPTION
  local name=$1 experiment=$2 start end
  start=$(date +%s.%N)
  "$analyze" "$experiment" > "$work/analyze.log" 2>&1 || { cat "$work/analyze.log"; exit 1; }
  end=$(date +%s.%N)
  echo "$name: $3"
  awk -v s="$start" -v e="$end" 'BEGIN { printf "  strata-analyze (K=1, default options): %.2f s\n", e - s }'
  echo "  report.html $(size "$experiment/analysis/report.html"), trace.json $(size "$experiment/analysis/trace.json"), timeline.json $(size "$experiment/analysis/timeline.json"), analysis/ $(size "$experiment/analysis")"
  [[ -n $chromium ]] || { echo "  open time: no chromium on the PATH"; return; }
  rm -f "$work/empty.times" "$work/report.times"
  for ((i = 0; i < reps; i++)); do
    load "file://$work/empty.html" >> "$work/empty.times"
    load "file://$experiment/analysis/report.html" >> "$work/report.times"
  done
  local empty full
  empty=$(median < "$work/empty.times")
  full=$(median < "$work/report.times")
  awk -v r="$full" -v z="$empty" 'BEGIN { printf "  report.html opens in %.2f s in headless Chromium (%.2f s, less %.2f s for an empty page)\n", r - z, r, z }'
}
printf '<!DOCTYPE html><title>empty</title>' > "$work/empty.html"
[[ -n $chromium ]] && load "file://$work/empty.html" > /dev/null  # the first start fills the profile

events=$("$gen" "$work/trace" 8 "$iterations" 5)
report mpi "$work/trace" "$events events, $iterations iterations of 8 ranks"
rm -rf "$work/trace"

STRATA_EXPERIMENT_DIRECTORY="$work/calls" STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=1G \
  "$build/bench/bench-calls-strata" "$calls" > /dev/null 2>&1
report calls "$work/calls" "bench-calls-strata $calls, traced"
