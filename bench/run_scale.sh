#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The scale check of issue 28: RANKS ranks (default 64, oversubscribed) each
# recording EVENTS events (default 2 M) with a small STRATA_TOTAL_MEMORY (4M,
# so that trace buffers are flushed during the run), traced; then
# strata-analyze on 1 and on 4 ranks.  Prints the run's wall time, the largest
# rank's peak memory before MPI_Finalize and of the whole run, the trace's size,
# whether every event is in it (the analysis counts them), and the analyses'
# times and peak memory.
#
#   bench/run_scale.sh [BUILD_DIR] [RANKS] [EVENTS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
ranks=${2:-64}
events=${3:-2000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$build/instrumenter/strata" --no-compiler mpicc -O2 "$here/scale.c" -o "$work/scale" 2> /dev/null
seconds() { awk '/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$1"; }
peak() { awk '/Maximum resident/ { print $NF }' "$1"; }

/usr/bin/time -v -o "$work/run.time" env STRATA_ENABLE_TRACING=true STRATA_TOTAL_MEMORY=4M \
  STRATA_EXPERIMENT_DIRECTORY="$work/exp" mpirun -np "$ranks" --oversubscribe "$work/scale" "$events" \
  > "$work/run.out" 2> "$work/run.err" < /dev/null
echo "run: $ranks ranks x $events events: $(seconds "$work/run.time") s wall, $(grep -o 'peak_rss_kib=[0-9]*' "$work/run.out" | cut -d= -f2) KiB largest rank before MPI_Finalize, $(peak "$work/run.time") KiB largest process of the run"
grep -h 'flushed to disk\|could not\|warning' "$work/run.err" | sort | uniq -c | head -5 || true
echo "trace: $(du -sm "$work/exp/traces" | cut -f1) MB in $(ls "$work/exp/traces" | grep -c '\.evt$') event files"
for k in 1 4; do
  /usr/bin/time -v -o "$work/analyze$k.time" mpirun -np "$k" --oversubscribe "$build/analysis/strata-analyze" \
    --force --output "$work/analysis$k" "$work/exp" > "$work/analyze$k.out" 2> "$work/analyze$k.err" < /dev/null
  counted=$(python3 -c "import json; print(json.load(open('$work/analysis$k/waitstates.json'))['summary']['counts']['events'])")
  echo "strata-analyze on $k: $(seconds "$work/analyze$k.time") s wall, $(peak "$work/analyze$k.time") KiB largest process, $counted events read (expected at least $((ranks * events)))"
done
