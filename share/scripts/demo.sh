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
echo
echo "== Building the example with the strata compiler wrapper"
"$build/instrumenter/strata" --verbose gcc -O2 -g "$top/share/examples/heat.c" -o heat

experiment=$demo/strata-demo-$(date +%Y%m%d_%H%M%S)
echo
echo "== Running it: 600x600 grid, 40 iterations, tracing on"
STRATA_ENABLE_TRACING=true STRATA_EXPERIMENT_DIRECTORY=$experiment ./heat -n 600 -i 40

echo
echo "== The experiment directory: $experiment"
ls -l "$experiment"
echo
if [ -x "$build/analysis/strata-score" ]; then
  "$build/analysis/strata-score" "$experiment" --top 12
else
  echo "(strata-score was not built; the profile is $experiment/profile.h5)"
fi
echo
echo "== The first events of the OTF2 trace (otf2-print)"
otf2-print "$experiment/traces.otf2" | sed -n '1,14p'
echo
echo "Open $experiment/traces.otf2 in Vampir or read it with otf2-print; profile.h5 with h5dump or h5py."
