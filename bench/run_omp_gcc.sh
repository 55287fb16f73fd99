#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A GCC-compiled OpenMP program under Strata: does it wait as it waits alone?
# Strata measures GCC's libgomp through its GOMP_* entry points (the default
# of `strata gcc -fopenmp` and strata-preload), or moves the program to LLVM's
# libomp and measures it through OMPT (--gcc-openmp-runtime=libomp), whose
# threads wait differently (spin, then yield or sleep) from libgomp's (a fixed
# spin count, then a futex).  This runs omp_bench.c (many short parallel
# regions, each a worksharing loop and its barrier) built with gcc -fopenmp:
#
#   gomp            plain, on its own libgomp
#   libomp          plain, on libomp (LD_PRELOAD): the runtime swap alone
#   profile, trace  built with `strata --no-compiler gcc -fopenmp`: on libgomp
#   profile-libomp, trace-libomp   the same with --gcc-openmp-runtime=libomp
#
# with P processes of OMP_NUM_THREADS=2 started together (P=1: as many
# threads as this machine's 2 cores; P=2: twice as many, as 2 ranks x 2
# threads on one node), and prints the median wall time of the P processes
# together over REPS repetitions, with the fastest and slowest.
#
#   [REGIONS=N] [PROCESSES="1 2"] bench/run_omp_gcc.sh [BUILD_DIR] [REPS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${2:-5}
n=${REGIONS:-20000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libomp=$(ls /usr/lib/llvm-*/lib/libomp.so 2> /dev/null | sort -V | tail -1)
export OMP_NUM_THREADS=2

gcc -O2 -fopenmp "$here/omp_bench.c" -o "$work/plain"
"$build/instrumenter/strata" --no-compiler gcc -O2 -fopenmp "$here/omp_bench.c" -o "$work/strata" 2> /dev/null
"$build/instrumenter/strata" --no-compiler --gcc-openmp-runtime=libomp gcc -O2 -fopenmp "$here/omp_bench.c" \
  -o "$work/strata-libomp" 2> /dev/null

# "median (min-max)": where threads outnumber cores, libgomp's waits make single runs differ a lot.
median() { sort -g | awk '{v[NR]=$1} END {printf "%s (%s-%s)", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2, v[1], v[NR]}'; }

together() {  # together P BINARY [VAR=VALUE...]: wall seconds of P processes started together
  local p=$1 bin=$2 start end
  shift 2
  start=$(date +%s.%N)
  for ((k = 0; k < p; k++)); do
    env "$@" STRATA_EXPERIMENT_DIRECTORY="$work/exp$k" "$bin" "$n" > /dev/null 2>&1 &
  done
  wait
  end=$(date +%s.%N)
  rm -rf "$work"/exp*
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

echo "GCC OpenMP program (omp_bench.c, $n parallel regions, $OMP_NUM_THREADS threads per process, $reps repetitions, median wall seconds)"
for p in ${PROCESSES:-1 2}; do
  for ((i = 0; i < reps; i++)); do
    together "$p" "$work/plain" >> "$work/gomp-$p"
    [[ -n $libomp ]] && together "$p" "$work/plain" LD_PRELOAD="$libomp" >> "$work/libomp-$p"
    for variant in "" -libomp; do
      together "$p" "$work/strata$variant" STRATA_ENABLE_PROFILING=true >> "$work/profile$variant-$p"
      together "$p" "$work/strata$variant" STRATA_ENABLE_PROFILING=false STRATA_ENABLE_TRACING=true \
        STRATA_TOTAL_MEMORY=1G >> "$work/trace$variant-$p"
    done
  done
  line="  $p process(es), $((p * OMP_NUM_THREADS)) threads on $(nproc) cores:"
  for mode in gomp libomp profile trace profile-libomp trace-libomp; do
    [[ -f $work/$mode-$p ]] && line+="  $mode $(median < "$work/$mode-$p") s"
  done
  echo "$line"
done
