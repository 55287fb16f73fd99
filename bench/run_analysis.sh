#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Throughput of the trace analysis: a synthetic MPI trace of about
# 8 ranks x ITERATIONS x 11.3 events (bench-analysis-trace-gen; default
# 560000 iterations, about 50.5 million events, about 0.6 GB on disk; a
# message (a send and a receive record) every MESSAGE_EVERY iterations,
# default 5: one per 56 events) is read by
#   (a) the floor: bench-otf2-read-floor, a plain OTF2 reader decoding the
#       same events with empty callbacks, one process;
#   (a2) the floor of two readers: two such readers at the same time, each
#       decoding half of the locations, as the two ranks of (c) share them
#       (the machine's own speed-up from one reader to two);
#   (b) mpirun -np 1 strata-analyze, (c) mpirun -np 2 strata-analyze
#       (--timeline-events 0: the replay and the wait states, no trace.json);
# alternating, REPETITIONS times, medians.  Events per second per analysis
# rank against the floor, the K=1 -> K=2 speed-up, and the peak resident
# memory of each analysis rank (/usr/bin/time -v).  The start-up of
# strata-analyze (MPI, definitions, reports) is measured on a trace of one
# iteration and also given, so that the replay itself can be compared.
# The trace is deleted at the end.
#
#   bench/run_analysis.sh [BUILD_DIR] [ITERATIONS] [REPETITIONS] [MESSAGE_EVERY]
#
# RANKS=N writes a trace of N measured ranks instead of 8 (events: N x
# ITERATIONS x 11.3; the analysis ranks share the measured ranks in units of
# whole ranks, so more of them balance K = 2 more finely).
# Set TMPDIR to put the trace on another file system.  MPIRUN_OPTIONS are
# added to every mpirun.  With BUSY_CORE=C, each repetition also runs K=2
# with the ranks bound to cores while another process spins on core C: the
# rank there reads at half speed, so a fixed split of the trace would take as
# long as K=1 alone, and handing the units out on request at best 1/1.5 of it.  (On one node strata-analyze itself chooses Open
# MPI's ob1 layer unless OMPI_MCA_pml is set, which skips the probing of UCX
# and libfabric at MPI_Init: about 0.2 s, the same for K = 1 and K = 2.)
# With CLOCK_ERROR_NS=E (above 300), the odd ranks' ClockOffset points are E
# ns off, so that every receive of rank 1 and the odd ranks' Allreduce exits
# violate the clock condition: the cost of the controlled logical clock (its
# rounds and the second read of the trace).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
iterations=${2:-560000}
reps=${3:-3}
message_every=${4:-5}
work=$(mktemp -d)
busy=
trap 'rm -rf "$work"; [[ -z $busy ]] || kill "$busy" 2> /dev/null' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gen=$build/bench/bench-analysis-trace-gen
floor=$build/bench/bench-otf2-read-floor
analyze=$build/analysis/strata-analyze
for tool in "$gen" "$floor" "$analyze"; do
  [[ -x $tool ]] || { echo "run_analysis.sh: $tool is not built" >&2; exit 1; }
done

ranks=${RANKS:-8}
events=$("$gen" "$work/trace" "$ranks" "$iterations" "$message_every")
"$gen" "$work/tiny" "$ranks" 1 > /dev/null
# The trace's pages are written back to disk before the runs: the kernel's
# writeback would otherwise take CPU time from them, and from K = 2 (which
# has no idle core) more than from K = 1.
sync
[[ -n ${MPIRUN_OPTIONS:-} ]] && echo "mpirun options: $MPIRUN_OPTIONS"
echo "trace: $ranks ranks, $iterations iterations, a message every $message_every, $events events, $(du -sh "$work/trace" | cut -f1) on disk"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
now() { date +%s.%N; }

# CPU seconds (user + system) from a /usr/bin/time -v file.
cpu_of() { awk -F': ' '/User time|System time/ {t += $2} END {printf "%.3f\n", t}' "$1"; }

run_floor() {  # wall seconds to $work/floor, CPU seconds to $work/cpu-floor
  local start end
  start=$(now)
  /usr/bin/time -v -o "$work/time.floor" "$floor" "$work/trace/traces.otf2" > /dev/null
  end=$(now)
  calc "$end - $start" 3 >> "$work/floor"
  echo >> "$work/floor"
  cpu_of "$work/time.floor" >> "$work/cpu-floor"
}
run_floor_pair() {  # wall seconds of the slower reader to $work/floor2, its CPU seconds to $work/cpu-floor2
  local start end
  start=$(now)
  /usr/bin/time -v -o "$work/time.floor0" "$floor" "$work/trace/traces.otf2" 0 2 > /dev/null &
  /usr/bin/time -v -o "$work/time.floor1" "$floor" "$work/trace/traces.otf2" 1 2 > /dev/null
  wait
  end=$(now)
  calc "$end - $start" 3 >> "$work/floor2"
  echo >> "$work/floor2"
  awk -v a="$(cpu_of "$work/time.floor0")" -v b="$(cpu_of "$work/time.floor1")" \
    'BEGIN {print (b > a) ? b : a}' >> "$work/cpu-floor2"
}
# Every analysis rank under /usr/bin/time -v, each writing its own file.
cat > "$work/timed" <<'WRAP'
#!/bin/sh
exec /usr/bin/time -v -o "$TIMED_DIR/time.${OMPI_COMM_WORLD_RANK:-0}" "$@"
WRAP
chmod +x "$work/timed"
export TIMED_DIR=$work
run_analyze() {  # run_analyze K EXPERIMENT NAME [MPIRUN OPTION...]: wall seconds to $work/NAME-K, peak RSS (kB) per rank to $work/rss-NAME-K
  local k=$1 experiment=$2 name=$3 start end
  shift 3
  start=$(now)
  # shellcheck disable=SC2086 # options are words
  mpirun -np "$k" --oversubscribe ${MPIRUN_OPTIONS:-} "$@" -x TIMED_DIR "$work/timed" \
    "$analyze" --force --timeline-events 0 --output "$work/out" "$experiment" < /dev/null > /dev/null
  end=$(now)
  calc "$end - $start" 3 >> "$work/$name-$k"
  echo >> "$work/$name-$k"
  local most=0
  for ((r = 0; r < k; r++)); do
    sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$work/time.$r" >> "$work/rss-$name-$k"
    most=$(awk -v a="$most" -v b="$(cpu_of "$work/time.$r")" 'BEGIN {print (b > a) ? b : a}')
  done
  echo "$most" >> "$work/cpu-$name-$k"  # the busiest rank's CPU seconds
  rm -f "$work"/time.*
}

for ((i = 0; i < reps; i++)); do
  run_floor
  run_floor_pair
  run_analyze 1 "$work/trace" big
  run_analyze 2 "$work/trace" big
  run_analyze 1 "$work/tiny" tiny
  run_analyze 2 "$work/tiny" tiny
  if [[ -n ${BUSY_CORE:-} ]]; then
    taskset -c "$BUSY_CORE" sh -c 'while :; do :; done' &
    busy=$!
    run_analyze 2 "$work/trace" busy --bind-to core
    kill "$busy"
    wait "$busy" 2> /dev/null || true
    busy=
  fi
done

f=$(median < "$work/floor") fc=$(median < "$work/cpu-floor")
floor_rate=$(calc "$events / $f / 1e6" 1) floor_cpu_rate=$(calc "$events / $fc / 1e6" 1)
echo "medians of $reps runs; M = million events per second; CPU = user + system seconds of the busiest rank"
printf '  floor (plain OTF2 reader, 1 process)  wall %6.2f s %6s M/s | CPU %6.2f s %6s M/s\n' \
  "$f" "$floor_rate" "$fc" "$floor_cpu_rate"
f2=$(median < "$work/floor2") fc2=$(median < "$work/cpu-floor2")
floor2_rate=$(calc "$events / $f2 / 2 / 1e6" 1) floor2_cpu_rate=$(calc "$events / $fc2 / 2 / 1e6" 1)
printf '  floor of two readers at once, per reader  wall %6.2f s %6s M/s | CPU %6.2f s %6s M/s (the slower reader)\n' \
  "$f2" "$floor2_rate" "$fc2" "$floor2_cpu_rate"
echo "  the machine's speed-up from one reader to two: wall $(calc "$f / $f2"), CPU $(calc "$fc / $fc2")"
for k in 1 2; do
  t=$(median < "$work/big-$k") c=$(median < "$work/cpu-big-$k")
  s=$(median < "$work/tiny-$k") sc=$(median < "$work/cpu-tiny-$k")
  rate=$(calc "$events / $t / $k / 1e6" 1) cpu_rate=$(calc "$events / $c / $k / 1e6" 1)
  net=$(calc "$events / ($t - $s) / $k / 1e6" 1) cpu_net=$(calc "$events / ($c - $sc) / $k / 1e6" 1)
  rss=$(sort -g "$work/rss-big-$k" | tail -1)
  printf '  strata-analyze K=%d per rank           wall %6.2f s %6s M/s (%s x floor) | CPU %6.2f s %6s M/s (%s x floor) | peak RSS %d MB\n' \
    "$k" "$t" "$rate" "$(calc "$rate / $floor_rate")" "$c" "$cpu_rate" "$(calc "$cpu_rate / $floor_cpu_rate")" $((rss / 1024))
  if ((k == 2)); then
    printf '      against the floor of two readers at once: wall %s x, CPU %s x\n' \
      "$(calc "$rate / $floor2_rate")" "$(calc "$cpu_rate / $floor2_cpu_rate")"
  fi
  printf '      without the start-up (wall %.2f s, CPU %.2f s on a 1-iteration trace): wall %s M/s (%s x floor), CPU %s M/s (%s x floor)\n' \
    "$s" "$sc" "$net" "$(calc "$net / $floor_rate")" "$cpu_net" "$(calc "$cpu_net / $floor_cpu_rate")"
done
t1=$(median < "$work/big-1") t2=$(median < "$work/big-2")
c1=$(median < "$work/cpu-big-1") c2=$(median < "$work/cpu-big-2")
s1=$(median < "$work/tiny-1") s2=$(median < "$work/tiny-2")
echo "  speed-up K=1 -> K=2: wall $(calc "$t1 / $t2"), CPU of the busiest rank $(calc "$c1 / $c2"); wall without the start-up $(calc "($t1 - $s1) / ($t2 - $s2)")"
# The machine's speed drifts over seconds; the runs of one repetition are
# back to back, so the median of their ratios cancels the drift better.
paired() { paste "$work/$1" "$work/$2" | awk 'NF == 2 && $2 > 0 {print $1 / $2}' | median; }
echo "  the same as medians of each repetition's ratio (adjacent runs): K=1 -> K=2 wall $(calc "$(paired big-1 big-2)"), CPU $(calc "$(paired cpu-big-1 cpu-big-2)"); one reader -> two $(calc "$(paired floor floor2)")"
if [[ -n ${BUSY_CORE:-} ]]; then
  b=$(median < "$work/busy-2")
  echo "  K=2 bound to cores, another process busy on core $BUSY_CORE: wall $(calc "$b") s, $(calc "$t1 / $b") x faster than K=1 alone (the same as medians of each repetition's ratio: $(calc "$(paired big-1 busy-2)"); a fixed split: at most 1.0, at best 1.5)"
fi
echo "  peak RSS of a rank on the one-iteration trace: $(( $(sort -g "$work/rss-tiny-1" | tail -1) / 1024 )) MB"
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg) (on $(nproc) cores)"
