#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer check of the OpenMP adapters: builds Strata with
# -fsanitize=thread (GCC) into TSAN_BUILD_DIR, builds programs/omp_constructs.c
# with that build's `strata gcc -fsanitize=thread -fopenmp`, on GCC's libgomp
# (libstrata-openmp-gomp) and moved to LLVM's libomp (OMPT), runs both and
# fails when a racing access is made in Strata's code (a Strata frame before
# any frame of the program in the access's stack: the program's own accesses
# run under Strata's frames, which call its parallel bodies and tasks).
#
#   tests/openmp/tsan_check.sh [TSAN_BUILD_DIR]
#
# The other reports are expected and counted: neither runtime is built for
# ThreadSanitizer, so their own locks, and the program's accesses that their
# critical sections and locks protect, look unsynchronised.  Where Strata
# relies on a runtime to hand data between threads, it tells ThreadSanitizer
# (measurement/include/strata/measurement/thread_sanitizer.hpp).
# GCC only: a clang -fsanitize=thread program would bring a second TSan runtime;
# and -finstrument-functions: the GCC plugin, built with TSan, cannot load into cc1.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build-tsan}
flags=-fsanitize=thread
# The logs go inside the build directory, never beside it in the source tree.
mkdir -p "$build"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=$flags -DCMAKE_CXX_FLAGS=$flags \
  -DCMAKE_EXE_LINKER_FLAGS=$flags -DCMAKE_SHARED_LINKER_FLAGS=$flags > "$build/tsan-cmake.log"
cmake --build "$build" -j"$(nproc)" \
  --target strata strata-openmp strata-openmp-gnu strata-openmp-gomp strata-user strata-compiler strata-measurement \
  > "$build/tsan-build.log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ours=0 theirs=0
for runtime in libgomp libomp; do
  "$build/instrumenter/strata" --no-plugin --gcc-openmp-runtime=$runtime gcc -O1 -g $flags -fopenmp \
    "$top/tests/openmp/programs/omp_constructs.c" -o "$work/omp-$runtime"
  status=0
  (cd "$work" && OMP_MAX_ACTIVE_LEVELS=2 STRATA_ENABLE_TRACING=true TSAN_OPTIONS="halt_on_error=0 exitcode=0" \
    "./omp-$runtime" > "stdout-$runtime.txt" 2> "tsan-$runtime.txt") || status=$?
  [ "$status" = 0 ] || { echo "$runtime: the program failed ($status)"; cat "$work/tsan-$runtime.txt"; exit 1; }
  rm -f "$work"/report*.txt
  awk '/WARNING: ThreadSanitizer/{n++} n>0{print > (dir "/report" n ".txt")}' dir="$work" "$work/tsan-$runtime.txt"
  for report in "$work"/report*.txt; do
    [ -e "$report" ] || continue
    # In each access's stack ("Write of size 8 ... by thread T1:", "Previous read ..."),
    # the first frame that is Strata's or the program's decides.
    if awk '
      /^  (Previous )?([Aa]tomic )?([Rr]ead|[Ww]rite) of size/ { access = 1; decided = 0; next }
      /^  [^ ]/ { access = 0 }
      access && !decided && /^    #[0-9]+ / {
        if ($0 ~ /omp_constructs\.c/) decided = 1
        else if ($0 ~ /ompt_tool|gomp_entry_points|strata::|libstrata-|adapters\/|measurement\/src/) { found = 1; decided = 1 }
      }
      END { exit found ? 0 : 1 }' "$report"; then
      ours=$((ours + 1))
      echo "--- $runtime"
      cat "$report"
    else
      theirs=$((theirs + 1))
    fi
  done
done
echo "ThreadSanitizer: $ours report(s) of an access in Strata, $theirs in the runtimes or in code they synchronise"
[ "$ours" = 0 ]
