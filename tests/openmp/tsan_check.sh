#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer check of the OpenMP adapter: builds Strata with
# -fsanitize=thread (GCC) into TSAN_BUILD_DIR, builds programs/omp_constructs.c
# with that build's `strata gcc -fsanitize=thread -fopenmp`, runs it and
# fails when a report has a frame in Strata's code.
#
#   tests/openmp/tsan_check.sh [TSAN_BUILD_DIR]
#
# Reports without a Strata frame are expected and listed: LLVM's libomp is not
# built for ThreadSanitizer, so its own locks, and the program's accesses that
# libomp's critical sections and locks protect, look unsynchronised.  Where
# Strata relies on libomp to hand data between threads, it tells
# ThreadSanitizer (measurement/include/strata/measurement/thread_sanitizer.hpp).
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
cmake --build "$build" -j"$(nproc)" --target strata strata-openmp strata-user strata-compiler strata-measurement \
  > "$build/tsan-build.log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/instrumenter/strata" --no-plugin gcc -O1 -g $flags -fopenmp "$top/tests/openmp/programs/omp_constructs.c" -o "$work/omp"
status=0
(cd "$work" && OMP_MAX_ACTIVE_LEVELS=2 STRATA_ENABLE_TRACING=true TSAN_OPTIONS="halt_on_error=0 exitcode=0" \
  ./omp > stdout.txt 2> tsan.txt) || status=$?
[ "$status" = 0 ] || { echo "the program failed ($status)"; cat "$work/tsan.txt"; exit 1; }
awk '/WARNING: ThreadSanitizer/{n++} n>0{print > (dir "/report" n ".txt")}' dir="$work" "$work/tsan.txt"
ours=0 theirs=0
for report in "$work"/report*.txt; do
  [ -e "$report" ] || continue
  if grep -Eq 'ompt_tool|strata::|libstrata-|adapters/|measurement/src' "$report"; then
    ours=$((ours + 1))
    cat "$report"
  else
    theirs=$((theirs + 1))
  fi
done
echo "ThreadSanitizer: $ours report(s) with a frame in Strata, $theirs in libomp or in code libomp synchronises"
[ "$ours" = 0 ]
