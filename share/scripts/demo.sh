#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's demo command: install what is missing, build Strata, build the
# example heat solver with the `strata` compiler wrapper, run it with tracing,
# and show where the experiment is and what it measured.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$top/build}
"$here/install-dependencies.sh"
BUILD_DIR=$build "$here/build.sh"

demo=$build/demo
mkdir -p "$demo"
cd "$demo"
# Open MPI refuses to start as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ranks=4

echo
echo "== Building the example heat solver with the strata compiler wrapper (MPI)"
"$build/instrumenter/strata" --verbose mpicc -O2 -g -DSTRATA_EXAMPLE_WITH_MPI "$top/share/examples/heat.c" -o heat

experiment=$demo/strata-demo-$(date +%Y%m%d_%H%M%S)
echo
# A grid large enough that the compute, not the start-up of the ranks, takes
# most of the run (about 0.2 s): with 512x512 the ranks' differing start-up
# time in main sometimes came out as the largest imbalance.
echo "== Running it on $ranks ranks: 2048x2048 grid, 40 iterations, rank 2 does 2.5x the work, tracing on"
STRATA_ENABLE_TRACING=true STRATA_EXPERIMENT_DIRECTORY=$experiment \
  mpirun -np $ranks --oversubscribe ./heat -n 2048 -i 40 -x 2:2.5

echo
echo "== The experiment directory (one for all ranks): $experiment"
ls -l "$experiment"
echo
"$build/analysis/strata-score" "$experiment" --top 12
if [ -x "$build/analysis/strata-analyze" ]; then
  echo
  echo "== strata-analyze (2 analysis ranks)"
  mpirun -np 2 --oversubscribe "$build/analysis/strata-analyze" "$experiment"
fi
echo
echo "== The first events of the OTF2 trace (otf2-print)"
otf2-print "$experiment/traces.otf2" | sed -n '1,16p'

# The CUDA example, where the CUDA toolkit is installed (the adapter is built then).
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ] && ls "$build"/adapters/cuda/libstrata-cuda.so* > /dev/null 2>&1; then
  echo
  echo "== Building the CUDA example with strata nvcc (MPI through -ccbin mpicxx)"
  "$build/instrumenter/strata" "$nvcc" -O2 -g -ccbin mpicxx "$top/share/examples/gpu_streams.cu" -o gpu_streams
  gpu_experiment=$demo/strata-demo-gpu-$(date +%Y%m%d_%H%M%S)
  echo "== Running it on 2 ranks, tracing on (without a GPU it says so and measures its NVTX ranges only)"
  STRATA_ENABLE_TRACING=true STRATA_EXPERIMENT_DIRECTORY=$gpu_experiment \
    mpirun -np 2 --oversubscribe ./gpu_streams -n 10
  if [ -x "$build/analysis/strata-analyze" ]; then
    "$build/analysis/strata-analyze" "$gpu_experiment" | sed -n '/^GPUs/,/^$/p'
  fi
fi
echo
echo "Open $experiment/traces.otf2 in Vampir or read it with otf2-print; profile.h5 with h5dump or h5py;"
echo "profile.cubex in Cube; trace.json in ui.perfetto.dev."
if [ -f "$experiment/analysis/report.html" ]; then
  echo
  echo "The report, to open in a browser (one file, no server needed):"
  echo "  $experiment/analysis/report.html"
fi
